"""Which situation fields apply to which D20 attacks (``InputField.when``): a form asks only
those, and a field that does not apply changes nothing of the attack."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.d20.ruleset import RULESET
from app.rules.ruleset import TargetInput

OPTIONS = RULESET.decode_options(None)
FIELDS = {f.name: f for f in RULESET.situation_fields}
RIFLE = {"type": "gun", "name": "Rifle", "reach": 60, "power": 6, "automatic": True}
KNIFE = {"type": "hth", "name": "Knife", "power": 4}
# a value other than the default for every field but the mode
OTHER: dict[str, Any] = {
    "distance": 10,
    "modifier": 3,
    "cover": True,
    "height": 50,
    "shaken": True,
    "objects": "10, 40",
    "dl": 12,
}


def fig(*weapons: dict[str, Any], **more: Any) -> Any:
    data = {"name": "F", "shot": 8, "hth": 6, "pd": 20, "evasion": 4, "dexterity": 5, "cp": 2}
    return RULESET.decode_unit(data | more | {"weapons": list(weapons)})


def outcomes(made: Any) -> Any:
    """What the attack's odds say (its lines, the chance of a decisive one, the expected)."""
    odds = made.odds()
    return odds.lines, odds.decisive, odds.expected


def applies(name: str, mode: str, *weapon_types: str) -> bool:
    return FIELDS[name].applies({"mode": mode}, weapon_types)


def test_a_few_fields_say_when_they_apply() -> None:
    assert applies("objects", "explosion", "typhoon_charge")
    assert not applies("objects", "shot", "gun") and not applies("objects", "automatic", "gun")
    assert applies("dl", "defuse", "lightning_charge") and not applies("dl", "explosion")
    assert applies("cover", "explosion", "hypersensor_mine") and not applies("cover", "shot")
    # a target's height counts against a grenade's blast only (it hits up to 5 cm above)
    assert applies("height", "explosion", "gun", "defensive_grenade")
    assert not applies("height", "explosion", "hypersensor_mine")
    assert not applies("height", "shot", "defensive_grenade")
    assert applies("distance", "shot", "gun") and not applies("distance", "blow", "hth")
    assert applies("shaken", "blow", "hth") and not applies("shaken", "defuse")
    # Shaken takes the Evasion away, and a blast is set against PD alone (RULINGS 3.3)
    assert not applies("shaken", "explosion", "defensive_grenade", "hypersensor_mine")
    assert not applies("modifier", "defuse") and applies("modifier", "automatic", "gun")
    assert all(applies("mode", mode) for mode, _ in FIELDS["mode"].choices)


ATTACKS = [
    ("shot", fig(RIFLE), [fig()]),
    ("blow", fig(KNIFE), [fig()]),
    ("automatic", fig(RIFLE), [fig(), fig(pd=25)]),
    ("explosion", fig({"type": "defensive_grenade"}, kind="su"), [fig(pd=30), fig(pd=35)]),
    ("explosion", fig({"type": "hypersensor_mine"}), [fig(pd=30), fig(pd=35)]),
    ("defuse", fig({"type": "lightning_charge"}), [fig()]),
]


@pytest.mark.parametrize(("mode", "attacker", "targets"), ATTACKS)
def test_a_field_that_does_not_apply_changes_nothing(
    mode: str, attacker: Any, targets: list[Any]
) -> None:
    types = [w.type for w in attacker.weapons]
    inputs = [TargetInput(t) for t in targets]
    plain = RULESET.attack(attacker, (0,), inputs, {"mode": mode}, OPTIONS)
    ignored = [name for name in OTHER if not applies(name, mode, *types)]
    assert ignored, mode
    for name in ignored:
        made = RULESET.attack(attacker, (0,), inputs, {"mode": mode, name: OTHER[name]}, OPTIONS)
        assert outcomes(made) == outcomes(plain), (mode, name)
        if (mode, name) == ("blow", "distance"):  # base contact: a blow at a distance is
            assert made.problems() and not plain.problems()  # refused, so never asked
        else:
            assert made.problems() == plain.problems(), (mode, name)


@pytest.mark.parametrize(("mode", "attacker", "targets"), ATTACKS[:4])
def test_each_field_that_applies_to_a_shot_blow_or_blast_counts(
    mode: str, attacker: Any, targets: list[Any]
) -> None:
    types = [w.type for w in attacker.weapons]
    inputs = [TargetInput(t) for t in targets]
    plain = RULESET.attack(attacker, (0,), inputs, {"mode": mode}, OPTIONS)
    for name in ("modifier", "shaken", "cover", "height"):
        if applies(name, mode, *types):
            made = RULESET.attack(
                attacker, (0,), inputs, {"mode": mode, name: OTHER[name]}, OPTIONS
            )
            assert outcomes(made) != outcomes(plain), (mode, name)
