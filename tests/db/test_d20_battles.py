"""A D20 battle through the JSON API and the battle page: CP left and out, Shaken until the
figurine's next turn (the Searing Grenade example's "Evasion back next turn"), charges placed
together with their countdown (a secret one shown to nobody until it runs out), defused by
Dexterity, set off; seeded rolls logged with every die and the odds they had; Undo restoring
the state; refusals answered 422 naming the field with nothing rolled or logged."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
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
SAPPER = {
    "name": "Sapper",
    "kind": "su",
    "shot": 8,
    "hth": 6,
    "pd": 12,
    "evasion": 3,
    "dexterity": 9,
    "cp": 3,
    "weapons": [
        {"type": "gun", "name": "Rifle", "reach": 60, "power": 6},
        {"type": "searing_grenade"},
        {"type": "lightning_charge"},
        {"type": "lightning_charge"},
        {"type": "hurricane_charge"},
        {"type": "hypersensor_mine"},
    ],
}


def _chrono(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "shot": 7,
        "pd": 14,
        "evasion": 6,
        "dexterity": 4,
        "cp": 2,
        "weapons": [{"type": "gun", "name": "Psy pistol", "reach": 30, "power": 5}],
    }


def _standing(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log's entries that stand: the log only grows, an undo and what it undid stay."""
    return [e for e in log if e["undone_by"] is None and e["kind"] != "undo"]


@dataclass
class Game:
    client: TestClient
    headers: dict[str, str]
    battle: int
    ids: dict[str, int]

    @property
    def url(self) -> str:
        return f"/api/v1/battles/{self.battle}"

    def detail(self) -> dict[str, Any]:
        r = self.client.get(self.url)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def unit(self, name: str) -> dict[str, Any]:
        return next(u for u in self.detail()["units"] if u["id"] == self.ids[name])

    def state(self, name: str) -> dict[str, Any]:
        state: dict[str, Any] = self.unit(name)["state"]
        return state

    def states(self) -> dict[int, dict[str, Any]]:
        return {u["id"]: u["state"] for u in self.detail()["units"]}

    def log(self) -> list[dict[str, Any]]:
        log: list[dict[str, Any]] = self.detail()["log"]
        return log

    def act(self, name: str, action: str, seed: int = 1, **values: Any) -> Any:
        return self.client.post(
            f"{self.url}/units/{self.ids[name]}/{action}",
            json={"seed": seed, "values": values},
            headers=self.headers,
        )

    def roll(
        self,
        attacker: str,
        targets: list[str],
        weapons: list[int],
        seed: int,
        **situation: Any,
    ) -> Any:
        body = {
            "attacker_id": self.ids[attacker],
            "target_id": self.ids[targets[0]],
            "followers": [{"unit_id": self.ids[t]} for t in targets[1:]],
            "weapons": weapons,
            "situation": situation,
            "seed": seed,
        }
        return self.client.post(f"{self.url}/rolls", json=body, headers=self.headers)

    def undo(self) -> Any:
        return self.client.delete(f"{self.url}/rolls/last", headers=self.headers)


def _document(name: str, units: list[dict[str, Any]]) -> bytes:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": "d20",
        "name": name,
        "budget": 500,
        "notes": "",
        "house_rules": {},
        "units": units,
    }
    return json.dumps(doc).encode()


def _start(client: TestClient, headers: dict[str, str], army_ids: list[int], name: str) -> int:
    r = client.post("/api/v1/battles", json={"name": name, "army_ids": army_ids}, headers=headers)
    assert r.status_code == 201, r.text
    battle: int = r.json()["id"]
    return battle


@pytest.fixture
def game(app: FastAPI) -> Iterator[Game]:
    with TestClient(app) as client:
        member = sign_up(client, email=f"d20-{next(_ids)}@example.com")
        with app.state.sessionmaker() as session:
            user = session.scalars(select(User).where(User.email == member.email)).one()
            red = transfer.import_army(session, user=user, raw=_document("FCA", [SAPPER]))
            blue = transfer.import_army(
                session,
                user=user,
                raw=_document(
                    "Chronos", [_chrono("Chrono A"), _chrono("Chrono B"), _chrono("Chrono C")]
                ),
            )
            session.commit()
            army_ids = [red.id, blue.id]
        headers = {"X-CSRF-Token": member.csrf}
        battle = _start(client, headers, army_ids, "Hall")
        other = _start(client, headers, army_ids, "Elsewhere")
        with app.state.sessionmaker() as session:
            ids = {
                u.name: u.id
                for u in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle))
            }
            ids["Other Chrono"] = next(
                u.id
                for u in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == other))
                if u.name == "Chrono A"
            )
        yield Game(client, headers, battle, ids)


def _seed(*rolls: int) -> int:
    """A seed whose first D20 rolls are ``rolls``."""
    return next(s for s in range(500_000) if _first(s, len(rolls)) == list(rolls))


def _first(seed: int, n: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(1, 20) for _ in range(n)]


def _refused(r: Any, field: str) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"] == field, r.text


def _p_over(bonus: int, defence: int) -> float:
    """P(bonus + 1D20 > defence), the D20's faces counted."""
    return sum(1 for d in range(1, 21) if bonus + d > defence) / 20


CHRONOS = ["Chrono A", "Chrono B", "Chrono C"]


# ------------------------------------------------------------------ the Searing Grenade


def test_the_searing_grenade_shakes_three_chronos_until_their_next_turn_then_undo(
    game: Game,
) -> None:
    """The text's example (named in tests/worked_examples/d20.toml): a Searing Grenade
    thrown into the hall catches three Chronos; no die; all three Shaken, Evasion lost until
    their next turn."""
    fresh = game.states()
    r = game.roll("Sapper", CHRONOS, [1], 1, mode="explosion", distance=15)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seed"] == 1 and entry["kind"] == "attack"
    (line,) = entry["dice"]
    assert line["dice"] == []  # no roll
    assert [e["flags"] for e in line["effects"]] == [["shaken"]] * 3
    odds = entry["odds"]["lines"][0]["targets"]
    assert [t["unit_id"] for t in odds] == [game.ids[n] for n in CHRONOS]
    assert all(t["extras"]["shaken"] == 1 and t["outcomes"]["unhurt"] == 1 for t in odds)
    for name in CHRONOS:
        unit = game.unit(name)
        assert unit["state"]["shaken"] is True and unit["evasion"] == "0"
        assert "Shaken (no Evasion) until its next turn" in unit["badges"]
    assert game.state("Sapper")["spent"] == [1]
    assert "Searing Grenade used" in game.unit("Sapper")["badges"]
    shaken = game.states()

    # Shaken: no shot; nothing rolled, nothing logged
    _refused(game.roll("Chrono A", ["Sapper"], [0], 1, distance=10), "attacker_id")
    assert game.states() == shaken and len(game.log()) == 1
    # the grenade is used up
    _refused(game.roll("Sapper", ["Chrono A"], [1], 1, mode="explosion"), "weapons")

    # a shot at a Shaken Chrono: its PD alone (14) against Shot 8 + Power 6
    preview = game.client.post(
        f"/api/v1/battles/{game.battle}/odds",
        json={
            "attacker_id": game.ids["Sapper"],
            "target_id": game.ids["Chrono A"],
            "weapons": [0],
            "situation": {"distance": 30},
        },
        headers=game.headers,
    )
    assert preview.status_code == 200, preview.text
    assert preview.json()["shaken_targets"] == ["Chrono A"]
    (t,) = preview.json()["odds"]["lines"][0]["targets"]
    assert 1 - t["outcomes"]["unhurt"] == pytest.approx(_p_over(14, 14))

    # Evasion back with the next turn
    r = game.act("Chrono A", "new_turn")
    assert r.status_code == 201 and r.json()["summary"] == "Chrono A: new turn, no longer Shaken"
    assert r.json()["dice"] == [] and r.json()["seed"] is None
    assert game.unit("Chrono A")["evasion"] == "6" and not game.state("Chrono A")["shaken"]
    assert game.state("Chrono B")["shaken"]
    assert game.undo().status_code == 200
    assert game.states() == shaken
    game.undo()
    assert game.states() == fresh and _standing(game.log()) == []


def test_wounds_take_cp_and_at_0_cp_a_chrono_is_out(game: Game) -> None:
    twenty = _seed(20)
    r = game.roll("Sapper", ["Chrono A"], [0], twenty, distance=30)
    assert r.status_code == 201, r.text
    (line,) = r.json()["dice"]
    (die,) = line["dice"]
    assert (die["sides"], die["natural"], die["value"], die["unit_id"]) == (
        20,
        20,
        34,
        game.ids["Chrono A"],
    )
    assert die["purpose"] == "vs defence 20"
    (target,) = r.json()["odds"]["lines"][0]["targets"]
    assert 1 - target["outcomes"]["unhurt"] == pytest.approx(_p_over(14, 20))
    assert game.unit("Chrono A")["cp"] == "1/2" and game.state("Chrono A")["cp_lost"] == 1
    game.roll("Sapper", ["Chrono A"], [0], twenty, distance=30)
    unit = game.unit("Chrono A")
    assert unit["state"]["out"] is True and unit["cp"] == "0/2" and "out" in unit["badges"]
    _refused(game.roll("Sapper", ["Chrono A"], [0], 1, distance=30), "target_id")
    assert len(game.log()) == 2
    text = game.client.get(f"/battles/{game.battle}/export.txt").text
    assert "Sapper attacks Chrono A" in text and "CP 0/2" in text


# ------------------------------------------------------------------ charges


def test_two_p10_charges_with_a_secret_countdown_run_out_and_go_off_as_p20(game: Game) -> None:
    fresh = game.states()
    r = game.act(
        "Sapper",
        "place_charge",
        charge_weapons="2, 3",
        charge_timer="countdown",
        charge_turns=2,
        charge_secret=True,
    )
    assert r.status_code == 201, r.text
    assert r.json()["dice"] == [] and "2 turns" not in r.json()["summary"]
    assert "P20/r10 (2 charges set together), secret countdown" in r.json()["summary"]
    # the battle's owner sees the countdown (the API's unit state, the page's badge)
    charges = game.state("Sapper")["charges"]
    assert [(c["weapon"], c["power"], c["group"], c["countdown"]) for c in charges] == [
        (2, 10, 1, 2),
        (3, 10, 1, 2),
    ]
    page = game.client.get(f"/battles/{game.battle}").text
    assert "secret countdown (0 turns counted): 2 turns left" in page
    # the form says who sees it (its side's player and the host: ruling P5)
    assert "only its side&#39;s player and the host see it" in page
    # the read-only link (its page and its JSON) and the forum export do not
    token = game.client.post(f"{game.url}/share-link", headers=game.headers).json()["token"]
    shared_page = game.client.get(f"/battles/shared/{token}")
    shared_json = game.client.get(f"/api/v1/battles/shared/{token}")
    assert shared_page.status_code == 200 and shared_json.status_code == 200
    text = game.client.get(f"/battles/{game.battle}/export.txt").text
    for shown in (shared_page.text, text, shared_json.text):
        assert "secret countdown (0 turns counted)" in shown and "2 turns left" not in shown
    sapper = next(u for u in shared_json.json()["units"] if u["id"] == game.ids["Sapper"])
    assert [c["countdown"] for c in sapper["state"]["charges"]] == [None, None]
    # nor does the API's log say it: its before/after states go through public_state
    (placing,) = game.log()
    after = next(iter(placing["changes"].values()))["after"]
    assert [c["countdown"] for c in after["charges"]] == [None, None]
    assert placing["changes"] == r.json()["changes"]
    placed = game.states()

    # ticking one of two charges set together is refused; nothing rolled
    _refused(game.roll("Sapper", ["Chrono A"], [2], 1, mode="explosion"), "weapons")
    assert game.states() == placed and len(game.log()) == 1

    game.act("Sapper", "new_turn")
    assert "1 turn counted" in " ".join(game.unit("Sapper")["badges"])
    r = game.act("Sapper", "new_turn")
    assert (
        "charges run out: P20/r10 (2 charges set together), run out after 2 turns"
        in (r.json()["summary"])
    )
    assert [c["countdown"] for c in game.state("Sapper")["charges"]] == [0, 0]

    seed = _seed(3, 15)
    r = game.roll("Sapper", ["Chrono A", "Chrono B"], [2, 3], seed, mode="explosion")
    assert r.status_code == 201, r.text
    entry = r.json()
    (line,) = entry["dice"]
    assert [(d["natural"], d["value"]) for d in line["dice"]] == [(3, 23), (15, 35)]
    assert [d["unit_id"] for d in line["dice"]] == [game.ids["Chrono A"], game.ids["Chrono B"]]
    for t in entry["odds"]["lines"][0]["targets"]:
        assert 1 - t["outcomes"]["unhurt"] == pytest.approx(_p_over(20, 14))  # PD alone
    count = entry["odds"]["detail"]["wounded_count"]
    p = _p_over(20, 14)
    assert count["2"] == pytest.approx(p * p) and count["0"] == pytest.approx((1 - p) ** 2)
    assert game.state("Sapper")["charges"] == []
    assert game.state("Chrono A")["cp_lost"] == 1 and game.state("Chrono B")["cp_lost"] == 1
    game.undo()
    assert [c["countdown"] for c in game.state("Sapper")["charges"]] == [0, 0]
    for _ in range(2):
        game.undo()
    assert game.states() == placed
    game.undo()
    assert game.states() == fresh and _standing(game.log()) == []


def test_defusing_by_dexterity_is_seeded_and_logged_with_its_odds(game: Game) -> None:
    game.act("Sapper", "place_charge", charge_weapons="4", charge_timer="countdown", charge_turns=5)
    placed = game.states()
    seed = _seed(6)  # Dexterity 4 + 6 = 10, not over DL 15
    r = game.act("Sapper", "defuse", seed=seed, defuse_dexterity=4)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seed"] == seed and entry["kind"] == "defuse"
    (die,) = entry["dice"][0]["dice"]
    assert (die["natural"], die["value"], die["against"], die["sides"]) == (6, 10, 15, 20)
    assert die["odds"] == pytest.approx(_p_over(4, 15)) and die["purpose"] == "defuse vs DL 15"
    assert game.states() == placed
    r = game.act("Sapper", "defuse", seed=_seed(12), defuse_dexterity=4)
    assert "Hurricane-type charge defused" in r.json()["summary"]
    assert game.state("Sapper")["charges"] == []
    game.undo()
    assert game.states() == placed


def test_a_p15_charge_is_set_against_the_chronos_pd_alone_not_its_evasion(game: Game) -> None:
    """RULINGS 3.3: "Power of the explosion + 1 D20 / Physical Defense": the Chrono's
    Evasion 6 dodges the Sapper's shot (PD 14 + 6) but not its charge (PD 14)."""
    game.act("Sapper", "place_charge", charge_weapons="4", charge_timer="hand")
    seed = _seed(1)
    r = game.roll("Sapper", ["Chrono A"], [4], seed, mode="explosion")
    assert r.status_code == 201, r.text
    (die,) = r.json()["dice"][0]["dice"]
    assert (die["natural"], die["value"], die["purpose"]) == (1, 16, "vs defence 14")
    (target,) = r.json()["odds"]["lines"][0]["targets"]
    assert 1 - target["outcomes"]["unhurt"] == pytest.approx(_p_over(15, 14)) == 1.0
    assert r.json()["odds"]["lines"][0]["steps"][-1] == ["+ 1D20 against", "PD (+ cover)"]
    assert game.state("Chrono A")["cp_lost"] == 1  # 16 > 14: a natural 1 wounds
    r = game.roll("Sapper", ["Chrono B"], [0], seed, distance=30)
    (target,) = r.json()["odds"]["lines"][0]["targets"]
    assert 1 - target["outcomes"]["unhurt"] == pytest.approx(_p_over(14, 20)) == 0.7
    assert r.json()["dice"][0]["dice"][0]["purpose"] == "vs defence 20"


def test_the_cupboard_of_dl_10_falls_to_a_p15_charge_on_a_1(game: Game) -> None:
    """The text's example (named in tests/worked_examples/d20.toml): a P15/r10 charge set off
    against the cupboard's DL 10; a D20 of 1 is enough (15 + 1 > 10)."""
    sapper = f"/api/v1/battles/{game.battle}/units/{game.ids['Sapper']}"
    placed = {"values": {"charge_weapons": "4", "charge_timer": "hand"}}
    r = game.client.post(f"{sapper}/place_charge", json=placed, headers=game.headers)
    assert r.status_code == 201, r.text
    body = {"seed": _seed(1), "values": {"detonate_objects": "10"}}
    r = game.client.post(f"{sapper}/detonate", json=body, headers=game.headers)
    assert r.status_code == 201, r.text
    (die,) = r.json()["dice"][0]["dice"]
    assert (die["natural"], die["value"], die["against"]) == (1, 16, 10)
    assert die["odds"] == _p_over(15, 10) == 1.0
    assert r.json()["summary"] == "Sapper: sets off P15/r10, no timer: object DL 10 destroyed"
    assert game.state("Sapper")["charges"] == []


def test_setting_off_rolls_each_figurine_in_the_radius_and_each_object_then_undo(
    game: Game,
) -> None:
    """Issue 27: setting off names the figurines in the radius (any side: the Sapper itself
    too) and the objects; Power + 1D20 against each figurine's PD alone, each object's DL;
    every die logged, each state changed, the destroyed objects named; Undo restores all."""
    r = game.act("Sapper", "place_charge", charge_weapons="2, 3", charge_timer="hand")
    assert r.status_code == 201, r.text
    placed = game.states()
    seed = 12345
    a, b, own, first, second = _first(seed, 5)  # the dice in the order rolled
    r = game.act(
        "Sapper",
        "detonate",
        seed=seed,
        detonate_units="Chrono A, Chrono B, Sapper",
        detonate_objects="25, 40",
    )
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seed"] == seed and entry["kind"] == "detonate"
    (line,) = entry["dice"]
    dice = [(d["purpose"], d["sides"], d["natural"], d["value"]) for d in line["dice"]]
    assert dice == [
        ("vs defence 14", 20, a, 20 + a),
        ("vs defence 14", 20, b, 20 + b),
        ("vs defence 12", 20, own, 20 + own),
        ("object DL 25", 20, first, 20 + first),
        ("object DL 40", 20, second, 20 + second),
    ]
    ids = [game.ids[n] for n in ("Chrono A", "Chrono B", "Sapper")]
    assert [d["unit_id"] for d in line["dice"][:3]] == ids
    assert [e["unit_id"] for e in line["effects"]] == ids
    for dl, natural in ((25, first), (40, second)):
        word = "destroyed" if dl <= 20 + natural - 1 else "stands"
        assert f"object DL {dl} {word}" in entry["summary"]
    for name, natural, pd in (("Chrono A", a, 14), ("Chrono B", b, 14)):
        assert game.state(name)["cp_lost"] == int(20 + natural > pd)
    sapper = game.state("Sapper")
    assert sapper["cp_lost"] == int(20 + own > 12)
    assert sapper["charges"] == [] and sapper["spent"] == [2, 3]
    assert game.state("Chrono C") == placed[game.ids["Chrono C"]]
    odds = entry["odds"]["lines"][0]["targets"]
    assert [1 - t["outcomes"]["unhurt"] for t in odds] == pytest.approx(
        [_p_over(20, 14), _p_over(20, 14), _p_over(20, 12)]
    )
    assert [o["destroyed"] for o in entry["odds"]["detail"]["objects"]] == pytest.approx(
        [sum(20 + d - 1 >= 25 for d in range(1, 21)) / 20, 0.0]
    )
    assert set(entry["changes"]) == {str(i) for i in ids}
    assert game.undo().status_code == 200
    assert game.states() == placed


def test_a_trap_goes_off_when_an_opponent_trips_it(game: Game) -> None:
    r = game.act("Sapper", "place_charge", charge_weapons="4", charge_timer="trap", trap_width=4)
    assert r.status_code == 201, r.text
    assert "across a passageway 4 cm wide" in r.json()["summary"]
    assert "trip_trap" in str(game.client.get(f"/battles/{game.battle}").text)
    placed = game.states()
    # the trap is not set off by hand, nor ticked in an attack
    _refused(game.act("Sapper", "detonate", detonate_nothing=True), "unit")
    _refused(game.roll("Sapper", ["Chrono A"], [4], 1, mode="explosion"), "weapons")
    seed = _seed(2, 19)
    r = game.act("Sapper", "trip_trap", seed=seed, trip_unit="Chrono B", detonate_units="Chrono C")
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["summary"].startswith("Sapper: Chrono B trips P15/r10, trap in a passageway")
    (line,) = entry["dice"]
    assert [(d["unit_id"], d["natural"], d["value"]) for d in line["dice"]] == [
        (game.ids["Chrono B"], 2, 17),
        (game.ids["Chrono C"], 19, 34),
    ]
    assert game.state("Chrono B")["cp_lost"] == 1 and game.state("Chrono C")["cp_lost"] == 1
    assert game.state("Sapper")["charges"] == [] and game.state("Sapper")["spent"] == [4]
    game.undo()
    assert game.states() == placed


def test_a_mine_goes_off_for_any_figurine_coming_within_its_radius_and_shakes_all(
    game: Game,
) -> None:
    r = game.act("Sapper", "lay_mine", mine_weapon=5)
    assert r.status_code == 201, r.text
    assert "mine laid" in r.json()["summary"]
    laid = game.states()
    seed = _seed(1, 1)
    r = game.act("Sapper", "enter_mine", seed=seed, trip_unit="Sapper", detonate_units="Chrono A")
    assert r.status_code == 201, r.text
    (line,) = r.json()["dice"]
    # F25 + 1 against PD 12 and 14: both wounded, and both Shaken, hurt or not
    assert [(d["natural"], d["value"]) for d in line["dice"]] == [(1, 26), (1, 26)]
    for name in ("Sapper", "Chrono A"):
        assert game.state(name)["shaken"] is True and game.state(name)["cp_lost"] == 1
    assert game.state("Sapper")["spent"] == [5] and game.state("Sapper")["charges"] == []
    game.undo()
    assert game.states() == laid


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("action", "values", "field"),
    [
        ("place_charge", {"charge_turns": 21}, "charge_turns"),
        ("place_charge", {"charge_weapons": "0", "charge_timer": "hand"}, "charge_weapons"),
        ("place_charge", {"charge_weapons": "2", "charge_timer": "trap"}, "trap_width"),
        (
            "place_charge",
            {"charge_weapons": "2", "charge_timer": "trap", "trap_width": 8},
            "trap_width",
        ),
        (
            "place_charge",
            {"charge_weapons": "2", "charge_timer": "hand", "charge_secret": True},
            "charge_secret",
        ),
        ("lay_mine", {}, "mine_weapon"),
        ("trip_trap", {"trip_unit": "Chrono A"}, "unit"),
        ("defuse", {"defuse_dexterity": 9}, "unit"),
        ("defuse", {"defuse_dexterity": "lots"}, "defuse_dexterity"),
        ("detonate", {}, "unit"),
    ],
)
def test_a_refused_action_is_422_naming_the_field_and_nothing_is_logged(
    game: Game, action: str, values: dict[str, Any], field: str
) -> None:
    before = game.states()
    _refused(game.act("Sapper", action, **values), field)
    assert game.states() == before and _standing(game.log()) == []


def test_placing_a_charge_with_empty_fields_is_a_422_naming_each_missing_field(
    game: Game,
) -> None:
    """Issue 27: no silent "first charge, no timer"."""
    r = game.act("Sapper", "place_charge")
    assert r.status_code == 422, r.text
    assert {d["field"] for d in r.json()["detail"]} == {"charge_weapons", "charge_timer"}
    r = game.act("Sapper", "place_charge", charge_weapons="2", charge_timer="trap")
    assert [d["field"] for d in r.json()["detail"]] == ["trap_width"]
    r = game.act("Sapper", "detonate")
    assert r.status_code == 422 and _standing(game.log()) == []


def test_an_unknown_action_is_404_and_nothing_is_logged(game: Game) -> None:
    assert game.act("Sapper", "teleport").status_code == 404 and _standing(game.log()) == []


@pytest.mark.parametrize(
    ("attacker", "targets", "weapons", "situation", "field"),
    [
        ("Sapper", ["Other Chrono"], [0], {}, "target_id"),
        ("Other Chrono", ["Sapper"], [0], {}, "attacker_id"),
        ("Sapper", ["Chrono A", "Other Chrono"], [0], {"mode": "automatic"}, "followers"),
        ("Sapper", ["Chrono A"], [2], {"mode": "explosion"}, "weapons"),
        ("Sapper", ["Chrono A"], [0], {"distance": 61}, "weapons"),
        ("Sapper", ["Chrono A"], [0], {"mode": "defuse"}, "mode"),
    ],
)
def test_a_refused_attack_is_422_naming_the_field_and_nothing_is_rolled(
    game: Game,
    attacker: str,
    targets: list[str],
    weapons: list[int],
    situation: dict[str, Any],
    field: str,
) -> None:
    before = game.states()
    r = game.roll(attacker, targets, weapons, 1, **situation)
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["field"].startswith(field), r.text
    assert game.states() == before and _standing(game.log()) == []


# ------------------------------------------------------------------ the page


def test_the_battle_page_shows_d20_figurines_and_places_a_secret_charge(game: Game) -> None:
    page = game.client.get(f"/battles/{game.battle}")
    assert page.status_code == 200, page.text[:2000]
    assert 'class="cp">3/3</span>' in page.text and 'class="defence">15</span>' in page.text
    assert "Place charges: Sapper" in page.text and 'name="charge_secret"' in page.text
    assert 'name="shaken"' not in page.text and '"defuse"' not in page.text
    assert page.text.count('name="detonate_units"') == 1  # a shared field, shown once
    assert '<select id="f-charge_timer" name="charge_timer"' in page.text
    token = game.headers["X-CSRF-Token"]
    url = f"/battles/{game.battle}/units/{game.ids['Sapper']}/place_charge"
    # empty fields: a 422 naming every missing field inline, nothing placed or logged
    for headers in ({"HX-Request": "true"}, {}):
        refused = game.client.post(
            url, data={"csrf_token": token}, headers=headers, follow_redirects=False
        )
        assert refused.status_code == 422, refused.text[:2000]
        assert 'id="f-charge_weapons-err"' in refused.text
        assert 'id="f-charge_timer-err"' in refused.text
        assert "name the charges to place" in refused.text and "Not done:" in refused.text
    assert game.state("Sapper")["charges"] == [] and _standing(game.log()) == []
    refused = game.client.post(
        url,
        data={"csrf_token": token, "charge_weapons": "4", "charge_timer": "countdown"},
        headers={"HX-Request": "true"},
    )
    assert refused.status_code == 422 and 'id="f-charge_turns-err"' in refused.text
    assert 'value="4"' in refused.text  # what was typed stays
    done = game.client.post(
        url,
        data={
            "csrf_token": token,
            "charge_weapons": "2",
            "charge_timer": "countdown",
            "charge_turns": "4",
            "charge_secret": "on",
        },
        headers={"HX-Request": "true"},
    )
    assert done.status_code == 200, done.text[:2000]
    assert "secret countdown (0 turns counted): 4 turns left" in done.text  # the owner's
    (charge,) = game.state("Sapper")["charges"]
    assert charge["weapon"] == 2 and charge["secret"] and charge["countdown"] == 4
    refused = game.client.post(
        f"/battles/{game.battle}/units/{game.ids['Chrono A']}/detonate",
        data={"csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert refused.status_code == 422 and "no charges on the table" in refused.text


def test_the_battle_page_renders_a_logged_d20_explosion(game: Game) -> None:
    r = game.roll("Sapper", CHRONOS, [1], 1, mode="explosion", distance=15)
    assert r.status_code == 201, r.text
    page = game.client.get(f"/battles/{game.battle}")
    assert page.status_code == 200, page.text[:2000]
    assert "odds-table" in page.text and "Cannot roll this" not in page.text
    text = game.client.get(f"/battles/{game.battle}/export.txt").text
    assert "Sapper attacks Chrono A" in text and "Shaken" in text
