"""The chat page in a real browser: Debian's Chromium (/usr/bin/chromium) driven by Playwright,
against `duocthu serve` on a free loopback port with the sample index.

Chromium missing is a failure, never a skip: `make test` installs it with apt-get (`make
browser-deps`) where apt-get is available, and .ci/run does too. Playwright's own browser
download is never used. Each test leaves a screenshot in tests/browser/output/ (ignored by git).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, expect, sync_playwright

from tests.integration.test_handlers import env  # noqa: F401 - fixture
from tests.integration.test_localserver import server  # noqa: F401 - fixture

CHROMIUM = Path("/usr/bin/chromium")
# As root, Chromium needs no sandbox; the rest keeps it from calling hosts this network refuses.
# Playwright starts it with a fresh --user-data-dir of its own for every launch.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
OUTPUT = Path(__file__).resolve().parent / "output"
DESKTOP = (1280, 800)
PHONE = (390, 844)
SIZES = [DESKTOP, PHONE]  # `@pytest.mark.parametrize("page", SIZES, indirect=True, ids=SIZE_IDS)`
SIZE_IDS = ["desktop", "phone"]
# A turn takes under a second here; the margin is for a 2-core machine under other loads.
expect.set_options(timeout=20_000)


@pytest.fixture
def base_url(server: str) -> str:  # noqa: F811 - the fixture
    """`duocthu serve` (the real handlers) on a free loopback port, over the sample index."""
    return f"{server}/"


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make browser-deps` (apt-get install chromium) installs it")
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def console() -> list[str]:
    """What the page wrote to its console or threw (a CSP violation lands here)."""
    return []


@pytest.fixture
def requested() -> list[str]:
    """Every URL the page asked for, from its first load on."""
    return []


@pytest.fixture
def page(
    browser: Browser, base_url: str, console: list[str], requested: list[str], request: pytest.FixtureRequest
) -> Iterator[Page]:
    """A fresh browser context on the chat page, 1280x800 unless the test gives a width or a size."""
    size = getattr(request, "param", DESKTOP)
    width, height = size if isinstance(size, tuple) else (size, 800)
    context = browser.new_context(
        viewport={"width": width, "height": height},
        base_url=base_url,
        permissions=["clipboard-read", "clipboard-write"],
    )
    tab = context.new_page()

    def note(message: ConsoleMessage) -> None:
        console.append(f"{message.type}: {message.text}")

    tab.on("console", note)
    tab.on("pageerror", lambda err: console.append(f"pageerror: {err}"))
    tab.on("request", lambda req: requested.append(req.url))
    tab.goto(base_url)
    yield tab
    OUTPUT.mkdir(exist_ok=True)
    tab.screenshot(path=OUTPUT / f"{request.node.name}.png", full_page=True)
    context.close()
