"""Input and output shapes shared by the HTML forms and the JSON API.

Both doors validate with the same models, so a bad field gets the same reason
whether it came from a form or from an API client.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, EmailStr, Field, StringConstraints

from app.rules.registry import DEFAULT_RULESET
from app.web.inputs import Id, MultiLine, NoBool, SingleLine, Version

Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=120), SingleLine
]
Notes = Annotated[str, StringConstraints(max_length=10_000), MultiLine]
Budget = Annotated[int, Field(gt=0, le=1_000_000, description="Point budget in CP"), NoBool]
Password = Annotated[str, StringConstraints(min_length=8, max_length=128), SingleLine]


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RegisterIn(StrictModel):
    email: Annotated[EmailStr, SingleLine] = Field(max_length=254)
    password: Password
    display_name: Name


class LoginIn(StrictModel):
    email: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=254), SingleLine
    ]
    password: Annotated[str, StringConstraints(min_length=1, max_length=128), SingleLine]


class ArmyCreate(StrictModel):
    name: Name
    ruleset_id: Annotated[str, StringConstraints(max_length=32), SingleLine] = DEFAULT_RULESET
    budget: Budget
    notes: Notes = ""
    club_id: Id | None = Field(default=None, description="Share with this club at once")


class ArmyBase(StrictModel):
    """The settings as you loaded them, so a stale save can be merged field by field."""

    name: Annotated[str, StringConstraints(max_length=120)] | None = None
    budget: int | None = None
    notes: Notes | None = None


class ArmyUpdate(StrictModel):
    version: Version = Field(
        description="The version you loaded. If it is stale, the fields you send that changed "
        "since then are merged onto the current version (409 listing the fields changed "
        "elsewhere too); fields not sent are not changed."
    )
    name: Name | None = None
    budget: Budget | None = None
    notes: Notes | None = None
    base: ArmyBase | None = Field(
        default=None,
        description="The settings as you loaded them (the merge base); read from the "
        "army's history when not sent",
    )


class ClubCreate(StrictModel):
    name: Name


class TokenCreate(StrictModel):
    name: Name


class PasswordChange(StrictModel):
    current_password: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    new_password: Password


class DisplayNameChange(StrictModel):
    display_name: Name


class AccountDelete(StrictModel):
    password: Annotated[str, StringConstraints(min_length=1, max_length=128)] = Field(
        description="Your password, to confirm"
    )


class DeletionPlanOut(BaseModel):
    """What deleting the account deletes (``clubs_blocking`` non-empty: it is refused)."""

    armies: list[str]
    battles: list[str]
    clubs_deleted: list[str] = Field(description="Clubs you own alone: deleted with you")
    clubs_blocking: list[str] = Field(
        description="Clubs you own with other members: hand them over (or delete them) first"
    )
    memberships: list[str] = Field(description="Clubs you belong to: you leave them")


class UserOut(BaseModel):
    id: int
    email: str
    display_name: str


class LoginOut(BaseModel):
    user: UserOut
    csrf_token: str = Field(description="Send as X-CSRF-Token on cookie-authenticated writes")


class ArmyOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    ruleset_id: str
    budget: int
    notes: str
    version: int
    created_at: datetime
    updated_at: datetime


class TokenOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None


class SessionOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    created_at: datetime
    last_seen_at: datetime = Field(description="Updated at most once a minute")
    expires_at: datetime
    user_agent: str
    client_address: str
    current: bool = Field(default=False, description="The session this request came with")


class TokenCreated(TokenOut):
    token: str = Field(description="Shown once: keep it; only its hash is stored")
