"""Battle pages: the list, a battle with its attack form and log, the read-only link.

One template (``battles/detail.html``) renders the whole page and the blocks htmx swaps:
"Roll it!" swaps in the result with every die and sends the units, the log and the odds out
of band; unit actions and Undo swap their block the same way. Every mutation form includes
the attack form's values (``hx-include``), so the odds shown are recomputed for the units as
they now stand. Refused input comes back inline with a 422 and nothing is logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from app.rules.errors import InvalidInput
from app.services import battles
from app.services.errors import Conflict, InvalidField, QuotaExceeded
from app.web.attack_request import MAX_FOLLOWER_ROWS, from_form
from app.web.deps import (
    CurrentUser,
    FormDep,
    OptionalUser,
    SessionDep,
    SessionRoute,
    commit_change,
)
from app.web.htmx import battle_share_url, is_htmx, redirect
from app.web.inputs import MAX_ID, Id, parse_id, parse_index
from app.web.routes.battle_players import players_context
from app.web.templating import flash, render

router = APIRouter(route_class=SessionRoute)

PAGE = "battles/detail.html"


# ------------------------------------------------------------------------------ list


def _list_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    *,
    values: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    status_code: int = 200,
    block: str | None = None,
) -> Response:
    return render(
        request,
        "battles/list.html",
        {
            "battles": battles.list_battles(session, user=user),
            "armies": battles.armies_for_battle(session, user=user),
            "invitations": [
                (found, battles.armies_to_join(session, user=user, ruleset_id=ruleset_id))
                for found in battles.my_invitations(session, user=user)
                for ruleset_id in (found.battle.ruleset_id,)
            ],
            "values": values or {},
            "errors": errors or {},
        },
        block=block,
        status_code=status_code,
    )


@router.get("/battles")
def battle_list(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The battles you host or play in, the club members' invitations waiting for you, and
    the form for a new battle."""
    return _list_page(request, session, user)


@router.post("/battles")
def battle_create(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep
) -> Response:
    """Start a battle from two or more armies you may read, then open it."""
    army_ids = [
        army_id
        for key, value in form.items()
        if key.startswith("army.") and value and (army_id := parse_id(key.split(".", 1)[1]))
    ]
    try:
        battle = battles.create_battle(
            session, user=user, name=form.get("name", ""), army_ids=army_ids
        )
    except QuotaExceeded:
        raise  # (shown as a message: the form has no field for it)
    except (InvalidInput, InvalidField) as exc:
        return _list_page(
            request,
            session,
            user,
            values=form,
            errors={exc.field: exc.reason},
            status_code=422,
            block="new_battle_form",
        )
    flash(request, f"Battle “{battle.name}” begun.", "success")
    return redirect(request, f"/battles/{battle.id}")


# ------------------------------------------------------------------------------ a battle


def _first(units: list[battles.UnitInBattle], skip: battles.UnitInBattle | None = None) -> str:
    for unit in units:
        if not unit.out and (skip is None or unit.row.side != skip.row.side):
            return str(unit.row.id)
    return ""


def default_values(view: battles.BattleView, query: Mapping[str, str]) -> dict[str, str]:
    """The attack form's values: the query string's (``?attacker=&target=&weapons=0,2``),
    else the first fighting unit against the first of another side, with its first weapon."""
    values = {
        k: v
        for k, v in query.items()
        if k not in ("attacker", "target", "weapons", "roll", "before")
    }
    values["attacker_id"] = (
        query.get("attacker") or query.get("attacker_id") or _first(view.my_units)
    )
    attacker = next((u for u in view.units if str(u.row.id) == values["attacker_id"]), None)
    target = query.get("target") or query.get("target_id") or ""
    if not target or target == values["attacker_id"]:
        target = _first(view.units, skip=attacker)
    values["target_id"] = target
    chosen = query.get("weapons")
    if chosen is not None:
        for part in chosen.split(","):
            if (index := parse_index(part)) is not None:
                values[f"weapon.{index}"] = "on"
    elif attacker is not None and not any(k.startswith("weapon.") for k in values):
        ready = next((w for w in attacker.weapons if not w.inoperative), None)
        if ready is not None:
            values[f"weapon.{ready.index}"] = "on"
    if attacker is not None:  # what its state suggests (BrikWars: the turns of Power saved)
        for key, value in attacker.standing.form.items():
            values.setdefault(key, value)
    return values


def follow_state(view: battles.BattleView, values: Mapping[str, str]) -> dict[str, str]:
    """The form's values with a destroyed attacker or target let go: the pickers offer only
    the units still fighting, so a choice the state has taken away is no choice."""
    out = dict(values)
    for key in ("attacker_id", "target_id"):
        chosen = parse_id(out.get(key))
        if chosen is not None and any(u.row.id == chosen and u.out for u in view.units):
            out[key] = ""
    return out


def odds_for(
    session: SessionDep, user: CurrentUser, battle_id: Id, values: Mapping[str, str]
) -> tuple[battles.OddsPreview | None, str | None]:
    """The odds of the attack the form describes, or why it cannot be rolled."""
    for key, word in (("attacker_id", "attacker"), ("target_id", "target")):
        if not values.get(key, "").strip():
            return None, f"choose the {word}"
    ruleset = battles.ruleset_of(session, user=user, battle_id=battle_id)
    attack, errors = from_form(values, ruleset)
    if attack is None:
        field, reason = next(iter(errors.items()))
        return None, f"{field.replace('_id', '').replace('_', ' ')}: {reason}"
    try:
        preview = battles.attack_odds(
            session, user=user, battle_id=battle_id, **attack.battle_attack()
        )
    except InvalidInput as exc:
        return None, exc.reason
    return preview, None


def battle_page(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: Id,
    *,
    values: Mapping[str, str],
    errors: Mapping[str, str] | None = None,
    result: battles.LogEntry | None = None,
    block: str | None = None,
    oob: tuple[str, ...] = (),
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
    odds: tuple[battles.OddsPreview | None, str | None] | None = None,
    before: int | None = None,
    seen: str | None = None,
    **extra: Any,
) -> Response:
    """The battle page, or its blocks for htmx (``odds``: already computed for ``values``;
    ``before``: the log's window is the entries older than that number, not the newest;
    ``seen``: the attack form's, when only the form is swapped, else the newest entry's)."""
    view = battles.battle_view(session, user=user, battle_id=battle_id, before=before)
    try:
        shown = _seen({"seen": seen or ""})
    except InvalidInput:
        shown = None
    values = follow_state(view, values)
    preview, odds_error = odds or odds_for(session, user, battle_id, values)
    return render(
        request,
        PAGE,
        {
            "view": view,
            "read_only": False,
            "values": values,
            "errors": errors or {},
            "result": result,
            "preview": preview,
            "odds_error": odds_error,
            "follower_rows": range(MAX_FOLLOWER_ROWS),
            "new_link": None,
            "log_url": f"/battles/{battle_id}",
            "live_url": f"/battles/{battle_id}/events",
            "before": before,
            "seen": shown if shown is not None else (view.last_seq or 0),
            "new_invite": None,
            "player_errors": {},
            **players_context(session, user, view),
            **extra,
        },
        block=block,
        oob=oob,
        status_code=status_code,
        headers=headers,
    )


@router.get("/battles/{battle_id:int}")
def battle_detail(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """A battle: units by side with their state, the attack form with its odds, the newest
    entries of the log (``?before=N``: the entries older than #N; for htmx's "Older entries"
    just those)."""
    query = dict(request.query_params)
    before = parse_id(query.get("before"))
    view = battles.battle_view(session, user=user, battle_id=battle_id, before=before)
    result = None
    if (seq := parse_id(query.get("roll"))) is not None:
        result = battles.battle_entry(session, user=user, battle_id=battle_id, seq=seq)
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=default_values(view, query),
        result=result,
        before=before,
        block=_log_block(request),
    )


def _log_block(request: Request) -> str | None:
    """htmx's "Older entries" asks for the next window of the log alone."""
    return "log_items" if request.headers.get("hx-target") == "log-more" else None


@router.get("/battles/{battle_id:int}/odds")
def battle_odds(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """The odds of the attack in the query string (the form's live preview). A refused attack
    is answered 200 too, with why beside a disabled Roll it!: a preview asked while the form is
    being filled in (no target picked yet, a mode changed first) is no failed request, and a
    browser logs every 4xx to the console. The roll itself (POST) is still refused with a 422.

    ``form=1`` (the attacker was changed): the whole attack form, with that attacker's weapons.
    """
    values = {k: v for k, v in request.query_params.items() if k != "csrf_token"}
    if values.pop("form", None) is not None:
        view = battles.battle_view(session, user=user, battle_id=battle_id)
        values = {k: v for k, v in values.items() if not k.startswith("weapon.")}
        values = default_values(view, values)
        # the page's units are as it last loaded them: its ``seen`` stays (P24)
        return battle_page(
            request,
            session,
            user,
            battle_id,
            values=values,
            block="attack_form",
            seen=values.get("seen"),
        )
    odds = odds_for(session, user, battle_id, values)
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=values,
        block="odds",
        odds=odds,
    )


def _seen(form: Mapping[str, str]) -> int | None:
    """The form's ``seen`` (the newest entry the page showed: P24), None when not sent."""
    text = form.get("seen", "").strip()
    if not text:
        return None
    if text.isascii() and text.isdigit() and len(text) <= 10 and int(text) <= MAX_ID:
        return int(text)
    raise InvalidInput("seen", f"must be a whole number from 0 to {MAX_ID}")


def _behind(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: Id,
    form: Mapping[str, str],
    exc: Conflict,
) -> Response:
    """An action from a page that is behind (P24): a 409 with the battle as it now stands
    (its units and log) and the attack form with the player's inputs kept, saying which
    entry came in between and who made it."""
    values = {k: v for k, v in form.items() if k not in ("csrf_token", "seen", "seq")}
    view = battles.battle_view(session, user=user, battle_id=battle_id)
    if view.ended or not is_htmx(request):
        flash(request, str(exc), "error")
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=default_values(view, values) if not values.get("attacker_id") else values,
        block="attack_form",
        oob=("units", "log", "result"),
        status_code=409,
        headers={"HX-Retarget": "#attack-form", "HX-Reswap": "outerHTML"},
        stale=str(exc),
    )


def _refused(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: Id,
    form: Mapping[str, str],
    errors: Mapping[str, str],
) -> Response:
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=form,
        errors=errors,
        block="attack_form",
        status_code=422,
        headers={"HX-Retarget": "#attack-form", "HX-Reswap": "outerHTML"},
        seen=form.get("seen"),  # (only the form is swapped: the page is as it was)
    )


@router.post("/battles/{battle_id:int}/rolls")
def battle_roll(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """Roll it: the attack resolved with its seeded roll and logged with its odds."""
    ruleset = battles.ruleset_of(session, user=user, battle_id=battle_id)
    attack, errors = from_form(form, ruleset)
    if attack is None:
        return _refused(request, session, user, battle_id, form, errors)
    try:
        entry = battles.roll_attack(
            session,
            user=user,
            battle_id=battle_id,
            seed=attack.seed,
            seen=_seen(form),
            **attack.battle_attack(),
        )
    except InvalidInput as exc:
        return _refused(request, session, user, battle_id, form, exc.reasons())
    except Conflict as exc:
        return _behind(request, session, user, battle_id, form, exc)
    commit_change(session)  # the battle's lock is held for the roll alone, not the page
    if not is_htmx(request):
        query = {
            "attacker": attack.attacker.unit_id,
            "target": attack.target_id,
            "weapons": ",".join(map(str, attack.attacker.weapon_ids)),
            "roll": entry.seq,
        }
        return redirect(request, f"/battles/{battle_id}?{urlencode(query)}#result")
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=form,
        result=battles.LogEntry(entry, user.display_name),
        block="result",
        oob=("units", "log", "attack_form", "battle_state"),
    )


def _after_action(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: Id,
    form: Mapping[str, str],
    message: str,
) -> Response:
    """After a unit action or Undo: the units and the log, and the odds for the form's values."""
    flash(request, message, "success")
    if not is_htmx(request):
        return redirect(request, f"/battles/{battle_id}")
    values = {k: v for k, v in form.items() if k != "csrf_token"}
    view = battles.battle_view(session, user=user, battle_id=battle_id)
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=values or default_values(view, {}),
        block="units",
        oob=("log", "attack_form", "result", "battle_state"),
    )


def _action_refused(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    battle_id: Id,
    exc: InvalidInput,
    form: Mapping[str, str] | None = None,
) -> Response:
    """A refused unit action or Undo: a 422 with the reason, and each refused field of the
    action inline by its input (the actions' fields are in the attack form, sent out of band
    with the values as sent)."""
    flash(request, exc.reason, "error")
    view = battles.battle_view(session, user=user, battle_id=battle_id)
    sent = {k: v for k, v in (form or {}).items() if k != "csrf_token"}
    values = default_values(view, sent)
    fields = {name for a in view.ruleset.unit_actions for name in (f.name for f in a.fields)}
    errors = {k: v for k, v in exc.reasons().items() if k in fields}
    # htmx swaps the units (and the attack form's fields out of band); a plain form, the page
    swap: dict[str, Any] = (
        {"block": "units", "oob": ("attack_form",) if errors else ()} if is_htmx(request) else {}
    )
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=values,
        errors=errors,
        status_code=422,
        errors_title="Not done",
        **swap,
    )


@router.post("/battles/{battle_id:int}/undo")
def battle_undo(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """Undo the entry the button names (``seq``; without it the newest that stands): every
    unit it changed is as it was before, and the log gains an undo entry (P20, P21)."""
    seq = form.get("seq", "").strip()
    try:
        target = parse_id(seq) if seq else None
        if seq and target is None:
            raise InvalidInput("seq", "is not an entry's number")
        entry = battles.undo_last(
            session, user=user, battle_id=battle_id, seq=target, seen=_seen(form)
        )
    except InvalidInput as exc:
        return _action_refused(request, session, user, battle_id, exc)
    except Conflict as exc:
        return _behind(request, session, user, battle_id, form, exc)
    undone = entry.request["undoes"]
    message = f"Undone: #{undone} (logged as #{entry.seq})."
    return _after_action(request, session, user, battle_id, form, message)


@router.post("/battles/{battle_id:int}/end")
def battle_end(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """End the battle: its rules' end applied (Degrees: Thinny custody) and logged; the page
    then shows the final state, and Undo reopens it."""
    try:
        entry = battles.end_battle(session, user=user, battle_id=battle_id)
    except InvalidInput as exc:
        return _action_refused(request, session, user, battle_id, exc)
    return _after_action(request, session, user, battle_id, form, entry.summary)


@router.post("/battles/{battle_id:int}/turns")
def battle_end_turn(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """End turn: the next side's turn, its resets applied and logged (P31)."""
    try:
        entry = battles.end_turn(session, user=user, battle_id=battle_id, seen=_seen(form))
    except InvalidInput as exc:
        return _action_refused(request, session, user, battle_id, exc)
    except Conflict as exc:
        return _behind(request, session, user, battle_id, form, exc)
    return _after_action(request, session, user, battle_id, form, entry.summary)


@router.post("/battles/{battle_id:int}/mode")
def battle_mode(
    request: Request, session: SessionDep, user: CurrentUser, form: FormDep, battle_id: Id
) -> Response:
    """The host plays the battle free or by turns from now on (P32)."""
    try:
        entry = battles.set_mode(
            session, user=user, battle_id=battle_id, mode=form.get("mode", "").strip()
        )
    except InvalidInput as exc:
        return _action_refused(request, session, user, battle_id, exc)
    return _after_action(request, session, user, battle_id, form, entry.summary)


@router.post("/battles/{battle_id:int}/units/{unit_id:int}/{action}")
def unit_action(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    form: FormDep,
    battle_id: Id,
    unit_id: Id,
    action: str,
) -> Response:
    """One of the unit's named actions (the ruleset's ``unit_actions``; BrikWars: reload,
    divert, burning), logged, or refused in place; an unknown action is a 404.

    One route for every ruleset's actions: the URLs the pages always used
    (``/units/{unit}/reload``) are this route's, so nothing needs an alias."""
    try:
        entry = battles.unit_action(
            session,
            user=user,
            battle_id=battle_id,
            unit_id=unit_id,
            action=action,
            values=form,
            seen=_seen(form),
        )
    except InvalidInput as exc:
        return _action_refused(request, session, user, battle_id, exc, form)
    except Conflict as exc:
        return _behind(request, session, user, battle_id, form, exc)
    return _after_action(request, session, user, battle_id, form, entry.summary)


@router.get("/battles/{battle_id:int}/delete")
def battle_delete_confirm(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """Ask before deleting, naming the battle and what goes with it."""
    contents = battles.battle_contents(session, user=user, battle_id=battle_id)
    return render(request, "battles/delete.html", {"contents": contents})


@router.post("/battles/{battle_id:int}/delete")
def battle_delete(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """Delete the battle for good, with its units and its log."""
    name = battles.delete_battle(session, user=user, battle_id=battle_id)
    flash(request, f"Battle “{name}” deleted.", "success")
    return redirect(request, "/battles")


@router.get("/battles/{battle_id:int}/export.txt")
def battle_export(session: SessionDep, user: CurrentUser, battle_id: Id) -> Response:
    """The log as plain text for a forum post."""
    # as others see it (a secret countdown stays secret: the text is for a forum post)
    view = battles.battle_view(session, user=user, battle_id=battle_id, limit=None, public=True)
    return PlainTextResponse(battles.export_text(view))


@router.post("/battles/{battle_id:int}/links")
def battle_link(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """A read-only link to the log, shown once (an earlier one stops working)."""
    token = battles.share_link(session, user=user, battle_id=battle_id)
    view = battles.battle_view(session, user=user, battle_id=battle_id)
    return battle_page(
        request,
        session,
        user,
        battle_id,
        values=default_values(view, {}),
        block="share",
        new_link=battle_share_url(request, token),
    )


@router.post("/battles/{battle_id:int}/links/revoke")
def battle_unlink(
    request: Request, session: SessionDep, user: CurrentUser, battle_id: Id
) -> Response:
    """The read-only link stops working at once."""
    battles.revoke_link(session, user=user, battle_id=battle_id)
    flash(request, "Link revoked: it no longer opens the battle.", "success")
    return redirect(request, f"/battles/{battle_id}#share")


@router.get("/battles/shared/{token}")
def battle_shared_page(
    request: Request, session: SessionDep, user: OptionalUser, token: str
) -> Response:
    """A battle's units and log through its read-only link (no account needed), the log a
    window at a time as on the battle's own page."""
    before = parse_id(request.query_params.get("before"))
    view = battles.linked_view(session, token=token, before=before)
    return render(
        request,
        PAGE,
        {
            "view": view,
            "read_only": True,
            "values": {},
            "errors": {},
            "result": None,
            "preview": None,
            "odds_error": None,
            "follower_rows": range(0),
            "new_link": None,
            "shared_token": token,
            "log_url": f"/battles/shared/{token}",
            "live_url": f"/battles/shared/{token}/events",
            "before": before,
        },
        block=_log_block(request),
    )
