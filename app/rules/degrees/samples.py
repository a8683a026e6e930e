"""Attacks typical of Degrees (the conformance suite rolls them): a rifle, a gas gun
over-compressed, a stun gun, a sensory dampener, a grenade on three units, a punch gun then a
γ-gun."""

from __future__ import annotations

from typing import Any

from app.rules.ruleset import SampleAttack


def _unit(name: str, degree: int, weapons: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "personnel",
        "degree": degree,
        "armour": more.pop("armour", degree),
        "back_armour": more.pop("back_armour", 0),
        "hp": more.pop("hp", degree),
        "ap": more.pop("ap", 3),
        "op": more.pop("op", 0),
        "weapons": weapons,
        **more,
    }


SAMPLE_ATTACKS: tuple[SampleAttack, ...] = (
    SampleAttack(
        "a rifle against a fresh 3°",
        _unit("Rifleman", 3, [{"type": "rifle", "degree": 3}]),
        (0,),
        (_unit("Trooper", 3, []),),
    ),
    SampleAttack(
        "a gas gun over-compressed, then fired extended",
        _unit("Gunner", 2, [{"type": "gas_gun", "degree": 2}], ap=6, op=2),
        (0,),
        (_unit("Trooper", 3, []),),
        {"carried": 2, "pump": 2, "compress_op": 1, "extend": 1, "range": "present"},
    ),
    SampleAttack(
        "a stun gun that may be broken free from",
        _unit("Thin Blue", 2, [{"type": "stun_gun", "degree": 2}], ap=4),
        (0,),
        (_unit("Rioter", 2, []),),
        {"shots": 2, "break_free": True},
    ),
    SampleAttack(
        "a sensory dampener turned up",
        _unit("SWAT", 3, [{"type": "sensory_dampener", "degree": 4}], ap=4),
        (0,),
        (_unit("Suspect", 2, [], senses=["audition", "vision", "analgesia", "nociception"]),),
        {"extend": 1},
    ),
    SampleAttack(
        "a grenade on three units",
        _unit("Grenadier", 2, [{"type": "grenade", "degree": 2}]),
        (0,),
        (_unit("A", 1, []), _unit("B", 2, []), _unit("C", 2, [], back_armour=1)),
    ),
    SampleAttack(
        "a punch gun at Close in air, then a γ-gun",
        _unit(
            "Marine",
            4,
            [{"type": "punch_gun", "degree": 4}, {"type": "gamma_gun", "degree": 5}],
            ap=3,
        ),
        (0, 1),
        (_unit("Raider", 3, [], back_armour=1),),
        {"range": "close", "medium": "light", "bloom": 1},
    ),
)
