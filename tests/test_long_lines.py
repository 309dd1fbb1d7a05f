"""A line far longer than any record (minified JSON, a garbled capture): the readers are given its first and last
limits.READ_CAP bytes, so its cost is bounded by the cap and not by its length. Bounded by what the readers are
handed, never by a clock (speed lives in bench/run.py's long-lines case)."""

from __future__ import annotations

from logscope.core.limits import READ_CAP, READ_GAP, READ_TEXT_CAP
from logscope.pipeline.ingest.linescan import LiteralScan, decode_line
from logscope.pipeline.parse import classify, prefilter
from logscope.report.view import build_view
from tests.helpers import analyze_paths

PHASE = "[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB"


def test_a_long_line_is_decoded_as_its_head_and_tail():
    line = b"h" * READ_CAP + b"m" * 5000 + b"t" * READ_CAP
    assert decode_line(line) == "h" * READ_CAP + READ_GAP + "t" * READ_CAP
    assert decode_line(b"a" * 2 * READ_CAP) == "a" * 2 * READ_CAP  # a line of twice the cap whole
    cut = decode_line(b"a" * (READ_CAP - 1) + "é".encode() + b"b" * 2 * READ_CAP)  # the head ends inside a character
    assert cut.startswith("a" * (READ_CAP - 1) + "\ufffd" + READ_GAP)


def test_a_traceback_flattened_into_one_long_json_line_keeps_its_exception_line(tmp_path):
    # a JSON log record whose message is a whole traceback with literal \n: its exception line is the line's tail,
    # wherever the tail's cut falls in a frame (review12a item 24: pads moved the cut over one frame's period)
    frame = (
        '  File \\"/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py\\", line {i}, in run_batch\\n'
        "    result = self.model_worker.forward_batch_generation(batch)\\n"
    )
    for pad in range(0, 180, 6):
        message = "Traceback (most recent call last):\\n" + "".join(frame.format(i=i) for i in range(400))
        message += "RuntimeError: CUDA error: an illegal memory access was encountered" + "y" * pad
        line = '{"level": "ERROR", "logger": "sglang", "message": "' + message + '"}'
        assert len(line) > 3 * READ_CAP
        path = tmp_path / f"flat{pad}.log"
        path.write_text(line + "\n")
        report = analyze_paths(str(path))
        messages = [f["message"] for f in report["findings"]]
        wanted = "RuntimeError: CUDA error: an illegal memory access was encountered"
        assert any(wanted in m for m in messages), (pad, messages)
        assert report["coverage"]["elided_lines"] == 1, pad


def test_the_verdict_says_a_line_was_read_as_its_head_and_tail(tmp_path):
    filler = "".join(f'"field{i}": "value {i}", ' for i in range(4000))
    path = tmp_path / "one.log"
    path.write_text(PHASE + "\nERROR " + filler + "\n")
    report = analyze_paths(str(path))
    assert report["coverage"]["elided_lines"] == 1
    assert "1 line longer than 32 KiB read as its first and last 16 KiB" in build_view(report).verdict


def test_a_long_flattened_line_is_cut_at_its_pieces():
    piece = b'  File \\"/x/y.py\\", line 1, in f\\n'
    raw = b"z" * 7 + piece * (3 * READ_CAP // len(piece))
    text = decode_line(raw)
    head, tail = text.split(READ_GAP)
    assert head.endswith("\\n") and tail.startswith("\\n  File ")  # the gap a piece of its own


def test_the_readers_are_handed_at_most_read_cap_characters_of_a_long_line(tmp_path, monkeypatch):
    filler = "".join(f'"field{i}": "value {i} of a record", ' for i in range(6000))  # ~190 KB of JSON-ish words
    assert len(filler) > 10 * READ_CAP
    lines = [
        PHASE,
        "ERROR " + filler,  # its level at the head: a candidate, read in its first READ_CAP bytes
        filler + " ERROR in the middle " + filler,  # its only literal past its head, before its tail: no candidate
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
    assert seen and max(len(text) for text in seen) <= READ_TEXT_CAP
    assert not any("ERROR in the middle" in text for text in seen)  # the third line's middle is never handed over
    assert sum(text.startswith("ERROR field0") or text.startswith('ERROR "field0') for text in seen) >= 1
    assert report["inputs"][0]["lines"] == 5
    # the three long lines that hold a literal are counted: the third's lay in its middle, which no reader saw
    assert report["inputs"][0]["elided_lines"] == 3
    assert report["coverage"]["elided_lines"] == 3 and report["coverage"]["read_cap_bytes"] == READ_CAP
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


def test_a_line_whose_literal_lies_in_its_unread_middle_is_counted(tmp_path):
    # review13b item 5: the failure's words only in the middle of a 108 KB line: the readers never see them, so the
    # report must say a line was read only in part (not that all was read)
    prose = " ".join(f"word{i}" for i in range(9000))
    path = tmp_path / "middle.log"
    path.write_text(prose + " RuntimeError: CUDA error: out of memory " + prose + "\n")
    report = analyze_paths(str(path))
    assert report["coverage"]["elided_lines"] == 1
    assert "1 line longer than 32 KiB read as its first and last 16 KiB" in build_view(report).verdict


def test_a_short_line_that_quotes_the_gap_is_not_counted(tmp_path):
    path = tmp_path / "quoted.log"
    path.write_text(f"ERROR the log said:{READ_GAP}and then stopped\n")
    assert "elided_lines" not in analyze_paths(str(path))["coverage"]
