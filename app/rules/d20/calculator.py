"""D20 attacks and the calculator: shots and blows, automatic fire, explosions."""

from __future__ import annotations


class D20Calculator:
    """To be written: situation_fields, target_fields, attack, attack_from_body,
    sample_attacks, outcome_columns, max_targets, decode_situation, encode_situation,
    default_weapons, weapons_cost."""
