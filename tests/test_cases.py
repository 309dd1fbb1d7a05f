"""Known cases (issue 46): the shipped index (every case with its source and read date, no held-out thread), the
matching (never another signature, the plain statement when none is close, the fix against the log's release), the
section in every format, --no-cases, `logscope cases`, the lazy load, and tools/cases on a small corpus."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from logscope.cases import index as index_module
from logscope.cases.index import INDEX_PATH, CaseIndex, KnownCase, Outcome, read_index
from logscope.cases.key import CaseKey, normalise_message
from logscope.cases.match import LogContext, nearest
from logscope.report.formats import renderer
from tests.helpers import REAL, ROOT, analyze_paths, analyze_text
from tools.cases.build import build_index
from tools.cases.corpus import read_held_out, split_of

HELD_OUT = Path(os.environ.get("LOGSCOPE_HELD_OUT", ROOT.parent / "shared" / "corpus" / "held-out-issues.txt"))
NCCL_LOG = REAL / "f-010-sglang-8974.log"  # RuntimeError: NCCL error: unhandled system error, in init_distributed
HEALTHY_LOG = REAL / "h-001-sglang-11716.log"

NCCL_FRAMES = ("pynccl_wrapper.py NCCL_CHECK", "pynccl_wrapper.py ncclCommInitRank", "pynccl.py __init__")


def _key(signature: str | None, message: str, frames: tuple[str, ...] = (), finding: str = "nccl-error") -> CaseKey:
    return CaseKey(finding, signature, "nccl" if signature else None, normalise_message(message), frames, "init_distributed")


def _case(number: int, keys: tuple[CaseKey, ...], outcome: Outcome = Outcome(), releases: tuple[str, ...] = ()) -> KnownCase:
    return KnownCase(
        "sgl-project/sglang", number, f"case {number}", "2025-08-08", "2026-12-06",
        f"https://github.com/sgl-project/sglang/issues/{number}", releases, ("H100",), keys, outcome,
    )  # fmt: skip


NCCL_MESSAGE = "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"
INDEX = CaseIndex(
    "2026-12-06",
    (),
    (
        _case(1, (_key("nccl-pynccl-error", NCCL_MESSAGE, NCCL_FRAMES),), Outcome("closed", ("sgl-project/sglang#9",), "0.5.17")),
        _case(2, (_key("nccl-pynccl-error", "RuntimeError: NCCL error: invalid usage", ()),), Outcome("open")),
        # the same words under another signature: never offered
        _case(3, (_key("nccl-watchdog-timeout", NCCL_MESSAGE, NCCL_FRAMES),), Outcome("closed", closed_without_fix=True)),
    ),
)


def test_among_equal_scores_the_case_quoting_the_same_line_comes_first():
    """A traceback cut inside a frame gives many threads one normalised message; the quote (path and line number as
    printed) tells the paste's own thread apart from older ones of the same score."""
    message = 'File "/sgl-workspace/sglang/python/sglang/srt/managers/tp_worker.py", line 84, in __init__'
    frames = ("tp_worker.py __init__", "scheduler.py __init__")

    def cut(quote: str) -> CaseKey:
        return CaseKey("startup-crash", None, None, normalise_message(message), frames, None, quote)

    older = [_case(n, (cut(f'File "/other/path/tp_worker.py", line {n}, in __init__'),)) for n in (11, 12, 13)]
    own = dataclasses.replace(_case(14, (cut(message),)), date="2026-09-01")  # the newest: by date it comes last
    index = CaseIndex("2026-12-06", (), (*older, own))
    found = nearest(cut(message), index, LogContext(None, None, ()), 3)
    assert [m.case.number for m in found] == [14, 11, 12]


def test_the_message_is_compared_without_numbers_paths_and_addresses():
    a = normalise_message("CUDA error at /sgl-workspace/DeepEP/csrc/deep_ep.cpp:230 'invalid argument' 0x7f3a2c00 rank 3")
    b = normalise_message("CUDA error at /home/u/DeepEP/csrc/deep_ep.cpp:231 'invalid argument' 0x7fffe000 rank 12")
    assert a == b == "cuda error at <path> 'invalid argument' <addr> rank <n>"


def test_nearest_ranks_the_same_message_and_frames_first_and_never_offers_another_signature():
    log = LogContext("0.5.16", None, ("H100",))
    found = nearest(_key("nccl-pynccl-error", NCCL_MESSAGE, NCCL_FRAMES), INDEX, log)
    assert [m.case.number for m in found] == [1, 2]
    assert all(m.key.signature == "nccl-pynccl-error" for m in found)
    best = found[0]
    assert best.same_message and best.shared_frames
    assert best.reason == "same message and frames; phase init_distributed; on H100; fixed in 0.5.17 by #9"
    assert best.release_note == "fixed in 0.5.17; this log is 0.5.16 (stated)"
    assert best.score > found[1].score
    assert found[1].release_note is None  # no fix stated


def test_the_release_note_needs_the_log_release_and_says_how_it_is_known():
    key = _key("nccl-pynccl-error", NCCL_MESSAGE, NCCL_FRAMES)
    unknown = nearest(key, INDEX, LogContext(None, None, ()))[0]
    assert unknown.release_note is None
    inferred = nearest(key, INDEX, LogContext(None, ("0.5.10", "0.5.14"), ()))[0]
    assert inferred.release_note == "fixed in 0.5.17; this log is 0.5.10 to 0.5.14 (inferred from its wordings)"
    newer = nearest(key, INDEX, LogContext("0.5.17", None, ()))[0]
    assert newer.release_note is None


def test_a_failure_without_a_signature_matches_only_the_same_rule_and_a_like_message():
    index = CaseIndex(
        "", (), (_case(4, (_key(None, "ValueError: The memory capacity is unbalanced.", finding="memory-imbalance"),)),)
    )
    like = _key(None, "ValueError: The memory capacity is unbalanced. Some GPUs may be occupied", finding="memory-imbalance")
    assert [m.case.number for m in nearest(like, index, LogContext(None, None, ()))] == [4]
    other_rule = _key(None, "ValueError: The memory capacity is unbalanced.", finding="startup-crash")
    assert nearest(other_rule, index, LogContext(None, None, ())) == []
    unlike = _key(None, "KeyError: 'model.layers.0.weight'", finding="memory-imbalance")
    assert nearest(unlike, index, LogContext(None, None, ())) == []


@pytest.fixture()
def small_index(monkeypatch):
    monkeypatch.setattr(index_module, "bundled_index", lambda: INDEX)
    return INDEX


def test_the_document_section_names_the_cases_under_a_versioned_key(small_index):
    document = analyze_paths(str(NCCL_LOG))
    section = document["known_cases"]
    assert section["schema"] == "logscope-cases/1"
    assert section["index"]["cases"] == 3
    [entry] = section["findings"]
    assert (entry["rule"], entry["signature"]) == ("nccl-error", "nccl-pynccl-error")
    assert entry["key"]["frames"][:3] == list(NCCL_FRAMES)
    assert [m["case"] for m in entry["matches"]] == ["sgl-project/sglang#1", "sgl-project/sglang#2"]
    assert entry["matches"][0]["reason"].startswith("same message and frames; phase init_distributed")
    # the paste states no release; its wordings (read through the catalogue) place it in a range of releases
    assert entry["log_release"] == "0.4.0.post2 to 0.5.23 (inferred from its wordings)"
    assert "release_note" not in entry["matches"][0]


def test_nothing_close_is_said_plainly(monkeypatch):
    monkeypatch.setattr(index_module, "bundled_index", lambda: CaseIndex("2026-12-06", (), ()))
    [entry] = analyze_paths(str(NCCL_LOG))["known_cases"]["findings"]
    assert entry["matches"] == []
    assert entry["statement"] == "No known case with signature nccl-pynccl-error among the 0 indexed threads."
    text = renderer("text")(analyze_paths(str(NCCL_LOG)), 200)
    assert "known: No known case with signature nccl-pynccl-error among the 0 indexed threads." in text


def test_every_format_shows_the_cases_linked(small_index):
    document = analyze_paths(str(NCCL_LOG))
    url = "https://github.com/sgl-project/sglang/issues/1"
    text = renderer("text")(document, 200)
    assert "known: sgl-project/sglang#1 same message and frames; phase init_distributed; on H100; fixed in 0.5.17 by #9" in text
    markdown = renderer("markdown")(document, 0)
    assert f"  - **Known cases:** [sgl-project/sglang#1]({url}) same message and frames" in markdown
    html = renderer("html")(document, 0)
    assert "<b>sgl-project/sglang#1</b> case 1: same message and frames" in html and url in html
    assert " href=" not in html  # the page links and requests nothing
    comment = renderer("comment")(document, 0)
    [line] = [line for line in comment.splitlines() if "**Known cases:**" in line]  # one line per finding
    assert f"[sgl-project/sglang#1]({url})" in line and "#\u20609" in line  # its own #9 is no link in the comment


def test_no_cases_leaves_the_section_out():
    out = subprocess.run(
        [sys.executable, "-m", "logscope", "analyze", str(NCCL_LOG), "--format", "json", "--no-cases"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert out.returncode == 1 and "known_cases" not in json.loads(out.stdout)


_LOADED = """
import sys
from logscope.cli import main
sys.argv = ["logscope", "analyze", sys.argv[1], "--format", "json"]
try:
    main()
except SystemExit:
    pass
sys.stderr.write("INDEX:" + str("logscope.cases.index" in sys.modules))
"""


@pytest.mark.parametrize(("log", "loaded"), [(HEALTHY_LOG, "False"), (NCCL_LOG, "True")])
def test_the_index_is_read_only_when_a_failure_needs_matching(log, loaded):
    proc = subprocess.run([sys.executable, "-c", _LOADED, str(log)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.stderr.rsplit("INDEX:", 1)[1] == loaded
    assert ('"known_cases"' in proc.stdout) == (loaded == "True")


# ---- the shipped index


def test_every_shipped_case_has_its_source_and_read_date_and_an_analysis():
    shipped = read_index(INDEX_PATH)
    data = json.loads(INDEX_PATH.read_text())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", shipped.generated)
    assert data["corpora"] and all(c["commit"] for c in data["corpora"])
    for case in shipped.cases:
        assert case.source == f"https://github.com/{case.repo}/{'pull' if '/pull/' in case.source else 'issues'}/{case.number}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", case.read), case.ref
        assert case.keys and all(k.finding for k in case.keys), case.ref


def test_no_held_out_thread_is_in_the_shipped_index():
    if not HELD_OUT.is_file():
        pytest.skip(f"THE HELD-OUT LIST IS NOT HERE ({HELD_OUT}): set LOGSCOPE_HELD_OUT to check the index against it")
    held_out = read_held_out(HELD_OUT)
    data = json.loads(INDEX_PATH.read_text())
    assert data["held_out"]["sha1"] == hashlib.sha1(HELD_OUT.read_bytes()).hexdigest()  # built against this list
    assert [c["repo"] + "#" + str(c["number"]) for c in data["cases"] if held_out.holds(c["repo"], c["number"])] == []


def test_the_shipped_index_holds_no_thread_text():
    for case in json.loads(INDEX_PATH.read_text())["cases"]:
        for key in case["analysis"]:
            assert len(key["quote"]) <= 160 and len(key["message"]) <= 160
        assert set(case) == {
            "repo",
            "number",
            "title",
            "date",
            "read",
            "source",
            "releases",
            "hardware",
            "analysis",
            "outcome",
            "pastes",
        }


# ---- the tool


def _paste(folder: Path, paste_id: str, repo: str, number: int, text: str, outcome: dict | None = None) -> None:
    (folder / f"{paste_id}.txt").write_text(text)
    meta = {
        "id": paste_id, "source_url": f"https://github.com/{repo}/issues/{number}", "repository": repo, "number": number,
        "title": f"thread {number}", "date": "2025-08-08", "read_on": "2026-12-06", "split": split_of(repo, number),
        "labels": {"versions": {"sglang": "0.5.16"}, "gpus": [[0, "NVIDIA H200", None, None]]}, "outcome": outcome or {},
    }  # fmt: skip
    (folder / f"{paste_id}.yaml").write_text(json.dumps(meta))


def test_the_tool_builds_cases_and_refuses_held_out_threads_unread(tmp_path):
    corpus = tmp_path / "mined"
    corpus.mkdir()
    text = NCCL_LOG.read_text()
    _paste(
        corpus, "sglang-101", "sgl-project/sglang", 101, text, {"state": "closed", "fixed_by": ["#200"], "fixed_in": "v0.5.17"}
    )
    _paste(corpus, "sglang-102", "sgl-project/sglang", 102, text, {"state": "closed", "duplicate_of": "sgl-project/sglang#101"})
    _paste(corpus, "sglang-103", "sgl-project/sglang", 103, "all good\n")
    _paste(corpus, "sglang-104", "sgl-project/sglang", 104, text)
    (corpus / "sglang-104.txt").unlink()
    (corpus / "sglang-104.txt").mkdir()  # a held-out thread's text would fail to read: it must never be opened
    held = tmp_path / "held-out.txt"
    held.write_text("# kept apart\nsgl-project/sglang#104\nsglang#999\n")
    index, report = build_index([corpus], read_held_out(held), today="2026-12-06")
    assert report.held_out_refused == ["sglang-104"] and report.without_failure == ["sgl-project/sglang#103"]
    first, second = index["cases"]
    assert (first["number"], first["releases"], first["hardware"], first["read"]) == (101, ["0.5.16"], ["H200"], "2026-12-06")
    assert first["outcome"]["fixed_by"] == ["sgl-project/sglang#200"] and first["outcome"]["fixed_in"] == "0.5.17"
    assert second["outcome"]["duplicate_of"] == "sgl-project/sglang#101"
    assert first["analysis"][0]["signature"] == "nccl-pynccl-error"
    assert read_held_out(held).holds("other/sglang", 999)  # an entry without its owner holds for any owner


def test_a_traceback_s_header_alone_is_no_case(tmp_path):
    # its key would hold no signature, no message and no frame: match.py offers no such failure as the same message
    corpus = tmp_path / "mined"
    corpus.mkdir()
    _paste(corpus, "sglang-105", "sgl-project/sglang", 105, "Traceback (most recent call last):\n")
    _paste(corpus, "sglang-106", "sgl-project/sglang", 106, NCCL_LOG.read_text())
    held = tmp_path / "held-out.txt"
    held.write_text("")
    index, report = build_index([corpus], read_held_out(held), today="2026-12-06")
    assert [case["number"] for case in index["cases"]] == [106] and report.without_failure == ["sgl-project/sglang#105"]


def test_logscope_cases_lists_and_searches(tmp_path):
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"schema": "logscope-known-cases/1", "generated": "2026-12-06", "corpora": [],
                                "cases": [c.to_json() for c in INDEX.cases]}))  # fmt: skip

    def cases(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "logscope", "cases", *args, "--index", str(path)]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)

    listed = cases().stdout.splitlines()
    assert listed[0] == "3 of 3 known cases (index generated 2026-12-06)" and len(listed) == 4
    by_signature = cases("nccl-watchdog-timeout").stdout.splitlines()
    assert len(by_signature) == 2 and by_signature[1].startswith("sgl-project/sglang#3  case 3")
    assert "closed without a fix" in by_signature[1]
    by_words = cases("invalid usage").stdout.splitlines()
    assert by_words[1].startswith("sgl-project/sglang#2 ")
    assert cases("#2").stdout.splitlines()[1].startswith("sgl-project/sglang#2 ")
    assert cases("no-such-words-anywhere").returncode == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    refused = cases_bad = subprocess.run(
        [sys.executable, "-m", "logscope", "cases", "--index", str(bad)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert refused.returncode == 2 and cases_bad.stderr.strip().endswith("(schema is not logscope-known-cases/1)")


# ---- the evaluation's bookkeeping (bench/cases_eval.py): which pairs, and leave-one-out


def test_the_evaluation_pairs_duplicates_and_same_fixes_and_leaves_each_thread_out():
    from bench.cases_eval import evaluate, pairs_of

    nccl = _key("nccl-pynccl-error", NCCL_MESSAGE, NCCL_FRAMES)
    index = CaseIndex(
        "",
        (),
        (
            _case(10, (nccl,), Outcome("closed", ("sgl-project/sglang#90",))),
            _case(11, (nccl,), Outcome("closed", ("sgl-project/sglang#90",))),  # the same fix as #10
            _case(12, (nccl,), Outcome("closed", duplicate_of="sgl-project/sglang#13")),
            _case(13, (_key("nccl-watchdog-timeout", NCCL_MESSAGE),), Outcome("open")),  # another signature
        ),
    )
    assert [(a.number, b.number, why) for a, b, why in pairs_of(index)] == [(10, 11, "same fix"), (12, 13, "duplicate")]
    result = evaluate(index)["all"]
    # 10 and 11 find each other; 12 and 13 have different signatures, so neither is ever offered to the other
    assert result == {"pairs": 2, "queries": 4, "top1": 2, "top3": 2, "wrong_signature": 0}


def test_threads_joined_through_other_links_are_pairs_and_a_fixing_pull_request_is_kept_apart():
    """A link stated on one side only still makes a pair: two duplicates of one unindexed thread, or a duplicate of a
    thread whose fixing pull request also fixed a third. An issue and its indexed fixing pull request are the weaker
    kind of pair: never among the pairs, measured apart."""
    from bench.cases_eval import evaluate, fix_pairs_of, pairs_of

    nccl = _key("nccl-pynccl-error", NCCL_MESSAGE, NCCL_FRAMES)
    usage = _key("nccl-pynccl-error", "RuntimeError: NCCL error: invalid usage", ())
    index = CaseIndex(
        "",
        (),
        (
            _case(20, (nccl,), Outcome("closed", duplicate_of="sgl-project/sglang#99")),  # #99 is not indexed
            _case(21, (nccl,), Outcome("closed", duplicate_of="sgl-project/sglang#99")),
            _case(30, (nccl,), Outcome("closed", duplicate_of="sgl-project/sglang#31")),
            _case(31, (nccl,), Outcome("closed", ("sgl-project/sglang#95",))),
            _case(32, (nccl,), Outcome("closed", ("sgl-project/sglang#95",))),
            _case(40, (usage,), Outcome("closed", ("sgl-project/sglang#41",))),
            _case(41, (usage,), Outcome("merged")),  # the pull request that fixed #40, its own paste indexed
        ),
    )
    assert [(a.number, b.number, why) for a, b, why in pairs_of(index)] == [
        (20, 21, "linked"),
        (30, 31, "duplicate"),
        (30, 32, "linked"),
        (31, 32, "same fix"),
    ]
    assert [(a.number, b.number, why) for a, b, why in fix_pairs_of(index)] == [(40, 41, "fixed by")]
    result = evaluate(index)
    assert result["all"]["pairs"] == 4 and result["all"]["queries"] == 8
    assert result["issue and fixing pull request"] == {"pairs": 1, "queries": 2, "top1": 2, "top3": 2, "wrong_signature": 0}


def test_a_thread_outcome_merges_what_each_paste_and_the_supplement_state(tmp_path):
    from tools.cases.outcome import merged, outcome_of, read_supplement

    repo = "sgl-project/sglang"
    outcome = merged(
        [
            outcome_of({"state": "open"}, repo),
            outcome_of({"state": "closed", "fixed_by": ["#5426", "https://github.com/kvcache-ai/Mooncake/pull/702"]}, repo),
            outcome_of({"workaround": "--disable-custom-all-reduce", "duplicate_of": 4000, "fixed_in": "v0.5.17"}, repo),
        ]
    )
    assert outcome == Outcome(
        "closed",
        ("sgl-project/sglang#5426", "kvcache-ai/Mooncake#702"),
        "0.5.17",
        "--disable-custom-all-reduce",
        "sgl-project/sglang#4000",
    )
    bad = tmp_path / "outcomes.yaml"
    bad.write_text("- thread: sgl-project/sglang#1\n  fixed_by: ['#2']\n")
    with pytest.raises(ValueError, match="needs thread, source and read_on"):
        read_supplement(bad)


def test_the_outcome_supplement_names_its_sources_and_no_held_out_thread():
    from tools.cases.outcome import read_supplement

    supplement = read_supplement(ROOT / "tools" / "cases" / "outcomes.yaml")
    assert supplement  # each entry was checked for its source and read date when read
    if HELD_OUT.is_file():
        held_out = read_held_out(HELD_OUT)
        assert [t for t in supplement if held_out.holds(t.split("#")[0], int(t.split("#")[1]))] == []


def _shipped_pastes() -> list[tuple[str, Path]]:
    """(case, paste) for each shipped case whose paste is in this checkout: fixtures/real, and the built split of
    fixtures/mined (a heldback paste is never opened by a test)."""
    out = []
    for case in read_index(INDEX_PATH).cases:
        pastes = []
        for paste_id in case.pastes:
            real, mined = ROOT / "fixtures" / "real" / f"{paste_id}.log", ROOT / "fixtures" / "mined" / f"{paste_id}.txt"
            if real.is_file():
                pastes.append(real)
            elif mined.is_file() and split_of(case.repo, case.number) == "built":
                pastes.append(mined)
        if pastes:
            out.append((case.ref, tuple(pastes)))
    return out


@pytest.mark.parametrize(("ref", "pastes"), _shipped_pastes(), ids=lambda v: v if isinstance(v, str) else v[0].name)
def test_a_shipped_case_is_found_again_from_its_own_paste(ref, pastes, monkeypatch):
    """The tool's keys are the ones a live analysis makes: each indexed thread, its pastes analysed again, is offered
    its own thread with the same message (a thread of several pastes may hold its failure in one of them; a generic
    message, a watchdog timeout, ties with more threads than the three a report shows, so every case is listed here).
    The three a report shows are measured on the pairs of known duplicates (bench/cases_eval.py)."""
    import logscope.cases.match

    monkeypatch.setattr(logscope.cases.match, "TOP", 1000)
    found = False
    for paste in pastes:
        section = analyze_paths(str(paste)).get("known_cases", {"findings": []})
        for entry in section["findings"]:
            found |= any(m["case"] == ref and m["reason"].startswith("same message") for m in entry["matches"])
    assert found, ref


def test_a_line_prefix_and_its_time_are_no_part_of_the_message():
    assert normalise_message("[2026-01-05 09:00:07 TP0] ERROR: Failed to mmap shard /data/m-3.safetensors: Bad address") == (
        "error: failed to mmap shard <path>: bad address"
    )
    glog = "E0605 10:48:27.885119 10136 rdma_context.cpp:203] Failed to register memory 0x7b375b400000: Invalid argument [22]"
    assert normalise_message(glog) == "failed to register memory <addr>: invalid argument [<n>]"


def test_an_unrecognized_failure_is_matched_on_its_words(monkeypatch):
    line = "[2026-01-05 09:00:07 TP0] ERROR: Failed to mmap shard /data/model-00003.safetensors: Bad address"
    key = CaseKey("unrecognized-failure", None, None, normalise_message(line.replace("00003", "00007")), (), None)
    monkeypatch.setattr(index_module, "bundled_index", lambda: CaseIndex("", (), (_case(20, (key,)),)))
    document = analyze_text(f"[2026-01-05 09:00:05 TP0] Load weight begin. avail mem=78.50 GB\n{line}\n")
    [entry] = document["known_cases"]["findings"]
    assert entry["rule"] == "unrecognized-failure" and [m["case"] for m in entry["matches"]] == ["sgl-project/sglang#20"]


def test_the_paste_page_and_the_bots_comment_show_the_cases(small_index):
    """The paste page's answer and the bot's comment, made by their own job functions (here in-process, so the
    index stand-in applies; the servers run the same functions in a child)."""
    import time

    from logscope.paste.budget import Budget, Part, report_page, thread_comment

    url = "https://github.com/sgl-project/sglang/issues/1"
    page = report_page([Part("rank0.log", NCCL_LOG.read_bytes())], Budget(), time.monotonic())
    assert "<b>sgl-project/sglang#1</b>" in page and url in page
    thread = json.dumps({"issue": {"title": "NCCL fails", "body": f"```\n{NCCL_LOG.read_text()}```\n"}, "comments": []})
    comment = thread_comment(thread, "issue.json", Budget(), time.monotonic())
    [line] = [line for line in comment.body.splitlines() if "**Known cases:**" in line]
    assert f"[sgl-project/sglang#1]({url})" in line


def test_one_native_crash_printed_by_two_handlers_is_one_known_case(tmp_path, monkeypatch):
    """ai-dynamo/nixl#2102 and sglang#23499's form: the same frames under faulthandler's header and tvm-ffi's."""
    frames = "".join(
        f'  File "<unknown>", line 0, in {f}\n'
        for f in ("gsignal", "cuEventQuery", "uct_cuda_base_iface_event_fd_arm", "ucp_worker_arm", "nixlUcxSharedThread::run()")
    )
    corpus = tmp_path / "mined"
    corpus.mkdir()
    _paste(corpus, "nixl-201", "ai-dynamo/nixl", 201, "Fatal Python error: Segmentation fault\n\n" + frames)
    built, _ = build_index([corpus], read_held_out(HELD_OUT), today="2026-12-06")
    monkeypatch.setattr(index_module, "bundled_index", lambda: CaseIndex("", (), tuple(map(KnownCase.from_json, built["cases"]))))
    [entry] = analyze_text("!!!!!!! Segfault encountered !!!!!!!\n" + frames)["known_cases"]["findings"]
    [match] = entry["matches"]
    assert (match["case"], match["signature"]) == ("ai-dynamo/nixl#201", "process-native-segfault")
    assert match["reason"].startswith("same message and frames")


def test_the_bundled_index_from_the_user_cache_is_the_file_read_anew(tmp_path, monkeypatch):
    # review14a item 12: the second call must take the pickle (the JSON not read again), a changed file must be read
    # anew: equal indexes alone hold as well when the cache is never read
    monkeypatch.setenv("LOGSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "known_cases.json"
    copy.write_bytes(INDEX_PATH.read_bytes())
    monkeypatch.setattr(index_module, "INDEX_PATH", copy)
    fresh = read_index(copy)
    reads: list[Path] = []

    def read_counted(path: Path) -> CaseIndex:
        reads.append(path)
        return read_index(path)

    monkeypatch.setattr(index_module, "read_index", read_counted)
    try:
        index_module.bundled_index.cache_clear()
        built = index_module.bundled_index()  # nothing cached yet: read and stored
        assert reads == [copy] and len(list((tmp_path / "cache").glob("known-cases-*.pickle"))) == 1
        index_module.bundled_index.cache_clear()
        cached = index_module.bundled_index()  # from the pickle
        assert reads == [copy]
        stat = copy.stat()
        os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # the file changed: a new key
        index_module.bundled_index.cache_clear()
        again = index_module.bundled_index()
        assert reads == [copy, copy] and len(list((tmp_path / "cache").glob("known-cases-*.pickle"))) == 2
    finally:
        index_module.bundled_index.cache_clear()
    assert built == fresh and cached == fresh and again == fresh and len(cached.cases) == len(fresh.cases) > 600
