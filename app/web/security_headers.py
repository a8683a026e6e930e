"""Security headers on every answer: pages, API, static files and errors alike.

The pages load only our own scripts and styles (no inline script, handler or style
attribute: the templates are kept that way, and htmx's own indicator style is off
in its config), and no page may be framed: a framed, same-site page could be
clicked through ("clickjacking" a Delete button). ``/docs`` is held to the same
policy: Swagger UI is served from the app's own files and started by a script file.

**Caching.** Every API answer, and every answer to a browser that is logged in (its login
cookie sent, or any cookie being set), pages and htmx fragments alike, is
``Cache-Control: no-store``: a player's armies, battles and sessions stay in no cache, the
browser's own or a proxy's, once they are shown (a shared computer's next user cannot go
Back to them after logging out). A route's own ``Cache-Control`` wins; the static files keep
their caching. A visitor's pages (no login cookie) are the same for every visitor and are
left cacheable, except the pages a share token in the address opens (``/shared/...``,
``/battles/shared/...``): a link can be revoked, so those are ``private, no-cache`` (only the
browser keeps them, and asks again before showing them).
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.session_cookie import COOKIE

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Share and invitation links carry their token in the path: never send it elsewhere.
    "Referrer-Policy": "same-origin",
}

# A page that shows what a token in its address opens (an invitation): kept in no cache, and
# its address told to no other page, ours included.
PRIVATE_PAGE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}

NO_STORE = "no-store"
SHARED_PAGE = "private, no-cache"  # a visitor's page opened by a (revocable) share token
_API = "/api/"
_STATIC = "/static/"
_SHARED = ("/shared/", "/battles/shared/")
_LOGIN_COOKIE = f"{COOKIE}=".encode()


def _logged_in(scope: Scope) -> bool:
    """Whether the request carries the login cookie (valid or not: no-store either way)."""
    return any(name == b"cookie" and _LOGIN_COOKIE in value for name, value in scope["headers"])


def cache_control(scope: Scope, headers: MutableHeaders) -> str | None:
    """The ``Cache-Control`` an answer gets (None: none added); see the module's doc."""
    path: str = scope["path"]
    if "cache-control" in headers or path.startswith(_STATIC):
        return None
    if path.startswith(_API) or _logged_in(scope) or "set-cookie" in headers:
        return NO_STORE
    if path.startswith(_SHARED):
        return SHARED_PAGE
    return None


class SecurityHeadersMiddleware:
    """Adds the headers above to every HTTP answer (a route's own value wins)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
                if (caching := cache_control(scope, headers)) is not None:
                    headers["Cache-Control"] = caching
            await send(message)

        await self.app(scope, receive, send_with_headers)
