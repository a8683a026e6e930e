"""Issue 29's acceptance: a crawler walks what a visitor and a player of each rule system
reach, on a desktop and on a phone, and fails on any console error, uncaught exception,
Content-Security-Policy violation or failed page.

Nothing is listed by hand: from ``/`` it follows the links (``a[href]``) it reads in the DOM
and fires each htmx GET (``[hx-get]``) as its trigger would (a picker's change, a details'
toggle, a form's input), the same origin only, GET only. Each player owns an army of their
rule system's sample units and a battle of them, so the crawl reaches the builder, the
calculator and the battle page. Pages are deduplicated by path and query pattern (numbers
made ``N``, query values dropped), at most ``PAGES`` of them per role and screen.

Nothing here silences anything: the console is listened to (``console``, ``pageerror``), and
an init script only records ``securitypolicyviolation`` events in an array read back after
each page. test_console_is_not_silenced checks that the product's own code does not either.
CI runs this module in its SQLite pass only (.ci/run).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.rules import registry
from tests.browser.helpers import sign_up

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PAGES = 80  # per role and screen
FRAGMENTS = 12  # htmx GETs fired per page at most (each pattern once per crawl)
ROOT = Path(__file__).resolve().parents[2]

# Links not followed: they act (log out, delete, leave) or download rather than show a page.
SKIP = re.compile(r"/logout|/delete|/export|/leave|\.json$|\.txt$|\.csv$|^/static/|^/api/")

RECORD_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
    + ` at ${e.sourceFile || ""}:${e.lineNumber || ""} ${e.sample || ""}`);
});
"""

# Fire one htmx GET element as its trigger would, and wait for its answer (or for nothing to
# be sent: a request the page itself cancels, htmx:confirm). Returns what happened.
FIRE = """
async (el) => {
  const spec = (el.getAttribute("hx-trigger") || "").split(",")[0].trim();
  const tag = el.tagName;
  let name = spec.split(/\\s+/)[0] || (tag === "FORM" ? "submit"
    : ["INPUT", "SELECT", "TEXTAREA"].includes(tag) ? "change" : "click");
  if (["load", "revealed", "intersect", "every"].includes(name)) return "automatic";
  let source = el;
  const from = spec.match(/from:(closest \\S+|[^\\s]+)/);
  if (from) {
    source = from[1].startsWith("closest ") ? el.closest(from[1].slice(8))
      : document.querySelector(from[1]);
    if (!source) return "no source";
  }
  const delay = Number((spec.match(/delay:(\\d+)ms/) || [0, 0])[1]);
  const answered = new Promise((resolve) => {
    let started = false;
    document.addEventListener("htmx:beforeRequest", () => { started = true; }, { once: true });
    document.addEventListener("htmx:afterRequest", () => resolve("answered"), { once: true });
    setTimeout(() => { if (!started) resolve("not sent"); }, delay + 600);
    setTimeout(() => resolve("timeout"), delay + 15000);
  });
  // a picker still on its blank choice is set as a player would: to its first choice not
  // already taken by another picker of the form (a target that is not the attacker)
  if (tag === "SELECT" && !el.value) {
    const taken = new Set(Array.from(el.form ? el.form.querySelectorAll("select") : [])
      .map((s) => s.value));
    const first = Array.from(el.options).find((o) => o.value && !taken.has(o.value));
    if (first) el.value = first.value;
  }
  if (name === "toggle" && tag === "DETAILS") el.open = !el.open;
  else if (name === "click") el.click();
  else source.dispatchEvent(new Event(name, { bubbles: true, cancelable: true }));
  return await answered;
}
"""


def pattern(url: str) -> str:
    """A page's or fragment's kind: its path with numbers as N, and its query's keys."""
    parts = urlsplit(url)
    path = re.sub(r"\d+", "N", parts.path)
    keys = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return path + ("?" + "&".join(keys) if keys else "")


@dataclass
class Crawl:
    """What one role saw on one screen."""

    origin: str
    pages: list[str] = field(default_factory=list)
    fragments: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def crawl(context: BrowserContext, origin: str, label: str) -> Crawl:
    seen = Crawl(origin)
    page = context.new_page()
    page.add_init_script(RECORD_CSP)
    where = {"url": "/"}

    def on_console(msg: Any) -> None:
        if msg.type == "error":
            seen.problems.append(f"{label} {where['url']}: console error: {msg.text}")

    page.on("console", on_console)
    page.on(
        "pageerror",
        lambda exc: seen.problems.append(f"{label} {where['url']}: uncaught {exc}"),
    )
    started = time.monotonic()
    queue, queued, fired = ["/"], {pattern("/")}, set()
    while queue and len(seen.pages) < PAGES:
        url = queue.pop(0)
        where["url"] = url
        response = page.goto(url)
        seen.pages.append(url)
        if response is None or response.status >= 400:
            status = response.status if response else "no answer"
            seen.problems.append(f"{label} {url}: {status}")
            continue
        page.wait_for_load_state()
        _settled(page)
        for _ in range(FRAGMENTS):
            target = _next_fragment(page, fired)
            if target is None:
                break
            key, handle = target
            fired.add(key)
            where["url"] = f"{url} [{key}]"
            outcome = handle.evaluate(FIRE)
            seen.fragments.append(f"{key} ({outcome})")
            if outcome == "timeout":
                seen.problems.append(f"{label} {where['url']}: no answer")
            _settled(page)
        where["url"] = url
        seen.problems += [f"{label} {url}: CSP {v}" for v in page.evaluate("window.__csp || []")]
        for href in _links(page, origin):
            if pattern(href) not in queued:
                queued.add(pattern(href))
                queue.append(href)
    seen.seconds = time.monotonic() - started
    page.close()
    return seen


def _settled(page: Page) -> None:
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling")).to_have_count(0)


def _next_fragment(page: Page, fired: set[str]) -> tuple[str, Any] | None:
    """The first htmx GET element on the page whose kind (URL pattern and trigger) has not
    been fired yet in this crawl."""
    for handle in page.query_selector_all("[hx-get]"):
        url = handle.get_attribute("hx-get") or ""
        trigger = (handle.get_attribute("hx-trigger") or "").split(",")[0].split(" ")[0]
        what = handle.evaluate("e => e.tagName + (e.name ? `[${e.name}]` : '')")
        key = f"{pattern(url)} on {trigger or 'default'} of {what}"
        if key not in fired and (handle.is_visible() or _hidden_ok(handle)):
            return key, handle
    return None


def _hidden_ok(handle: Any) -> bool:
    """An element out of sight is fired too when a player reaches it by opening its details
    (a closed further-targets box, say): its answer is part of the page all the same."""
    return bool(handle.evaluate("e => !!e.closest('details')"))


def _links(page: Page, origin: str) -> list[str]:
    hrefs: list[str] = page.eval_on_selector_all(
        "a[href]:not([download])", "links => links.map(a => a.href)"
    )
    out = []
    for href in hrefs:
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != origin or SKIP.search(parts.path):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


# ------------------------------------------------------------------ the players' worlds


def _seed(page: Page, ruleset_id: str) -> None:
    """An army of the rule system's sample units (through the API) and a battle of them."""
    rules = registry.get_ruleset(ruleset_id)
    csrf = page.locator("body").get_attribute("hx-headers") or ""
    token = re.search(r'"X-CSRF-Token": "([^"]+)"', csrf)
    assert token
    headers = {"X-CSRF-Token": token.group(1)}

    def post(url: str, data: dict[str, Any]) -> dict[str, Any]:
        r = page.request.post(url, data=data, headers=headers)
        assert r.ok, (url, r.status, r.text()[:500])
        return r.json()  # type: ignore[no-any-return]

    army = post(
        "/api/v1/armies", {"name": f"{rules.name} crawl", "ruleset_id": ruleset_id, "budget": 1000}
    )
    units = []
    for sample in rules.sample_attacks[:2]:
        for data in (sample.attacker, sample.targets[0]):
            unit = rules.encode_unit(rules.decode_unit(data))
            units.append(post(f"/api/v1/armies/{army['id']}/units", unit)["id"])
    post("/api/v1/battles", {"name": "Crawl battle", "army_ids": [army["id"]], "unit_ids": units})


def _player(browser: Browser, base_url: str, ruleset_id: str) -> Any:
    """The rule system's player, signed up and seeded: their browser storage. (Each test
    makes its own: the tables are emptied after every test.)"""
    context = browser.new_context(base_url=base_url)
    page = context.new_page()
    sign_up(page, f"Crawler {ruleset_id}")
    _seed(page, ruleset_id)
    state = context.storage_state()
    context.close()
    return state


ROLES = ["visitor", *registry.RULESETS]


@pytest.mark.parametrize("screen", ["desktop", "phone"])
@pytest.mark.parametrize("role", ROLES)
def test_every_page_and_fragment_a_role_reaches_is_free_of_console_errors(
    browser: Browser, base_url: str, role: str, screen: str
) -> None:
    viewport = DESKTOP if screen == "desktop" else PHONE
    state = None if role == "visitor" else _player(browser, base_url, role)
    context = browser.new_context(base_url=base_url, viewport=viewport, storage_state=state)
    origin = f"{urlsplit(base_url).scheme}://{urlsplit(base_url).netloc}"
    seen = crawl(context, origin, f"{role}/{screen}")
    context.close()
    print(
        f"\n{role}/{screen}: {len(seen.pages)} pages, {len(seen.fragments)} fragments"
        f" in {seen.seconds:.1f} s"
    )
    assert seen.problems == [], "\n".join(seen.problems)
    # The crawl found the product, not a stub: the pages each role must reach.
    patterns = {pattern(p) for p in seen.pages}
    assert {"/", "/calculator/open", "/glossary"} <= patterns, sorted(patterns)
    if role != "visitor":
        assert {"/armies/N", "/battles/N", "/calculator"} <= patterns or any(
            p.startswith("/calculator?") for p in patterns
        ), sorted(patterns)
        assert any(f.startswith("/calculator") for f in seen.fragments), seen.fragments
        assert any(f.startswith("/battles/N/odds") for f in seen.fragments), seen.fragments


# ------------------------------------------------------------------ nothing is silenced

SILENCERS = re.compile(
    r"htmx\.logger|logger\s*[:=]|window\.onerror|onerror\s*=|console\.(error|warn|log)\s*="
    r"|addEventListener\(\s*['\"](error|unhandledrejection)['\"]|\.preventDefault\(\).*error"
)


def test_console_is_not_silenced() -> None:
    """Our scripts and pages neither replace the console or htmx's logger nor swallow error
    events: what the crawler hears is what a player's console shows."""
    sources = [*ROOT.glob("static/js/*.js"), *ROOT.glob("templates/**/*.html")]
    assert sources
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if SILENCERS.search(line)
    ]
    assert found == []
    config = (ROOT / "templates" / "base.html").read_text()
    assert '"allowEval": false' in config  # and no filter needs eval: none are written
    triggers = re.findall(r'hx-trigger="([^"]*)"', "".join(p.read_text() for p in sources))
    assert triggers and not [t for t in triggers if "[" in t]


def test_going_offline_is_told_and_logged_where_it_happens(browser: Browser, base_url: str) -> None:
    """The one console error a player may see on purpose: the server cannot be reached. The
    page says so (showError), and the console logs it: asserted here, where it is provoked."""
    context = browser.new_context(base_url=base_url)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto("/calculator/open")
    page.wait_for_load_state()
    assert errors == []
    context.set_offline(True)
    page.locator("#calc-rules").select_option(index=1)
    expect(page.locator("#flash .flash.error")).to_contain_text("could not be reached")
    context.set_offline(False)
    assert any("htmx:sendError" in e for e in errors), errors
    assert any("ERR_INTERNET_DISCONNECTED" in e for e in errors), errors
    context.close()
