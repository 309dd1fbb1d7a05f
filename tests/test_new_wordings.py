"""Coverage sees new wordings: every SGLang-prefixed line of a startup part that no grammar reads is judged
against the upstream catalogue (a catalogued wording or a uvicorn line is explained and counted, a new wording is
listed), and nothing after the running server's first line is judged, on the in-memory path and on the byte
ranges of the worker processes alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from logscope.core.model import Coverage
from logscope.pipeline.ingest import ranges
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.ingest.linescan import StartupScan
from logscope.pipeline.parse import classify, prefilter, serving, wordings
from logscope.pipeline.parse.parsers.base import PREFIX_BYTES
from logscope.pipeline.parse.serving import LAUNCH_BEGINS, STARTUP_END_BYTES
from logscope.report.text import render_terminal
from tests.helpers import analyze_paths, analyze_text

ROOT = Path(__file__).resolve().parent.parent
STARTUP_0_5_23 = (ROOT / "fixtures" / "upstream" / "sglang-0.5.23-tp2.log").read_text()
INVENTED = "[2026-10-20 09:00:04 TP0] Warming the frobnicator for rank 0, this is a wording no release prints"
RUNNING = [
    "[2026-10-20 09:00:12 TP0] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
    "#running-req: 0, #queue-req: 0, ",
    "[2026-10-20 09:00:13] The server is fired up and ready to roll!",
    "[2026-10-20 09:00:14 TP0] Decode batch, #running-req: 1, #token: 40, token usage: 0.00, cuda graph: True, "
    "gen throughput (token/s): 10.00, #queue-req: 0, ",
    "[2026-10-20 09:00:15 TP1] Another wording no release prints, but printed while serving",
]


def _log(*startup_lines: str, running: bool = True) -> str:
    """The 0.5.23-format TP2 startup (its catalogued format strings), less its ready line, with `startup_lines`
    after the weight-load begin lines, then (optionally) the running server."""
    lines = STARTUP_0_5_23.splitlines()
    lines = [line for line in lines if "ready to roll" not in line]
    at = next(i for i, line in enumerate(lines) if "Load weight begin" in line) + 2
    lines[at:at] = list(startup_lines)
    return "\n".join(lines + (RUNNING if running else [])) + "\n"


def _new(report: dict) -> list[tuple[int, str]]:
    return [(m["line"], m["text"]) for m in report["coverage"]["unrecognized"] if m["grammar"] == "new_wording"]


# (startup lines inserted, the verdict counts of the unread prefixed lines, the new wordings listed)
CASES = [
    pytest.param([INVENTED], {"catalogued": 0, "uvicorn": 0, "new_wording": 1}, [INVENTED], id="invented-wording-listed"),
    pytest.param(  # model_runner_components/misc_utils.py, 0.5.16+: names no memory, holds no literal
        ["[2026-10-20 09:00:04 TP0] Chunked prefix cache is turned on."],
        None,  # read by the catalogue's reader: recognised, never counted as unread too
        [],
        id="catalogued-non-memory-wording",
    ),
    pytest.param(  # startup_weight_load.py, 0.5.18+: a printf placeholder in the middle
        ["[2026-10-20 09:00:04 TP1] Prepared capture-safe model in 3.20 s"],
        None,  # read by the catalogue's reader: recognised, never counted as unread too
        [],
        id="catalogued-with-placeholder",
    ),
    pytest.param(  # model_runner.py, 0.5.16+: logger.debug, printed at --log-level debug
        ["[2026-10-20 09:00:04 TP0] [Elastic EP][scale] TP0 passed post-scale WORLD barrier (target_ep_size=4)"],
        None,  # read by the catalogue's reader: recognised, never counted as unread too
        [],
        id="catalogued-debug-wording",
    ),
    pytest.param(  # model_runner.py, 0.5.16+: "Initial expert_location_metadata:\n%s", its next lines carry no prefix
        ["[2026-10-20 09:00:04 TP0] Initial expert_location_metadata:", "ExpertLocationMetadata(num_layers=61)"],
        None,  # read by the catalogue's reader: recognised, never counted as unread too
        [],
        id="first-line-of-a-multi-line-wording",
    ),
    pytest.param(  # uvicorn's own lines, in the format SGLang gives them
        [
            "[2026-10-20 09:00:04] INFO:     Started server process [177326]",
            "[2026-10-20 09:00:04] INFO:     Waiting for application startup.",
        ],
        {"catalogued": 0, "uvicorn": 2, "new_wording": 0},
        [],
        id="uvicorn-lines",
    ),
    pytest.param(  # a rank-tagged prefix of several tags, and the old time-only prefix
        ["[2026-10-20 09:00:04 DP0 TP1 EP1] Totally new DP attention wording", "[09:00:04 TP0] An old-prefix new wording"],
        {"catalogued": 0, "uvicorn": 0, "new_wording": 2},
        ["[2026-10-20 09:00:04 DP0 TP1 EP1] Totally new DP attention wording", "[09:00:04 TP0] An old-prefix new wording"],
        id="prefix-variants",
    ),
]


@pytest.mark.parametrize(("inserted", "counts", "listed"), CASES)
def test_an_unread_prefixed_startup_line_is_judged_by_its_wording(inserted, counts, listed):
    report = analyze_text(_log(*inserted))
    coverage = report["coverage"]
    if counts is None:  # a line a reader read is recognised: one more than the startup without it, none unread
        assert "prefixed_unread" not in coverage
        assert report["inputs"][0]["recognized_lines"] == analyze_text(_log())["inputs"][0]["recognized_lines"] + 1
    else:
        assert coverage["prefixed_unread"] == {"lines": sum(counts.values()), **counts}
    assert [text for _, text in _new(report)] == listed
    # nothing while serving is judged: the startup part ends at the warmup's prefill batch line
    end = _log(*inserted).splitlines().index(RUNNING[0]) + 1
    assert coverage["startup_ends"] == [{"source": "paste.log", "from": 1, "line": end, "why": "running"}]
    assert all(line < end for line, _ in _new(report))


def test_a_startup_without_unread_prefixed_lines_reports_no_count():
    coverage = analyze_text(_log())["coverage"]
    assert "prefixed_unread" not in coverage
    assert _new(analyze_text(_log())) == []


def test_a_startup_that_never_ran_is_judged_to_its_end():
    report = analyze_text(_log(INVENTED, running=False) + "[2026-10-20 09:00:30 TP1] Yet another new wording at the end\n")
    assert [text for _, text in _new(report)] == [INVENTED, "[2026-10-20 09:00:30 TP1] Yet another new wording at the end"]
    assert "startup_ends" not in report["coverage"]


def test_runtime_lines_after_serving_are_never_listed():
    report = analyze_text(_log())
    assert not any("serving" in m["text"] or "Decode batch" in m["text"] for m in report["coverage"]["unrecognized"])


def test_a_line_holding_a_literal_that_no_grammar_fits_is_judged_too():
    # "GB" is a literal of the memory_line grammar, but this line names no amount of memory: once silently dropped
    line = "[2026-10-20 09:00:04 TP0] Detected a GB200 NVL72 rack topology"
    assert prefilter.grammars_for(line) == ["memory_line"]
    report = analyze_text(_log(line))
    assert [text for _, text in _new(report)] == [line]


@pytest.mark.parametrize(
    ("message", "verdict"),
    [
        ("INFO:     Application startup complete.", "uvicorn"),
        ("WARNING:  Invalid HTTP request received.", "uvicorn"),
        ("Chunked prefix cache is turned on.", "catalogued"),
        ("Chunked prefix cache is turned on, and more", "new_wording"),
        ("Saving model to " + "/m" * 800, "catalogued"),  # longer than the judge remembers: judged all the same
        ("INFO: a sentence that only starts like uvicorn", "new_wording"),
        ("INFO:      one space too many", "new_wording"),
    ],
)
def test_the_judge_tells_uvicorn_catalogued_and_new_wordings(message, verdict):
    assert wordings.judge(message) == verdict


def test_the_cap_stops_the_judging_and_says_where(monkeypatch):
    monkeypatch.setattr(serving, "STARTUP", StartupScan(PREFIX_BYTES, STARTUP_END_BYTES, LAUNCH_BEGINS, 3))
    report = analyze_text(_log(INVENTED))
    # the first three prefixed lines (held a literal or not) are handed over, then the cap
    assert report["coverage"]["startup_ends"] == [{"source": "paste.log", "from": 1, "line": 4, "why": "cap"}]
    assert _new(report) == []


@pytest.mark.parametrize("range_bytes", [300, 700, 1900])  # ranges start in a startup part, in serving, anywhere
def test_the_byte_ranges_give_the_coverage_of_the_in_memory_read(tmp_path, monkeypatch, range_bytes):
    if ranges.workers() < 2:
        pytest.skip("one core: no worker processes")
    # a restart after serving: its startup part is judged again; the serving part between them is not
    restart = INVENTED.replace("rank 0", "rank 1")
    text = _log(INVENTED, "[2026-10-20 09:00:04 TP0] Chunked prefix cache is turned on.") + _log(restart)
    path = tmp_path / "big.log"
    path.write_text(text)
    in_memory = analyze_text(text, name=str(path))["coverage"]
    monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
    monkeypatch.setattr(ranges, "RANGE_BYTES", range_bytes)
    monkeypatch.setattr(ranges, "READ_BYTES", 256)  # reads end inside lines and inside startup parts
    by_ranges = analyze_paths(str(path))["coverage"]
    assert by_ranges == in_memory
    lines = text.splitlines()
    assert [m["line"] for m in by_ranges["unrecognized"] if m["grammar"] == "new_wording"] == [
        lines.index(INVENTED) + 1,
        lines.index(restart) + 1,
    ]
    # the catalogued line is read by the catalogue's reader (recognised), so only the two new wordings are unread
    assert by_ranges["prefixed_unread"] == {"lines": 2, "catalogued": 0, "uvicorn": 0, "new_wording": 2}
    second = lines.index(RUNNING[0], lines.index(restart))
    assert [(e["from"], e["line"]) for e in by_ranges["startup_ends"]] == [
        (1, lines.index(RUNNING[0]) + 1),
        ([n for n, line in enumerate(lines, 1) if "server_args=" in line][1], second + 1),
    ]


def test_the_classifier_judges_only_lines_before_the_startup_end():
    text = _log(INVENTED)
    coverage = Coverage()
    classify.SourceClassifier(Source(name="one.log", path=None, data=text.encode()), coverage).run()
    assert coverage.prefixed["new_wording"] == 1
    assert coverage.startup_ends[0]["line"] == text.splitlines().index(RUNNING[0]) + 1


def test_a_prefixed_line_a_terminal_cut_is_judged_whole():
    # the catalogued 0.5.6.post2+ warning, cut by a 120-column terminal: joined again, it is a known wording
    line = (
        "[2026-10-20 09:00:04 TP1] Using MoE kernel config with down_moe=False. Performance might be sub-optimal! "
        "Config file not found at /cfg/E=128,N=384.json, you can create them with "
        "https://github.com/sgl-project/sglang/tree/main/benchmark/kernels/fused_moe_triton"
    )
    report = analyze_text(_log(line[:120], line[120:]))
    assert "prefixed_unread" not in report["coverage"]  # read whole by the catalogue's reader: recognised, not unread
    assert not _new(report)


def test_the_text_report_says_where_the_cap_stopped_the_judging(monkeypatch):
    monkeypatch.setattr(serving, "STARTUP", StartupScan(PREFIX_BYTES, STARTUP_END_BYTES, LAUNCH_BEGINS, 3))
    out = render_terminal(analyze_text(_log(INVENTED)), width=400)
    said = "startup lines with SGLang's prefix that no grammar reads: 0; startup parts: paste.log lines 1-3 (judging stopped"
    assert said in out
