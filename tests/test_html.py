"""The HTML report opened in headless Chromium (Debian's chromium, driven by Playwright; .ci/run installs it):
no page error, no request but the file itself, every chart present, and the numbers read from the DOM equal
to the JSON document. A screenshot of each page is written to .artifacts/ (kept out of git)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from logscope import phases
from logscope.cli import Format, render
from tests.helpers import ROOT, analyze_paths

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a test extra")
if not Path(CHROMIUM).exists():  # .ci/run installs Debian's chromium; a developer without it skips these
    pytest.skip("no chromium binary", allow_module_level=True)

CASES = [
    ["fixtures/synthetic/full-startup-tp2-with-smi.log"],
    ["fixtures/real/h-001-sglang-11716.log"],
    ["fixtures/real/f-025-sglang-5770.log"],
    ["fixtures/real/h-016-sglang-40558.log"],
    ["fixtures/calibration/h200-ws1-smi-q.txt", "fixtures/calibration/h200-ws1-torch-oom.txt"],
]
ARTIFACTS = ROOT / ".artifacts"


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def _reading(rank: dict, title: str) -> float | None:
    phase, column = next((p, c) for p, c in phases.columns() if c.title == title)
    for reading in rank["phases"]:
        if reading["phase"] == phase.id and reading["model"] == "target" and column.key in reading and (
                column.graph is None or reading.get("graph") in (column.graph, "verify")):
            return reading[column.key]
    return None


@pytest.mark.parametrize("inputs", CASES, ids=lambda c: Path(c[0]).stem)
def test_the_page_shows_the_documents_numbers(browser, tmp_path, inputs):
    report = analyze_paths(*inputs)
    page_path = tmp_path / "report.html"
    page_path.write_text(render(report, Format.html), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1040, "height": 900})
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(page_path.as_uri())
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{Path(inputs[0]).stem}.png"), full_page=True)
    assert errors == []
    assert requests == [page_path.as_uri()]
    html = page_path.read_text(encoding="utf-8")
    assert " src=" not in html and " href=" not in html
    # the embedded document is the JSON one
    embedded = json.loads(page.eval_on_selector("#logscope-data", "e => e.textContent"))
    assert embedded == json.loads(render(report, Format.json))
    assert page.inner_text("#verdict").strip()
    for launch in report["launches"]:
        ranks = {r["rank"]: r for r in launch["ranks"]}
        if any(r["ledger"] for r in launch["ranks"]):
            bars = page.query_selector_all(f"#ledger-{launch['id']} rect[data-item]")
            assert bars, "ledger chart"
            scale = float(page.get_attribute(f"#ledger-{launch['id']} svg", "data-scale"))
            for bar in bars:
                rank = bar.evaluate("e => e.parentElement.dataset.rank")
                item, gib = bar.get_attribute("data-item"), float(bar.get_attribute("data-gib"))
                assert gib == next(i["gib"] for i in ranks[rank]["ledger"] if i["item"] == item)
                assert float(bar.get_attribute("height")) == pytest.approx(gib * scale, abs=0.002)
        if launch["ranks"] and any("avail_gib" in p for r in launch["ranks"] for p in r["phases"]):
            cells = page.query_selector_all(f"#heatmap-{launch['id']} td[data-gib]")
            assert cells, "heat map"
            for cell in cells:
                rank = cell.evaluate("e => e.parentElement.dataset.rank")
                value = _reading(ranks[rank], cell.get_attribute("data-phase"))
                assert cell.inner_text().strip() == f"{value:.2f}" == cell.get_attribute("data-gib")
        if launch["ranks"] and launch["ranks"][0]["cells"]:
            rows = page.query_selector_all(f"#cells-{launch['id']} tr[data-mechanism]")
            shown = {r.get_attribute("data-mechanism") for r in rows}
            assert shown == {c["mechanism"] for c in launch["ranks"][0]["cells"]}
    page.close()


def test_the_timeline_places_each_phase_at_its_time(browser, tmp_path):
    report = analyze_paths("fixtures/synthetic/full-startup-tp2-with-smi.log")
    page_path = tmp_path / "report.html"
    page_path.write_text(render(report, Format.html), encoding="utf-8")
    page = browser.new_page()
    page.goto(page_path.as_uri())
    segments = page.query_selector_all("#timeline-1 rect[data-segment]")
    assert {s.get_attribute("data-segment") for s in segments} >= {"load weights", "CUDA graph capture"}
    tp0 = next(r for r in report["launches"][0]["ranks"] if r["rank"] == "TP0")
    times = {p["phase"]: p["time"][:19] for p in reversed(tp0["phases"]) if p.get("time")}
    load = page.query_selector('#timeline-1 g[data-rank="TP0"] rect[data-segment="load weights"]')
    assert load.get_attribute("data-start") == times["load_weight_begin"]
    page.close()


def test_a_hostile_paste_cannot_inject_markup(tmp_path):
    text = ('[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n'
            'RuntimeError: </script><script>alert(1)</script><img src=x onerror=alert(2)> & \u2028\n')
    from tests.helpers import analyze_text

    html = render(analyze_text(text), Format.html)
    assert "<script>alert" not in html and "<img src=x" not in html
    data = html.split('<script type="application/json" id="logscope-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and "\u2028" not in data
