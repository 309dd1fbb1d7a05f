"""The three pages a report is read in, in headless Chromium under their Content Security Policy: the paste
page (`logscope serve`), `bot serve`'s paste page, and the standalone file (`analyze --format html`, its
policy in a meta element). Any console message of type error fails the test (a style the policy blocks is
one), and the legend swatches and heat-map cells have a computed, non-transparent background: the colours
come from classes of the one hashed <style> element, not from style attributes the policy refuses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import BROWSER_MISSING, CHROMIUM, REAL, ROOT, needs_browser, start_server, stop_server

pytestmark = needs_browser  # .ci/run installs Debian's chromium; without it each test skips, and conftest counts them
if BROWSER_MISSING is None:
    from playwright import sync_api as playwright

LOG = REAL / "h-019-sglang-17392.log"  # 4 ranks: a ledger chart, a timeline and a heat map
TRANSPARENT = ("rgba(0, 0, 0, 0)", "transparent", "")


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def paste_url():
    proc, url = start_server(["serve"])
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def bot_url(tmp_path_factory):
    data = tmp_path_factory.mktemp("bot-data")
    proc, url = start_server(["bot", "serve", "--dry-run", "--data-dir", str(data)], {"LOGSCOPE_WEBHOOK_SECRET": "s3cret"})
    yield url
    stop_server(proc)


def _watch(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


def _check_colours(page) -> None:
    swatches = page.query_selector_all(".legend i")
    cells = page.query_selector_all("table.heatmap td[data-gib]")
    assert len(swatches) >= 4 and len(cells) >= 6, (len(swatches), len(cells))
    for element in swatches + cells:
        colour = element.evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour not in TRANSPARENT, element.evaluate("e => e.outerHTML")
    # the scale still reads: at least two shades in the heat map, the legend as many colours as items
    assert len({c.evaluate("e => getComputedStyle(e).backgroundColor") for c in cells}) >= 2


def _submit(browser, url: str) -> None:
    page = browser.new_page(viewport={"width": 1040, "height": 900})
    errors = _watch(page)
    page.goto(url + "/")
    page.fill("#text", LOG.read_text(encoding="utf-8"))
    with page.expect_navigation():
        page.click("#analyze")
    assert page.inner_text("#verdict").strip()
    _check_colours(page)
    assert errors == []
    page.close()


def test_the_paste_page_shows_its_colours_with_no_console_error(browser, paste_url):
    _submit(browser, paste_url)


def test_bot_serves_paste_page_shows_its_colours_with_no_console_error(browser, bot_url):
    _submit(browser, bot_url)


def test_the_html_file_has_its_own_policy_and_shows_its_colours_with_no_console_error(browser, tmp_path):
    path = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "logscope", "analyze", str(LOG), "--format", "html", "--output", str(path)],
        cwd=ROOT,
        capture_output=True,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    html = path.read_text(encoding="utf-8")
    assert "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-" in html
    assert ' style="' not in html
    page = browser.new_page(viewport={"width": 1040, "height": 900})
    errors = _watch(page)
    page.goto(path.as_uri())
    _check_colours(page)
    assert errors == []
    page.close()
