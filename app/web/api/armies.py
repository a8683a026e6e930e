"""Armies over JSON."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.rules.registry import RULESETS
from app.services import armies, examples
from app.services.errors import NotFound
from app.web.deps import ApiUser, SessionDep, SessionRoute
from app.web.inputs import Id
from app.web.schemas import ArmyCreate, ArmyOut, ArmyUpdate

router = APIRouter(route_class=SessionRoute, tags=["armies"])


@router.get("/armies")
def army_list(session: SessionDep, user: ApiUser) -> list[ArmyOut]:
    """Your armies, most recently changed first."""
    return [ArmyOut.model_validate(a) for a in armies.list_armies(session, user=user)]


@router.post("/armies", status_code=201)
def army_create(session: SessionDep, user: ApiUser, body: ArmyCreate) -> ArmyOut:
    """Create an army."""
    return ArmyOut.model_validate(armies.create_army(session, user=user, **body.model_dump()))


@router.post("/armies/examples/{ruleset}", status_code=201)
def army_from_example(session: SessionDep, user: ApiUser, ruleset: str) -> ArmyOut:
    """Start from an example: a new army of the ruleset's sample units (the texts' own
    worked examples), ready and legal; 404 for an unknown ruleset."""
    if ruleset not in RULESETS:
        raise NotFound("ruleset")
    return ArmyOut.model_validate(examples.create_example(session, user=user, ruleset_id=ruleset))


@router.patch("/armies/{army_id:int}")
def army_update(session: SessionDep, user: ApiUser, army_id: Id, body: ArmyUpdate) -> ArmyOut:
    """Change name, budget or notes; a stale version is merged (409 if a field conflicts)."""
    army = armies.update_army(
        session,
        user=user,
        army_id=army_id,
        expected_version=body.version,
        base=body.base.model_dump() if body.base else None,
        **body.model_dump(exclude={"version", "base"}, exclude_none=True),
    )
    return ArmyOut.model_validate(army)


@router.delete("/armies/{army_id:int}", status_code=204)
def army_delete(session: SessionDep, user: ApiUser, army_id: Id) -> Response:
    """Delete an army."""
    armies.delete_army(session, user=user, army_id=army_id)
    return Response(status_code=204)
