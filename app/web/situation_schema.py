"""The attack situation as a pydantic model, generated from the ruleset's declared fields.

The JSON API and the battle form validate the situation through a model made from
``SITUATION_FIELDS`` (names, defaults, bounds and descriptions in one place), and turn it into
the engine's ``TurnSituation`` through the same reader as the calculator page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, create_model

from app.rules.brikwars.situation_fields import situation_from_input
from app.rules.brikwars.turn import TurnSituation
from app.rules.errors import InvalidInput
from app.rules.fields import InputField, json_value
from app.web.inputs import Inches, Int, SingleLine
from app.web.schemas import StrictModel

INCHES_BOUNDS = (0, 1000)  # those of ``Inches``


class SituationModel(StrictModel):
    """The base of every generated situation model."""

    def to_engine(self) -> TurnSituation:
        situation, errors = situation_from_input(self.model_dump())
        for field, reason in errors.items():  # defensive: the model's bounds are the fields'
            raise InvalidInput(field, reason)
        return situation


def _definition(field: InputField) -> tuple[Any, Any]:
    """The annotation and ``Field`` of one input."""
    kind = field.kind
    annotation: Any
    bounds: dict[str, Any] = {}
    if kind == "inches":
        if (field.low, field.high) != INCHES_BOUNDS:
            raise ValueError(f"{field.name}: inches from 0 to 1000 only (the API's Inches)")
        annotation = Inches
    elif kind == "whole":
        annotation, bounds = Int, {"ge": field.low, "le": field.high}
    elif kind == "flag":
        annotation = bool
    elif kind == "choice":
        annotation = Literal[field.choice_values]  # type: ignore[valid-type]
    else:
        length = None if field.high is None else int(field.high)
        annotation = Annotated[str, Field(max_length=length), SingleLine]
    if field.optional:
        annotation = annotation | None
    default = None if field.optional else json_value(field, field.default)
    return annotation, Field(default=default, description=field.help or None, **bounds)


def situation_model(
    fields: Sequence[InputField], *, module: str, doc: str | None = None
) -> type[SituationModel]:
    """A ``SituationIn`` model of ``fields``, named as if declared in ``module`` (its name in
    the OpenAPI document)."""
    return create_model(  # type: ignore[no-any-return, call-overload]
        "SituationIn",
        __base__=SituationModel,
        __module__=module,
        __doc__=doc,
        **{field.name: _definition(field) for field in fields},
    )
