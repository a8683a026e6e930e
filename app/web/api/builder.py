"""The army builder over JSON: units, weapons, house rules (figures from the army's ruleset)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from app.rules.registry import get_ruleset
from app.rules.ruleset import Finding, Ruleset
from app.services import builder
from app.web.api.builder_schemas import (
    ArmyDetailOut,
    FindingOut,
    HouseRulesIn,
    MoveIn,
    UnitIn,
    UnitOut,
    UnitPatch,
    WeaponIn,
    WeaponOut,
    WeaponPatch,
    WeaponPreviewOut,
)
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.heavy import army_turn
from app.web.inputs import Id

router = APIRouter(route_class=SessionRoute, tags=["builder"])


def _findings(findings: list[Finding] | tuple[Finding, ...]) -> list[FindingOut]:
    return [
        FindingOut(
            severity=f.severity, code=f.code, message=f.message, unit=f.unit, weapon=f.weapon
        )
        for f in findings
    ]


def unit_out(uv: builder.UnitView, rules: Ruleset) -> UnitOut:
    return UnitOut(
        id=uv.row.id,
        position=uv.row.position,
        version=uv.row.version,
        name=uv.row.name,
        kind=uv.row.kind,
        spec=uv.row.spec,
        count=uv.count,
        notes=uv.row.notes,
        cost=float(uv.cost),
        total_cost=float(uv.total_cost),
        findings=_findings(uv.findings),
        weapons=[
            WeaponOut(
                id=wv.row.id,
                position=wv.row.position,
                version=wv.row.version,
                type=wv.row.type,
                name=wv.figures.type_name,
                spec=wv.row.spec,
                findings=_findings(wv.findings),
                **rules.weapon_json(wv.figures),
            )
            for wv in uv.weapons
        ],
        **rules.unit_json(uv.figures),
    )


def army_out(view: builder.ArmyView) -> ArmyDetailOut:
    army = view.army
    return ArmyDetailOut(
        id=army.id,
        name=army.name,
        ruleset_id=army.ruleset_id,
        budget=army.budget,
        notes=army.notes,
        version=army.version,
        house_rules=view.ruleset.encode_options(view.options),
        total_cost=float(view.total_cost),
        figures=view.figure_count,
        findings=_findings(view.all_findings),
        units=[unit_out(u, view.ruleset) for u in view.units],
    )


def _unit(session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id) -> UnitOut:
    view = builder.army_view(session, user=user, army_id=army_id)
    return unit_out(view.unit(unit_id), view.ruleset)


def _body(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(exclude_none=True, exclude={"version", "base"})


@router.get("/armies/{army_id:int}")
def army_get(request: Request, session: SessionDep, user: ApiUser, army_id: Id) -> ArmyDetailOut:
    """An army with its total cost, findings and units with every derived figure."""
    army_turn(request, session, user, army_id)
    return army_out(builder.army_view(session, user=user, army_id=army_id))


@router.post("/armies/{army_id:int}/units", status_code=201)
def unit_add(session: SessionDep, user: ApiUser, army_id: Id, body: UnitIn) -> UnitOut:
    """Add a unit (with weapons, if given) at the end of the army."""
    unit = builder.add_unit(session, user=user, army_id=army_id, data=_body(body))
    return _unit(session, user, army_id, unit.id)


@router.get("/armies/{army_id:int}/units/{unit_id:int}")
def unit_get(session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id) -> UnitOut:
    """One unit with its derived figures."""
    return _unit(session, user, army_id, unit_id)


@router.patch("/armies/{army_id:int}/units/{unit_id:int}")
def unit_update(
    session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id, body: UnitPatch
) -> UnitOut:
    """Change a unit's own fields; send the version you loaded (409 if stale)."""
    builder.update_unit(
        session,
        user=user,
        army_id=army_id,
        unit_id=unit_id,
        data=_body(body),
        expected_version=body.version,
        base=body.base,
    )
    return _unit(session, user, army_id, unit_id)


@router.delete("/armies/{army_id:int}/units/{unit_id:int}", status_code=204)
def unit_delete(session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id) -> Response:
    """Remove a unit and its weapons."""
    builder.delete_unit(session, user=user, army_id=army_id, unit_id=unit_id)
    return Response(status_code=204)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/duplicate", status_code=201)
def unit_duplicate(session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id) -> UnitOut:
    """Copy a unit with its weapons, right after it."""
    copy = builder.duplicate_unit(session, user=user, army_id=army_id, unit_id=unit_id)
    return _unit(session, user, army_id, copy.id)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/move")
def unit_move(
    session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id, body: MoveIn
) -> ArmyDetailOut:
    """Move a unit one place up (-1) or down (1); returns the army in its new order."""
    builder.move_unit(session, user=user, army_id=army_id, unit_id=unit_id, offset=body.offset)
    return army_out(builder.army_view(session, user=user, army_id=army_id))


@router.post("/armies/{army_id:int}/units/{unit_id:int}/weapons", status_code=201)
def weapon_add(
    session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id, body: WeaponIn
) -> WeaponOut:
    """Give a unit a weapon; errors name the field (``ammo.xsize``...)."""
    weapon = builder.add_weapon(
        session, user=user, army_id=army_id, unit_id=unit_id, data=_body(body)
    )
    return next(w for w in _unit(session, user, army_id, unit_id).weapons if w.id == weapon.id)


@router.patch("/armies/{army_id:int}/units/{unit_id:int}/weapons/{weapon_id:int}")
def weapon_update(
    session: SessionDep,
    user: ApiUser,
    army_id: Id,
    unit_id: Id,
    weapon_id: Id,
    body: WeaponPatch,
) -> WeaponOut:
    """Change a weapon; send the version you loaded (409 if stale)."""
    builder.update_weapon(
        session,
        user=user,
        army_id=army_id,
        unit_id=unit_id,
        weapon_id=weapon_id,
        data=_body(body),
        expected_version=body.version,
        base=body.base,
    )
    return next(w for w in _unit(session, user, army_id, unit_id).weapons if w.id == weapon_id)


@router.delete("/armies/{army_id:int}/units/{unit_id:int}/weapons/{weapon_id:int}", status_code=204)
def weapon_delete(
    session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id, weapon_id: Id
) -> Response:
    """Take a weapon off a unit."""
    builder.delete_weapon(session, user=user, army_id=army_id, unit_id=unit_id, weapon_id=weapon_id)
    return Response(status_code=204)


@router.post("/armies/{army_id:int}/units/{unit_id:int}/weapon-preview")
def weapon_preview(
    session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id, body: WeaponIn
) -> WeaponPreviewOut:
    """What a weapon would be on this unit (stats, hold class, findings); nothing is saved."""
    preview = builder.preview_weapon(
        session, user=user, army_id=army_id, unit_id=unit_id, data=_body(body)
    )
    rules = get_ruleset(preview.ruleset_id)
    return WeaponPreviewOut(
        findings=_findings(preview.findings), **rules.weapon_json(preview.figures)
    )


@router.put("/armies/{army_id:int}/house-rules")
def house_rules_set(
    session: SessionDep, user: ApiUser, army_id: Id, body: HouseRulesIn
) -> ArmyDetailOut:
    """Replace the army's house rules (missing options take their defaults)."""
    builder.set_house_rules(
        session, user=user, army_id=army_id, options=body.options, expected_version=body.version
    )
    return army_out(builder.army_view(session, user=user, army_id=army_id))
