"""Creating a battle: which armies may fight, and copies of their units under one ruleset."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Army, Battle, BattleSide, BattleUnit, User
from app.rules.errors import InvalidInput
from app.rules.registry import RULESETS, get_ruleset
from app.rules.text import plain_text
from app.services import quotas
from app.services.army_rows import UnitRow, load_rows_of
from app.services.errors import InvalidField
from app.services.permissions import Access, army_for, battle_armies

MAX_UNITS = 200


def armies_for_battle(session: Session, *, user: User) -> list[Army]:
    """The armies the user may bring to a battle (their own and their clubs', of a ruleset
    this server knows: every ruleset has battles)."""
    query = (
        battle_armies(user).where(Army.ruleset_id.in_(tuple(RULESETS))).order_by(Army.name, Army.id)
    )
    return list(session.scalars(query))


def create_battle(
    session: Session,
    *,
    user: User,
    name: str,
    army_ids: list[int],
    unit_ids: list[int] | None = None,
) -> Battle:
    """A battle with copies of the armies' units (all, or just ``unit_ids`` of them).

    Every army must be one the user may read, and all of one ruleset (the battle's); without
    ``unit_ids`` two or more armies are needed, and a battle always has at least two units.
    Each army is a side, played by the host (a battle of chosen units: ``_sides``).
    """
    name = name.strip()
    if not 1 <= len(name) <= 120:
        raise InvalidInput("name", "must be 1 to 120 characters")
    plain_text(name, "name")
    army_ids = list(dict.fromkeys(army_ids))
    if not army_ids:
        raise InvalidInput("army_ids", "choose the armies that fight")
    if unit_ids is None and len(army_ids) < 2:
        raise InvalidInput("army_ids", "choose two or more armies")
    chosen_armies = [army_for(session, user=user, army_id=i, access=Access.READ) for i in army_ids]
    ruleset_id = _one_ruleset(chosen_armies)
    rows = load_rows_of(session, army_ids)
    picked = [(army, row) for army in chosen_armies for row in rows[army.id]]
    if unit_ids is not None:
        wanted = list(dict.fromkeys(unit_ids))
        by_id = {row.id: (army, row) for army, row in picked}
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise InvalidInput("unit_ids", f"unit {missing[0]} is not in the chosen armies")
        picked = [by_id[i] for i in wanted]
    # A unit of N identical figures fights as N battle units, each with its own damage.
    figures = sum(row.count for _, row in picked)
    if figures < 2:
        raise InvalidInput("army_ids", "a battle needs at least two units")
    if figures > MAX_UNITS:
        raise InvalidInput(
            "army_ids", f"a battle takes at most {MAX_UNITS} units (these have {figures} figures)"
        )
    quotas.battles(session, user=user)
    battle = Battle(owner_id=user.id, name=name, ruleset_id=ruleset_id)
    session.add(battle)
    session.flush()
    position = 0
    sides = [side for side in _sides(chosen_armies, picked, unit_ids) if side[2]]
    for index, (side_name, army_id, members) in enumerate(sides):
        side = BattleSide(battle_id=battle.id, position=index, name=side_name, army_id=army_id)
        session.add(side)
        session.flush()
        position = copy_units(session, battle, side, members, position)
    session.flush()
    return battle


SideRows = list[tuple[Army, UnitRow]]


def _sides(
    armies: list[Army], picked: SideRows, unit_ids: list[int] | None
) -> list[tuple[str, int | None, SideRows]]:
    """The sides of a new battle, each (name, army id, its units; an army without units makes
    none): one for each army; for a battle of chosen units (the calculator's), "Attacker" for
    the first and "Target" for the rest, whatever their armies (ruling P6)."""
    if unit_ids is not None:
        (first_army, first), rest = picked[0], picked[1:]
        return [
            ("Attacker", first_army.id, [(first_army, first)]),
            ("Target", rest[0][0].id if rest else None, rest),
        ]
    names = side_names([army.name for army in armies])
    return [
        (names[i], army.id, [(a, row) for a, row in picked if a.id == army.id])
        for i, army in enumerate(armies)
    ]


def copy_units(
    session: Session, battle: Battle, side: BattleSide, picked: SideRows, position: int
) -> int:
    """Copy the units into the battle on the side, from ``position`` on: each figure of a unit
    is a battle unit, with the unit's army's house rules as the battle's ruleset reads them.
    Returns the next free position."""
    ruleset = get_ruleset(battle.ruleset_id)
    options: dict[int, str] = {}
    for army, row in picked:
        if army.id not in options:
            encoded = ruleset.encode_options(ruleset.decode_options(army.house_rules))
            options[army.id] = json.dumps(encoded)
        spec = ruleset.decode_unit(row.as_dict())
        spec_json = json.dumps(ruleset.encode_unit(spec))
        for name in figure_names(row.name, row.count):
            session.add(
                BattleUnit(
                    battle_id=battle.id,
                    position=position,
                    side_id=side.id,
                    army_id=army.id,
                    unit_id=row.id,
                    name=name,
                    spec_json=spec_json,
                    options_json=options[army.id],
                    state=ruleset.encode_state(ruleset.initial_state(spec)),
                )
            )
            position += 1
    return position


def figure_names(name: str, count: int) -> list[str]:
    """The battle names of a unit's figures: its own name for one, ``Trooper 1`` ...
    ``Trooper 3`` for three (cut to fit 120 characters)."""
    if count == 1:
        return [name]
    return [f"{name[: 120 - len(str(count)) - 1].rstrip()} {n}" for n in range(1, count + 1)]


def _one_ruleset(armies: list[Army]) -> str:
    """The ruleset all the armies share (a battle is fought under one), and can be played."""
    rulesets = {army.ruleset_id for army in armies}
    if len(rulesets) > 1:
        which = ", ".join(f"“{army.name}” {army.ruleset_id}" for army in armies)
        raise InvalidField(
            "army_ids", f"the armies must all be of one ruleset to fight a battle ({which})"
        )
    ruleset_id = rulesets.pop()
    if ruleset_id not in RULESETS:
        raise InvalidInput("army_ids", f"“{armies[0].name}” is of no ruleset this server knows")
    return ruleset_id


def side_names(names: list[str], taken: Iterable[str] = ()) -> list[str]:
    """Each new side's name: its army's, numbered when another side has it already."""
    given = list(taken)
    for base in names:
        name, n = base, 1
        while name in given:
            n += 1
            name = f"{base[:110]} ({n})"
        given.append(name)
    return given[len(given) - len(names) :]


def battle_unit_ids(session: Session, battle_id: int) -> dict[int, int]:
    """Each copied unit's battle unit id, by the saved unit it was copied from (the first
    figure's, for a unit of several)."""
    rows = session.execute(
        select(BattleUnit.unit_id, BattleUnit.id)
        .where(BattleUnit.battle_id == battle_id)
        .order_by(BattleUnit.position)
    )
    ids: dict[int, int] = {}
    for unit_id, bu_id in rows:
        if unit_id is not None:
            ids.setdefault(unit_id, bu_id)
    return ids


def override_bonus_die(session: Session, battle_id: int, bonus_die: str) -> None:
    """Play a new battle with another Bonus die than its armies' (the calculator's choice)."""
    override_options(session, battle_id, {"bonus_die": bonus_die})


def override_options(session: Session, battle_id: int, changes: dict[str, object]) -> None:
    """Play a new battle with some options other than its armies' (read by its ruleset)."""
    battle = session.get(Battle, battle_id)
    if battle is None:
        raise InvalidInput("battle", "no such battle")
    ruleset = get_ruleset(battle.ruleset_id)
    for row in session.scalars(select(BattleUnit).where(BattleUnit.battle_id == battle_id)):
        options = ruleset.decode_options({**json.loads(row.options_json), **changes})
        row.options_json = json.dumps(ruleset.encode_options(options))
    session.flush()
