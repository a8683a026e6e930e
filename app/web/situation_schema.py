"""The attack situation (and a further target) as pydantic models, generated from a ruleset's
declared fields.

The JSON API and the battle form validate the situation through a model made from the
ruleset's ``situation_fields`` (names, defaults, bounds and descriptions in one place), and
turn it into the ruleset's own situation through the same reader as the calculator page
(``read_situation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, create_model

from app.rules.errors import InvalidInput
from app.rules.fields import FieldValue, InputField, json_value, parse_field
from app.rules.ruleset import Ruleset, read_situation
from app.services.army_rows import MAX_COUNT
from app.web.inputs import Flag, Id, Inches, NoBool, SingleLine
from app.web.schemas import StrictModel

INCHES_BOUNDS = (0, 1000)  # those of ``Inches``
Figures = Annotated[int, Field(ge=1, le=MAX_COUNT), NoBool]
"""A target's figurines reached (a squad's: 1 to its count, which the calculation checks)."""


class SituationModel(StrictModel):
    """The base of every generated situation model."""

    ruleset: ClassVar[Ruleset]

    def to_engine(self) -> Any:
        """The ruleset's own situation (``Ruleset.decode_situation``)."""
        situation, errors = read_situation(self.ruleset, self.model_dump())
        for field, reason in errors.items():  # defensive: the model's bounds are the fields'
            raise InvalidInput(field, reason)
        return situation


def field_definition(field: InputField) -> tuple[Any, Any]:
    """The annotation and ``Field`` of one input."""
    kind = field.kind
    annotation: Any
    if kind == "inches":
        if (field.low, field.high) != INCHES_BOUNDS:
            raise ValueError(f"{field.name}: inches from 0 to 1000 only (the API's Inches)")
        annotation = Inches
    elif kind == "whole":
        # bounds on the type, before NoBool (app.web.inputs.Int): an optional field's schema
        # is anyOf [the bounded integer, null], and the bounds belong in the first
        annotation = Annotated[int, Field(ge=field.low, le=field.high), NoBool]
    elif kind == "flag":
        annotation = Flag
    elif kind == "choice":
        annotation = Literal[field.choice_values]
    else:
        length = None if field.high is None else int(field.high)
        annotation = Annotated[str, Field(max_length=length), SingleLine]
    if field.optional:
        annotation = annotation | None
    default = None if field.optional else json_value(field, field.default)
    return annotation, Field(default=default, description=field.help or None)


def situation_model(
    ruleset: Ruleset,
    *,
    module: str,
    doc: str | None = None,
    leave_out: Sequence[str] = (),
) -> type[SituationModel]:
    """A ``SituationIn`` model of ``ruleset``'s situation fields but those in ``leave_out``
    (a missing field reads as its default), named as if declared in ``module`` (its name in
    the OpenAPI document)."""
    fields = [f for f in ruleset.situation_fields if f.name not in leave_out]
    model: type[SituationModel] = create_model(  # type: ignore[call-overload]
        "SituationIn",
        __base__=SituationModel,
        __module__=module,
        __doc__=doc,
        **{field.name: field_definition(field) for field in fields},
    )
    model.ruleset = ruleset
    return model


class TargetModel(StrictModel):
    """The base of every generated further-target model: a unit and its ``target_fields``."""

    ruleset: ClassVar[Ruleset]
    unit_id: Id
    figures: Figures | None = Field(
        default=None,
        description="how many figurines of the unit (a squad) the attack reaches; omit: all",
    )

    def field_values(self) -> tuple[FieldValue, ...]:
        """The ruleset's ``target_fields`` values, in their order, as its parser reads them."""
        data = self.model_dump()
        return tuple(parse_field(f, data[f.name]) for f in self.ruleset.target_fields)


def target_model(ruleset: Ruleset, *, module: str, doc: str | None = None) -> type[TargetModel]:
    """A ``FollowerIn`` model of a further target: its unit id and the ruleset's
    ``target_fields``, named as if declared in ``module``."""
    model: type[TargetModel] = create_model(  # type: ignore[call-overload]
        "FollowerIn",
        __base__=TargetModel,
        __module__=module,
        __doc__=doc,
        **{field.name: field_definition(field) for field in ruleset.target_fields},
    )
    model.ruleset = ruleset
    return model
