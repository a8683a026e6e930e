"""Degrees battles: each unit's state (Armour, HP, AP lost, restraint, senses, gas guns,
bloom), its standing, attacks against it and named actions (``actions.py``).

The rules of the state are ``battle_state``'s; this mixin puts them behind the ``Ruleset``
interface. An attack is the calculator's (``self.attack``) with what the state decides fed
into its situation (``STATE_FIELDS``: AP left, AP carried or pumped, a drawn p-gun, bloom);
what the roll did comes back in ``roll.detail`` (absolute values after the roll). The log
keeps, in the shared shape (``app.rules.battle_log``, ``RulesetBase``'s):

- odds: ``{"decisive", "expected", "lines": [{"label", "kind", "weapons", "steps",
  "notes": {key: p}, "targets": [{"unit_id", "name", "outcomes": {key: p},
  "extras": {key: p}}]}], "labels": {key: label}, "detail": <the calculator's>}``;
- dice: ``[{"label", "kind", "weapons", "skipped", "jammed", "notes", "dice": [{"purpose",
  "sides", "natural", "value", "bonus", "unit_id"}], "effects": [{"unit_id", "name",
  "outcome", "damage", "flags", "amount", "words"}]}]``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from app.rules.degrees import battle_state as bs
from app.rules.degrees.actions import UNIT_ACTIONS, act
from app.rules.degrees.catalogue import SENSES, VISIBILITY
from app.rules.degrees.units import DegreesUnit
from app.rules.errors import InvalidInput
from app.rules.fields import InputField
from app.rules.ruleset import (
    JSON,
    ActionResult,
    AttackRoll,
    BattleAttack,
    BattleWeapon,
    Fighter,
    RulesetBase,
    Standing,
    TargetInput,
    TurnReset,
    UnitAction,
)

# The situation fields a battle's state decides (left out of its attack form).
# The incandescent environment's 1° attack is the New round's (on each unit in the location),
# not an attack's.
STATE_FIELDS = frozenset(
    {"ap", "carried", "drawn", "bloom", "visibility", "revealed", "dampened", "environment"}
)

OUTCOME_WORDS = {
    "destroyed": "destroyed",
    "critical": "critically wounded",
    "wounded": "wounded",
    "armour": "Armour lost",
    "drained": "AP lost",
    "unharmed": "unharmed",
}
CUSTODY = "in Thinny custody"  # "Units that are restrained when the scenario ends are in ..."
FLAG_WORDS = {
    "restrained": "restrained",
    "dampened": "senses dampened",
    "suppressed": "suppressed",
}


def _bloom_share(attack: BattleAttack) -> Fraction:
    """The bloom the attack causes, as the engine reports it (``bloom_share``: the largest
    share of a γ-gun's round of the weapons fired, a dousing rod's 1/3, set to stun's
    reduced share): 0 when nothing it fired blooms."""
    more = getattr(attack.attack, "more", None)
    if more is None:  # not the engine's round: the fired weapons' own rates
        unit: DegreesUnit = attack.attacker.unit
        return max((unit.weapons[i].kind.bloom_rate for i in _fired(attack)), default=Fraction(0))
    return Fraction(str(dict(more).get("bloom_share", 0)))


def _kept(value: Any, built: int, before: int | None) -> int | None:
    """A stat after an attack, None ("as built") while it never changed."""
    if not isinstance(value, int) or isinstance(value, bool):
        return before
    return None if before is None and value == built else max(0, min(bs.MAX_STAT, value))


@dataclass(frozen=True)
class DegreesBattleAttack(BattleAttack):
    """A battle attack that remembers the weapons fired (``after_attack`` reads them)."""

    weapons: tuple[int, ...] = ()


def _badges(
    state: bs.UnitState, unit: DegreesUnit, weapons: Sequence[BattleWeapon]
) -> tuple[str, ...]:
    out: list[str] = []
    hp = bs.hp_left(state, unit)
    if hp <= 0:
        return ("destroyed",)
    if state.custody:
        out.append(CUSTODY)
    if hp == 1 and hp < unit.hp:  # (a Least Weasel's 1 HP as built is no wound)
        out.append("critically wounded")
    if state.restrained:
        out.append("restrained")
    if state.visibility != "fogged":
        out.append(state.visibility)
    if state.suppressed_rounds:
        rounds = state.suppressed_rounds
        out.append(f"suppressed ({rounds} round{'s' * (rounds != 1)})")
    if state.dampened:
        names = ", ".join(SENSES[s].name for s in state.dampened)
        rounds = state.dampened_rounds
        out.append(f"dampened: {names} ({rounds} round{'s' * (rounds != 1)})")
    return tuple(out) + _kit_badges(state, weapons)


def _kit_badges(state: bs.UnitState, weapons: Sequence[BattleWeapon]) -> tuple[str, ...]:
    """What the unit's AP, guns and location show (after its condition's badges)."""
    out: list[str] = []
    if state.ap_lost:
        out.append(f"{state.ap_lost} AP owed")
    if state.ap_reused:
        out.append(f"{state.ap_reused} AP of a missed Flashback (not for attacks)")
    if state.drawn:
        out.append("p-gun drawn")
    if state.carried:
        out.append(f"{state.carried} AP carried")
    for w in weapons:
        if w.cells["pumped"] not in ("", "0"):
            out.append(f"{w.name}: {w.cells['pumped']} AP pumped")
        if w.cells["degree"] == "wrecked":
            out.append(f"{w.name} wrecked")
    if state.bloom:
        out.append(f"bloom {bs.bloom_words(state)}" + " (incandescent)" * bs.incandescent(state))
    elif state.pre_bloom:
        out.append("pre-bloomed")
    elif state.bloom_build:
        out.append(f"blooming ({state.bloom_build} of a pre-bloom)")
    return tuple(out)


def _fired(attack: BattleAttack) -> tuple[int, ...]:
    unit: DegreesUnit = attack.attacker.unit
    weapons = attack.weapons if isinstance(attack, DegreesBattleAttack) else ()
    return tuple(i for i in weapons if 0 <= i < len(unit.weapons))


def _target_after(target: Fighter, got: Mapping[str, Any], share: Fraction) -> bs.UnitState:
    unit: DegreesUnit = target.unit
    state: bs.UnitState = target.state
    after = replace(
        state,
        armour=_kept(got.get("armour"), unit.armour, state.armour),
        back_armour=_kept(got.get("back_armour"), unit.back_armour, state.back_armour),
        hp=_kept(got.get("hp"), unit.hp, state.hp),
        restrained=state.restrained or bool(got.get("restrained", False)),
    )
    after = bs.mark_bloom(after, share)
    if got.get("suppressed") is True:
        after = replace(after, suppressed_rounds=bs.SUPPRESSED_ROUNDS)
    lost = got.get("ap_lost", 0)
    senses = [s for s in got.get("dampened", []) or [] if s in SENSES]
    if (
        getattr(target.options, "nociception_at_hit", False)
        and "nociception" in senses
        and "nociception" in state.dampened
    ):
        # house rule: lost at the hit that dampens it; it was already dampened
        lost = max(0, int(lost) - (unit.senses.index("nociception") + 1))
    if isinstance(lost, int) and not isinstance(lost, bool) and lost > 0:
        after = bs.lose_ap(after, unit, min(lost, bs.MAX_AP))
    if senses:
        longest = max(len(senses), len(state.dampened))
        order = tuple(s for s in unit.senses if s in set(senses) | set(state.dampened))
        after = replace(after, dampened=order[:longest], dampened_rounds=bs.DAMPENED_ROUNDS)
    if bs.destroyed(after, unit):
        after = replace(
            after, restrained=False, dampened=(), dampened_rounds=0, suppressed_rounds=0
        )
    return after


class DegreesBattles(RulesetBase):
    """The battle half of the Degrees ruleset. A fresh state, the public state (nothing is
    secret) and the log's JSON are ``RulesetBase``'s."""

    unit_actions: tuple[UnitAction, ...] = UNIT_ACTIONS
    # "AP per round": every unit's AP come back (and bloom's attack rolls) as a round begins
    turn_reset: TurnReset | None = TurnReset("new_round", "round")

    @property
    def battle_situation_fields(self) -> tuple[InputField, ...]:
        # what the state decides (AP left, carried, a drawn p-gun, bloom) is not asked
        return tuple(f for f in self.situation_fields if f.name not in STATE_FIELDS)

    def decode_state(self, data: Mapping[str, Any]) -> bs.UnitState:
        # a stored state is checked (bounds, senses) and its gas guns read by weapon index
        return bs.decode_state(data or {})

    def encode_state(self, state: bs.UnitState) -> JSON:
        # gas guns written by weapon index, senses as a list
        return bs.encode_state(state)

    def standing(self, fighter: Fighter) -> Standing:
        unit: DegreesUnit = fighter.unit
        state: bs.UnitState = fighter.state
        out = bs.destroyed(state, unit)
        left = bs.ap_left(state, unit)
        weapons = []
        for i, weapon in enumerate(unit.weapons):
            kind = weapon.kind
            if kind.gas:
                gun = state.gun(i, weapon)
                degree = f"{gun.max}-max" if gun.max > 0 else "wrecked"
                cells = {"degree": degree, "pumped": str(gun.pumped)}
            else:
                cells = {"degree": f"{weapon.degree}°", "pumped": ""}
            cheapest = kind.attack_ap + (0 if state.drawn else kind.draw_ap)
            cells |= {"ap": str(cheapest), "type": kind.name}
            ready = not out and not state.restrained and not bs.wrecked(state, unit, i)
            weapons.append(BattleWeapon(i, weapon.name, cells, ready))
        hp = bs.hp_left(state, unit)
        cells = {
            "degree": f"{unit.degree}°",
            "armour": f"{bs.armour_left(state, unit)}/{unit.armour}",
            "back_armour": f"{bs.back_armour_left(state, unit)}/{unit.back_armour}",
            "hp": f"{hp}/{unit.hp}",
            "ap": f"{left}/{unit.ap}",
            "location": state.location,
            "bloom": bs.bloom_words(state),
            "visibility": state.visibility,
        }
        badges = _badges(state, unit, weapons)
        status = [
            f"Armour {cells['armour']}",
            f"back Armour {cells['back_armour']}",
            f"HP {cells['hp']}",
            f"AP {cells['ap']}",
        ]
        actions: tuple[str, ...] = ()
        if not out:
            free = not state.restrained
            actions = tuple(
                name
                for name, allowed in (
                    ("new_round", True),
                    ("break_free", state.restrained and left > 0),
                    ("pump", free and left > 0 and any(w.kind.gas for w in unit.weapons)),
                    (
                        "draw",
                        free and not state.drawn and any(w.kind.draw_ap for w in unit.weapons),
                    ),
                    ("begin", free and left > 0),
                    ("location", True),
                    ("recon", free and left > 0 and "telepathy" not in state.dampened),
                    ("visibility", True),
                )
                if allowed
            )
        shown = bs.encode_state(state) | {"ap_left": left, "destroyed": out}
        return Standing(
            unit=bs.standing_unit(state, unit),
            cells=cells,
            weapons=tuple(weapons),
            badges=badges,
            out=out,
            status=", ".join(status + list(badges)),
            actions=actions,
            state_out=shown,
            fate=CUSTODY if state.custody and not out else "",
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
        """The calculator's attack with the state fed in: AP left this round, AP carried (a
        fired gas gun's pumped AP instead), a drawn p-gun and the worse bloom of the two
        locations. Refused (InvalidInput) for a restrained or destroyed attacker, a wrecked
        gas gun, and an attack over the AP left (``weapons``); nothing is rolled."""
        unit: DegreesUnit = attacker.unit
        state: bs.UnitState = attacker.state
        bs.require_free(state, attacker.name, "attacker_id")
        for index in weapons:
            if 0 <= index < len(unit.weapons) and bs.wrecked(state, unit, index):
                name = unit.weapons[index].name
                raise InvalidInput("weapons", f"{name} is wrecked")
        gas = [i for i in weapons if 0 <= i < len(unit.weapons) and unit.weapons[i].kind.gas]
        # a missed Flashback's AP this round are for anything but a direct attack (DK14)
        left = bs.attack_ap_left(state, unit)
        carried = state.gun(gas[0], unit.weapons[gas[0]]).pumped if gas else state.carried
        bloom = max([bs.bloom_level(state), *(bs.bloom_level(t.state) for t, _ in targets)])
        # the attacker's visibility is its state's; the main target is revealed by its own
        revealed = bool(targets) and targets[0][0].state.visibility == "revealed"
        fed = {
            "ap": left,
            "carried": carried,
            "drawn": state.drawn,
            "bloom": bloom,
            "visibility": state.visibility,
            "revealed": revealed,
            # its own dampened senses (Nociception's AP are already off its round's)
            "dampened": len(state.dampened) if state.dampened_rounds else 0,
        }
        values = {k: v for k, v in situation.items() if k not in STATE_FIELDS} | fed
        inputs = [TargetInput(bs.standing_unit(t.state, t.unit), f) for t, f in targets]
        made = self.attack(
            bs.standing_unit(state, unit), tuple(weapons), inputs, values, attacker.options
        )
        cost = int(getattr(made, "ap_cost", 0))  # this round's, the carried AP apart
        if cost > left:
            carry = f" ({carried} carried)" if carried else ""
            if state.ap_reused:
                carry += f" ({state.ap_reused} of a missed Flashback only for non-attacks)"
            raise InvalidInput(
                "weapons", f"needs {cost} AP{carry}; {attacker.name} has {left} left this round"
            )
        problems = made.problems()
        if problems:
            raise InvalidInput("weapons", " ".join(problems))
        return DegreesBattleAttack(
            attack=made,
            attacker=attacker,
            targets=tuple(t for t, _ in targets),
            situation=values,
            shown={
                "ap_left": left,
                "carried": carried,
                "drawn": state.drawn,
                "bloom": bloom,
                "visibility": state.visibility,
            },
            weapons=tuple(weapons),
        )

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[Any, ...]:
        """The attacker after spending its AP (its carried or pumped AP used, a fired gas
        gun's max as the roll left it, a fired p-gun in hand), then each target as
        ``roll.detail`` leaves it (AP lost paid from its round, the rest owed)."""
        detail = roll.detail
        unit: DegreesUnit = attack.attacker.unit
        state: bs.UnitState = attack.attacker.state
        weapons = _fired(attack)
        share = _bloom_share(attack)
        info = detail.get("attacker", {}) if isinstance(detail, Mapping) else {}
        spent = int(info.get("ap_spent", getattr(attack.attack, "ap_cost", 0)) or 0)
        reused = int(info.get("ap_reused", 0) or 0)
        seen = info.get("visibility") or state.visibility
        after = replace(
            state,
            ap_spent=min(bs.MAX_AP, state.ap_spent + max(0, spent)),
            visibility=seen if seen in VISIBILITY else state.visibility,
        )
        after = bs.mark_bloom(after, share)
        # a missed Flashback's AP: the unit's again, but not for a direct attack (DK14)
        after = replace(
            after, ap_reused=min(state.ap_reused + max(0, reused), bs.ap_left(after, unit))
        )
        gas = [i for i in weapons if unit.weapons[i].kind.gas]
        if gas:
            tops = info.get("gas", {}) or {}
            for i in gas:
                gun = state.gun(i, unit.weapons[i])
                top = tops.get(str(i), tops.get(i, {})).get("max", gun.max)
                pumped = int(info.get("pumped_left", 0) or 0) if i == gas[0] else gun.pumped
                after = after.with_gun(i, bs.GasGun(pumped, int(top)))
        else:
            after = replace(after, carried=0)
        if any(unit.weapons[i].kind.draw_ap for i in weapons):
            after = replace(after, drawn=True)
        if unit.weasel:  # "they are destroyed on attack"
            after = replace(after, hp=0, restrained=False, dampened=(), dampened_rounds=0)
        states: list[Any] = [after]
        rolled = detail.get("targets", []) if isinstance(detail, Mapping) else []
        for index, target in enumerate(attack.targets):
            got = rolled[index] if index < len(rolled) else {}
            states.append(_target_after(target, got, share))
        return tuple(states)

    # ------------------------------------------------------------------ actions

    def apply_action(
        self, name: str, fighter: Fighter, values: Mapping[str, Any], rng: random.Random
    ) -> ActionResult:
        # one reader for the six actions (three roll dice that the log shows alike), not
        # six act_<name> methods
        return act(name, fighter, values, rng)

    # ------------------------------------------------------------------ the end

    def end_battle(self, fighters: Sequence[Fighter]) -> ActionResult:
        """The scenario's end (docs/rulings.md DE1-DE2): "Units that are restrained when the
        scenario ends are in Thinny custody"; a damaged gas gun, whose "new, reduced level"
        is its max "for the rest of the scenario (assuming spare parts & tools are
        available)", is repaired to its built max (a wrecked one, at 0 or less, is not)."""
        changed: dict[int, bs.UnitState] = {}
        words: list[str] = []
        for f in fighters:
            unit: DegreesUnit = f.unit
            state: bs.UnitState = f.state
            if bs.destroyed(state, unit):
                continue
            after = state
            if state.restrained and not state.custody:
                after = replace(after, custody=True)
                words.append(f"{f.name} {CUSTODY}")
            repair = not getattr(f.options, "no_gas_repair", False)
            for i in bs.gas_guns(unit) if repair else ():
                weapon = unit.weapons[i]
                gun = state.gun(i, weapon)
                if 0 < gun.max < weapon.degree:
                    after = after.with_gun(i, bs.GasGun(gun.pumped, weapon.degree))
                    words.append(
                        f"{f.name}'s {weapon.name} repaired (it was {gun.max}-max for the rest "
                        "of the scenario)"
                    )
            if after != state:
                changed[f.key] = after
        return ActionResult(None, "; ".join(words), others=changed)

    # ------------------------------------------------------------------ text

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        # the damage dealt and the flags (restrained, senses dampened) in words
        outcome = str(effect.get("outcome", ""))
        words = OUTCOME_WORDS.get(outcome, outcome)
        damage = effect.get("damage")
        if damage and outcome != "unharmed":
            words = f"{damage} damage: {words}"
        flags = [FLAG_WORDS.get(f, f) for f in effect.get("flags", []) or []]
        return ", ".join([words, *flags])
