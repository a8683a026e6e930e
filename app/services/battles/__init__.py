"""Battles: units of several armies brought together, attacks rolled and logged, state kept.

A battle copies its units (and their armies' house rules) when it is created, so later roster
edits never rewrite it; all its armies share one ruleset, the battle's. Every action is one
transaction that first takes the battle's lock (``log.lock``), reads the units' state, lets
the battle's ruleset decide (``get_ruleset(battle.ruleset_id)``: its ``battle_attack``,
``after_attack`` and ``apply_action``), and appends one numbered log entry with the dice and
the state of every unit it changed before and after (the ruleset's JSON), so ``undo_last``
restores exactly. Refused actions raise ``InvalidInput`` (a 422) and log
nothing.

Who may do what is decided in one place, ``permissions.battle_access``: it gives the battle and
a ``Viewer`` (``Viewer(role, side_ids)``): "host" (the battle's owner, who may act for every
side and alone invites, removes players, ends, shares and deletes), "player" (acts for the
units of ``side_ids`` only: otherwise a 422 naming ``attacker_id`` or ``unit_id``), or
"spectator" (the read-only link: ``SPECTATOR``, no side). Anyone else is NotFound. A
``BattleView`` carries its viewer (``view.viewer``, ``view.mine(unit)``), so whatever renders a
battle for someone renders it for their role; ``battle_viewer`` gives the viewer alone.

The modules, one job each: ``views`` (a battle as shown, a unit's state on its row),
``reading``, ``links`` (the read-only link), ``creating``, ``deleting``, ``log`` (the lock
and the entries), ``attacks``, ``actions`` (the ruleset's named unit actions, and Undo),
``codec`` (an attack request's values as the log's JSON), ``text`` (the log in words),
``players`` (invitations, joining with an army as a side, removing a player) and ``turns``
(free or by turns, End turn and the rulesets' resets); who is connected is
``app.services.presence``.
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
from app.services.battles.players import (
    MAX_SIDES,
    Invitation,
    accept_invite,
    armies_to_join,
    create_invite,
    decline_invite,
    invitable_members,
    invitation,
    invite_member,
    join_by_link,
    member_invitation,
    my_invitations,
    open_invites,
    plays_in,
    remove_player,
    revoke_invite,
)
from app.services.battles.reading import (
    battle_entry,
    battle_view,
    export_text,
    list_battles,
    ruleset_of,
)
from app.services.battles.turns import end_turn, set_mode
from app.services.battles.views import (
    LOG_WINDOW,
    MAX_LOG_WINDOW,
    BattleView,
    LogEntry,
    Side,
    UnitInBattle,
    WeaponInBattle,
)
from app.services.permissions import SPECTATOR, Viewer, battle_viewer

__all__ = [
    "LOG_WINDOW",
    "MAX_LOG_WINDOW",
    "MAX_SIDES",
    "MAX_UNITS",
    "SPECTATOR",
    "BattleContents",
    "BattleView",
    "Follower",
    "Invitation",
    "LogEntry",
    "OddsPreview",
    "PreparedAttack",
    "Side",
    "UnitInBattle",
    "Viewer",
    "WeaponInBattle",
    "accept_invite",
    "armies_for_battle",
    "armies_to_join",
    "attack_odds",
    "battle_contents",
    "battle_entry",
    "battle_unit_ids",
    "battle_view",
    "battle_viewer",
    "create_battle",
    "create_invite",
    "decline_invite",
    "delete_battle",
    "end_battle",
    "end_turn",
    "export_text",
    "invitable_members",
    "invitation",
    "invite_member",
    "join_by_link",
    "linked_view",
    "list_battles",
    "member_invitation",
    "my_invitations",
    "open_invites",
    "override_bonus_die",
    "override_options",
    "plays_in",
    "prepare_attack",
    "remove_player",
    "revoke_invite",
    "revoke_link",
    "roll_attack",
    "ruleset_of",
    "set_mode",
    "share_link",
    "undo_last",
    "unit_action",
]
