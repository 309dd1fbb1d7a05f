"""The coverage splits the lines once (fix15 item 2): a line a reader read is recognised and never counted among the
startup lines "that no grammar reads" as well (h-007: SGLang 0.5.x's catalogued "Using default chat sampling params"
lines, read by the catalogue's reader, were both)."""

from __future__ import annotations

from pathlib import Path

from logscope.report.view import build_view, prefixed_statement
from tests.helpers import analyze_text

ROOT = Path(__file__).resolve().parent.parent
H007 = (ROOT / "fixtures" / "real" / "h-007-sglang-11830.log").read_text()


def test_h007_counts_each_line_once():
    report = analyze_text(H007)
    cov = report["coverage"]
    assert (cov["lines"], cov["recognized_lines"]) == (11, 8)
    assert cov["grammars"]["catalogue"] == {"seen": 3, "recognized": 3}
    # lines 4 and 5 (uvicorn's "Started server process", "Waiting for application startup.") no reader reads: explained
    # as uvicorn's; lines 6 and 7 the catalogue's reader read: recognised, so not among them
    assert cov["prefixed_unread"] == {"lines": 2, "catalogued": 0, "uvicorn": 2, "new_wording": 0}
    assert prefixed_statement(cov) == (
        "startup lines with SGLang's prefix that no grammar reads: 2 (explained: 2 uvicorn lines); "
        "startup parts: paste.log lines 1-7"
    )
    assert build_view(report).verdict == "no startup problem found in 11 lines (1 launch, 1 rank, 0 GPUs)"


def test_uvicorn_lines_no_reader_reads_stay_explained_not_recognised():
    text = (
        "[2026-10-20 09:00:01 TP0] Load weight begin. avail mem=78.50 GB\n"
        "[2026-10-20 09:00:04] INFO:     Started server process [177326]\n"
        "[2026-10-20 09:00:04] INFO:     Waiting for application startup.\n"
    )
    report = analyze_text(text)
    assert report["inputs"][0]["recognized_lines"] == 1
    assert report["coverage"]["prefixed_unread"] == {"lines": 2, "catalogued": 0, "uvicorn": 2, "new_wording": 0}
