"""A Degrees battle through the JSON API and the battle page: seeded attacks and actions logged
with every die and the odds they had, each unit's state kept (Armour, HP, AP lost, restraint,
dampened senses, a gas gun's pumped AP and damaged max, bloom), Undo restoring it, refusals
answered 422 naming the field with nothing rolled."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import BattleUnit, User
from app.services import transfer
from app.services.army_document import FORMAT, VERSION
from tests.web.conftest import sign_up

_ids = itertools.count(1)
THINNY = {
    "name": "Thinny",
    "kind": "personnel",
    "degree": 2,
    "op": 1,
    "weapons": [
        {"type": "stun_gun"},
        {"type": "gas_gun"},
        {"type": "p_gun"},
        {"type": "gamma_gun"},
        {"type": "sensory_dampener"},
    ],
}
SIMO = {
    "name": "Simo",
    "kind": "personnel",
    "degree": 3,
    "senses": ["audition", "vision"],
    "weapons": [{"type": "sensory_dampener"}, {"type": "rifle"}],
}


def _standing(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log's entries that stand: the log only grows, an undo and what it undid stay."""
    return [e for e in log if e["undone_by"] is None and e["kind"] != "undo"]


@dataclass
class Game:
    client: TestClient
    headers: dict[str, str]
    battle: int
    thinny: int
    simo: int

    @property
    def url(self) -> str:
        return f"/api/v1/battles/{self.battle}"

    def detail(self) -> dict[str, Any]:
        r = self.client.get(self.url)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def unit(self, unit_id: int) -> dict[str, Any]:
        return next(u for u in self.detail()["units"] if u["id"] == unit_id)

    def state(self, unit_id: int) -> dict[str, Any]:
        state: dict[str, Any] = self.unit(unit_id)["state"]
        return state

    def states(self) -> dict[int, dict[str, Any]]:
        return {u["id"]: u["state"] for u in self.detail()["units"]}

    def act(self, unit_id: int, action: str, seed: int = 1, **values: Any) -> Any:
        return self.client.post(
            f"{self.url}/units/{unit_id}/{action}",
            json={"seed": seed, "values": values},
            headers=self.headers,
        )

    def roll(
        self, attacker: int, target: int, weapons: list[int], seed: int, **situation: Any
    ) -> Any:
        body = {
            "attacker_id": attacker,
            "target_id": target,
            "weapons": weapons,
            "situation": situation,
            "seed": seed,
        }
        return self.client.post(f"{self.url}/rolls", json=body, headers=self.headers)

    def undo(self) -> Any:
        return self.client.delete(f"{self.url}/rolls/last", headers=self.headers)


def _document(name: str, unit: dict[str, Any]) -> bytes:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": "degrees",
        "name": name,
        "budget": 500,
        "notes": "",
        "house_rules": {},
        "units": [unit],
    }
    return json.dumps(doc).encode()


@contextmanager
def _battle(app: FastAPI, red_unit: dict[str, Any], blue_unit: dict[str, Any]) -> Iterator[Game]:
    """A battle between one saved unit a side: ``thinny`` is the red one, ``simo`` the blue."""
    with TestClient(app) as client:
        member = sign_up(client, email=f"degrees{next(_ids)}@example.com")
        with app.state.sessionmaker() as session:
            user = session.scalars(select(User).where(User.email == member.email)).one()
            red = transfer.import_army(session, user=user, raw=_document("Red", red_unit))
            blue = transfer.import_army(session, user=user, raw=_document("Blue", blue_unit))
            session.commit()
            army_ids = [red.id, blue.id]
        headers = {"X-CSRF-Token": member.csrf}
        r = client.post(
            "/api/v1/battles", json={"name": "Ridge", "army_ids": army_ids}, headers=headers
        )
        assert r.status_code == 201, r.text
        battle = r.json()["id"]
        with app.state.sessionmaker() as session:
            ids = {
                u.name: u.id
                for u in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle))
            }
        yield Game(client, headers, battle, ids[red_unit["name"]], ids[blue_unit["name"]])


@pytest.fixture
def game(app: FastAPI) -> Iterator[Game]:
    with _battle(app, THINNY, SIMO) as game:
        yield game


def _seed(*rolls: int) -> int:
    """A seed whose first d10 rolls are ``rolls``."""
    return next(s for s in range(100_000) if _first(s, len(rolls)) == list(rolls))


def _first(seed: int, n: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(1, 10) for _ in range(n)]


def _refused(r: Any, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field, r.text


# ------------------------------------------------------------------ actions


def test_the_texts_over_compression_through_the_api_then_undo(game: Game) -> None:
    """Round 1: 2 AP into the 2-max gas gun (no roll). Round 2: 2 more with 1 OP on the first
    compression roll: a 3 against 2° holds, a 1 against 4° damages it to 1-max."""
    fresh = game.states()
    r = game.act(game.thinny, "pump", pump_ap=2, pump_weapon=1)
    assert r.status_code == 201, r.text
    assert r.json()["dice"] == [] and r.json()["seed"] is None
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 2, "max": 2}}
    assert game.state(game.thinny)["ap_spent"] == 2
    assert game.act(game.thinny, "new_round").status_code == 201
    seed = _seed(3, 1)
    before = game.states()
    r = game.act(game.thinny, "pump", seed=seed, pump_ap=2, pump_op=1)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seed"] == seed and entry["kind"] == "pump"
    dice = entry["dice"][0]["dice"]
    assert [(d["natural"], d["against"]) for d in dice] == [(3, 2), (1, 4)]
    assert all(d["sides"] == 10 and d["unit_id"] == game.thinny for d in dice)
    after = game.state(game.thinny)
    assert after["gas"] == {"1": {"pumped": 4, "max": 1}} and after["ap_spent"] == 2
    unit = game.unit(game.thinny)
    assert any(w["degree"] == "1-max" and w["pumped"] == "4" for w in unit["weapons"])
    assert game.undo().status_code == 200
    assert game.states() == before
    game.undo()
    game.undo()
    assert game.states() == fresh and _standing(game.detail()["log"]) == []


def test_location_draw_begin_and_new_round_are_kept(game: Game) -> None:
    r = game.act(game.simo, "location", location="Hex 4", location_bloom=3)
    assert (
        r.status_code == 201 and r.json()["summary"] == "Simo is at Hex 4, bloom 3 (incandescent)"
    )
    assert game.unit(game.simo)["bloom"] == "3"
    assert "bloom 3 (incandescent)" in game.unit(game.simo)["badges"]
    assert game.act(game.thinny, "draw").status_code == 201
    assert game.act(game.thinny, "begin", begin_ap=2).status_code == 201
    state = game.state(game.thinny)
    assert (state["drawn"], state["carried"], state["ap_spent"], state["ap_left"]) == (
        True,
        2,
        3,
        0,
    )
    assert game.act(game.thinny, "new_round").status_code == 201
    assert game.act(game.simo, "new_round").status_code == 201
    assert game.state(game.thinny)["ap_left"] == 3 and game.state(game.thinny)["carried"] == 2
    assert game.state(game.simo)["bloom"] == 2  # a quiet round


@pytest.mark.parametrize(
    ("action", "values", "field"),
    [
        ("pump", {"pump_ap": 0}, "pump_ap"),
        ("pump", {"pump_ap": 4}, "unit"),
        ("pump", {"pump_weapon": 0}, "pump_weapon"),
        ("pump", {"pump_op": 2}, "pump_op"),
        ("break_free", {}, "unit"),
        ("begin", {"begin_ap": "lots"}, "begin_ap"),
        ("location", {"location_bloom": 11}, "location_bloom"),
    ],
)
def test_a_refused_action_is_422_naming_the_field_and_nothing_is_logged(
    game: Game, action: str, values: dict[str, Any], field: str
) -> None:
    before = game.states()
    _refused(game.act(game.thinny, action, **values), field)
    assert game.states() == before and _standing(game.detail()["log"]) == []


def test_an_unknown_action_is_404(game: Game) -> None:
    r = game.act(game.thinny, "teleport")
    assert r.status_code == 404 and _standing(game.detail()["log"]) == []


def test_the_battle_page_shows_degrees_units_and_takes_an_action(game: Game) -> None:
    game.act(game.simo, "location", location="Hex 4", location_bloom=1)
    page = game.client.get(f"/battles/{game.battle}")
    assert page.status_code == 200, page.text[:2000]
    assert 'class="armour">3/3</span>' in page.text and 'class="bloom">1</span>' in page.text
    assert "Pump: Thinny" in page.text and "Draw p-gun: Thinny" in page.text
    assert 'name="pump_ap"' in page.text and 'name="location"' in page.text
    token = game.headers["X-CSRF-Token"]
    done = game.client.post(
        f"/battles/{game.battle}/units/{game.thinny}/pump",
        data={"csrf_token": token, "pump_ap": "1"},
        headers={"HX-Request": "true"},
    )
    assert done.status_code == 200, done.text[:2000]
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 1, "max": 2}}
    refused = game.client.post(
        f"/battles/{game.battle}/units/{game.thinny}/break_free",
        data={"csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert refused.status_code == 422 and "not restrained" in refused.text


# ------------------------------------------------------------------ attacks


def test_seeded_attacks_are_logged_with_every_die_and_their_odds_then_undone(game: Game) -> None:
    """A stun gun (2°) hits Simo with a 2: 2 AP lost, restrained; Simo may then only break
    free; a dampener and a γ-gun follow; each Undo gives the state back."""
    fresh = game.states()
    seed = _seed(2)
    r = game.roll(game.thinny, game.simo, [0], seed)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seed"] == seed and entry["kind"] == "attack"
    (line,) = entry["dice"]
    assert [(d["purpose"], d["sides"], d["natural"], d["unit_id"]) for d in line["dice"]] == [
        ("attack vs 2°", 10, 2, game.simo)
    ]
    (effect,) = line["effects"]
    assert effect["outcome"] == "drained" and effect["flags"] == ["restrained"]
    odds = entry["odds"]["lines"][0]["targets"][0]
    assert odds["unit_id"] == game.simo
    assert abs(odds["extras"]["restrained"] - 0.2) < 1e-12  # a d10 at or under 2
    assert abs(sum(odds["outcomes"].values()) - 1) < 1e-12
    simo = game.state(game.simo)
    assert (simo["restrained"], simo["ap_spent"], simo["ap_lost"], simo["hp"]) == (
        True,
        2,
        0,
        None,
    )
    assert game.state(game.thinny)["ap_spent"] == 1
    assert "restrained" in game.unit(game.simo)["badges"]
    after_stun = game.states()

    refused = game.roll(game.simo, game.thinny, [1], 1)
    _refused(refused, "attacker_id")
    assert game.states() == after_stun and len(game.detail()["log"]) == 1

    seed = _seed(3)  # the dampener's 4° + 1 extended: a 3 hits, 3 AP, 3 senses
    r = game.roll(game.thinny, game.simo, [4], seed, extend=1, range="close")
    assert r.status_code == 201, r.text
    simo = game.state(game.simo)
    assert simo["dampened"] == ["audition", "vision", "nociception"]
    assert simo["dampened_rounds"] == 2 and simo["ap_spent"] == 3 and simo["ap_lost"] == 2
    assert game.state(game.thinny)["ap_spent"] == 2
    after_dampener = game.states()

    over = game.roll(game.thinny, game.simo, [2], 1)  # a p-gun: 3 AP, 1 left
    _refused(over, "weapons")
    assert "needs 3 AP; Thinny has 1 left this round" in over.text
    assert game.states() == after_dampener and len(game.detail()["log"]) == 2

    r = game.roll(game.thinny, game.simo, [3], _seed(10), range="close")  # γ-gun: a miss
    assert r.status_code == 201, r.text
    assert game.state(game.thinny)["energy_fired"] and game.state(game.simo)["energy_fired"]
    game.act(game.simo, "new_round")
    simo = game.state(game.simo)
    assert simo["pre_bloom"] and simo["dampened_rounds"] == 1
    # the 2 owed paid first, then Nociception (3rd of Simo's order, still dampened) costs 3
    # more (DF11): 1 paid from the round, 2 owed
    assert (simo["ap_spent"], simo["ap_lost"]) == (3, 2)

    assert [e["kind"] for e in game.detail()["log"]] == ["attack"] * 3 + ["new_round"]
    game.undo()
    game.undo()
    assert game.states() == after_dampener
    game.undo()
    assert game.states() == after_stun
    game.undo()
    assert game.states() == fresh and _standing(game.detail()["log"]) == []


def test_the_gas_gun_fires_its_pumped_ap_and_keeps_its_damaged_max(game: Game) -> None:
    game.act(game.thinny, "pump", pump_ap=2, pump_weapon=1)
    game.act(game.thinny, "new_round")
    game.act(game.thinny, "pump", seed=_seed(3, 1), pump_ap=2, pump_op=1)
    game.act(game.thinny, "new_round")
    game.act(game.simo, "new_round")
    preview = game.client.post(
        f"{game.url}/odds",
        json={
            "attacker_id": game.thinny,
            "target_id": game.simo,
            "weapons": [1],
            "situation": {"extend": 1, "range": "present"},
        },
        headers=game.headers,
    )
    assert preview.status_code == 200, preview.text
    assert preview.json()["carried"] == 4 and preview.json()["ap_left"] == 3
    r = game.roll(game.thinny, game.simo, [1], _seed(5), extend=1, range="present")
    assert r.status_code == 201, r.text
    (line,) = r.json()["dice"]
    assert [(d["purpose"], d["natural"], d["value"]) for d in line["dice"]] == [
        ("attack vs 5°", 5, 5)
    ]
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 0, "max": 1}}
    simo = game.unit(game.simo)
    assert simo["state"]["armour"] == 0 and simo["state"]["hp"] == 1
    assert "critically wounded" in simo["badges"] and simo["hp"] == "1/3"


def test_the_battle_page_renders_a_logged_degrees_attack(game: Game) -> None:
    assert game.roll(game.thinny, game.simo, [0], _seed(2)).status_code == 201
    page = game.client.get(f"/battles/{game.battle}")
    assert page.status_code == 200, page.text[:2000]
    assert "odds-table" in page.text and "Restrained" in page.text
    assert "Cannot roll this" not in page.text
    text = game.client.get(f"/battles/{game.battle}/export.txt").text
    assert "Thinny attacks Simo" in text and "attack vs 2°: d10 2" in text


# ------------------------------------------------------------------ the text's worked examples
# (named in tests/worked_examples/degrees.toml)


def _five_degree_shot_at_a_fresh_3(natural: int) -> tuple[int, int] | None:
    """(Armour, HP) after a 5° shot's natural at a fresh 3° (Armour 3, HP 3), by hand: a miss
    over 5; a natural 1 a point on the back line (no back Armour); else front first."""
    if natural > 5:
        return None
    if natural == 1:
        return 3, 2
    return max(3 - natural, 0), 3 - max(natural - 3, 0)


def test_worked_example_gas_gun_over_compression_through_the_battle_api(game: Game) -> None:
    """9.5.1: 2 AP pumped into the 2-max gas gun; next round both AP pumped, 1 OP on the first
    roll: a 3 against 3° - 1 OP = 2° fails (no damage), a 1 against 4° damages the gun to a
    1-max; next round the 4° carried + 1 AP = a 5° shot at a fresh 3° rolls a 5: front
    Armour gone, 2 HP lost, critically wounded."""
    url = f"/api/v1/battles/{game.battle}"
    pump = f"{url}/units/{game.thinny}/pump"
    r = game.client.post(pump, json={"values": {"pump_ap": 2}}, headers=game.headers)
    assert r.status_code == 201 and r.json()["dice"] == [], r.text
    assert game.act(game.thinny, "new_round").status_code == 201
    body = {"seed": _seed(3, 1), "values": {"pump_ap": 2, "pump_op": 1}}
    r = game.client.post(pump, json=body, headers=game.headers)
    assert r.status_code == 201, r.text
    dice = r.json()["dice"][0]["dice"]
    assert [(d["purpose"], d["natural"]) for d in dice] == [
        ("over-compression vs 2°", 3),
        ("over-compression vs 4°", 1),
    ]
    assert "damaged, now 1-max" in r.json()["summary"]
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 4, "max": 1}}
    assert game.act(game.thinny, "new_round").status_code == 201

    shot = {
        "attacker_id": game.thinny,
        "target_id": game.simo,
        "weapons": [1],
        "situation": {"extend": 1, "range": "present"},
    }
    preview = game.client.post(f"{url}/odds", json=shot, headers=game.headers)
    assert preview.status_code == 200, preview.text
    detail = preview.json()["odds"]["detail"]
    assert detail["ap_needed"] == 2 and preview.json()["carried"] == 4
    after = [_five_degree_shot_at_a_fresh_3(n) for n in range(1, 11)]
    assert detail["hit"] == pytest.approx(sum(a is not None for a in after) / 10)
    assert detail["critically_wounded"] == pytest.approx(
        sum(a is not None and a[1] == 1 for a in after) / 10
    )
    r = game.client.post(f"{url}/rolls", json=shot | {"seed": _seed(5)}, headers=game.headers)
    assert r.status_code == 201, r.text
    (line,) = r.json()["dice"]
    assert [(d["purpose"], d["natural"]) for d in line["dice"]] == [("attack vs 5°", 5)]
    simo = game.unit(game.simo)
    assert (simo["state"]["armour"], simo["state"]["hp"]) == _five_degree_shot_at_a_fresh_3(5)
    assert (simo["state"]["armour"], simo["state"]["hp"]) == (0, 1)
    assert "critically wounded" in simo["badges"]
    assert game.state(game.thinny)["gas"] == {"1": {"pumped": 0, "max": 1}}


def test_worked_example_thinnys_p_gun_over_two_rounds_through_the_battle_api(
    game: Game,
) -> None:
    """9.5.2's p-gun table: round 1 the Thinny begins (1 AP) and whips out the p-gun (1 AP);
    round 2 it devotes another AP and fires (1 AP): a 5° attack of the 4° p-gun, hit on a
    1-5. A SWAT's 6° (the stateless API): a raw 6 kills a fresh 3°."""
    url = f"/api/v1/battles/{game.battle}"
    headers = game.headers
    draw = game.client.post(f"{url}/units/{game.thinny}/draw", json={}, headers=headers)
    assert draw.status_code == 201, draw.text
    begin = {"values": {"begin_ap": 1}}
    r = game.client.post(f"{url}/units/{game.thinny}/begin", json=begin, headers=headers)
    assert r.status_code == 201, r.text
    assert game.state(game.thinny)["ap_spent"] == 2  # round 1: 1 + 1
    assert game.act(game.thinny, "new_round").status_code == 201
    shot = {
        "attacker_id": game.thinny,
        "target_id": game.simo,
        "weapons": [2],
        "situation": {"extend": 1, "range": "close"},
    }
    preview = game.client.post(f"{url}/odds", json=shot, headers=headers)
    assert preview.status_code == 200, preview.text
    odds = preview.json()["odds"]
    assert ["final degree", "5°"] in odds["lines"][0]["steps"]
    assert odds["detail"]["hit"] == pytest.approx(5 / 10)  # a d10 of 1-5
    r = game.client.post(f"{url}/rolls", json=shot | {"seed": _seed(4)}, headers=headers)
    assert r.status_code == 201, r.text
    (die,) = r.json()["dice"][0]["dice"]
    assert (die["purpose"], die["natural"]) == ("attack vs 5°", 4)
    assert game.state(game.thinny)["ap_spent"] == 2  # round 2: 1 + 1; 4 AP in all

    swat = {"attack": {"degree": 6, "type": "percussion_gun"}, "target": {"armour": 3, "hp": 3}}
    answer = game.client.post("/api/v1/rulesets/degrees/odds", json=swat)
    assert answer.status_code == 200, answer.text
    assert answer.json()["destroyed"] == pytest.approx(1 / 10)  # a raw 6: 3 Armour + 3 HP
    for seed in range(40):
        rolled = game.client.post("/api/v1/rulesets/degrees/roll", json=swat | {"seed": seed})
        natural = rolled.json()["lines"][0]["dice"][0]["natural"]
        assert (rolled.json()["targets"][0]["hp"] == 0) == (natural == 6)


SWAT = {
    "name": "SWAT",
    "kind": "personnel",
    "degree": 3,
    "weapons": [{"type": "sensory_dampener", "degree": 4}],
}
SUSPECT = {
    "name": "Suspect",
    "kind": "personnel",
    "degree": 2,
    "senses": ["audition", "vision", "analgesia", "nociception"],
    "weapons": [],
}


def test_worked_example_swat_sensory_dampener_through_the_battle_api(app: FastAPI) -> None:
    """9.5.2's dampener table: round 1 the 0 AP attack at 4°, the GM rolls 5: a miss; round 2
    the SWAT turns up the heat (1 AP): 5°, the GM rolls 4: 4 AP lost, and the target's first
    four senses in its order (Audition, Vision, Analgesia, Nociception) dampened."""
    with _battle(app, SWAT, SUSPECT) as game:
        url = f"/api/v1/battles/{game.battle}"
        fire = {"attacker_id": game.thinny, "target_id": game.simo, "weapons": [0]}
        round_1 = fire | {"situation": {"range": "close"}}
        preview = game.client.post(f"{url}/odds", json=round_1, headers=game.headers)
        assert preview.status_code == 200, preview.text
        assert preview.json()["odds"]["detail"]["hit"] == pytest.approx(4 / 10)
        assert preview.json()["odds"]["detail"]["ap_needed"] == 0
        r = game.client.post(
            f"{url}/rolls", json=round_1 | {"seed": _seed(5)}, headers=game.headers
        )
        assert r.status_code == 201, r.text
        (die,) = r.json()["dice"][0]["dice"]
        assert (die["purpose"], die["natural"]) == ("attack vs 4°", 5)
        missed = game.state(game.simo)
        assert missed["dampened"] == [] and missed["ap_lost"] == missed["ap_spent"] == 0
        assert game.state(game.thinny)["ap_spent"] == 0
        for unit in (game.thinny, game.simo):
            assert game.act(unit, "new_round").status_code == 201

        round_2 = fire | {"situation": {"range": "close", "extend": 1}}
        preview = game.client.post(f"{url}/odds", json=round_2, headers=game.headers)
        detail = preview.json()["odds"]["detail"]
        assert detail["hit"] == pytest.approx(5 / 10) and detail["ap_needed"] == 1
        r = game.client.post(
            f"{url}/rolls", json=round_2 | {"seed": _seed(4)}, headers=game.headers
        )
        assert r.status_code == 201, r.text
        (die,) = r.json()["dice"][0]["dice"]
        assert (die["purpose"], die["natural"]) == ("attack vs 5°", 4)
        hit = game.state(game.simo)
        assert hit["ap_spent"] + hit["ap_lost"] == 4  # the target loses 4 AP
        assert hit["dampened"] == ["audition", "vision", "analgesia", "nociception"]
        assert (hit["armour"], hit["hp"], hit["restrained"]) == (None, None, False)  # untouched
        assert game.state(game.thinny)["ap_spent"] == 1


def test_an_incandescent_location_attacks_the_unit_at_its_new_round_then_undo(
    game: Game,
) -> None:
    """Incandescent Blooms: "A 1° attack at the beginning of each round from the environment on
    each unit in that hex". Simo's location at -4 loses a level in a quiet round ("Bloomed hexes
    loose 1 level of bloom at the end of any round during which no energy attacks pass") and
    is still incandescent (-3) when its round begins: the d10 is rolled and logged, a natural
    1 on its back line; Undo restores it."""
    assert game.act(game.simo, "location", location="Hex 4", location_bloom=4).status_code == 201
    before = game.states()
    r = game.act(game.simo, "new_round", seed=_seed(1))
    assert r.status_code == 201, r.text
    (line,) = r.json()["dice"]
    assert [(d["purpose"], d["natural"]) for d in line["dice"]] == [("incandescent bloom vs 1°", 1)]
    assert "incandescent bloom at 1°: d10 1, hits for 1" in r.json()["summary"]
    state = game.state(game.simo)
    assert (state["bloom"], state["hp"], state["armour"]) == (3, 2, None)
    assert game.unit(game.simo)["hp"] == "2/3"
    assert game.undo().status_code == 200
    assert game.states() == before
    # a quiet round from -3 leaves -2: no attack
    game.act(game.simo, "location", location="Hex 4", location_bloom=3)
    r = game.act(game.simo, "new_round", seed=_seed(1))
    assert r.json()["dice"] == [] and game.state(game.simo)["hp"] is None


def test_the_odds_of_an_ended_battle_are_refused_naming_the_battle(game: Game) -> None:
    """An ended battle shows no attack form and refuses every roll; its odds preview is
    refused alike (422 naming ``battle``) until Undo reopens it."""
    shot = {"attacker_id": game.simo, "target_id": game.thinny, "weapons": [1], "situation": {}}
    assert game.client.post(f"{game.url}/odds", json=shot, headers=game.headers).status_code == 200
    assert game.client.post(f"{game.url}/end", headers=game.headers).status_code == 201
    r = game.client.post(f"{game.url}/odds", json=shot, headers=game.headers)
    _refused(r, "battle")
    assert "ended" in r.json()["detail"][0]["reason"]
    assert game.undo().status_code == 200
    assert game.client.post(f"{game.url}/odds", json=shot, headers=game.headers).status_code == 200
