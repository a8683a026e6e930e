"""Unguessable tokens for links (invitations, share links): 192 bits, stored hashed."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> tuple[str, str]:
    """A fresh token and the SHA-256 hex digest that is the only thing stored."""
    token = secrets.token_urlsafe(24)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
