"""Issue 14 item 3: /docs shows the API's operations with every other host unreachable."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import Page, Route, expect


def test_docs_render_without_internet(page: Page, base_url: str, shot) -> None:  # type: ignore[no-untyped-def]
    ours = urlsplit(base_url).netloc
    elsewhere: list[str] = []

    def only_ours(route: Route) -> None:
        if urlsplit(route.request.url).netloc == ours:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", only_ours)
    page.goto("/docs")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible()
    expect(page.locator(".opblock-summary-path", has_text="/api/v1/battles").first).to_be_visible()
    assert operations.count() > 20
    # An operation opens with its parameters and responses (all drawn by the app's files).
    operations.first.locator(".opblock-summary").click()
    expect(operations.first.locator(".responses-wrapper")).to_be_visible()
    expect(operations.first.locator(".highlight-code, .model-box").first).to_be_visible()
    shot(page, "docs")
    assert elsewhere == []
