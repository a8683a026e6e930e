"""Unguessable tokens for links (invitations, share links): 192 bits, stored hashed; and how
long an invitation lives (clubs' and battles' alike)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement

from app.db.base import utcnow

INVITE_DAYS = 7  # an invitation link works for a week, until it is revoked


def new_token() -> tuple[str, str]:
    """A fresh token and the SHA-256 hex digest that is the only thing stored."""
    token = secrets.token_urlsafe(24)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invite_expiry() -> datetime:
    """When an invitation made now stops working."""
    return utcnow() + timedelta(days=INVITE_DAYS)


def live(model: Any) -> list[ColumnElement[bool]]:
    """The conditions of a live invitation (``model`` has ``revoked_at`` and ``expires_at``):
    neither revoked nor expired."""
    return [model.revoked_at.is_(None), model.expires_at > utcnow()]


def is_live(invite: Any) -> bool:
    """Whether a loaded invitation still works (``live`` as Python)."""
    return invite.revoked_at is None and invite.expires_at > utcnow()
