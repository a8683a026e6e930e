"""Exports sent as they are made (issue 30 F2): a 1,000-unit army's text or JSON comes in
chunks of ``transfer.CHUNK_UNITS`` units, each made in the thread pool (Starlette iterates a
plain iterator there), never the whole document in memory at once nor the event loop held."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi.responses import StreamingResponse

from app.db.models import Army
from app.services import transfer
from app.services.army_rows import UnitRow


def text_stream(chunks: Iterator[str]) -> StreamingResponse:
    """Forum text, as ``PlainTextResponse`` would send it whole (``text/plain``, UTF-8)."""
    return StreamingResponse(chunks, media_type="text/plain")


def json_stream(army: Army, rows: list[UnitRow]) -> StreamingResponse:
    """The export document, byte for byte as ``JSONResponse(transfer.export_doc(...))``."""
    return StreamingResponse(transfer.export_json_chunks(army, rows), media_type="application/json")


def json_download(army: Army, rows: list[UnitRow]) -> StreamingResponse:
    """``json_stream`` as a file to save (its name from the army's)."""
    response = json_stream(army, rows)
    filename = transfer.export_filename(army, "json")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
