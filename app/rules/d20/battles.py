"""D20 battles: CP left, out, Shaken until the figurine's next turn, charges on the table with
their countdown (public or secret until it runs out), named actions.

The rules of the state are ``battle_state``'s, the named actions ``actions.py``'s; this
mixin puts them behind the ``Ruleset`` interface (the log's JSON is ``RulesetBase``'s). An
attack is the calculator's (``self.attack``) on the figurines as they stand (CP left;
Evasion 0 while Shaken); what the roll did comes back in ``roll.detail``
(``{"targets": [{"cp_lost", "shaken", "wounded"}], "objects": [...]}``, this attack's). Placed
charges go off through an attack in mode ``explosion`` ticking them (the whole group: charges
set together add their Power), or the ``detonate`` action naming the figurines and objects in
the radius; a trap through ``trip_trap``, a laid mine through ``enter_mine`` (``actions.py``:
the same explosion, every figurine's state changed).

A secret countdown is kept in the stored state (``encode_state``: the battle's row and the
log's before/after, which Undo restores) and shown to the battle's owner (``standing``: the
page's badges, the API's ``state``). Others read the state through ``public_state``, which
hides it (the read-only link, the forum export, the API log's before/after), and every
summary says "secret countdown (N turns counted)" until it runs out. The log keeps:

- odds: ``{"decisive", "expected", "lines": [{"label", "kind", "weapons", "steps",
  "notes": {key: p}, "targets": [{"unit_id", "name", "outcomes": {key: p},
  "extras": {key: p}}]}], "labels": {key: label}, "detail": <the calculator's>}``;
- dice: ``[{"label", "kind", "weapons", "skipped", "jammed", "notes", "dice": [{"purpose",
  "sides", "natural", "value", "bonus", "unit_id"}], "effects": [{"unit_id", "name",
  "outcome", "damage", "flags", "amount", "words"}]}]`` (an action's dice add ``against``
  and ``odds``: the DL and the chance the roll had).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.rules import battle_log
from app.rules.d20 import actions
from app.rules.d20 import battle_state as bs
from app.rules.d20.actions import UNIT_ACTIONS
from app.rules.d20.situation import SITUATION_FIELDS
from app.rules.d20.units import D20Figurine
from app.rules.errors import InvalidInput
from app.rules.fields import InputField
from app.rules.ruleset import (
    ActionResult,
    AttackRoll,
    BattleAttack,
    BattleWeapon,
    Fighter,
    Standing,
    TargetInput,
    TurnReset,
    UnitAction,
)

JSON = dict[str, Any]

# The situation fields a battle's state decides or its actions take (left out of its form).
STATE_FIELDS = frozenset({"shaken", "dl"})
BATTLE_NO_MODES = frozenset({"defuse"})
BATTLE_SITUATION_FIELDS = tuple(
    replace(f, choices=tuple(c for c in f.choices if c[0] not in BATTLE_NO_MODES))
    if f.name == "mode"
    else f
    for f in SITUATION_FIELDS
    if f.name not in STATE_FIELDS
)
ONE_USE = frozenset({"grenade", "mine", "charge"})  # thrown or set off once
OUTCOME_WORDS = {"out": "out", "wounded": "wounded", "unhurt": "unhurt"}
FLAG_WORDS = {"shaken": "Shaken"}


def _by_hand(state: bs.UnitState, weapon: int) -> bool:
    """The placed charge at ``weapon`` is set off by hand or by its countdown (not a trap or
    a laid mine)."""
    return any(c.weapon == weapon and c.use == "charge" for c in state.charges)


@dataclass(frozen=True)
class D20BattleAttack(BattleAttack):
    """A battle attack that remembers the weapons fired and the groups of placed charges it
    sets off (``after_attack`` takes them off the table)."""

    weapons: tuple[int, ...] = ()
    groups: tuple[int, ...] = ()


class D20Battles:
    """The battles job of the D20 ruleset (see ``app.rules.ruleset.Battles``)."""

    unit_actions: tuple[UnitAction, ...] = UNIT_ACTIONS
    # Shaken lasts "until the figurine's next turn", and charges count turns: its side's turn
    turn_reset: TurnReset | None = TurnReset("new_turn", "turn")

    # the calculator's situation less what the state decides (the first target Shaken) and
    # defusing (the ``defuse`` action of the figurine whose charge it is)
    battle_situation_fields: tuple[InputField, ...] = BATTLE_SITUATION_FIELDS

    # ------------------------------------------------------------------ state

    def decode_state(self, data: Mapping[str, Any]) -> bs.UnitState:
        # nested and checked: the charges on the table, each by its weapon, with bounds
        return bs.decode_state(data or {})

    def encode_state(self, state: bs.UnitState) -> JSON:
        # lists, as the JSON reads back (the default's ``asdict`` keeps tuples)
        return bs.encode_state(state)

    def public_state(self, data: Mapping[str, Any]) -> JSON:
        """The stored state with each secret countdown hidden until it runs out (the log's
        before/after, as the API shows them): D20 keeps a secret, the default shows all."""
        shown = dict(data)
        if shown.get("charges"):
            state = bs.decode_state(data)
            shown["charges"] = [bs.public_charge(c) for c in state.charges]
        return shown

    def standing(self, fighter: Fighter) -> Standing:
        unit: D20Figurine = fighter.unit
        state: bs.UnitState = fighter.state
        out = bs.out(state, unit)
        placed = {c.weapon for c in state.charges}
        fit = not out and not state.shaken
        weapons = []
        for i, w in enumerate(unit.weapons):
            e = w.equipment
            cells = {
                "type": e.name,
                "reach": f"{w.reach} cm",
                "power": ("F" if e.fire else "P") + str(w.power),
                "radius": f"r{e.radius}" if e.radius else "",
                "placed": "placed" if i in placed else "",
                "spent": "used" if i in state.spent else "",
            }
            if e.timer:  # a placed charge goes off by its action, not the attack form
                ready = fit and i in placed and _by_hand(state, i)
            else:
                ready = fit and i not in state.spent and i not in placed
            weapons.append(BattleWeapon(i, w.name, cells, ready))
        left = bs.cp_left(state, unit)
        evasion = 0 if state.shaken else unit.evasion
        cells = {
            "cp": f"{left}/{unit.cp}",
            "pd": str(unit.pd),
            "evasion": str(evasion),
            "defence": str(unit.pd + evasion),
            "shot": str(unit.shot),
            "hth": str(unit.hth),
            "dexterity": str(unit.dexterity),
            "kind": "SU" if unit.su else "figurine",
        }
        badges: list[str] = []
        if out:
            badges.append("out")
        if state.shaken:
            badges.append("Shaken (no Evasion) until its next turn")
        uses = {c.use for c in state.charges}
        for group in sorted({c.group for c in state.charges}):
            # the owner's view: a secret countdown's turns left are shown (the read-only
            # link's state comes through ``public_state``, which has none to show)
            words = bs.group_words(state.charges, group, reveal=True)
            due = any(c.group == group and c.run_out for c in state.charges)
            badges.append(f"group {group}: {words}" + (": go off now" if due else ""))
        badges.extend(f"{unit.weapons[i].name} used" for i in state.spent if i < len(unit.weapons))
        status = [f"CP {cells['cp']}", f"defence {cells['defence']}", *badges]
        actions: list[str] = ["new_turn"]
        if fit and any(
            w.equipment.timer and i not in placed and i not in state.spent
            for i, w in enumerate(unit.weapons)
        ):
            actions.append("place_charge")
        if fit and any(
            w.equipment.category == "mine" and i not in placed and i not in state.spent
            for i, w in enumerate(unit.weapons)
        ):
            actions.append("lay_mine")
        if uses & {"charge", "trap"}:
            actions.append("defuse")
        if "charge" in uses and (fit or any(c.run_out for c in state.charges if c.use == "charge")):
            actions.append("detonate")
        if "trap" in uses:
            actions.append("trip_trap")
        if "mine" in uses:
            actions.append("enter_mine")
        shown = {
            "cp_lost": state.cp_lost,
            "cp_left": left,
            "out": out,
            "shaken": state.shaken,
            "charges": [bs.owner_charge(c) for c in state.charges],
            "spent": list(state.spent),
        }
        return Standing(
            unit=bs.standing_unit(state, unit),
            cells=cells,
            weapons=tuple(weapons),
            badges=tuple(badges),
            out=out,
            status=", ".join(status),
            actions=tuple(actions),
            state_out=shown,
        )

    # ------------------------------------------------------------------ attacks

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        """The calculator's attack on the figurines as they stand (CP left, Evasion 0 while
        Shaken). Refused (InvalidInput, nothing rolled): an attacker out or Shaken (unless it
        only sets off charges whose countdown ran out), a target out, charges ticked that are
        not placed or not their whole group, and whatever the calculator refuses. Overridden:
        the default checks none of the state, and keeps no weapons or charge groups for
        ``after_attack``."""
        unit: D20Figurine = attacker.unit
        state: bs.UnitState = attacker.state
        mode = situation.get("mode", "shot")
        if mode in BATTLE_NO_MODES:
            raise InvalidInput(
                "mode", "defusing is the 'Defuse' action of the figurine whose charge it is"
            )
        for key in STATE_FIELDS:
            if key in situation:
                raise InvalidInput(key, "comes from the battle's state")
        laid = {c.weapon: c for c in state.charges}
        for i in weapons:
            if i in state.spent:
                raise InvalidInput("weapons", f"{unit.weapons[i].name} is used up")
            if i in laid and laid[i].use != "charge":
                raise InvalidInput(
                    "weapons",
                    f"{unit.weapons[i].name} is "
                    + (
                        "a trap: it goes off when a figurine trips it"
                        if laid[i].use == "trap"
                        else "laid: it goes off when a figurine comes within its radius"
                    ),
                )
        charges = tuple(
            i for i in weapons if 0 <= i < len(unit.weapons) and unit.weapons[i].equipment.timer
        )
        groups = bs.groups_of(state, charges) if charges else ()
        timed_out = (
            bool(charges)
            and len(charges) == len(weapons)
            and all(c.run_out for c in state.charges if c.group in groups)
        )
        if not timed_out:
            bs.require_fit(state, unit, attacker.name, "attacker_id")
        for k, (target, _) in enumerate(targets):
            if bs.out(target.state, target.unit):
                field = "target_id" if k == 0 else f"followers.{k - 1}.unit_id"
                raise InvalidInput(field, f"{target.name} is out (0 CP left)")
        inputs = [
            TargetInput(
                bs.standing_unit(t.state, t.unit),
                {**f, "shaken": t.state.shaken} if k else dict(f),
            )
            for k, (t, f) in enumerate(targets)
        ]
        rules: Any = self
        values = dict(situation)
        if targets:
            values["shaken"] = targets[0][0].state.shaken
        made = rules.attack(
            bs.standing_unit(state, unit), tuple(weapons), inputs, values, attacker.options
        )
        problems = made.problems()
        if problems:
            raise InvalidInput("weapons", " ".join(problems))
        shaken = [t.name for t, _ in targets if t.state.shaken]
        shown: JSON = {"shaken_targets": shaken}
        if groups:
            shown["charge_power"] = sum(bs.group_power(state.charges, g) for g in groups)
        return D20BattleAttack(
            attack=made,
            attacker=attacker,
            targets=tuple(t for t, _ in targets),
            situation=values,
            shown=shown,
            weapons=tuple(weapons),
            groups=groups,
        )

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        """The attacker with the charges it set off taken off the table, then each target as
        ``roll.detail`` leaves it (this attack's CP lost added, Shaken)."""
        state: bs.UnitState = attack.attacker.state
        groups = attack.groups if isinstance(attack, D20BattleAttack) else ()
        for group in groups:
            state = bs.take_group(state, group)
        fired = attack.weapons if isinstance(attack, D20BattleAttack) else ()
        unit: D20Figurine = attack.attacker.unit
        used = {
            i
            for i in fired
            if 0 <= i < len(unit.weapons) and unit.weapons[i].equipment.category in ONE_USE
        }
        if used:
            state = replace(state, spent=tuple(sorted(set(state.spent) | used)))
        detail = roll.detail if isinstance(roll.detail, Mapping) else {}
        rolled = detail.get("targets", []) or []
        states: list[Any] = [state]
        for index, target in enumerate(attack.targets):
            got = (
                rolled[index] if index < len(rolled) and isinstance(rolled[index], Mapping) else {}
            )
            lost = got.get("cp_lost", 0)
            lost = lost if isinstance(lost, int) and not isinstance(lost, bool) else 0
            shaken = got.get("shaken", False) is True
            before: bs.UnitState = target.state
            if target.key == attack.attacker.key:
                before = state
            states.append(bs.after_hurt(before, target.unit, lost, shaken))
        return tuple(states)

    # ------------------------------------------------------------------ actions

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        # the actions share their reading and their ending (a battle_state result whose D20
        # rolls are logged as one line; a device going off, the calculator's explosion on the
        # figurines named): one function in actions.py rather than seven act_<name>
        return actions.apply_action(self, name, fighter, values, rng)

    # ------------------------------------------------------------------ text

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        # CP lost and the flags (Shaken) in words, where the default gives the roll's words
        outcome = str(effect.get("outcome", ""))
        words = OUTCOME_WORDS.get(outcome, outcome)
        damage = effect.get("damage")
        if damage and outcome != "unhurt":
            words = f"{damage} CP lost: {words}"
        flags = [FLAG_WORDS.get(f, f) for f in effect.get("flags", []) or []]
        return ", ".join([words, *flags])

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        # the outcomes in lower case ("out 12%"), where the default uses the column labels
        return battle_log.odds_words(odds, OUTCOME_WORDS)
