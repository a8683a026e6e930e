"""The stateless body of ``POST /api/v1/rulesets/degrees/odds`` and ``/roll``: one shot by its
numbers (degree, modifier, type; the target's Armour and HP) rather than by units."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.rules.degrees import area
from app.rules.degrees.catalogue import DEFAULT_SENSE_ORDER, WEAPON_TYPES
from app.rules.degrees.plan import MAX_UNITS, DegreesAttack
from app.rules.degrees.round import PlannedShot
from app.rules.degrees.shot import Shot, Target
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, fields_at, whole_value

_BODY_ATTACK = (
    InputField("degree", "Degree", "whole", None, low=1, high=10),
    InputField("modifier", "Modifier", "whole", 0, low=-20, high=20),
    InputField("penetrates_on", "Penetrates on", "whole", None, low=0, high=10, optional=True),
    InputField("type", "Type", "choice", "standard", choices=tuple((t, t) for t in WEAPON_TYPES)),
    InputField("op", "OP", "whole", 0, low=0, high=10),
)
_BODY_TARGET = (
    InputField("armour", "Armour", "whole", None, low=0, high=30),
    InputField("hp", "HP", "whole", None, low=1, high=30),
    InputField("back_armour", "Back-line Armour", "whole", 0, low=0, high=30),
    InputField("ap", "AP", "whole", 3, low=0, high=12),
    InputField("figures", "Figurines", "whole", 1, low=1, high=MAX_UNITS),
)


def from_body(body: Mapping[str, Any]) -> DegreesAttack:
    """One shot from the stateless body: ``{"attack": {"degree", "modifier",
    "penetrates_on", "type", "op"}, "target": {"armour", "hp", "back_armour", "ap",
    "figures"}}``; ``figures`` (default 1) alike figurines of a squad stand Here: an area
    type attacks each (at most its degree x 10, precision x 5), any other one of them."""
    if not isinstance(body, Mapping):
        raise InvalidInput("attack", "is required (an object)")
    for key in body:
        if key not in ("attack", "target", "seed"):
            raise InvalidInput(str(key), "is not a known field")
    attack = fields_at(body.get("attack"), "attack", _BODY_ATTACK)
    target = fields_at(body.get("target"), "target", _BODY_TARGET)
    kind = WEAPON_TYPES[str(attack["type"])]
    degree = (
        whole_value(attack, "degree") + whole_value(attack, "modifier") + whole_value(attack, "op")
    )
    shot = Shot.of(kind, degree)
    if attack["penetrates_on"] is not None:
        shot = replace(shot, penetrates_on=whole_value(attack, "penetrates_on"))
    state = Target(
        whole_value(target, "armour"), whole_value(target, "back_armour"), whole_value(target, "hp")
    )
    planned = PlannedShot(
        0,
        f"{kind.name} {attack['degree']}°",
        (shot,),
        kind.attack_ap,
        steps=(("final degree", f"{degree}°"),),
        every_figure=bool(kind.area),
    )
    figures = whole_value(target, "figures")
    name = f"{kind.name} {attack['degree']}°"
    most = area.most_targets(kind, whole_value(attack, "degree"))
    return DegreesAttack(
        (planned,),
        (state,),
        (DEFAULT_SENSE_ORDER,),
        ap_needed=kind.attack_ap,
        problem_list=tuple(area.crowd_problems(name, most, {"here": figures})) if kind.area else (),
        target_ap=(whole_value(target, "ap"),),
        figures=(figures,),
    )
