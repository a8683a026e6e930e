"""Real headless Chromium (Debian's) driven by Playwright against a live server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


# CI runs the SQLite and PostgreSQL passes side by side on two cores, each with its own
# Chromium and live server. One add-weapon check there ran out of expect's default 5 s;
# seven local runs (four beside two busy loops) took 7-15 s in all and never failed.
expect.set_options(timeout=15_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch Debian's Chromium: `playwright install` cannot download a browser here."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    return live_server


@pytest.fixture
def shot(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Save a numbered full-page screenshot under tests/artifacts/<test name>/."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    counter = iter(range(1, 100))

    def take(page: Any, label: str) -> Path:
        path = folder / f"{next(counter):02d}-{label}.png"
        # caret="initial": hiding the caret injects a <style>, which our CSP (rightly) blocks.
        page.screenshot(path=str(path), full_page=True, caret="initial")
        return path

    return take


@pytest.fixture(autouse=True)
def _no_content_security_policy_violations(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test driving ``page`` fails if Chromium blocked anything under our CSP."""
    if "page" not in request.fixturenames:
        yield
        return
    page = request.getfixturevalue("page")
    blocked: list[str] = []
    page.on(
        "console",
        lambda msg: (
            blocked.append(f"{page.url}: {msg.text}")
            if "Content Security Policy" in msg.text
            else None
        ),
    )
    yield
    assert blocked == []


@pytest.fixture(autouse=True)
def _close_extra_contexts(browser: Any) -> Iterator[None]:
    """Close the contexts a test opened itself (``browser.new_context()``, one per player):
    left open, their pages kept running in Chromium for the rest of the session."""
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


@pytest.fixture(autouse=True)
def _streams_stay_open(app: Any) -> Iterator[None]:
    """A battle page's live stream stays open for the test, as it does for a user for ten
    minutes (the suite's in-process streams end at once: tests/conftest.py); one that ended
    at once would be reopened again and again, each time a console error of the extension's."""
    settings = app.state.settings
    kept = settings.live_stream_seconds
    settings.live_stream_seconds = 600.0
    yield
    settings.live_stream_seconds = kept
