"""The attack calculator between saved units: the engine's turn built from stored rosters.

A calculation names an attacker unit and the weapons it fires this turn, a target unit (and
further Arc Fire targets) and the situation; optionally a second loadout to compare. Every
army involved is checked for read access (another user's roster is a NotFound). The odds,
Power findings and breakdowns are the engine's (``app.rules.brikwars.turn``); the attacker's
army's house rules apply, with the Bonus die overridable for the calculation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from fractions import Fraction

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Army, Unit, User
from app.rules import brikwars as bw
from app.rules.brikwars.turn import Ally, ArcFollower, Turn, TurnOdds, TurnRoll, TurnSituation
from app.rules.errors import InvalidInput, RulesError
from app.services import battles, builder, compute
from app.services.errors import NotFound


@dataclass(frozen=True)
class Follower:
    """A further Arc Fire target: a saved unit, its distance and the Arc points it spans."""

    unit_id: int
    distance: Fraction | None = None
    spans: int = 0


@dataclass(frozen=True)
class Loadout:
    """An attacker unit and the weapons (stored weapon ids) it fires this turn."""

    unit_id: int | None = None
    weapon_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class CalcRequest:
    """Everything a calculation depends on: the state a calculator URL carries."""

    attacker: Loadout = Loadout()
    target_id: int | None = None
    situation: TurnSituation = field(default_factory=TurnSituation)
    followers: tuple[Follower, ...] = ()
    compare: Loadout | None = None
    bonus_die: str | None = None
    allies: tuple[int, ...] = ()
    ally_weapons: tuple[int, ...] = ()


@dataclass
class LoadoutResult:
    """One loadout against the target: the Turn, its odds, or why it cannot be computed."""

    army: builder.ArmyView
    unit: builder.UnitView
    weapons: list[builder.WeaponView]
    turn: Turn | None = None
    odds: TurnOdds | None = None
    power_problems: tuple[str, ...] = ()
    error: InvalidInput | None = None
    message: str = ""

    @property
    def weapon_ids(self) -> tuple[int, ...]:
        return tuple(w.row.id for w in self.weapons)

    @property
    def unit_cost(self) -> Fraction:
        return self.unit.cost

    @property
    def weapons_cost(self) -> Fraction:
        return sum((w.spec.cost_with(self.army.options) for w in self.weapons), Fraction(0))

    @property
    def expected_destroying(self) -> float | None:
        """The engine's expected destroying hits of this turn on the target."""
        return None if self.odds is None else self.odds.expected_destroying

    @property
    def per_10_cp(self) -> float | None:
        """Expected destroying hits per 10 CP of the attacking unit (weapons included)."""
        expected = self.expected_destroying
        if expected is None or self.unit_cost <= 0:
            return None
        return expected * 10 / float(self.unit_cost)


@dataclass
class Calculation:
    """The page's whole state: the armies offered, the picks, and the results."""

    request: CalcRequest
    armies: list[Army]
    attacker_army: builder.ArmyView | None = None
    target_army: builder.ArmyView | None = None
    target: builder.UnitView | None = None
    followers: list[tuple[Follower, builder.UnitView]] = field(default_factory=list)
    allies: list[tuple[builder.UnitView, tuple[int, ...]]] = field(default_factory=list)
    main: LoadoutResult | None = None
    compare: LoadoutResult | None = None
    compare_army: builder.ArmyView | None = None
    unit_armies: dict[int, builder.ArmyView] = field(default_factory=dict)


class _Views:
    """Army views loaded once per calculation (an army appears as attacker and target)."""

    def __init__(self, session: Session, user: User) -> None:
        self.session, self.user = session, user
        self._armies: dict[int, builder.ArmyView] = {}

    def army(self, army_id: int) -> builder.ArmyView:
        if army_id not in self._armies:
            self._armies[army_id] = builder.army_view(self.session, user=self.user, army_id=army_id)
        return self._armies[army_id]

    def unit(self, unit_id: int) -> tuple[builder.ArmyView, builder.UnitView]:
        army_id = self.session.scalar(select(Unit.army_id).where(Unit.id == unit_id))
        if army_id is None:
            raise NotFound("unit")
        view = self.army(army_id)
        return view, view.unit(unit_id)


def _weapons(unit: builder.UnitView, ids: tuple[int, ...]) -> list[builder.WeaponView]:
    by_id = {w.row.id: w for w in unit.weapons}
    chosen = []
    for weapon_id in ids:
        if weapon_id not in by_id:
            raise InvalidInput("weapons", f"{unit.row.name} has no such weapon (id {weapon_id})")
        chosen.append(by_id[weapon_id])
    return chosen


def default_weapons(unit: builder.UnitView) -> tuple[int, ...]:
    """The first weapon with an attack of its own (what "attack with this" preselects)."""
    for w in unit.weapons:
        if w.stats.damage is not None or w.spec.payload is not None:
            return (w.row.id,)
    return ()


def _options(army: builder.ArmyView, bonus_die: str | None) -> bw.BrikWarsOptions:
    if bonus_die is None or bonus_die == army.options.bonus_die:
        return army.options
    return bw.BrikWarsOptions.from_dict({**army.options.to_dict(), "bonus_die": bonus_die})


def _allies(views: _Views, request: CalcRequest) -> list[tuple[builder.UnitView, tuple[int, ...]]]:
    """Each ally unit with the weapon ids it fires (its listed ones, else its default)."""
    out = []
    for unit_id in request.allies:
        _, unit = views.unit(unit_id)
        mine = tuple(w.row.id for w in unit.weapons if w.row.id in request.ally_weapons)
        out.append((unit, mine or default_weapons(unit)))
    return out


def _loadout(
    views: _Views,
    loadout: Loadout,
    target: builder.UnitView | None,
    request: CalcRequest,
    followers: list[tuple[Follower, builder.UnitView]],
    allies: list[tuple[builder.UnitView, tuple[int, ...]]],
) -> LoadoutResult | None:
    if loadout.unit_id is None:
        return None
    army, unit = views.unit(loadout.unit_id)
    ids = loadout.weapon_ids or default_weapons(unit)
    result = LoadoutResult(army, unit, [])
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
    index = {w.row.id: i for i, w in enumerate(unit.weapons)}
    try:
        turn = Turn(
            unit.spec,
            tuple(index[w.row.id] for w in result.weapons),
            target.spec,
            request.situation,
            tuple(ArcFollower(v.spec, f.distance, f.spans) for f, v in followers),
            _options(army, request.bonus_die),
            allies=tuple(
                Ally(
                    ally.spec,
                    tuple(i for i, w in enumerate(ally.weapons) if w.row.id in chosen),
                )
                for ally, chosen in allies
            ),
        )
        result.turn = turn
        check = turn.power()
        if not check.ok:
            result.power_problems = check.problems
            return result
        result.odds = compute.run(turn.odds)  # a worker process, with its deadline
    except InvalidInput as err:
        result.error = err
    except RulesError as err:  # TooMuchWork: say so rather than time out
        result.message = str(err)
    return result


def calculate(session: Session, *, user: User, request: CalcRequest) -> Calculation:
    """Resolve the picks to saved units (read access checked) and compute the odds."""
    views = _Views(session, user)
    calc = Calculation(request, battles.armies_for_battle(session, user=user))
    if request.target_id is not None:
        calc.target_army, calc.target = views.unit(request.target_id)
    for follower in request.followers:
        army, unit = views.unit(follower.unit_id)
        calc.followers.append((follower, unit))
        calc.unit_armies[unit.row.id] = army
    calc.allies = _allies(views, request)
    calc.main = _loadout(views, request.attacker, calc.target, request, calc.followers, calc.allies)
    if calc.main is not None:
        calc.attacker_army = calc.main.army
    if request.compare is not None:
        calc.compare = _loadout(
            views, request.compare, calc.target, request, calc.followers, calc.allies
        )
        if calc.compare is not None:
            calc.compare_army = calc.compare.army
    # Armies reached through a link (a club roster) are offered in the pickers too.
    offered = {a.id for a in calc.armies}
    for view in (calc.attacker_army, calc.target_army, calc.compare_army):
        if view is not None and view.army.id not in offered:
            calc.armies.append(view.army)
            offered.add(view.army.id)
    return calc


def with_weapons(request: CalcRequest, calc: Calculation) -> CalcRequest:
    """The request with the weapons actually used (defaults filled in): the URL to share."""
    main = calc.main
    if main is None or request.attacker.weapon_ids or not main.weapons:
        return request
    return replace(request, attacker=Loadout(request.attacker.unit_id, main.weapon_ids))


def roll_turn(turn: Turn, seed: int) -> TurnRoll:
    """One seeded resolution of a turn: the same seed gives the same dice."""
    return turn.roll(random.Random(seed))  # noqa: S311  (a replayable game roll)


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
    followers: tuple[tuple[int, Fraction | None, int], ...]


def roll_in_new_battle(
    session: Session, *, user: User, request: CalcRequest, seed: int | None = None
) -> RolledInBattle:
    """Start a battle with copies of the calculation's units and roll its attack there, so
    the roll is logged and the target's state carries into the next roll. Refusals raise
    ``InvalidInput`` and create nothing (the caller rolls the transaction back)."""
    calc = calculate(session, user=user, request=request)
    main, target = calc.main, calc.target
    if main is None:
        raise InvalidInput("attacker", "choose the attacking unit")
    if target is None:
        raise InvalidInput("target", "choose the target")
    if main.error is not None:
        raise main.error
    if main.power_problems:
        raise InvalidInput("weapons", " ".join(main.power_problems))
    if main.message:
        raise InvalidInput("weapons", main.message)
    if request.allies:
        raise InvalidInput(
            "allies", "a Combined Attack with other units is computed here but not rolled yet"
        )
    picks = [(main.army, main.unit), (calc.target_army, target)]
    picks += [(calc.unit_armies[unit.row.id], unit) for _, unit in calc.followers]
    battle = battles.create_battle(
        session,
        user=user,
        name=f"{main.unit.row.name} vs {target.row.name}",
        army_ids=[army.army.id for army, _ in picks if army is not None],
        unit_ids=[unit.row.id for _, unit in picks],
    )
    ids = battles.battle_unit_ids(session, battle.id)
    if request.bonus_die is not None:
        battles.override_bonus_die(session, battle.id, request.bonus_die)
    index = {w.row.id: i for i, w in enumerate(main.unit.weapons)}
    weapons = tuple(index[w.row.id] for w in main.weapons)
    followers = tuple((ids[f.unit_id], f.distance, f.spans) for f, _ in calc.followers)
    entry = battles.roll_attack(
        session,
        user=user,
        battle_id=battle.id,
        attacker_id=ids[main.unit.row.id],
        weapons=weapons,
        target_id=ids[target.row.id],
        situation=replace(request.situation, homing_in=0),  # the battle keeps Homing In
        followers=followers,
        seed=seed,
    )
    return RolledInBattle(
        battle.id, entry.seq, ids[main.unit.row.id], ids[target.row.id], weapons, followers
    )
