"""The login cookie: a random token and nothing else; the session is a database row.

Routes ask for the cookie to be set or cleared through ``request.state``; this
middleware writes the header when the answer starts, so a route returning any
kind of response (a redirect, a page, a JSON model) can log the browser in or out.
Only log-in, log-out and a password change ever touch it: no failed request (a
refused CSRF check, say) can replace or drop it.
"""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "brikforge_session"
_PENDING = "login_cookie"


def set_login_cookie(request: Request, token: str) -> None:
    setattr(request.state, _PENDING, token)


def clear_login_cookie(request: Request) -> None:
    setattr(request.state, _PENDING, "")


class LoginCookieMiddleware:
    """Writes the Set-Cookie a route asked for (HttpOnly, SameSite=Lax)."""

    def __init__(self, app: ASGIApp, *, max_age: int, secure: bool) -> None:
        self.app = app
        self.max_age = max_age
        self.flags = "; Path=/; HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                token = scope.get("state", {}).get(_PENDING)
                if token is not None:
                    max_age = self.max_age if token else 0
                    MutableHeaders(scope=message).append(
                        "Set-Cookie", f"{COOKIE}={token}; Max-Age={max_age}{self.flags}"
                    )
            await send(message)

        await self.app(scope, receive, send_with_cookie)
