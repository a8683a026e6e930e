"""Degrees attacks and the calculator: single attacks, whole rounds, area attacks."""

from __future__ import annotations


class DegreesCalculator:
    """To be written: situation_fields, target_fields, attack, attack_from_body,
    sample_attacks, outcome_columns, max_targets, decode_situation, encode_situation,
    default_weapons, weapons_cost."""
