"""The stateless body of ``POST /api/v1/rulesets/d20/odds`` and ``/roll``: an attack by its
figures (Shot or HtH, Power, Reach...) rather than by figurines of an army."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.d20.attack import D20Attack
from app.rules.d20.catalogue import AUTO_MIN_TARGETS, EQUIPMENT, STAT_RANGE
from app.rules.d20.options import D20Options
from app.rules.d20.plan import plan
from app.rules.d20.situation import (
    DISTANCE_MAX,
    EXPLOSIVES,
    HEIGHT_MAX,
    MAX_OBJECTS,
    MAX_TARGETS,
    D20Situation,
    Placed,
    check_figures,
    read_objects,
)
from app.rules.d20.units import POWER_MAX, REACH_MAX, D20Figurine, D20Weapon
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField, fields_at, whole_value

_EXPLOSIVES = tuple((e.id, e.name) for e in EQUIPMENT.values() if e.category in EXPLOSIVES)
_BODY_ATTACK = (
    InputField("stat", "Shot or HtH", "whole", None, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("power", "Power", "whole", None, low=0, high=POWER_MAX, optional=True),
    InputField("modifier", "Modifier", "whole", 0, low=-20, high=20),
    InputField("automatic", "Automatic fire", "flag", False),
    InputField("reach", "Reach (cm)", "whole", None, low=0, high=REACH_MAX, optional=True),
    InputField("distance", "Distance (cm)", "whole", 0, low=0, high=DISTANCE_MAX),
    InputField("equipment", "Explosive", "choice", None, choices=_EXPLOSIVES, optional=True),
    InputField("charges", "Charges set together", "whole", 1, low=1, high=MAX_OBJECTS),
    InputField("su", "Thrown by an SU", "flag", True),
    InputField("objects", "Objects' DLs", "text", "", high=200),
    InputField("margin_wounds", "Wounds by margin", "flag", False),
    InputField("naturals", "Natural 20 and 1", "flag", False),
    InputField("cover_bonus", "Cover against explosions", "whole", 5, low=0, high=20),
)
_BODY_TARGET = (
    InputField("pd", "Physical Defense", "whole", None, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("evasion", "Evasion", "whole", 0, low=STAT_RANGE[0], high=STAT_RANGE[1]),
    InputField("cp", "CP", "whole", 1, low=1, high=20),
    InputField("shaken", "Shaken", "flag", False),
    InputField("cover", "In cover", "flag", False),
    InputField("height", "Height (cm)", "whole", 0, low=0, high=HEIGHT_MAX),
    # a squad's figurines where the attack reaches: automatic fire and explosions strike
    # each, a shot one
    InputField("figures", "Figurines", "whole", 1, low=1, high=MAX_TARGETS),
)


def from_body(body: Mapping[str, Any]) -> D20Attack:
    """A shot, automatic fire or an explosion from the stateless body: ``{"attack": {"stat",
    "power", "modifier", "automatic", "reach", "distance", "equipment", "charges", "su",
    "objects", "margin_wounds", "naturals", "cover_bonus"}, "targets": [{"pd", "evasion",
    "cp", "shaken", "cover", "height", "figures"}]}``. ``equipment`` (a grenade, the mine or
    a charge, ``charges`` of them set together) makes it an explosion of the catalogue's
    Power; ``figures`` (default 1) makes a target a squad of that many figurines.
    Refusals are ``InvalidInput`` naming the field."""
    if not isinstance(body, Mapping):
        raise InvalidInput("attack", "is required (an object)")
    for key in body:
        if key not in ("attack", "targets", "seed"):
            raise InvalidInput(str(key), "is not a known field")
    attack = fields_at(body.get("attack"), "attack", _BODY_ATTACK)
    equipment = attack["equipment"]
    if equipment is None and attack["power"] is None:
        raise InvalidInput("attack.power", "is required (or an explosive's equipment)")
    raw = body.get("targets")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("targets", "is required (a list of at least one target)")
    if len(raw) > MAX_TARGETS:
        raise InvalidInput("targets", f"at most {MAX_TARGETS} targets")
    targets = [fields_at(t, f"targets.{i}", _BODY_TARGET) for i, t in enumerate(raw)]
    check_figures([t["figures"] for t in targets])
    automatic = bool(attack["automatic"])
    distance = whole_value(attack, "distance")
    if equipment is None:
        weapons = _body_gun(attack, len(targets), sum(whole_value(t, "figures") for t in targets))
    else:
        weapons = _body_explosives(attack, str(equipment))
    if attack["objects"] and equipment is None:
        raise InvalidInput("attack.objects", "objects are only caught in explosions")
    try:
        objects = str(attack["objects"] or "")
        read_objects(objects)
    except InvalidInput as err:
        raise InvalidInput("attack.objects", err.reason) from None
    shooter = D20Figurine(
        "Attacker", bool(attack["su"]), whole_value(attack, "stat"), 0, 10, 0, 0, 1, weapons=weapons
    )
    placed = [
        Placed(
            whole_value(t, "pd"),
            whole_value(t, "evasion"),
            whole_value(t, "cp"),
            bool(t["cover"]),
            whole_value(t, "height"),
            bool(t["shaken"]),
            whole_value(t, "figures"),
        )
        for t in targets
    ]
    mode = "explosion" if equipment else "automatic" if automatic else "shot"
    situation = D20Situation(
        mode=mode,
        distance=distance,
        modifier=whole_value(attack, "modifier"),
        objects=objects if equipment else "",
    )
    options = D20Options(
        margin_wounds=bool(attack["margin_wounds"]),
        naturals=bool(attack["naturals"]),
        cover_bonus=whole_value(attack, "cover_bonus"),
    )
    made = plan(shooter, tuple(range(len(weapons))), placed, situation, options)
    if made.problems():
        raise InvalidInput("attack", made.problems()[0])
    return made


def _body_gun(
    attack: Mapping[str, FieldValue], targets: int, figures: int
) -> tuple[D20Weapon, ...]:
    """The stateless body's gun (its Power and Reach), for a shot or automatic fire (which
    needs two figurines, a squad's counting each)."""
    automatic = bool(attack["automatic"])
    distance = whole_value(attack, "distance")
    if automatic and figures < AUTO_MIN_TARGETS:
        raise InvalidInput("targets", "automatic fire needs at least two targets")
    if not automatic and targets != 1:
        raise InvalidInput("targets", "a single shot has exactly one target (else automatic)")
    reach = attack["reach"]
    if isinstance(reach, int) and distance > reach:
        raise InvalidInput("attack.distance", f"{distance} cm is beyond the Reach ({reach} cm)")
    return (
        D20Weapon(
            "gun",
            "Weapon",
            DISTANCE_MAX if reach is None else whole_value(attack, "reach"),
            whole_value(attack, "power"),
            automatic=automatic,
        ),
    )


def _body_explosives(attack: Mapping[str, FieldValue], equipment: str) -> tuple[D20Weapon, ...]:
    """The stateless body's explosive (``charges`` of them set together), from the catalogue."""
    entry = EQUIPMENT[equipment]
    distance = whole_value(attack, "distance")
    if attack["automatic"]:
        raise InvalidInput("attack.automatic", f"{entry.name} has no automatic fire")
    count = whole_value(attack, "charges")
    if count > 1 and entry.category != "charge":
        raise InvalidInput("attack.charges", "only charges are set together")
    if entry.category == "grenade" and not attack["su"]:
        raise InvalidInput("attack.su", "only SUs carry grenades")
    if entry.category == "grenade" and distance > (entry.reach or 0):
        raise InvalidInput(
            "attack.distance", f"{distance} cm is beyond the Reach ({entry.reach} cm)"
        )
    return tuple(
        D20Weapon(entry.id, entry.name, entry.reach or 0, entry.power or 0) for _ in range(count)
    )
