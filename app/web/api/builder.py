"""The BrikWars builder over JSON: units, weapons, house rules, weapon stats, catalogue."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.rules import brikwars as bw
from app.services import builder
from app.web.api.builder_schemas import (
    ArmourOut,
    ArmyDetailOut,
    DamageOut,
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
    WeaponStatsIn,
    WeaponStatsOut,
)
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.inputs import Id

router = APIRouter(route_class=SessionRoute, tags=["builder"])


def _num(value: Fraction | int) -> float:
    number = Fraction(value)
    return int(number) if number.denominator == 1 else float(number)


def stats_out(stats: bw.WeaponStats) -> WeaponStatsOut:
    damage = stats.damage
    return WeaponStatsOut(
        use=stats.use,
        range_inches=None if stats.range_inches is None else _num(stats.range_inches),
        damage=None
        if damage is None
        else DamageOut(
            dice=damage.dice,
            sides=damage.sides,
            modifier=damage.modifier,
            text=str(damage),
            minus_distance=damage.minus_distance,
            fire=damage.fire,
            explosion=damage.explosion,
        ),
        cost=_num(stats.cost),
        power=_num(stats.power),
        deflection=stats.deflection,
    )


def _findings(findings: list[bw.Finding]) -> list[FindingOut]:
    return [
        FindingOut(
            severity=f.severity, code=f.code, message=f.message, unit=f.unit, weapon=f.weapon
        )
        for f in findings
    ]


def unit_out(uv: builder.UnitView) -> UnitOut:
    spec, armour = uv.spec, uv.spec.armour
    return UnitOut(
        id=uv.row.id,
        position=uv.row.position,
        version=uv.row.version,
        name=uv.row.name,
        kind=uv.row.kind,
        spec=uv.row.spec,
        effective_size=_num(spec.effective_size),
        armor=ArmourOut(
            dice=armour.dice,
            sides=armour.sides,
            fixed=armour.fixed,
            deflection=armour.deflection,
            text=str(armour),
        ),
        move=_num(spec.current_move),
        power=_num(spec.power),
        power_needed=_num(uv.power_needed),
        cost=_num(uv.cost),
        findings=_findings(uv.findings),
        weapons=[
            WeaponOut(
                id=wv.row.id,
                position=wv.row.position,
                version=wv.row.version,
                type=wv.row.type,
                name=wv.spec.entry.name,
                spec=wv.row.spec,
                stats=stats_out(wv.stats),
                hold=wv.hold,
                findings=_findings(wv.findings),
            )
            for wv in uv.weapons
        ],
        activation_sets=[list(s) for s in uv.activation_sets],
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
        house_rules=view.options.to_dict(),
        total_cost=_num(view.total_cost),
        findings=_findings(view.all_findings),
        units=[unit_out(u) for u in view.units],
    )


def _unit(session: SessionDep, user: ApiUser, army_id: Id, unit_id: Id) -> UnitOut:
    return unit_out(builder.army_view(session, user=user, army_id=army_id).unit(unit_id))


def _body(model: Any) -> dict[str, Any]:
    return model.model_dump(exclude_none=True, exclude={"version", "base"})


@router.get("/armies/{army_id:int}")
def army_get(session: SessionDep, user: ApiUser, army_id: Id) -> ArmyDetailOut:
    """An army with its total cost, findings and units with every derived figure."""
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
    return WeaponPreviewOut(
        stats=stats_out(preview.stats), hold=preview.hold, findings=_findings(preview.findings)
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


@router.post("/brikwars/weapon-stats")
def weapon_stats(body: WeaponStatsIn) -> WeaponStatsOut:
    """A weapon's Use, Range, Damage, cost and Power at a size (no unit needed)."""
    return stats_out(
        bw.weapon_stats(
            body.type,
            size=body.size,
            xsize=body.xsize,
            action_die=body.action_die,
            variant=body.variant,
        )
    )


@router.get("/brikwars/catalogue")
def catalogue() -> list[dict[str, Any]]:
    """Every BrikWars weapon type with its formulas, as the builder shows them."""
    return [entry.to_dict() for entry in bw.catalogue()]
