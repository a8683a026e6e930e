"""The API's documentation page (Swagger UI, served from the app) and the favicon.

Swagger UI's files are vendored under ``static/vendor/swagger-ui`` (see its README) and its
start-up is ``static/js/docs.js``: ``/docs`` works without internet and loads nothing from
another host, so its Content-Security-Policy needs no CDN and no inline script.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from app.settings import PROJECT_ROOT
from app.web.deps import SessionRoute
from app.web.templating import templates

router = APIRouter(route_class=SessionRoute)  # (its pages' CSRF check reads the login)

FAVICON = PROJECT_ROOT / "static" / "favicon.svg"


@router.get("/docs", include_in_schema=False)
def api_docs(request: Request) -> Response:
    """Swagger UI for the JSON API (``/api/v1/openapi.json``)."""
    return templates.TemplateResponse(
        request, "docs.html", {"openapi_url": request.app.openapi_url}
    )


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """The favicon where browsers and feed readers look for it without a page's link."""
    return FileResponse(
        FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"}
    )
