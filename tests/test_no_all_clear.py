"""No renderer gives an all-clear beside a failure (fix15 item 1): a paste whose only failure is a line no signature
names gets the unrecognized-failure warning as its verdict in every format, and a document that holds such lines
without any finding (a rule set without unrecognized-failure, or a budget) says what is known and what is not, never
"no startup problem found"."""

from __future__ import annotations

import copy

import pytest

from logscope.report.formats import renderer
from logscope.report.view import build_view
from tests.helpers import analyze_text

# SGLang's phase line, then an ERROR record no signature knows (rules/unrecognized-failure.cases.yaml's shape)
_UNREAD = (
    "[2026-01-05 09:00:05 TP0] Load weight begin. avail mem=78.50 GB\n"
    "[2026-01-05 09:00:07 TP0] ERROR: Failed to mmap shard /data/model-00003.safetensors: Bad address\n"
)
_CLEAN = (
    "[2026-01-05 09:00:05 TP0] Load weight begin. avail mem=78.50 GB\n"
    "[2026-01-05 09:00:30] The server is fired up and ready to roll!\n"
)
_FORMATS = ("text", "markdown", "html", "comment")


def _render(document: dict, fmt: str) -> str:
    return renderer(fmt)(document, 160)


@pytest.mark.parametrize("fmt", _FORMATS)
def test_an_unrecognized_failure_warning_is_the_verdict_in_every_format(fmt):
    document = analyze_text(_UNREAD)
    assert [(f["rule"], f["severity"]) for f in document["findings"]] == [("unrecognized-failure", "warning")]
    out = _render(document, fmt)
    assert "no startup problem found" not in out
    assert "no known failure or memory problem found" not in out
    assert "unrecognized-failure" in out


def _without_findings(text: str) -> dict:
    """The document as a rule set without unrecognized-failure gives it: its unread failure lines, no finding."""
    document = copy.deepcopy(analyze_text(text))
    document["findings"] = []
    return document


def test_unread_failure_lines_without_a_finding_are_no_all_clear():
    document = _without_findings(_UNREAD)
    assert [m["line"] for m in document["coverage"]["unmatched_failures"]] == [2]
    view = build_view(document)
    assert view.verdict == (
        "no known failure or memory problem found in 2 lines (1 launch, 1 rank, 0 GPUs), but 1 line reads like a "
        "failure that no signature names (listed below)"
    )
    assert "No findings; 1 line reads like a failure that no signature names." in _render(document, "markdown")
    html = _render(document, "html")
    assert 'class="verdict warning"' in html
    assert "No findings; 1 line reads like a failure that no signature names</h2>" in html
    comment = _render(document, "comment")
    assert "- Failures: none named, but 1 line reads like a failure that no signature names" in comment
    assert "Failed to mmap shard /data/model-00003.safetensors: Bad address" in comment
    text = _render(document, "text")
    assert "no startup problem found" not in text and "but 1 line reads like a failure" in text


def test_two_unread_lines_are_counted():
    document = _without_findings(_UNREAD + "[2026-01-05 09:00:09 TP0] ERROR: Failed to open /data/model-00004.safetensors\n")
    assert build_view(document).verdict.endswith("but 2 lines read like a failure that no signature names (listed below)")


def test_a_clean_paste_keeps_its_all_clear():
    document = analyze_text(_CLEAN)
    assert document["findings"] == []
    view = build_view(document)
    assert view.verdict == "no startup problem found in 2 lines (1 launch, 1 rank, 0 GPUs)"
    assert view.unread_failures is None
    assert 'class="verdict ok"' in _render(document, "html")
    assert "No findings.\n" in _render(document, "markdown")


@pytest.mark.parametrize("fmt", _FORMATS)
def test_no_startup_found_with_unread_failure_lines_says_so_in_every_format(fmt):
    # review15a item 5: with no recognised line the verdict said only "none of the 1 line read was recognised",
    # coloured a warning, and never named the failure line below it
    document = _without_findings("ERROR: frobnicator exploded while doing the thing\n")
    assert document["coverage"]["recognized_lines"] == 0
    assert [m["line"] for m in document["coverage"]["unmatched_failures"]] == [1]
    verdict = (
        "no SGLang startup found: none of the 1 line read was recognised, but 1 line reads like a failure that no "
        "signature names (listed below)"
    )
    assert build_view(document).verdict == verdict
    assert verdict in " ".join(_render(document, fmt).split())  # (a terminal's wrapping undone)


def test_no_startup_found_and_no_failure_line_stays_as_it_was():
    document = analyze_text("hello\nworld\n")
    assert document["findings"] == [] and document["coverage"]["recognized_lines"] == 0
    assert build_view(document).verdict == "no SGLang startup found: none of the 2 lines read was recognised"
