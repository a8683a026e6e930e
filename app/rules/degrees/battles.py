"""Degrees battles: each unit's state (Armour, HP, AP lost, restraint, senses, gas guns,
bloom), its standing, attacks against it and named actions."""

from __future__ import annotations


class DegreesBattles:
    """To be written: battle_situation_fields, unit_actions, initial_state, decode_state,
    encode_state, standing, battle_attack, after_attack, log_odds, log_roll, apply_action,
    odds_words, effect_words."""
