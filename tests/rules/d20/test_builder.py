"""The D20 builder (RULINGS 3.1-3.2 and docs/rulings.md "D20: building"): costs in points,
every build finding with its severity, the catalogue, the figures pages show, the army's own
weapons offered again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules.d20.building import MAX_REUSE, own_weapons
from app.rules.d20.catalogue import EQUIPMENT
from app.rules.d20.options import D20Options
from app.rules.d20.ruleset import RULESET
from app.rules.d20.units import D20Figurine, decode_unit
from app.rules.errors import InvalidInput
from app.rules.fields import parse_field

decode_options = RULESET.decode_options
DEFAULT = decode_options(None)
RIFLE = {"type": "gun", "name": "Assault rifle", "reach": 60, "power": 6, "automatic": True}
PISTOL = {"type": "gun", "name": "Pistol", "reach": 25, "power": 4, "points": 2}
KNIFE = {"type": "hth", "name": "Knife", "power": 3, "points": 1}


def fig(*weapons: dict[str, Any], **fields: Any) -> D20Figurine:
    return decode_unit({"name": "F", **fields, "weapons": list(weapons)})


def found(u: D20Figurine, options: D20Options = DEFAULT) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.severity, f.weapon) for f in RULESET.unit_figures(u, options).findings]


# ------------------------------------------------------------------------ cost


def test_a_figurine_costs_its_own_points_plus_each_weapons_points() -> None:
    bare = fig(points=12)
    assert RULESET.unit_cost(bare, DEFAULT) == 12
    armed = fig(
        {**RIFLE, "points": 5}, KNIFE, {"type": "defensive_grenade", "points": 3}, points=12
    )
    figures = RULESET.unit_figures(armed, DEFAULT)
    assert figures.cost == RULESET.unit_cost(armed, DEFAULT) == 12 + 5 + 1 + 3
    assert figures.cost_text == "21 pts"
    assert [w.cost for w in figures.weapons] == [5, 1, 3]
    assert [RULESET.weapon_cost(armed, i, DEFAULT) for i in range(3)] == [5, 1, 3]
    assert [w.cost_text for w in figures.weapons] == ["5 pts", "1 pts", "3 pts"]


def test_points_default_to_zero_the_text_has_no_costs() -> None:
    u = fig(RIFLE, {"type": "typhoon_charge"})
    assert RULESET.unit_figures(u, DEFAULT).cost == 0


def test_costs_and_changes_are_written_in_pts() -> None:
    assert RULESET.format_cost(12) == "12 pts"
    assert RULESET.format_cost_change(3) == "+3 pts"
    assert RULESET.format_cost_change(-3) == "-3 pts"
    assert RULESET.format_cost_change(0) == "+0 pts"
    assert RULESET.cost_unit == "pts"


# ------------------------------------------------------------------------ findings


def test_a_grenade_on_a_figurine_that_is_not_an_su_is_an_error() -> None:
    for grenade in ("searing_grenade", "defensive_grenade", "flaming_grenade"):
        plain = fig(RIFLE, {"type": grenade})
        assert found(plain) == [("su_only", "error", 1)]
        message = RULESET.unit_figures(plain, DEFAULT).findings[0].message
        assert "only SUs carry grenades" in message and "F is not an SU" in message
        assert found(fig(RIFLE, {"type": grenade}, kind="su")) == []


def test_the_mine_and_charges_need_no_su() -> None:
    for kind in ("hypersensor_mine", "lightning_charge", "hurricane_charge", "typhoon_charge"):
        assert found(fig({"type": kind})) == []


def test_two_ranged_weapons_warn_that_the_figurine_shoots_one_target_per_turn() -> None:
    assert found(fig(RIFLE, KNIFE)) == []  # a hand-to-hand weapon is not ranged
    assert found(fig(RIFLE, KNIFE, PISTOL)) == [("one_target", "warning", 2)]
    three = fig(RIFLE, PISTOL, PISTOL)
    assert found(three) == [("one_target", "warning", 1), ("one_target", "warning", 2)]
    message = RULESET.unit_figures(three, DEFAULT).findings[0].message
    assert "shoots one target per turn" in message
    # grenades are thrown, not fired: no warning for a rifle and a grenade
    assert found(fig(RIFLE, {"type": "defensive_grenade"}, kind="su")) == []


def test_a_gun_of_reach_0_is_a_warning() -> None:
    u = fig({"type": "gun", "name": "Stub", "reach": 0, "power": 3})
    assert found(u) == [("reach_zero", "warning", 0)]
    assert "Reach 0 cm" in RULESET.unit_figures(u, DEFAULT).findings[0].message
    assert found(fig(KNIFE)) == []  # a hand-to-hand weapon has Reach 0


def test_a_weapon_may_have_several_findings_in_a_fixed_order() -> None:
    u = fig(
        RIFLE, {"type": "gun", "name": "Stub", "reach": 0, "power": 3}, {"type": "searing_grenade"}
    )
    assert found(u) == [
        ("one_target", "warning", 1),
        ("reach_zero", "warning", 1),
        ("su_only", "error", 2),
    ]


def test_a_weapons_own_figures_carry_its_findings_only() -> None:
    u = fig(RIFLE, PISTOL, {"type": "flaming_grenade"})
    assert RULESET.weapon_figures(u, 0, DEFAULT).findings == ()
    assert [f.code for f in RULESET.weapon_figures(u, 1, DEFAULT).findings] == ["one_target"]
    assert [f.code for f in RULESET.weapon_figures(u, 2, DEFAULT).findings] == ["su_only"]


def test_over_budget_is_an_error_or_a_warning_under_the_house_rule() -> None:
    u = fig(points=10)
    assert RULESET.army_findings([u, u], 20, DEFAULT) == []  # exactly the budget
    assert RULESET.army_findings([u, u], None, DEFAULT) == []
    over = RULESET.army_findings([u, u], 15, DEFAULT)
    assert [(f.severity, f.code) for f in over] == [("error", "over_budget")]
    assert over[0].message == "The army costs 20 pts, over its budget of 15 pts by 5 pts."
    lenient = decode_options({"allow_over_budget": True})
    assert [f.severity for f in RULESET.army_findings([u, u], 15, lenient)] == ["warning"]
    assert RULESET.budget_findings(20, 15, DEFAULT) == over


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"shot": 41}, "shot"),
        ({"hth": -1}, "hth"),
        ({"pd": 99}, "pd"),
        ({"evasion": 41}, "evasion"),
        ({"dexterity": -2}, "dexterity"),
        ({"cp": 0}, "cp"),
        ({"cp": 21}, "cp"),
        ({"points": -1}, "points"),
        ({"kind": "hero"}, "kind"),
        ({"weapons": [{"type": "gun", "name": "G", "reach": 10, "power": -1}]}, "weapons.0.power"),
        ({"weapons": [{"type": "gun", "name": "G", "reach": -5, "power": 1}]}, "weapons.0.reach"),
        ({"weapons": [{"type": "laser"}]}, "weapons.0.type"),
        (
            {"weapons": [{"type": "hth", "name": "K", "power": 2, "automatic": True}]},
            "weapons.0.automatic",
        ),
    ],
)
def test_stats_out_of_range_and_unknown_equipment_are_refused_by_field(
    data: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as err:
        decode_unit({"name": "F", **data})
    assert err.value.field == field


# ------------------------------------------------------------------------ figures


def test_figures_fill_the_columns_as_the_text_writes_them() -> None:
    u = fig(
        RIFLE,
        KNIFE,
        {"type": "flaming_grenade"},
        {"type": "searing_grenade"},
        {"type": "hypersensor_mine"},
        {"type": "hurricane_charge"},
        kind="su",
        shot=12,
        hth=8,
        pd=14,
        evasion=3,
        dexterity=5,
        cp=3,
        points=20,
    )
    figures = RULESET.unit_figures(u, DEFAULT)
    assert dict(figures.cells) == {
        "shot": "12",
        "hth": "8",
        "pd": "14",
        "evasion": "3",
        "dexterity": "5",
        "cp": "3",
        "points": "20",
    }
    assert figures.kind_text == "SU"
    cells = [dict(w.cells) for w in figures.weapons]
    assert cells[0] == {"reach": "60", "power": "P6", "radius": "—", "notes": "automatic"}
    assert cells[1] == {"reach": "0", "power": "P3", "radius": "—", "notes": "hand-to-hand"}
    assert cells[2] == {
        "reach": "20",
        "power": "F15",
        "radius": "r10",
        "notes": "cover does not protect, 2 CP fireball, SU only",
    }
    assert cells[3]["power"] == "P0" and cells[3]["notes"] == (
        "no roll, cover does not protect, Shaken, SU only"
    )
    assert cells[4] == {
        "reach": "—",
        "power": "F25",
        "radius": "r10",
        "notes": "cover protects, Shaken",
    }
    assert cells[5] == {
        "reach": "—",
        "power": "P15",
        "radius": "r10",
        "notes": "cover protects, timer 1-20 turns, DL 15 to defuse",
    }
    assert RULESET.unit_figures(fig(), DEFAULT).kind_text == "Figurine"


def test_the_api_fields_of_a_figurine_and_its_weapons() -> None:
    u = fig(RIFLE, {"type": "typhoon_charge", "points": 7}, kind="su", shot=9, cp=2, points=4)
    figures = RULESET.unit_figures(u, DEFAULT)
    assert RULESET.unit_json(figures) == {
        "su": True,
        "shot": 9,
        "hth": 0,
        "pd": 10,
        "evasion": 0,
        "dexterity": 0,
        "cp": 2,
        "points": 4,
    }
    charge = RULESET.weapon_json(figures.weapons[1])
    assert charge == {
        "category": "charge",
        "reach": 0,
        "power": 35,
        "power_text": "P35",
        "radius": 30,
        "automatic": False,
        "rules": ["cover protects", "timer 1-20 turns, DL 35 to defuse"],
        "cost": 7,
    }
    json.dumps(charge)
    assert RULESET.weapon_json(figures.weapons[0])["automatic"] is True


def test_a_figurine_as_text() -> None:
    u = fig(
        {**RIFLE, "points": 5, "label": "sling"},
        KNIFE,
        {"type": "defensive_grenade", "notes": "two of them"},
        {"type": "lightning_charge"},
        name="Trooper",
        kind="su",
        shot=12,
        hth=8,
        pd=14,
        evasion=3,
        dexterity=5,
        cp=3,
        points=10,
    )
    assert RULESET.unit_lines(u, DEFAULT) == [
        "Trooper (SU) · Shot 12 · HtH 8 · PD 14 · Evasion 3 · Dex 5 · CP 3 · 16 pts",
        "   - Assault rifle (sling): Reach 60 cm · P6 · automatic · 5 pts",
        "   - Knife: hand-to-hand · P3 · 1 pts",
        "   - Defensive Grenade: Reach 20 cm · P25/r10 · cover protects · SU only · 0 pts · "
        "two of them",
        "   - Lightning-type charge: P10/r10 · cover protects · timer 1-20 turns, DL 10 to "
        "defuse · 0 pts",
    ]


def test_weapon_names_for_change_summaries() -> None:
    u = fig(RIFLE, {"type": "searing_grenade"}, kind="su")
    assert RULESET.weapon_name(u, 0) == "Assault rifle"
    assert RULESET.weapon_name(u, 1) == "Searing Grenade"


# ------------------------------------------------------------------------ catalogue


def test_the_catalogue_has_every_equipment_with_its_fields_and_the_texts_figures() -> None:
    entries = {e.id: e for e in RULESET.catalogue()}
    assert list(entries) == list(EQUIPMENT)
    d = {k: dict(e.details) for k, e in entries.items()}
    assert d["searing_grenade"]["power"] == "P0" and d["searing_grenade"]["reach"] == "20 cm"
    assert d["defensive_grenade"] | {} == {
        "power": "P25",
        "reach": "20 cm",
        "radius": "r10",
        "rules": "cover protects, SU only",
    }
    assert d["flaming_grenade"]["power"] == "F15"
    assert "2 CP fireball" in d["flaming_grenade"]["rules"]
    assert d["hypersensor_mine"]["power"] == "F25" and d["hypersensor_mine"]["reach"] == "placed"
    assert (d["lightning_charge"]["power"], d["lightning_charge"]["defuse_dl"]) == ("P10", "10")
    assert (d["hurricane_charge"]["power"], d["hurricane_charge"]["radius"]) == ("P15", "r10")
    assert (d["typhoon_charge"]["power"], d["typhoon_charge"]["radius"]) == ("P35", "r30")
    names = {k: [f.name for f in e.fields] for k, e in entries.items()}
    assert names["gun"] == ["name", "reach", "power", "automatic", "notes", "points", "label"]
    assert names["hth"] == ["name", "power", "notes", "points", "label"]
    assert names["defensive_grenade"] == ["notes", "points", "label"]
    assert entries["gun"].category == "gun" and entries["typhoon_charge"].category == "charge"
    for entry in entries.values():
        for field in entry.fields:
            if field.default is not None:
                assert parse_field(field, field.default) == field.default


def test_the_weapon_picker_groups_every_equipment_once() -> None:
    groups = RULESET.template_context()["weapon_groups"]
    ids = [value for _, choices in groups for value, _ in choices]
    assert sorted(ids) == sorted(EQUIPMENT) and len(ids) == len(set(ids))
    labels = dict(choice for _, choices in groups for choice in choices)
    assert labels["defensive_grenade"] == "Defensive Grenade (P25/r10, Reach 20 cm)"
    assert labels["typhoon_charge"] == "Typhoon-type charge (P35/r30)"
    assert [label for label, _ in groups][1] == "Grenades (SUs only)"


# ------------------------------------------------------------------------ reuse


def test_the_armys_own_weapons_are_offered_once_each_with_every_field() -> None:
    a = fig(RIFLE, KNIFE, {"type": "defensive_grenade"}, kind="su")
    b = fig(RIFLE, PISTOL, {**KNIFE, "notes": "rusty", "label": "boot"})
    offered = own_weapons(RULESET.unit_figures(u, DEFAULT) for u in (a, b))
    assert [o["text"] for o in offered] == [
        "Assault rifle (Reach 60 cm, P6, automatic, 0 pts)",
        "Knife (hand-to-hand, P3, 1 pts)",
        "Pistol (Reach 25 cm, P4, 2 pts)",
    ]  # the grenade is the text's, not the army's own; notes and labels do not count
    vals = [json.loads(o["vals"]) for o in offered]
    assert vals[0] == {
        "type": "gun",
        "name": "Assault rifle",
        "reach": "60",
        "power": "6",
        "automatic": "1",
        "notes": "",
        "points": "0",
        "label": "",
    }
    assert vals[1]["reach"] == "" and vals[1]["type"] == "hth"
    # what the add form sends makes the same weapon again
    c = decode_unit({"name": "C", "weapons": [{k: v for k, v in vals[1].items() if v}]})
    assert (c.weapons[0].name, c.weapons[0].power, c.weapons[0].points) == ("Knife", 3, 1)


def test_same_name_other_figures_is_offered_apart_and_the_list_is_bounded() -> None:
    a = fig(PISTOL, {**PISTOL, "power": 5})
    assert len(own_weapons([RULESET.unit_figures(a, DEFAULT)])) == 2
    many = [
        RULESET.unit_figures(fig({"type": "hth", "name": f"Blade {i:02}", "power": 2}), DEFAULT)
        for i in range(MAX_REUSE + 5)
    ]
    offered = own_weapons(many)
    assert len(offered) == MAX_REUSE and offered[0]["name"] == "Blade 00"
