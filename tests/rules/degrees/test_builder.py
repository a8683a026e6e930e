"""The Degrees builder (RULINGS 2.3 and docs/rulings.md "Degrees: building"): costs in DP,
every build finding with its severity, house rules, the catalogue and the figures pages show."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.rules.degrees.catalogue import SCALES, WEAPON_TYPES, WEAPONS
from app.rules.degrees.options import DegreesOptions, decode_options
from app.rules.degrees.ruleset import RULESET
from app.rules.degrees.units import DegreesUnit, decode_unit
from app.rules.ruleset import Finding

DEFAULT = decode_options(None)


def unit(*weapons: dict[str, Any], **fields: Any) -> DegreesUnit:
    return decode_unit({"name": "U", **fields, "weapons": list(weapons)})


def found(u: DegreesUnit, options: DegreesOptions = DEFAULT) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.severity, f.weapon) for f in RULESET.unit_figures(u, options).findings]


# ------------------------------------------------------------------------ cost


def test_a_unit_costs_its_degree_plus_each_weapons_max_degree() -> None:
    fresh = unit(degree=3)
    assert RULESET.unit_cost(fresh, DEFAULT) == 3
    armed = unit({"type": "rifle"}, {"type": "gas_gun", "degree": 5}, degree=3)  # 3 + 3 + 5
    figures = RULESET.unit_figures(armed, DEFAULT)
    assert figures.cost == RULESET.unit_cost(armed, DEFAULT) == 11
    assert figures.cost_text == "11 DP"
    assert [w.cost for w in figures.weapons] == [3, 5]
    assert [w.cost_text for w in figures.weapons] == ["3 DP", "5 DP"]


def test_real_ammo_costs_one_dp_more() -> None:
    rod = unit({"type": "dousing_rod", "real_ammo": True}, degree=3, human=True)
    assert RULESET.weapon_cost(rod, 0, DEFAULT) == 5  # 4° + 1 real ammo
    assert RULESET.unit_cost(rod, DEFAULT) == 8


def test_the_costs_house_rule_replaces_a_weapons_cost_outright() -> None:
    options = decode_options({"costs": "gamma_gun = 7, dousing_rod = 2, pistol = 0"})
    u = unit(
        {"type": "gamma_gun"},
        {"type": "dousing_rod", "real_ammo": True},
        {"type": "pistol", "degree": 3},
        {"type": "rifle"},
        degree=4,
        human=True,
    )
    figures = RULESET.unit_figures(u, options)
    assert [w.cost for w in figures.weapons] == [7, 2, 0, 3]  # real ammo included in the 2
    assert figures.cost == 4 + 7 + 2 + 0 + 3
    assert [RULESET.weapon_cost(u, i, options) for i in range(4)] == [7, 2, 0, 3]
    assert "cost set by a house rule" in figures.weapons[0].note
    assert "house rule" not in figures.weapons[3].note


def test_costs_and_changes_are_written_in_dp() -> None:
    assert RULESET.cost_unit == "DP"
    assert RULESET.format_cost(12) == "12 DP"
    assert RULESET.format_cost_change(3) == "+3 DP"
    assert RULESET.format_cost_change(-3) == "-3 DP"
    assert RULESET.format_cost_change(0) == "+0 DP"


# ------------------------------------------------------------------------ findings


def test_a_larger_scale_weapon_on_personnel_is_a_higher_order_warning_at_10_degrees() -> None:
    u = unit({"type": "v_main"}, {"type": "a_nuke"}, degree=3)
    assert found(u) == [("higher_order", "warning", 0), ("higher_order", "warning", 1)]
    message = RULESET.unit_figures(u, DEFAULT).findings[0].message
    assert "10° against personnel" in message
    assert RULESET.unit_cost(u, DEFAULT) == 3 + 5 + 8  # the table's degrees, not 10 each


def test_an_army_weapon_on_a_vehicular_unit_is_higher_order_without_the_personnel_10() -> None:
    u = unit({"type": "a_nuke"}, kind="vehicular", degree=5)
    (finding,) = RULESET.unit_figures(u, DEFAULT).findings
    assert (finding.code, finding.severity) == ("higher_order", "warning")
    assert "10°" not in finding.message


def test_the_tables_own_higher_order_entry_is_a_personnel_weapon_and_not_flagged() -> None:
    assert found(unit({"type": "higher_order"}, degree=3)) == []


@pytest.mark.parametrize(
    ("scale", "weapon"),
    [("vehicular", "rifle"), ("army", "rifle"), ("army", "v_main")],
)
def test_a_smaller_scale_weapon_is_an_error(scale: str, weapon: str) -> None:
    u = unit({"type": weapon}, kind=scale, degree=5)
    assert found(u) == [("scale", "error", 0)]
    message = RULESET.unit_figures(u, DEFAULT).findings[0].message
    short = {"vehicular": "Vehicular", "army": "Army"}[scale]
    assert f"a {short} unit carries {short} weapons" in message


def test_own_scale_weapons_are_fine_on_every_scale() -> None:
    for scale in SCALES:
        weapons = [
            {"type": w.id}
            for w in WEAPONS.values()
            if w.scale == scale
            and not WEAPON_TYPES[w.type].gas
            and WEAPON_TYPES[w.type].attack_ap + WEAPON_TYPES[w.type].draw_ap <= 3
        ]
        assert found(unit(*weapons, kind=scale, degree=10)) == [], scale


@pytest.mark.parametrize(("degree", "codes"), [(3, []), (4, [("classical_max", "error", 0)])])
def test_a_classical_ballistic_over_3_degrees_is_an_error(
    degree: int, codes: list[tuple[str, str, int]]
) -> None:
    assert found(unit({"type": "rifle", "degree": degree}, degree=3)) == codes


def test_a_modern_ballistic_may_go_over_3_degrees() -> None:
    assert found(unit({"type": "modern_pistol", "degree": 6}, degree=3)) == []


@pytest.mark.parametrize(
    ("weapon", "space_error"),
    [
        ({"type": "smg"}, False),  # classical 2°
        ({"type": "rifle"}, True),  # classical 3°
        ({"type": "modern_pistol", "degree": 2}, False),
        ({"type": "modern_pistol"}, True),  # modern 3°
        ({"type": "inter_offer"}, True),
        ({"type": "dousing_rod", "degree": 1, "real_ammo": True}, False),  # attacks at 2°
        ({"type": "dousing_rod", "degree": 2, "real_ammo": True}, True),  # real ammo counts
        ({"type": "dousing_rod", "degree": 2}, False),
        ({"type": "gamma_gun"}, False),  # not a ballistic
        ({"type": "missile"}, False),  # an explosive, not a ballistic
    ],
)
def test_in_space_any_ballistic_over_2_degrees_is_an_error(
    weapon: dict[str, Any], space_error: bool
) -> None:
    u = unit(weapon, degree=3, human=True)
    assert found(u) == []  # on a planet: fine
    in_space = decode_options({"in_space": True})
    assert found(u, in_space) == ([("space_ballistic", "error", 0)] if space_error else [])


def test_real_ammo_on_a_non_human_unit_is_an_error() -> None:
    rod = {"type": "dousing_rod", "real_ammo": True}
    assert found(unit(rod, degree=3, human=False)) == [("real_ammo", "error", 0)]
    assert found(unit(rod, degree=3, human=True)) == []
    assert found(unit({"type": "dousing_rod"}, degree=3)) == []


@pytest.mark.parametrize(
    ("unit_degree", "gun_max", "warned"),
    [(1, 2, True), (2, 2, False), (3, 2, False), (3, 7, True), (7, 7, False)],
)
def test_a_gas_gun_above_the_units_degree_is_a_warning(
    unit_degree: int, gun_max: int, warned: bool
) -> None:
    u = unit({"type": "gas_gun", "degree": gun_max}, degree=unit_degree)
    assert found(u) == ([("gas_gun_max", "warning", 0)] if warned else [])
    if warned:
        message = RULESET.unit_figures(u, DEFAULT).findings[0].message
        assert "light enough for 2° units" in message


@pytest.mark.parametrize(
    ("weapon", "cheapest"),
    [
        ("p_gun", 3),  # 2 to attack ("an additional AP") + 1 to draw it
        ("sensory_dampener", 0),  # a sustained 0 AP attack
        ("gas_gun", 1),  # its pump carried from the last round
        ("rifle", 1),
        ("gamma_gun", 1),
        ("stun_gun", 1),
    ],
)
def test_an_attack_that_cannot_fit_the_units_ap_is_an_error(weapon: str, cheapest: int) -> None:
    fits = unit({"type": weapon}, degree=5, ap=cheapest)
    assert [f for f in found(fits) if f[0] == "ap_limit"] == []
    assert RULESET.unit_figures(fits, DEFAULT).weapons[0].cells["ap"] == str(cheapest)
    if cheapest == 0:
        return
    short = unit({"type": weapon}, degree=5, ap=cheapest - 1)
    assert [f for f in found(short) if f[0] == "ap_limit"] == [("ap_limit", "error", 0)]


def test_the_ap_finding_says_why() -> None:
    thinny = decode_unit({"name": "Thinny", "degree": 2, "ap": 2, "weapons": [{"type": "p_gun"}]})
    (finding,) = RULESET.unit_figures(thinny, DEFAULT).findings
    assert finding.message == (
        "Percussion gun (p-gun) 4° needs 3 AP for its cheapest attack (2 to attack + 1 to "
        "draw it); Thinny has 2 AP per round."
    )


def test_a_weapon_may_have_several_findings_in_a_fixed_order() -> None:
    """A Vehicular unit with a Personnel classical 5° pistol, in space, with no AP."""
    u = unit({"type": "pistol", "degree": 5}, kind="vehicular", degree=3, ap=0)
    assert found(u, decode_options({"in_space": True})) == [
        ("scale", "error", 0),
        ("classical_max", "error", 0),
        ("space_ballistic", "error", 0),
        ("ap_limit", "error", 0),
    ]


def test_over_budget_is_an_error_or_a_warning_under_the_house_rule() -> None:
    u = unit({"type": "rifle"}, degree=3)  # 6 DP
    assert RULESET.army_findings([u, u], None, DEFAULT) == []
    assert RULESET.army_findings([u, u], 12, DEFAULT) == []
    (over,) = RULESET.army_findings([u, u], 11, DEFAULT)
    assert over == Finding(
        "error", "over_budget", "The army costs 12 DP, over its budget of 11 DP by 1 DP."
    )
    lenient = decode_options({"allow_over_budget": True})
    assert [f.severity for f in RULESET.army_findings([u, u], 11, lenient)] == ["warning"]
    assert RULESET.budget_findings(12, 11, lenient) == RULESET.army_findings([u, u], 11, lenient)
    assert RULESET.budget_findings(0, 0, DEFAULT) == []


def test_a_weapons_own_figures_carry_its_findings_only() -> None:
    u = unit(
        {"type": "rifle", "degree": 4},
        {"type": "gamma_gun"},
        {"type": "dousing_rod", "real_ammo": True},
        degree=3,
    )
    figures = RULESET.unit_figures(u, DEFAULT)
    assert all(w.findings == () for w in figures.weapons)  # the unit's figures hold them
    for i in range(3):
        alone = RULESET.weapon_figures(u, i, DEFAULT)
        assert list(alone.findings) == [f for f in figures.findings if f.weapon == i]
        assert (alone.name, alone.cells, alone.cost) == (
            figures.weapons[i].name,
            figures.weapons[i].cells,
            figures.weapons[i].cost,
        )
    assert [f.code for f in RULESET.weapon_figures(u, 0, DEFAULT).findings] == ["classical_max"]
    assert RULESET.weapon_figures(u, 1, DEFAULT).findings == ()
    assert [f.code for f in RULESET.weapon_figures(u, 2, DEFAULT).findings] == ["real_ammo"]


# ------------------------------------------------------------------------ figures


def test_figures_fill_the_columns_as_the_tables_write_them() -> None:
    u = decode_unit(
        {
            "name": "Simo",
            "kind": "personnel",
            "degree": 4,
            "back_armour": 1,
            "ap": 4,
            "op": 2,
            "human": True,
            "weapons": [
                {"type": "gas_gun", "degree": 3, "label": "left"},
                {"type": "dousing_rod", "real_ammo": True},
                {"type": "gamma_gun"},
                {"type": "punch_gun"},
                {"type": "p_gun"},
            ],
        }
    )
    figures = RULESET.unit_figures(u, DEFAULT)
    assert figures.cells == {
        "degree": "4°",
        "armour": "4 + 1 back",
        "hp": "4",
        "ap": "4",
        "op": "2",
    }
    assert figures.kind_text == "Personnel · Human"
    gas, rod, gamma, punch, pgun = figures.weapons
    assert gas.name == 'Gas gun 3-max "left"' and gas.label == "left"
    assert gas.cells == {
        "scale": "Personnel",
        "degree": "3-max",
        "type": "Gas gun",
        "ap": "1",
        "penetrates": "raw 1",
    }
    assert rod.cells["degree"] == "4° (5° real ammo)"
    assert "real ammo" in rod.note
    assert gamma.cells["penetrates"] == "raw 1-2"
    assert punch.cells["penetrates"] == "raw 1 at -2°"
    assert pgun.cells["penetrates"] == "never"
    assert pgun.type_name == "Percussion gun (p-gun)"
    assert {c.key for c in RULESET.unit_columns} == set(figures.cells)
    assert all({c.key for c in RULESET.weapon_columns} == set(w.cells) for w in figures.weapons)
    assert RULESET.unit_figures(unit(degree=3), DEFAULT).cells["armour"] == "3"


def test_the_apis_own_fields_of_a_unit_and_a_weapon() -> None:
    u = unit({"type": "dousing_rod", "real_ammo": True}, degree=3, human=True, senses="Audition")
    figures = RULESET.unit_figures(u, DEFAULT)
    body = RULESET.unit_json(figures)
    assert body == {
        "scale": "personnel",
        "least_weasel": False,
        "degree": 3,
        "armour": 3,
        "back_armour": 0,
        "hp": 3,
        "ap": 3,
        "op": 0,
        "human": True,
        "senses": list(u.senses),
    }
    assert body["senses"][0] == "audition"
    weapon = RULESET.weapon_json(figures.weapons[0])
    assert weapon == {
        "scale": "personnel",
        "degree": 4,
        "attack_degree": 5,
        "weapon_type": "dousing_rod",
        "attack_ap": 1,
        "rules": list(WEAPON_TYPES["dousing_rod"].rules),
        "cost": 5,
    }
    json.dumps(body), json.dumps(weapon)
    # none of them hides a field every ruleset's answer shares
    shared = {"id", "position", "version", "name", "kind", "type", "spec", "findings", "weapons"}
    assert not shared & set(body) and not shared & set(weapon)


def test_unit_lines_give_the_unit_then_each_weapon() -> None:
    u = decode_unit(
        {"name": "Tank", "kind": "vehicular", "degree": 5, "weapons": [{"type": "v_main"}]}
    )
    assert RULESET.unit_lines(u, DEFAULT) == [
        "Tank (Vehicular) · 5° · Armour 5 · HP 5 · AP 3 · OP 0 · 10 DP",
        "   - Main weapon 5°: Vehicular · 1 AP · back line raw 1 · 5 DP",
    ]


def test_weapon_names_for_change_summaries() -> None:
    u = unit({"type": "gas_gun"}, {"type": "rifle", "label": "spare"}, degree=2)
    assert RULESET.weapon_name(u, 0) == "Gas gun 2-max"
    assert RULESET.weapon_name(u, 1) == 'Rifle 3° "spare"'


# ------------------------------------------------------------------------ catalogue


def test_the_catalogue_lists_every_named_weapon_with_its_scale_degree_and_type_rules() -> None:
    entries = RULESET.catalogue()
    assert [e.id for e in entries] == list(WEAPONS)
    for entry in entries:
        weapon = WEAPONS[entry.id]
        kind = WEAPON_TYPES[weapon.type]
        assert entry.name == weapon.name
        assert entry.category == weapon.scale in SCALES
        assert entry.details["type"] == kind.name
        assert entry.details["rules"] == " ".join(kind.rules)
        assert entry.details["scale"] == SCALES[weapon.scale].name
        assert kind.rules[0] in entry.summary
        assert entry.details["degree"] in (f"{weapon.degree}°", f"{weapon.degree}-max")
        names = [f.name for f in entry.fields]
        ammo = ["real_ammo"] if kind.real_ammo else []
        assert names == ["degree", "label", *ammo]
    by_id = {e.id: e for e in entries}
    assert by_id["gas_gun"].details["degree"] == "2-max"
    assert by_id["rifle"].details["degree"] == "3°" and by_id["rifle"].category == "personnel"
    assert by_id["a_am_converter"].details["note"] == "Typically placed and initiated by hand"
    assert by_id["p_gun"].details["attack_ap"] == "3"


def test_the_weapon_picker_groups_every_weapon_once_by_scale() -> None:
    groups = RULESET.template_context()["weapon_groups"]
    assert len(groups) == len(SCALES)
    ids = [value for _, choices in groups for value, _ in choices]
    assert sorted(ids) == sorted(WEAPONS)
    personnel = dict(groups[0][1])
    assert personnel["rifle"] == "Rifle (3°, Classical ballistic)"
    assert personnel["gas_gun"] == "Gas gun (2-max)"
    assert personnel["bayonet"] == "Bayonet (1°)"
