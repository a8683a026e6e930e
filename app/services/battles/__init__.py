"""Battles: units of several armies brought together, attacks rolled and logged, state kept.

A battle copies its units (and their armies' house rules) when it is created, so later roster
edits never rewrite it; all its armies share one ruleset, the battle's. Every action is one
transaction that first takes the battle's lock (``log.lock``), reads the units' state, lets
the battle's ruleset decide (``get_ruleset(battle.ruleset_id)``: its ``battle_attack``,
``after_attack`` and ``apply_action``), and appends one numbered log entry with the dice and
the state of every unit it changed before and after (the ruleset's JSON), so ``undo_last``
restores exactly. Refused actions raise ``InvalidInput`` (a 422) and log
nothing. Battles are their owner's (``permissions.battle_for``).

The modules, one job each: ``views`` (a battle as shown, a unit's state on its row),
``reading``, ``links`` (the read-only link), ``creating``, ``deleting``, ``log`` (the lock
and the entries), ``attacks``, ``actions`` (the ruleset's named unit actions, and Undo),
``codec`` (an attack request's values as the log's JSON) and ``text`` (the log in words).
"""

from app.services.battles.actions import (
    end_battle,
    undo_last,
    unit_action,
)
from app.services.battles.attacks import (
    Follower,
    OddsPreview,
    PreparedAttack,
    attack_odds,
    prepare_attack,
    roll_attack,
)
from app.services.battles.creating import (
    MAX_UNITS,
    armies_for_battle,
    battle_unit_ids,
    create_battle,
    override_bonus_die,
    override_options,
)
from app.services.battles.deleting import BattleContents, battle_contents, delete_battle
from app.services.battles.links import linked_view, revoke_link, share_link
from app.services.battles.reading import (
    battle_entry,
    battle_view,
    export_text,
    list_battles,
    ruleset_of,
)
from app.services.battles.views import (
    LOG_WINDOW,
    MAX_LOG_WINDOW,
    BattleView,
    LogEntry,
    Side,
    UnitInBattle,
    WeaponInBattle,
)

__all__ = [
    "LOG_WINDOW",
    "MAX_LOG_WINDOW",
    "MAX_UNITS",
    "BattleContents",
    "BattleView",
    "Follower",
    "LogEntry",
    "OddsPreview",
    "PreparedAttack",
    "Side",
    "UnitInBattle",
    "WeaponInBattle",
    "armies_for_battle",
    "attack_odds",
    "battle_contents",
    "battle_entry",
    "battle_unit_ids",
    "battle_view",
    "create_battle",
    "delete_battle",
    "end_battle",
    "export_text",
    "linked_view",
    "list_battles",
    "override_bonus_die",
    "override_options",
    "prepare_attack",
    "revoke_link",
    "roll_attack",
    "ruleset_of",
    "share_link",
    "undo_last",
    "unit_action",
]
