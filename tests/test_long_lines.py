"""A line far longer than any record (minified JSON, a garbled capture): the readers are given its first
limits.READ_CAP bytes, so its cost is bounded by the cap and not by its length. Bounded by what the readers are
handed, never by a clock (speed lives in bench/run.py's long-lines case)."""

from __future__ import annotations

from logscope.core.limits import READ_CAP
from logscope.pipeline.ingest.linescan import LiteralScan, decode_line
from logscope.pipeline.parse import classify, prefilter
from tests.helpers import analyze_paths

PHASE = "[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB"


def test_a_long_line_is_decoded_as_its_first_read_cap_bytes():
    assert decode_line(b"a" * (READ_CAP + 5000)) == "a" * READ_CAP
    assert decode_line(b"a" * READ_CAP) == "a" * READ_CAP  # a line of the cap's length whole
    cut = decode_line(b"a" * (READ_CAP - 1) + "é".encode() + b"b" * 10)  # the cap falls inside a character
    assert len(cut) == READ_CAP and cut.endswith("\ufffd")


def test_the_readers_are_handed_at_most_read_cap_characters_of_a_long_line(tmp_path, monkeypatch):
    filler = "".join(f'"field{i}": "value {i} of a record", ' for i in range(6000))  # ~190 KB of JSON-ish words
    assert len(filler) > 10 * READ_CAP
    lines = [
        PHASE,
        "ERROR " + filler,  # its level at the head: a candidate, read in its first READ_CAP bytes
        filler + " ERROR",  # its only literal beyond the cap: not a candidate
        filler[: READ_CAP // 2] + ' Traceback (most recent call last): ERROR "' + filler,
        PHASE.replace("TP5", "TP6"),
    ]
    path = tmp_path / "long.log"
    path.write_text("\n".join(lines) + "\n")
    seen: list[str] = []
    grammars_for = prefilter.grammars_for
    feed = classify.SourceClassifier.feed

    def recording_grammars_for(text: str) -> list[str]:
        seen.append(text)
        return grammars_for(text)

    def recording_feed(self, lineno: int, text: str) -> None:
        seen.append(text)
        feed(self, lineno, text)

    monkeypatch.setattr(prefilter, "grammars_for", recording_grammars_for)
    monkeypatch.setattr(classify.SourceClassifier, "feed", recording_feed)
    report = analyze_paths(str(path))
    assert seen and max(len(text) for text in seen) <= READ_CAP
    assert not any(text.endswith(" ERROR") for text in seen)  # the third line is never handed over
    assert sum(text.startswith("ERROR field0") or text.startswith('ERROR "field0') for text in seen) >= 1
    assert report["inputs"][0]["lines"] == 5
    ranks = {r["rank"]: r["phases"][0]["avail_gib"] for r in report["launches"][0]["ranks"]}
    assert ranks == {"TP5": 11.87, "TP6": 11.87}  # the lines around the long ones read as ever


def test_the_literal_test_through_the_native_search_says_what_the_in_tests_say():
    scan = LiteralScan(("ERROR", "Traceback (most recent call last):", "显存", "CUDA error"))
    texts = ["", "ERRO R", "an ERROR here", "显存不足", "显 存", "x" * 50_000 + "CUDA error", "\ud800 ERROR", "\ud800"]
    by_in = [scan.holds(text) for text in texts]
    assert by_in == [False, False, True, True, False, True, True, False]
    if scan.native() is None:  # hyperscan missing: holds keeps the in-tests
        return
    assert scan._native is not None
    assert [scan.holds(text) for text in texts] == by_in
