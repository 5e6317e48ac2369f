"""The /api docs page in a real browser: headless Chromium, as a phone and as a desktop.

`catalogctl serve` runs on 127.0.0.1; Playwright (PyPI `playwright`) drives Debian's
`chromium` (never a browser Playwright downloads). Screenshots go to artifacts/screenshots/,
which CI keeps, so a reviewer can look at the page without running anything.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLE, require_module, require_program
from tests.serve_process import ServeProcess

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
WIDTHS = {"phone": (390, 844), "tablet": (768, 1024), "desktop": (1280, 900)}
# Chromium as root in a container: no sandbox, no GPU, and nothing that talks to the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CONTENTS = {"sample": SAMPLE, "deprecated": ROOT / "tests" / "fixtures" / "small"}

# Measured in the page: what a reader would notice.
MEASURE = """() => {
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  const links = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'));
  const wide = [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5
                 && !e.closest('pre'))
    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''));
  return {
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    ids: ids,
    brokenLinks: links.filter(h => !document.getElementById(h.slice(1))),
    pres: [...document.querySelectorAll('pre')].map(p => p.getAttribute('tabindex')),
    wide: wide.slice(0, 10),
    icon: document.querySelector('link[rel=icon]')?.getAttribute('href') ?? null,
  };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = require_program("chromium", package="chromium")
    require_module("playwright", pip="playwright")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module", params=list(CONTENTS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    server = ServeProcess(str(CONTENTS[request.param]))
    try:
        yield request.param, server.url
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize("width", list(WIDTHS))
def test_docs_page_in_chromium(browser: Any, served: tuple[str, str], width: str) -> None:
    name, url = served
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on(
        "response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None
    )
    try:
        response = page.goto(f"{url}/api", wait_until="load")
        assert response is not None and response.status == 200
        favicon = page.request.get(f"{url}/favicon.ico")
        assert (favicon.status, favicon.headers["content-type"]) == (200, "image/svg+xml")
        found = page.evaluate(MEASURE)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"api-{name}-{w}px.png"), full_page=True)
        scrolled = _scroll_widest_code_block_by_keyboard(page)
    finally:
        context.close()

    assert found["scrollWidth"] <= found["viewport"], (
        f"{found['scrollWidth']} px wide in a {found['viewport']} px window: {found['wide']}"
    )
    duplicates = sorted({i for i in found["ids"] if found["ids"].count(i) > 1})
    assert duplicates == [], f"duplicate ids: {duplicates}"
    assert found["brokenLinks"] == [], "links to ids that do not exist"
    assert found["pres"] and all(t == "0" for t in found["pres"]), found["pres"]
    assert found["icon"] == "/favicon.ico"
    assert problems == []
    if scrolled is not None:  # a code block wider than the window scrolls with the arrow keys
        assert scrolled > 0


def _scroll_widest_code_block_by_keyboard(page: Any) -> float | None:
    """Tab to the widest code block that overflows and press →; its scroll offset after."""
    index = page.evaluate(
        """() => { const pres = [...document.querySelectorAll('pre')];
                   let best = -1, most = 0;
                   pres.forEach((p, i) => { const over = p.scrollWidth - p.clientWidth;
                                            if (over > most) { most = over; best = i; } });
                   return best; }"""
    )
    if index < 0:
        return None
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    block = page.locator("pre").nth(index)
    # Reach it with the keyboard alone: Tab until it has the focus.
    for _ in range(200):
        page.keyboard.press("Tab")
        if block.evaluate("e => e === document.activeElement"):
            break
    else:
        raise AssertionError("a code block that overflows cannot be reached with Tab")
    page.keyboard.press("ArrowRight")
    # Keyboard scrolling is animated: give it a moment, then read where it got to.
    handle = block.element_handle()
    with contextlib.suppress(PlaywrightTimeout):  # then the caller reports the offset 0
        page.wait_for_function("e => e.scrollLeft > 0", arg=handle, timeout=3000)
    return float(block.evaluate("e => e.scrollLeft"))
