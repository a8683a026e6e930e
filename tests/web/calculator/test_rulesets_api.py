"""Every rule system over JSON through the one Ruleset interface: the list with options, the
catalogue, and the ruleset-neutral stateless odds and rolls."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.rules.registry import RULESETS

BODY = {
    "action": {"die": 6, "use": 4},
    "damage": {"dice": 3, "sides": 6, "per_die_modifier": -1},
    "armor": {"dice": 2, "sides": 6},
    "deflection": 1,
}


def test_the_list_names_every_ruleset_with_its_options(client: TestClient) -> None:
    r = client.get("/api/v1/rulesets")
    assert r.status_code == 200
    listed = {x["id"]: x for x in r.json()}
    assert set(listed) == set(RULESETS)
    brikwars = listed["brikwars"]
    assert brikwars["rules_version"] == "BrikWars 2010"
    assert brikwars["catalogue"] == "/api/v1/rulesets/brikwars/catalogue"
    options = {o["name"]: o for o in brikwars["options"]}
    assert options["bonus_die"]["kind"] == "choice" and options["bonus_die"]["default"] == "same"
    assert [c["value"] for c in options["bonus_die"]["choices"]] == ["same", "d6", "none"]
    assert options["allow_over_budget"] == {
        "name": "allow_over_budget",
        "label": "Allow builds over budget (a warning, not an error)",
        "kind": "flag",
        "default": False,
        "min": None,
        "max": None,
        "choices": None,
        "help": None,
    }
    assert client.get("/api/v1/rulesets/brikwars").json() == brikwars


def test_an_unknown_ruleset_is_a_404(client: TestClient) -> None:
    for path in ("/api/v1/rulesets/degreez", "/api/v1/rulesets/degreez/catalogue"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["detail"][0]["field"] == "ruleset"
    r = client.post("/api/v1/rulesets/degreez/odds", json=BODY)
    assert r.status_code == 404


def test_the_catalogue_lists_weapons_with_their_fields(client: TestClient) -> None:
    entries = {e["id"]: e for e in client.get("/api/v1/rulesets/brikwars/catalogue").json()}
    old = client.get("/api/v1/brikwars/catalogue").json()
    old_ids = {e["id"] for e in (old if isinstance(old, list) else old["weapons"])}
    assert set(entries) <= old_ids and "gun" in entries
    gun = entries["gun"]
    assert gun["details"]["cost"] == "3×S" and gun["details"]["damage"] == "S d6"
    assert [f["name"] for f in gun["fields"]] == ["size", "mount", "label"]
    explosive = next(e for e in entries.values() if e["details"].get("sized_by") == "bricks")
    assert {"xsize", "variant"} <= {f["name"] for f in explosive["fields"]}


def test_neutral_odds_agree_with_the_brikwars_endpoint(client: TestClient) -> None:
    neutral = client.post("/api/v1/rulesets/brikwars/odds", json=BODY)
    assert neutral.status_code == 200, neutral.text
    own = client.post("/api/v1/brikwars/odds", json=BODY).json()
    (line,) = neutral.json()["lines"]
    (target,) = line["targets"]
    p = {o["key"]: o["probability"] for o in target["outcomes"]}
    assert sum(p.values()) == pytest.approx(1.0, abs=1e-9)
    assert p["miss"] == pytest.approx(own["miss"])
    assert p["something_bad"] == pytest.approx(own["something_bad"])
    assert p["destroyed"] + p["size_damage"] == pytest.approx(own["destroyed"])
    assert line["damage"] == own["damage_distribution"]
    assert neutral.json()["decisive"] == pytest.approx(own["destroyed"])


def test_neutral_rolls_are_seeded_and_agree_with_the_brikwars_endpoint(
    client: TestClient,
) -> None:
    first = client.post("/api/v1/rulesets/brikwars/roll", json=BODY | {"seed": 11}).json()
    again = client.post("/api/v1/rulesets/brikwars/roll", json=BODY | {"seed": 11}).json()
    own = client.post("/api/v1/brikwars/roll", json=BODY | {"seed": 11}).json()
    assert first == again and first["seed"] == 11
    (line,) = first["lines"]
    assert [d["natural"] for d in line["dice"]] == [d["natural"] for d in own["dice"]]
    assert line["effects"][0]["outcome"] in {own["outcome"], "size_damage"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**BODY, "damage": {"dice": True, "sides": 6}}, "damage.dice"),
        ({**BODY, "damage": {"dice": 3, "sides": 7}}, "damage.sides"),
        ({**BODY, "armor": {}}, "armor"),
        ({**BODY, "deflection": 101}, "deflection"),
        ({**BODY, "colour": "red"}, "colour"),
        ({**BODY, "options": {"bonus_die": "d7"}}, "bonus_die"),
        ({**BODY, "damage": "3d6"}, "damage"),
    ],
)
def test_bad_bodies_name_the_field(client: TestClient, body: dict, field: str) -> None:  # type: ignore[type-arg]
    r = client.post("/api/v1/rulesets/brikwars/odds", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field


def test_a_roll_needs_a_seed(client: TestClient) -> None:
    for seed in (None, -1, True, 2**63):
        body = BODY if seed is None else BODY | {"seed": seed}
        r = client.post("/api/v1/rulesets/brikwars/roll", json=body)
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "seed"


def test_heavy_attacks_run_in_the_calculation_workers(client: TestClient) -> None:
    body = {"damage": {"dice": 99, "sides": 20}, "armor": {"dice": 100, "sides": 20}}
    r = client.post("/api/v1/rulesets/brikwars/odds", json=body)
    assert r.status_code == 200, r.text
    (target,) = r.json()["lines"][0]["targets"]
    assert sum(o["probability"] for o in target["outcomes"]) == pytest.approx(1.0, abs=1e-9)


def test_too_much_work_names_what_to_reduce(client: TestClient) -> None:
    body = {
        "damage": {"dice": 99, "sides": 4, "per_die_modifier": 1000},
        "armor": {"fixed": 4},
        "deflection": 3,
    }
    r = client.post("/api/v1/rulesets/brikwars/odds", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == "damage.per_die_modifier"


def test_a_rulesets_own_fields_answer_beside_the_shared_ones() -> None:
    """``AttackOdds.detail`` and ``AttackRoll.detail`` reach the stateless answers at their
    top level; a detail key cannot replace a shared one."""
    import json
    import random

    from app.rules.ruleset import AttackOdds, AttackRoll
    from app.services.compute_jobs import attack_odds_json, attack_roll_json

    class WithDetail:
        def inline(self) -> bool:
            return True

        def problems(self) -> tuple[str, ...]:
            return ()

        def odds(self) -> AttackOdds:
            return AttackOdds((), 0.25, detail={"hit": 0.5, "decisive": 9})

        def roll(self, rng: random.Random) -> AttackRoll:
            return AttackRoll((), detail={"targets": [{"hp": rng.randint(1, 3)}], "seed": -1})

    odds = json.loads(attack_odds_json(WithDetail()))
    assert odds["hit"] == 0.5 and odds["decisive"] == 0.25 and odds["lines"] == []
    rolled = json.loads(attack_roll_json(WithDetail(), 7))
    assert rolled["seed"] == 7 and rolled["targets"][0]["hp"] in (1, 2, 3)
