"""Battles over JSON: units and their state, attacks rolled and logged, undo, the log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response

from app.db.models import Battle, BattleEntry
from app.rules.registry import get_ruleset
from app.services import battles
from app.web.battle_schemas import (
    ActionIn,
    AttackIn,
    BattleCreate,
    BattleDetailOut,
    BattleOut,
    EntryOut,
    ModeIn,
    OddsPreviewOut,
    RollIn,
    ShareLinkOut,
    TurnIn,
    UndoIn,
    detail_out,
    entry_out,
    odds_out,
)
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.htmx import battle_share_url
from app.web.inputs import Id, Line

router = APIRouter(route_class=SessionRoute, tags=["battles"])
B = "/battles/{battle_id:int}"


def _logged(session: SessionDep, user: ApiUser, entry: BattleEntry) -> EntryOut:
    """An entry the caller just wrote: battles are their owner's alone."""
    battle = session.get(Battle, entry.battle_id)
    assert battle is not None  # the entry was just written in it
    return entry_out(battles.LogEntry(entry, user.display_name), get_ruleset(battle.ruleset_id))


@router.get("/battles")
def battle_list(session: SessionDep, user: ApiUser) -> list[BattleOut]:
    """Your battles, most recently active first."""
    return [
        BattleOut.model_validate(b, from_attributes=True)
        for b in battles.list_battles(session, user=user)
    ]


@router.post("/battles", status_code=201)
def battle_create(session: SessionDep, user: ApiUser, body: BattleCreate) -> BattleDetailOut:
    """Start a battle with copies of the units of armies you may read (each army a side)."""
    battle = battles.create_battle(
        session, user=user, name=body.name, army_ids=body.army_ids, unit_ids=body.unit_ids
    )
    return detail_out(battles.battle_view(session, user=user, battle_id=battle.id))


# A window of the log: the ``limit`` newest entries numbered below ``before`` (the response's
# ``older_before`` asks for the next one), so a battle of thousands of rolls stays one answer.
Before = Annotated[Id | None, Query(description="entries numbered below this (default: newest)")]
Limit = Annotated[int, Query(ge=1, le=battles.MAX_LOG_WINDOW, description="entries at most")]


@router.get("/battles/shared/{token}")
def battle_shared(
    session: SessionDep, token: Line, before: Before = None, limit: Limit = battles.LOG_WINDOW
) -> BattleDetailOut:
    """A battle's units and a window of its log through its read-only link (no account)."""
    return detail_out(battles.linked_view(session, token=token, before=before, limit=limit))


@router.get(B)
def battle_detail(
    session: SessionDep,
    user: ApiUser,
    battle_id: Id,
    before: Before = None,
    limit: Limit = battles.LOG_WINDOW,
) -> BattleDetailOut:
    """A battle: units by side with their state, and a window of the log (newest first
    windows; the whole log is ``/export``)."""
    view = battles.battle_view(session, user=user, battle_id=battle_id, before=before, limit=limit)
    return detail_out(view)


@router.post(B + "/odds")
def battle_odds(
    session: SessionDep, user: ApiUser, battle_id: Id, body: AttackIn
) -> OddsPreviewOut:
    """The exact odds of an attack as the units now stand (nothing is logged)."""
    attack = body.request(battles.ruleset_of(session, user=user, battle_id=battle_id))
    preview = battles.attack_odds(session, user=user, battle_id=battle_id, **attack.battle_attack())
    return odds_out(preview)


@router.post(B + "/rolls", status_code=201)
def battle_roll(session: SessionDep, user: ApiUser, battle_id: Id, body: RollIn) -> EntryOut:
    """Roll an attack (seeded), log it with its odds and every die, and apply its effects."""
    attack = body.request(battles.ruleset_of(session, user=user, battle_id=battle_id))
    entry = battles.roll_attack(
        session,
        user=user,
        battle_id=battle_id,
        seed=attack.seed,
        seen=body.seen,
        **attack.battle_attack(),
    )
    return _logged(session, user, entry)


@router.post(B + "/undo", status_code=201)
def battle_undo(
    session: SessionDep, user: ApiUser, battle_id: Id, body: UndoIn | None = None
) -> EntryOut:
    """Undo an entry (``seq``; default the newest that stands): every unit it changed is
    restored and an undo entry is logged, which is returned; the undone entry stays in the
    log with ``undone_by`` (the log only grows). Only its author or the battle's host undoes
    an entry; an undo and a join are never undone (422)."""
    body = body or UndoIn()
    entry = battles.undo_last(session, user=user, battle_id=battle_id, seq=body.seq, seen=body.seen)
    return _logged(session, user, entry)


@router.delete(B + "/rolls/last", deprecated=True)
def battle_undo_last(session: SessionDep, user: ApiUser, battle_id: Id) -> EntryOut:
    """The older form of ``POST .../undo`` (kept for existing clients): undo the newest
    entry that stands; returns that entry, now marked ``undone_by`` the undo entry."""
    undo = battles.undo_last(session, user=user, battle_id=battle_id)
    undone = battles.battle_entry(
        session, user=user, battle_id=battle_id, seq=int(undo.request["undoes"])
    )
    assert undone is not None  # (it was just undone, and entries are never removed)
    return entry_out(undone, battles.ruleset_of(session, user=user, battle_id=battle_id))


@router.post(B + "/end", status_code=201)
def battle_end(session: SessionDep, user: ApiUser, battle_id: Id) -> EntryOut:
    """End the battle: what its rules do at the end is applied (Degrees: restrained units
    taken into Thinny custody) and logged as a "Battle ended" entry; the battle then refuses
    attacks and actions (422) until that entry is undone (``POST .../undo``)."""
    return _logged(session, user, battles.end_battle(session, user=user, battle_id=battle_id))


@router.post(B + "/turns", status_code=201)
def battle_end_turn(
    session: SessionDep, user: ApiUser, battle_id: Id, body: TurnIn | None = None
) -> EntryOut:
    """End turn (a battle played by turns; its side's player or the host): the next side in
    order with a unit standing has its turn (a new ``round`` when the order wraps), and the
    ruleset's resets are taken by the units they concern (D20: a new turn for that side's
    figurines; Degrees: a new round for every unit as a round begins), seeded. Logged as a
    ``turn`` entry, which ``POST .../undo`` takes back (the turn and the units as they were).
    Out of turn, or in a battle played free: 422 naming ``battle``."""
    body = body or TurnIn()
    entry = battles.end_turn(
        session, user=user, battle_id=battle_id, seen=body.seen, seed=body.seed
    )
    return _logged(session, user, entry)


@router.put(B + "/mode", status_code=201)
def battle_mode(session: SessionDep, user: ApiUser, battle_id: Id, body: ModeIn) -> EntryOut:
    """Play the battle ``free`` or by ``turns`` from now on (the host's, at any point): turns
    begin at round 1 with the first side that has a unit standing. Logged as a ``mode`` entry
    (undone like any). A player: 403."""
    return _logged(
        session, user, battles.set_mode(session, user=user, battle_id=battle_id, mode=body.mode)
    )


@router.post(B + "/units/{unit_id:int}/{action}", status_code=201)
def unit_action(
    session: SessionDep,
    user: ApiUser,
    battle_id: Id,
    unit_id: Id,
    action: Line,
    body: ActionIn | None = None,
) -> EntryOut:
    """One of the unit's named actions (its ruleset's; BrikWars: ``reload`` its Inoperative
    weapons, ``divert`` All Power, the ``burning`` Roll of a unit on Fire), seeded, logged."""
    body = body or ActionIn()
    entry = battles.unit_action(
        session,
        user=user,
        battle_id=battle_id,
        unit_id=unit_id,
        action=action,
        values=body.values,
        seed=body.seed,
        seen=body.seen,
    )
    return _logged(session, user, entry)


@router.get(B + "/export", response_class=PlainTextResponse)
def battle_export(session: SessionDep, user: ApiUser, battle_id: Id) -> PlainTextResponse:
    """The battle log as plain text for a forum post."""
    # as others see it (a secret countdown stays secret: the text is for a forum post)
    view = battles.battle_view(session, user=user, battle_id=battle_id, limit=None, public=True)
    return PlainTextResponse(battles.export_text(view))


@router.delete(B, status_code=204)
def battle_delete(session: SessionDep, user: ApiUser, battle_id: Id) -> Response:
    """Delete the battle for good, with its units and its log."""
    battles.delete_battle(session, user=user, battle_id=battle_id)
    return Response(status_code=204)


@router.post(B + "/share-link", status_code=201)
def battle_share(
    request: Request, session: SessionDep, user: ApiUser, battle_id: Id
) -> ShareLinkOut:
    """A fresh read-only link to the log (shown once; an earlier link stops working)."""
    token = battles.share_link(session, user=user, battle_id=battle_id)
    return ShareLinkOut(url=battle_share_url(request, token), token=token)


@router.delete(B + "/share-link", status_code=204)
def battle_unshare(session: SessionDep, user: ApiUser, battle_id: Id) -> Response:
    """Revoke the read-only link at once."""
    battles.revoke_link(session, user=user, battle_id=battle_id)
    return Response(status_code=204)
