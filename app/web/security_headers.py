"""Security headers on every answer: pages, API, static files and errors alike.

The pages load only our own scripts and styles (no inline script, handler or style
attribute: the templates are kept that way, and htmx's own indicator style is off
in its config), and no page may be framed: a framed, same-site page could be
clicked through ("clickjacking" a Delete button). ``/docs`` is held to the same
policy: Swagger UI is served from the app's own files and started by a script file.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
            await send(message)

        await self.app(scope, receive, send_with_headers)
