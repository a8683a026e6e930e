"""The attack calculator between saved units: the ruleset's attack built from stored rosters.

A calculation names an attacker unit and the weapons it fires this turn, a target unit (and
further targets, where the ruleset has them), allies joining a combined attack, and the
situation; optionally a second loadout to compare. Every army involved is checked for read
access (another user's roster is a NotFound). The odds, the reasons an attack cannot be made
and the breakdowns are the attacker's ruleset's (``Ruleset.attack``), under the attacker's
army's house rules, with the Bonus die overridable for the calculation.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Army, BattleUnit, Unit, User
from app.rules.errors import InvalidInput, RulesError
from app.rules.fields import FieldValue
from app.rules.registry import DEFAULT_RULESET, get_ruleset
from app.rules.ruleset import (
    AllyInput,
    Attack,
    AttackOdds,
    AttackRoll,
    Ruleset,
    TargetInput,
    read_situation,
)
from app.services import battles, builder, compute
from app.services.calculator_units import SavedUnits, UnitLookup

BONUS_DIE = "bonus_die"
"""The house rule a calculation may play differently from the attacker's army (the name of
one of the ruleset's ``option_fields``; a ruleset without it refuses the override)."""


def default_situation(ruleset: Ruleset) -> Any:
    """The ruleset's situation with every field at its default."""
    return read_situation(ruleset, {})[0]


@dataclass(frozen=True, init=False)
class Follower:
    """A further target: a saved unit and its values of the ruleset's ``target_fields``, in
    their order (where it stands, say). ``figures``: how many figurines of the unit (a squad
    of count N: 1..N) stand where the attack reaches; None: all of them."""

    unit_id: int
    values: tuple[FieldValue, ...]
    figures: int | None
    # the row of a form or query it was typed in (rows refused or left blank before it
    # count): where its refusals are shown; no part of what it is
    row: int | None = field(default=None, compare=False)

    def __init__(
        self,
        unit_id: int,
        *values: FieldValue,
        figures: int | None = None,
        row: int | None = None,
    ) -> None:
        object.__setattr__(self, "unit_id", unit_id)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "figures", figures)
        object.__setattr__(self, "row", row)

    def fields(self, ruleset: Ruleset) -> dict[str, FieldValue]:
        """The values by field name (a missing one: its default)."""
        return {
            f.name: self.values[i] if i < len(self.values) else f.default
            for i, f in enumerate(ruleset.target_fields)
        }


@dataclass(frozen=True)
class Loadout:
    """An attacker unit and the weapons (stored weapon ids) it fires this turn."""

    unit_id: int | None = None
    weapon_ids: tuple[int, ...] = ()


def _default_situation() -> Any:
    return default_situation(get_ruleset(DEFAULT_RULESET))


@dataclass(frozen=True)
class CalcRequest:
    """Everything a calculation depends on: the state a calculator URL carries. The
    situation is the attacker's ruleset's own (``Ruleset.decode_situation``)."""

    attacker: Loadout = Loadout()
    target_id: int | None = None
    situation: Any = field(default_factory=_default_situation)
    followers: tuple[Follower, ...] = ()
    target_figures: int | None = None  # the main target's figurines reached (None: all)
    compare: Loadout | None = None
    bonus_die: str | None = None
    allies: tuple[int, ...] = ()
    ally_weapons: tuple[int, ...] = ()


@dataclass
class LoadoutResult:
    """One loadout against the target: the attack, its odds, or why it cannot be computed."""

    ruleset: Ruleset
    army: builder.ArmyView
    unit: builder.UnitView
    weapons: list[builder.WeaponView]
    attack: Attack | None = None
    odds: AttackOdds | None = None
    problems: tuple[str, ...] = ()
    error: InvalidInput | None = None
    message: str = ""

    @property
    def weapon_ids(self) -> tuple[int, ...]:
        return tuple(w.row.id for w in self.weapons)

    @property
    def weapon_names(self) -> list[str]:
        return [w.figures.name for w in self.weapons]

    @property
    def positions(self) -> tuple[int, ...]:
        """The chosen weapons as positions in the unit (what the ruleset takes)."""
        index = {w.row.id: i for i, w in enumerate(self.unit.weapons)}
        return tuple(index[w.row.id] for w in self.weapons)

    @property
    def unit_cost(self) -> Any:
        """One figure's cost, in its ruleset's own numbers (BrikWars: a ``Fraction``)."""
        return self.unit.cost

    @property
    def unit_cost_text(self) -> str:
        return self.ruleset.format_cost(self.unit.cost)

    @property
    def weapons_cost_text(self) -> str:
        """What the weapons fired cost, in the ruleset's points."""
        cost = self.ruleset.weapons_cost(self.unit.spec, self.positions, self.army.options)
        return self.ruleset.format_cost(cost)

    @property
    def expected(self) -> float | None:
        """The expected decisive results of this turn on the target (destroying hits)."""
        return None if self.odds is None else self.odds.expected

    @property
    def per_10_points(self) -> float | None:
        """Expected decisive results per 10 points of the attacking unit (weapons included)."""
        expected = self.expected
        if expected is None or self.unit_cost <= 0:
            return None
        return expected * 10 / float(self.unit_cost)


@dataclass
class Calculation:
    """The page's whole state: the armies offered, the picks, and the results."""

    request: CalcRequest
    offered: Callable[[], list[Army]]  # the pickers' armies (read only if they are drawn)
    ruleset: Ruleset
    attacker_army: builder.ArmyView | None = None
    target_army: builder.ArmyView | None = None
    target: builder.UnitView | None = None
    followers: list[tuple[Follower, builder.UnitView]] = field(default_factory=list)
    allies: list[tuple[builder.UnitView, tuple[int, ...]]] = field(default_factory=list)
    main: LoadoutResult | None = None
    compare: LoadoutResult | None = None
    compare_army: builder.ArmyView | None = None
    unit_armies: dict[int, builder.ArmyView] = field(default_factory=dict)
    # each target's figurines reached (the main target's, then each further target's)
    figures: list[int] = field(default_factory=list)
    # the targets' refused picks by the JSON body's names (``target.figures``,
    # ``followers.2.figures``, ``followers.0.unit_id``): nothing is computed while any is
    refused: dict[str, str] = field(default_factory=dict)

    def target_name(self, index: int) -> str:
        """Target ``index``'s unit name (0: the main target, then the further ones)."""
        if index == 0:
            return self.target.row.name if self.target is not None else "Target"
        if index - 1 < len(self.followers):
            return self.followers[index - 1][1].row.name
        return f"Target {index + 1}"

    def target_count(self, index: int) -> int:
        """Target ``index``'s unit's figurines (its roster count)."""
        if index == 0:
            return self.target.count if self.target is not None else 1
        if index - 1 < len(self.followers):
            return self.followers[index - 1][1].count
        return 1

    @cached_property
    def armies(self) -> list[Army]:
        """The armies the pickers offer: the user's and their clubs', and any reached
        through a link (a club roster). Read on first use: the results an input change
        asks for draw no pickers, and the query was a tenth of their work."""
        out = list(self.offered())
        ids = {army.id for army in out}
        for view in (self.attacker_army, self.target_army, self.compare_army):
            if view is not None and view.army.id not in ids:
                out.append(view.army)
                ids.add(view.army.id)
        return out


def _weapons(unit: builder.UnitView, ids: tuple[int, ...]) -> list[builder.WeaponView]:
    by_id = {w.row.id: w for w in unit.weapons}
    chosen = []
    for weapon_id in ids:
        if weapon_id not in by_id:
            raise InvalidInput("weapons", f"{unit.row.name} has no such weapon (id {weapon_id})")
        chosen.append(by_id[weapon_id])
    return chosen


def default_weapons(army: builder.ArmyView, unit: builder.UnitView) -> tuple[int, ...]:
    """The weapons "attack with this" preselects (stored ids), as the ruleset picks them."""
    ruleset = get_ruleset(army.army.ruleset_id)
    return tuple(unit.weapons[i].row.id for i in ruleset.default_weapons(unit.spec, army.options))


def _options(ruleset: Ruleset, army: builder.ArmyView, bonus_die: str | None) -> Any:
    if bonus_die is None:
        return army.options
    encoded = ruleset.encode_options(army.options)
    if encoded.get(BONUS_DIE) == bonus_die:
        return army.options
    return ruleset.decode_options({**encoded, BONUS_DIE: bonus_die})


def _same_rules(ruleset: Ruleset, army: builder.ArmyView | None, field: str) -> None:
    if army is not None and army.army.ruleset_id != ruleset.id:
        raise InvalidInput(field, f"is in an army of another rule system than {ruleset.name}")


def target_field(name: str) -> str:
    """A ruleset's name for a target's field (``targets.<n>.<field>``, n from 0) as the
    calculator's request names it: ``target.<field>`` for the main target, else
    ``followers.<n - 1>.<field>``; any other name as it is."""
    parts = name.split(".", 2)
    if len(parts) < 2 or parts[0] != "targets" or not parts[1].isdigit():
        return name
    n, rest = int(parts[1]), parts[2:]
    return ".".join(["target", *rest] if n == 0 else ["followers", str(n - 1), *rest])


def _figures(
    calc: Calculation, attacker_id: int | None, unit: builder.UnitView, asked: int | None, at: str
) -> int:
    """How many figurines of ``unit`` a target takes: ``asked`` (None: all of them), at most
    its count, and not the attacking figurine itself (``attacker_id``'s); a refusal goes in
    ``calc.refused`` (named ``<at>.figures``, or ``<at>.unit_id`` when the unit has no
    figurine to take) and the target counts all it may."""
    count = unit.count
    most = count - 1 if unit.row.id == attacker_id else count
    if most < 1:
        calc.refused[f"{at}.unit_id"] = f"{unit.row.name} is the attacking unit"
        return 1
    if asked is None:
        return most
    if not 1 <= asked <= most:
        whose = f"{unit.row.name} has {count} figurine{'s' if count != 1 else ''}"
        if most < count:
            whose += ", one of them the attacker"
        calc.refused[f"{at}.figures"] = (
            f"must be from 1 to {most} ({whose})" if asked >= 1 else "must be at least 1"
        )
        return most
    return asked


def _allies(
    views: UnitLookup, request: CalcRequest
) -> list[tuple[builder.ArmyView, builder.UnitView, tuple[int, ...]]]:
    """Each ally unit with the weapon ids it fires (its listed ones, else its default)."""
    out = []
    for unit_id in request.allies:
        army, unit = views.unit(unit_id)
        mine = tuple(w.row.id for w in unit.weapons if w.row.id in request.ally_weapons)
        out.append((army, unit, mine or default_weapons(army, unit)))
    return out


def _loadout(
    views: UnitLookup,
    loadout: Loadout,
    calc: Calculation,
    allies: list[tuple[builder.ArmyView, builder.UnitView, tuple[int, ...]]],
) -> LoadoutResult | None:
    if loadout.unit_id is None:
        return None
    request, target, ruleset = calc.request, calc.target, calc.ruleset
    army, unit = views.unit(loadout.unit_id)
    ids = loadout.weapon_ids or default_weapons(army, unit)
    result = LoadoutResult(get_ruleset(army.army.ruleset_id), army, unit, [])
    try:
        result.weapons = _weapons(unit, ids)
    except InvalidInput as err:
        result.error = err
        return result
    if target is None:
        return result
    if not result.weapons:
        result.error = InvalidInput("weapons", "choose at least one weapon to fire")
        return result
    if calc.refused:
        result.error = InvalidInput(*next(iter(calc.refused.items())))
        return result
    figures = calc.figures
    try:
        _same_rules(ruleset, army, "attacker")
        _same_rules(ruleset, calc.target_army, "target")
        for ally_army, _, _ in allies:
            _same_rules(ruleset, ally_army, "allies")
        attack = ruleset.attack(
            unit.spec,
            result.positions,
            [
                TargetInput(target.spec, figures=figures[0]),
                *(
                    TargetInput(v.spec, f.fields(ruleset), figures=figures[i + 1])
                    for i, (f, v) in enumerate(calc.followers)
                ),
            ],
            ruleset.encode_situation(request.situation),
            _options(ruleset, army, request.bonus_die),
            allies=[
                AllyInput(
                    ally.spec, tuple(i for i, w in enumerate(ally.weapons) if w.row.id in chosen)
                )
                for _, ally, chosen in allies
            ],
        )
        result.attack = attack
        result.problems = attack.problems()
        if result.problems:
            return result
        # a small attack here; a larger one in a worker process, with its deadline
        result.odds = compute.odds(attack)
    except InvalidInput as err:
        result.error = InvalidInput(target_field(err.field), err.reason)
    except RulesError as err:  # TooMuchWork: say so rather than time out
        result.message = str(err)
    return result


def calculate(
    session: Session,
    *,
    user: User,
    request: CalcRequest,
    ruleset: Ruleset | None = None,
    views: UnitLookup | None = None,
) -> Calculation:
    """Resolve the picks to saved units (read access checked) and compute the odds under
    ``ruleset`` (the one ``request`` was read under: by default the attacker's). ``views``:
    the armies already loaded for this calculation."""
    return calculate_units(views or SavedUnits(session, user), request, ruleset)


def calculate_units(
    views: UnitLookup, request: CalcRequest, ruleset: Ruleset | None = None
) -> Calculation:
    """Compute the odds of the picks, looked up in ``views`` (saved or typed-in units),
    under ``ruleset`` (by default the one ``views`` gives the attacker)."""
    if ruleset is None:
        ruleset = views.ruleset((request.attacker.unit_id, request.target_id))
    calc = Calculation(request, views.offered, ruleset)
    attacker_id = request.attacker.unit_id
    if request.target_id is not None:
        calc.target_army, calc.target = views.unit(request.target_id)
        # (the attacking unit as its own main target is a comparison, computed as ever)
        calc.figures.append(_figures(calc, None, calc.target, request.target_figures, "target"))
    for i, follower in enumerate(request.followers):
        army, unit = views.unit(follower.unit_id)
        calc.followers.append((follower, unit))
        calc.unit_armies[unit.row.id] = army
        if army.army.ruleset_id != ruleset.id:
            calc.refused[f"followers.{i}.unit_id"] = (
                f"{unit.row.name} is in an army of another rule system than {ruleset.name}"
            )
        calc.figures.append(_figures(calc, attacker_id, unit, follower.figures, f"followers.{i}"))
    allies = _allies(views, request)
    calc.allies = [(unit, chosen) for _, unit, chosen in allies]
    calc.main = _loadout(views, request.attacker, calc, allies)
    if calc.main is not None:
        calc.attacker_army = calc.main.army
    if request.compare is not None:
        calc.compare = _loadout(views, request.compare, calc, allies)
        if calc.compare is not None:
            calc.compare_army = calc.compare.army
    return calc


def with_weapons(request: CalcRequest, calc: Calculation) -> CalcRequest:
    """The request with the weapons actually used (defaults filled in): the URL to share."""
    main = calc.main
    if main is None or request.attacker.weapon_ids or not main.weapons:
        return request
    return replace(request, attacker=Loadout(request.attacker.unit_id, main.weapon_ids))


def roll(attack: Attack, seed: int) -> AttackRoll:
    """One seeded resolution of an attack: the same seed gives the same dice."""
    return attack.roll(random.Random(seed))  # noqa: S311  (a replayable game roll)


@dataclass(frozen=True)
class UnitChoice:
    id: int
    name: str
    kind: str


def unit_choices(session: Session, army_ids: list[int]) -> dict[int, list[UnitChoice]]:
    """Every unit of the offered armies (already access-checked), in roster order: one query
    for the pickers, without building the armies' figures."""
    out: dict[int, list[UnitChoice]] = {a: [] for a in army_ids}
    if not army_ids:
        return out
    rows = session.execute(
        select(Unit.army_id, Unit.id, Unit.name, Unit.kind)
        .where(Unit.army_id.in_(army_ids))
        .order_by(Unit.army_id, Unit.position)
    )
    for army_id, unit_id, name, kind in rows:
        out[army_id].append(UnitChoice(unit_id, name, kind))
    return out


# ------------------------------------------------------------------ Roll it! into a battle


@dataclass(frozen=True)
class RolledInBattle:
    """A calculation rolled in a new battle: where to go and what to preselect there."""

    battle_id: int
    seq: int
    attacker_id: int
    target_id: int
    weapons: tuple[int, ...]
    followers: tuple[tuple[Any, ...], ...]  # (battle unit id, *its target field values)


def battle_situation(ruleset: Ruleset, situation: Any) -> dict[str, Any]:
    """The calculator's situation as a battle takes it: only its ``battle_situation_fields``
    (those the battle's state decides are left to it)."""
    values = ruleset.encode_situation(situation)
    return {f.name: values[f.name] for f in ruleset.battle_situation_fields}


def roll_in_new_battle(
    session: Session,
    *,
    user: User,
    request: CalcRequest,
    seed: int | None = None,
    ruleset: Ruleset | None = None,
    views: UnitLookup | None = None,
) -> RolledInBattle:
    """Start a battle with copies of the calculation's units and roll its attack there, so
    the roll is logged and the target's state carries into the next roll. Refusals raise
    ``InvalidInput`` and create nothing (the caller rolls the transaction back)."""
    calc = calculate(session, user=user, request=request, ruleset=ruleset, views=views)
    main, target = calc.main, calc.target
    if main is None:
        raise InvalidInput("attacker", "choose the attacking unit")
    if target is None:
        raise InvalidInput("target", "choose the target")
    if main.error is not None:
        raise main.error
    if main.problems:
        raise InvalidInput("weapons", " ".join(main.problems))
    if main.message:
        raise InvalidInput("weapons", main.message)
    if request.allies:
        raise InvalidInput(
            "allies", "a Combined Attack with other units is computed here but not rolled yet"
        )
    if calc.refused:
        raise InvalidInput(*next(iter(calc.refused.items())))
    picks = [(main.army, main.unit), (calc.target_army, target)]
    picks += [(calc.unit_armies[unit.row.id], unit) for _, unit in calc.followers]
    battle = battles.create_battle(
        session,
        user=user,
        name=f"{main.unit.row.name} vs {target.row.name}",
        army_ids=[army.army.id for army, _ in picks if army is not None],
        unit_ids=[unit.row.id for _, unit in picks],
    )
    if request.bonus_die is not None:
        battles.override_bonus_die(session, battle.id, request.bonus_die)
    attacker_id, targets = _battle_targets(
        calc, main.odds, figure_ids(session, battle.id), main.unit.row.id
    )
    weapons = main.positions
    (target_id, _), followers = targets[0], tuple((i, *v) for i, v in targets[1:])
    entry = battles.roll_attack(
        session,
        user=user,
        battle_id=battle.id,
        attacker_id=attacker_id,
        weapons=weapons,
        target_id=target_id,
        # what the battle decides itself from its state (Homing In, D20's Shaken) it sets
        situation=battle_situation(calc.ruleset, request.situation),
        followers=followers,
        seed=seed,
    )
    return RolledInBattle(battle.id, entry.seq, attacker_id, target_id, weapons, followers)


def figure_ids(session: Session, battle_id: int) -> dict[int, list[int]]:
    """Each copied unit's battle units (one a figurine), by the saved unit, in order."""
    rows = session.execute(
        select(BattleUnit.unit_id, BattleUnit.id)
        .where(BattleUnit.battle_id == battle_id)
        .order_by(BattleUnit.position)
    )
    out: dict[int, list[int]] = {}
    for unit_id, bu_id in rows:
        if unit_id is not None:
            out.setdefault(unit_id, []).append(bu_id)
    return out


def struck_figures(odds: AttackOdds | None, figures: list[int]) -> list[int]:
    """How many figurines of each target the attack strikes, as its odds count them (an
    entry covers figurines ``figure`` to ``figure + figures - 1``): all that stand where it
    reaches for an attack on several (an explosion, automatic fire), one for an attack on
    one figurine (or a ruleset that does not count figurines yet)."""
    struck = [1] * len(figures)
    for line in odds.lines if odds is not None else ():
        for t in line.targets:
            if t.target < len(struck):
                struck[t.target] = max(struck[t.target], t.figure + t.figures)
    return [min(s, f) for s, f in zip(struck, figures, strict=True)]


def _first_values(ruleset: Ruleset, situation: Any) -> tuple[FieldValue, ...]:
    """The main target's ``target_fields`` values, for its further figurines in a battle:
    a situation field of the same name (D20's cover, BrikWars' distance), else the default
    (Degrees' location: here)."""
    values = ruleset.encode_situation(situation)
    return tuple(values.get(f.name, f.default) for f in ruleset.target_fields)


def _battle_targets(
    calc: Calculation,
    odds: AttackOdds | None,
    ids: dict[int, list[int]],
    attacker_unit: int,
) -> tuple[int, list[tuple[int, tuple[FieldValue, ...]]]]:
    """The attacker's battle unit and the battle's targets in order, each a battle unit and
    its ``target_fields`` values: a squad target becomes as many of its battle units as the
    attack strikes of its figurines, each a figurine of its own (a battle passes one
    figurine a target), in the calculation's order. A unit named again takes figurines not
    yet taken; too few: ``InvalidInput`` naming the target."""
    pools = {unit_id: list(battle_ids) for unit_id, battle_ids in ids.items()}
    attacker_id = pools[attacker_unit].pop(0)
    assert calc.target is not None
    struck = struck_figures(odds, calc.figures)
    ruleset = calc.ruleset
    asked: list[tuple[str, builder.UnitView, tuple[FieldValue, ...]]] = [
        ("target", calc.target, _first_values(ruleset, calc.request.situation))
    ]
    asked += [
        (f"followers.{i}", unit, tuple(f.fields(ruleset).values()))
        for i, (f, unit) in enumerate(calc.followers)
    ]
    out: list[tuple[int, tuple[FieldValue, ...]]] = []
    for (at, unit, values), k in zip(asked, struck, strict=True):
        pool = pools[unit.row.id]
        if len(pool) < k:
            raise InvalidInput(
                f"{at}.unit_id",
                f"a battle has {unit.count} figurine{'s' if unit.count != 1 else ''} of "
                f"{unit.row.name}: too few for the attacker and every target named",
            )
        out += [(pool.pop(0), values) for _ in range(k)]
    return attacker_id, out
