"""D20 battles: CP left, out, Shaken until the next turn, charges on the table with their
countdown, named actions."""

from __future__ import annotations


class D20Battles:
    """To be written: battle_situation_fields, unit_actions, initial_state, decode_state,
    encode_state, standing, battle_attack, after_attack, log_odds, log_roll, apply_action,
    odds_words, effect_words."""
