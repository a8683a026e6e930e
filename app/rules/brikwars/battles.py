"""BrikWars battles behind the interface (``Battles``): a unit's state as JSON, what an
attack and the unit actions (Reload, Divert All Power, the Burning Roll) do to it, the log's
JSON for odds and dice, and the words of the forum export (``BrikWarsBattles``).

The rules themselves are ``battle_state``'s; this module translates between them and the
interface's plain shapes. The log's JSON is what battles stored before the interface (the
pages, the API and the text export read it):

- odds: ``{"any_destroying": p, "lines": [{"label", "kind", "weapons", "jam", "damage",
  "steps", "targets": [{"unit_id", "name", "miss", "no_effect", "something_bad",
  "destroyed", "size_damage", "on_fire"}]}]}``;
- dice: ``[{"label", "kind", "weapons", "skipped", "jammed", "dice": [{"purpose", "sides",
  "natural", "value", "bonus", "unit_id"}], "effects": [{"unit_id", "name", "outcome",
  "size_damage", "on_fire", "damage"}]}]``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any

from app.rules.battle_log import tallies_json
from app.rules.brikwars import battle_state as bs
from app.rules.brikwars.attacks import LoggedDie
from app.rules.brikwars.catalogue import format_number
from app.rules.brikwars.known_odds import TurnAttack
from app.rules.brikwars.serialize import number_to_json
from app.rules.brikwars.shapes import turn_odds, turn_roll
from app.rules.brikwars.situation_fields import BATTLE_SITUATION_FIELDS
from app.rules.brikwars.turn import Turn, TurnOdds, TurnRoll, TurnSituation
from app.rules.brikwars.units import weapon_name
from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField
from app.rules.ruleset import (
    ActionResult,
    AttackBase,
    AttackOdds,
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

JSON = dict[str, Any]
Names = Sequence[tuple[int, str]]  # (battle unit id, name) by target index

SITUATION_FIELDS = BATTLE_SITUATION_FIELDS
UNIT_ACTIONS = (
    UnitAction("reload", "Reload {unit}"),
    UnitAction("divert", "Divert All Power: {unit}"),
    UnitAction("burning", "Burning Roll: {unit}", urgent=True),
)
OUTCOMES = ("miss", "no_effect", "something_bad", "size_damage", "destroyed")
OUTCOME_WORDS = {
    "miss": "miss",
    "no_effect": "hit, no effect",
    "something_bad": "Something Bad",
    "size_damage": "Size Damage",
    "destroyed": "destroyed",
}


def inches(value: Fraction | int) -> str:
    return f'{format_number(value)}"'


# ------------------------------------------------------------------------ state


def encode_state(state: bs.UnitState) -> JSON:
    return bs.state_to_dict(state)


def decode_state(data: Mapping[str, Any]) -> bs.UnitState:
    return bs.state_from_dict(data or {})


def _badges(state: bs.UnitState, weapons: Sequence[BattleWeapon]) -> tuple[str, ...]:
    out = []
    if state.destroyed:
        out.append("destroyed")
    if state.on_fire:
        out.append("on Fire")
    for w in weapons:
        if not w.ready:
            out.append(f"{w.name} Inoperative")
    if state.diverted_turns:
        n = state.diverted_turns
        out.append(f"{n} turn{'s' * (n != 1)} of Power saved")
    if state.homing_in:
        out.append(f"Homing In +{state.homing_in}")
    if state.limbs_lost:
        out.append(f"{state.limbs_lost} limb{'s' * (state.limbs_lost != 1)} useless")
    return tuple(out)


def standing(fighter: Fighter) -> Standing:
    """The unit with its Size Damage, its figures, weapons, badges and actions."""
    state: bs.UnitState = fighter.state
    spec = state.unit(fighter.unit)
    weapons = []
    for i, weapon in enumerate(spec.weapons):
        stats = spec.weapon_stats(i, fighter.options)
        cells = {
            "use": "–" if stats.use is None else str(stats.use),
            "range": "CC" if stats.range_inches is None else inches(stats.range_inches),
            "damage": "–" if stats.damage is None else str(stats.damage),
        }
        ready = i not in state.inoperative
        weapons.append(BattleWeapon(i, weapon_name(weapon), cells, ready, weapon.entry.attacks))
    armour = spec.armour
    cells = {
        "size": inches(spec.built_size),
        "effective_size": inches(spec.effective_size),
        "armour": str(armour) + (f" +{armour.deflection} Defl." if armour.deflection else ""),
        "power": inches(spec.standing_power_with(fighter.options)),
    }
    badges = _badges(state, weapons)
    status = [
        f"Size {cells['effective_size']}/{cells['size']}",
        f"Armour {cells['armour']}",
        f"Power {cells['power']}",
    ]
    actions: tuple[str, ...] = ()
    if not state.destroyed:
        actions = (
            *(("reload",) if state.inoperative else ()),
            "divert",
            *(("burning",) if state.on_fire else ()),
        )
    shown = encode_state(state)
    shown["size_damage"] = str(shown["size_damage"])
    form = {"divert_turns": str(state.diverted_turns)} if state.diverted_turns else {}
    return Standing(
        unit=spec,
        cells=cells,
        weapons=tuple(weapons),
        badges=badges,
        out=state.destroyed,
        status=", ".join(status + list(badges)),
        actions=actions,
        form=form,
        state_out=shown,
    )


# ------------------------------------------------------------------------ attacks


@dataclass(frozen=True, slots=True)
class EngineRoll(AttackRoll):
    """A rolled turn in the interface's shape, with the engine's own roll beside it (which
    the battle reads: Size Damage in inches, the targets afterwards)."""

    engine: TurnRoll | None = None


@dataclass(frozen=True)
class BattleTurn(AttackBase):
    """A turn in a battle (the attacker's Inoperative weapons and Homing In applied) behind
    the interface's ``Attack``. Its odds are not remembered: a battle's turns carry its
    state (damage, jammed weapons), so an equal one rarely comes again."""

    turn: Turn

    def inline(self) -> bool:
        return self.turn.inline()

    def odds(self) -> AttackOdds:
        return turn_odds(self.turn.odds())

    def problems(self) -> tuple[str, ...]:
        return self.turn.power().problems

    def roll(self, rng: random.Random) -> EngineRoll:
        engine = self.turn.roll(rng)
        rolled = turn_roll(engine)
        return EngineRoll(rolled.lines, rolled.damage_after, engine=engine)


def situation_to_dict(situation: TurnSituation) -> JSON:
    """A situation as JSON (exact numbers kept)."""
    out: JSON = {}
    for key, value in asdict(situation).items():
        if value is None or isinstance(value, bool | str):
            out[key] = value
        else:
            out[key] = number_to_json(value)
    return out


def _engine(attack: BattleAttack, roll: AttackRoll) -> tuple[Turn, TurnRoll]:
    if not isinstance(attack.attack, BattleTurn) or not isinstance(roll, EngineRoll):
        raise TypeError("a BrikWars battle roll comes from its own battle_attack")
    assert roll.engine is not None
    return attack.attack.turn, roll.engine


def after_attack(attack: BattleAttack, roll: AttackRoll) -> tuple[bs.UnitState, ...]:
    """The attacker after its turn (jams, fired Cannons, saved Power spent, Homing In), then
    each target after the hits it took."""
    turn, engine = _engine(attack, roll)
    attacker = attack.attacker
    after = [
        bs.attacker_after(
            attacker.state,
            turn.attacker,
            weapons=turn.weapons,
            target=attack.targets[0].key,
            homing_in=turn.situation.homing_in,
            gunnery_support=turn.situation.gunnery_support,
            roll=engine,
        )
    ]
    for index, unit in enumerate(attack.targets):
        effects = [e for line in engine.lines for e in line.effects if e.target == index]
        after.append(bs.target_after(unit.state, engine.targets_after[index], effects))
    return tuple(after)


# ------------------------------------------------------------------------ the log's JSON


def _target_odds(values: Mapping[str, float], unit: tuple[int, str]) -> JSON:
    return {
        "unit_id": unit[0],
        "name": unit[1],
        "miss": values["miss"],
        "no_effect": values["no_effect"],
        "something_bad": values["something_bad"],
        "destroyed": values["destroyed"],
        "size_damage": values["size_damage"],
        "on_fire": values["on_fire"],
    }


def odds_to_dict(odds: TurnOdds | AttackOdds, targets: Names) -> JSON:
    """The main outcomes of every line (the engine's odds or the interface's)."""
    if isinstance(odds, TurnOdds):
        return {
            "any_destroying": odds.any_destroying,
            "lines": [
                {
                    "label": line.label,
                    "kind": line.kind,
                    "weapons": list(line.weapons),
                    "jam": line.jam,
                    "damage": [list(pair) for pair in line.damage],
                    "steps": [[step.label, step.value] for step in line.steps],
                    "targets": [
                        _target_odds(t.outcomes() | {"on_fire": t.on_fire}, targets[t.index])
                        for t in line.targets
                    ],
                }
                for line in odds.lines
            ],
            "tallies": tallies_json(turn_odds(odds)),
        }
    return {
        "any_destroying": odds.decisive,
        "lines": [
            {
                "label": line.label,
                "kind": line.kind,
                "weapons": list(line.weapons),
                "jam": next((n.probability for n in line.notes if n.key == "jam"), 0.0),
                "damage": [list(pair) for pair in line.damage],
                "steps": [list(step) for step in line.steps],
                "targets": [
                    _target_odds(
                        {o.key: o.probability for o in t.outcomes + t.extras}, targets[t.target]
                    )
                    for t in line.targets
                ],
            }
            for line in odds.lines
        ],
        "tallies": tallies_json(odds),  # (added after the first battles: may be missing)
    }


def _die(die: LoggedDie, targets: Names) -> JSON:
    return {
        "purpose": die.purpose,
        "sides": die.sides,
        "natural": die.natural,
        "value": die.value,
        "bonus": die.bonus,
        "unit_id": None if die.target is None else targets[die.target][0],
    }


def roll_to_dict(roll: TurnRoll, targets: Names) -> list[JSON]:
    """Every line of a rolled turn with every die and what it did to whom."""
    return [
        {
            "label": line.label,
            "kind": line.kind,
            "weapons": list(line.weapons),
            "skipped": line.skipped,
            "jammed": line.jammed,
            "dice": [_die(d, targets) for d in line.dice],
            "effects": [
                {
                    "unit_id": targets[e.target][0],
                    "name": targets[e.target][1],
                    "outcome": e.outcome,
                    "size_damage": e.size_damage,
                    "on_fire": e.on_fire,
                    "damage": e.damage,
                }
                for e in line.effects
                if e.target < len(targets)
            ],
        }
        for line in roll.lines
    ]


def _names(attack: BattleAttack) -> list[tuple[int, str]]:
    return [(t.key, t.name) for t in attack.targets]


def log_odds(attack: BattleAttack, odds: AttackOdds) -> JSON:
    return odds_to_dict(odds, _names(attack))


def log_roll(attack: BattleAttack, roll: AttackRoll) -> list[JSON]:
    _, engine = _engine(attack, roll)
    return roll_to_dict(engine, _names(attack))


def burning_roll_to_dict(die: LoggedDie, unit_id: int) -> JSON:
    """A Burning Roll's die in the dice shape of an attack (one line, no effects)."""
    return {
        "label": "Burning Roll",
        "kind": "burning",
        "weapons": [],
        "skipped": "",
        "jammed": False,
        "dice": [
            {
                "purpose": die.purpose,
                "sides": die.sides,
                "natural": die.natural,
                "value": die.value,
                "bonus": die.bonus,
                "unit_id": unit_id,
            }
        ],
        "effects": [],
    }


# ------------------------------------------------------------------------ text


def _percent(p: float) -> str:
    return f"{100 * p:.1f}%"


def effect_words(effect: Mapping[str, Any]) -> str:
    """ "2\" of Size Damage, on Fire" for one effect of a logged line."""
    outcome = effect["outcome"]
    if outcome == "size_damage":
        words = f'{effect["size_damage"]}" of Size Damage'
    else:
        words = OUTCOME_WORDS.get(outcome, outcome)
    if effect.get("on_fire"):
        words += ", on Fire"
    return words


def odds_words(odds: Mapping[str, Any]) -> list[str]:
    """The stored odds of an entry, a line of text per attack line and target."""
    out = []
    for line in odds.get("lines", []):
        for t in line["targets"]:
            parts = [f"{OUTCOME_WORDS[k]} {_percent(t[k])}" for k in OUTCOMES if t[k] > 0]
            if t["on_fire"]:
                parts.append(f"on Fire {_percent(t['on_fire'])}")
            if line["jam"]:
                parts.append(f"jam {_percent(line['jam'])}")
            out.append(f"{line['label']} on {t['name']}: " + ", ".join(parts))
    return out


# ------------------------------------------------------------------------ the battles


class BrikWarsBattles(RulesetBase):
    """The battles' members: the primitives, and the defaults BrikWars keeps otherwise."""

    battle_situation_fields: tuple[InputField, ...] = SITUATION_FIELDS  # Homing In: the battle's
    unit_actions: tuple[UnitAction, ...] = UNIT_ACTIONS
    # "If a minifig is still on Fire at the beginning of his turn, he makes a Burning Roll"
    # (chapter 8): as his side's turn begins
    turn_reset: TurnReset | None = TurnReset("burning", "turn")

    def decode_state(self, data: Mapping[str, Any]) -> bs.UnitState:
        # exact Size Damage from its JSON text, weapon sets from lists
        return decode_state(data)

    def encode_state(self, state: bs.UnitState) -> JSON:
        # exact Size Damage ("1.5"), sets as sorted lists: JSON, not the dataclass's fields
        return encode_state(state)

    def standing(self, fighter: Fighter) -> Standing:
        return standing(fighter)

    def battle_attack(
        self,
        attacker: Fighter,
        weapons: tuple[int, ...],
        targets: Sequence[tuple[Fighter, Mapping[str, Any]]],
        situation: Mapping[str, Any],
        *,
        moved: bool = False,
    ) -> BattleAttack:
        # the attacker's Inoperative weapons, its saved Power checked and its Homing In on
        # the main target added (rulings B3-B5); the turn rolled keeps the engine's roll
        state: bs.UnitState = attacker.state
        spec = state.unit(attacker.unit)
        inputs = [TargetInput(t.state.unit(t.unit), fields) for t, fields in targets]
        situation = {k: v for k, v in situation.items() if k != "homing_in"}  # the battle's own
        made = self.attack(spec, tuple(weapons), inputs, situation, attacker.options)
        assert isinstance(made, TurnAttack)
        turn = made.turn
        saved = state.diverted_turns
        if turn.situation.divert_turns > saved:
            raise InvalidInput(
                "divert_turns",
                f"{attacker.name} has saved {saved} turn{'s' * (saved != 1)} of Power: "
                "Divert All Power first",
            )
        main = targets[0][0]
        homing = bs.homing_bonus(state, target=main.key, weapons=tuple(weapons), moved=moved)
        turn = replace(
            turn,
            situation=replace(turn.situation, homing_in=homing),
            inoperative=state.inoperative,
        )
        check = turn.power()
        if not check.ok:
            raise InvalidInput("weapons", " ".join(check.problems))
        return BattleAttack(
            attack=BattleTurn(turn),
            attacker=attacker,
            targets=tuple(t for t, _ in targets),
            situation=situation_to_dict(turn.situation),
            shown={"homing_in": homing},
        )

    def after_attack(self, attack: BattleAttack, roll: AttackRoll) -> tuple[bs.UnitState, ...]:
        return after_attack(attack, roll)

    def log_odds(self, attack: BattleAttack, odds: AttackOdds) -> JSON:
        # the log's shape battles stored before the interface (``odds_to_dict``)
        return log_odds(attack, odds)

    def log_roll(self, attack: BattleAttack, roll: AttackRoll) -> list[JSON]:
        # every die of the engine's roll, as battles stored it (``roll_to_dict``)
        return log_roll(attack, roll)

    def odds_words(self, odds: Mapping[str, Any]) -> list[str]:
        # words of BrikWars' own log shape: on Fire and a jam beside the outcomes
        return odds_words(odds)

    def effect_words(self, effect: Mapping[str, Any]) -> str:
        # inches of Size Damage and on Fire, from BrikWars' own log shape
        return effect_words(effect)

    # the unit actions (``apply_action`` reads them by name; none asks a value)

    def act_reload(
        self, fighter: Fighter, values: Mapping[str, FieldValue], rng: random.Random
    ) -> ActionResult:
        state: bs.UnitState = fighter.state
        spec = state.unit(fighter.unit)
        after = bs.reload(state, fighter.name)
        names = ", ".join(weapon_name(spec.weapons[i]) for i in sorted(state.inoperative))
        return ActionResult(after, f"{fighter.name} Reloads {names}")

    def act_divert(
        self, fighter: Fighter, values: Mapping[str, FieldValue], rng: random.Random
    ) -> ActionResult:
        state: bs.UnitState = fighter.state
        spec = state.unit(fighter.unit)
        after = bs.divert(state, fighter.name)
        saved = spec.standing_power_with(fighter.options) * after.diverted_turns
        turns = after.diverted_turns
        summary = (
            f"{fighter.name} Diverts All Power: {turns} turn"
            f"{'s' * (turns != 1)} saved ({inches(saved)} extra for one weapon)"
        )
        return ActionResult(after, summary)

    def act_burning(
        self, fighter: Fighter, values: Mapping[str, FieldValue], rng: random.Random
    ) -> ActionResult:
        state: bs.UnitState = fighter.state
        rolled = bs.burning_roll(state, state.unit(fighter.unit), rng)
        summary = f"{fighter.name} Burning Roll d4 {rolled.die.natural}: {rolled.summary}"
        return ActionResult(rolled.after, summary, (burning_roll_to_dict(rolled.die, fighter.key),))
