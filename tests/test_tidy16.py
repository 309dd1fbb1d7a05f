"""tidy16: review15d's LOW items 3, 9, 10, 11 (a code span that opens as a message and ends in a status, "failing" after
a tab, a Windows spawn frame, a wording placed per release range) and the leftovers of session 15's closing note."""

from __future__ import annotations

import json
from typing import Any

import pytest

from logscope.core import stage_functions
from logscope.core.code_spans import message_span
from logscope.core.native_libraries import CHECKOUT_FILE, checkout_folders, checkout_library
from logscope.core.resources import data_dir
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.lines_before import LinesBefore


def _rules(text: str) -> list[str]:
    document: dict[str, Any] = analyze_sources([Source(name="paste.md", path=None, data=text.encode())], cases=False)
    return [finding["rule"] for finding in document["findings"]]


# --- item 3: a span that opens as a message is one, whatever its tail; a setting is the whole span


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # (NCCL's message alone is NCCL's failure since fix16a: rules/signatures/nccl.yaml nccl-error-line)
        ("The `NCCL error: remote process exited, status: 1` recurred after restart.", "nccl-error"),
        ("The `RuntimeError: expected size == 4` recurred after restart.", "failure-time-unknown"),
    ],
)
def test_a_span_that_opens_as_a_message_and_ends_in_a_code_is_a_stated_failure(text: str, rule: str) -> None:
    assert _rules(text) == [rule]


@pytest.mark.parametrize(
    ("span", "message"),
    [
        ("NCCL error: remote process exited, status: 1", True),
        ("RuntimeError: expected size == 4", True),
        ("expected size == 4 error", True),  # "==" inside words is no key=value
        ("NCCL error: unhandled system error", True),
        ("TIMEOUT=1800", False),
        ("TIMEOUT=1800 crash", False),  # an assignment opening the span: a setting before a command
        ("NCCL_DEBUG=INFO python -m sglang.launch_server --tp 8", False),
        ("timeout: 1800", False),
        ("--watchdog-timeout=300", False),
        ("watchdog timeout: 300", False),
        ("error_log", False),
    ],
)
def test_a_setting_is_a_key_and_its_value_not_a_message_s_tail(span: str, message: bool) -> None:
    assert message_span(span) is message


def test_a_setting_in_a_span_states_no_failure() -> None:
    assert _rules("The `TIMEOUT=1800` recurred after restart.") == []
    assert _rules("The `timeout: 1800` recurred after restart.") == []


# --- item 9: the progressive with any white space before "failing" (a tab after a copy)


def test_failing_after_a_tab_is_stated_as_after_a_blank() -> None:
    # ("failing at launch" names the time too since runtime17: the server's launch, so startup)
    assert _rules("In my runs sglang is failing at launch.") == ["startup-crash"]
    assert _rules("In my runs sglang is\tfailing at launch.") == ["startup-crash"]
    assert _rules("In my runs sglang is \t failing at launch.") == ["startup-crash"]
    # still the verb's progressive only: "failing" without the verb before it states nothing
    assert _rules("A\tfailing test at random.") == []


# --- item 10: a Windows path to multiprocessing's spawn.py is a spawned child's frame too


@pytest.mark.parametrize("start", ["spawn", "forkserver"])
def test_a_windows_spawn_frame_under_python_c_is_no_command_by_hand(start: str) -> None:
    windows = ["<string>:1 <module>", f"C:\\Python311\\Lib\\multiprocessing\\{start}.py:122 {start}_main"]
    posix = ["<string>:1 <module>", f"/usr/lib/python3.11/multiprocessing/{start}.py:122 {start}_main"]
    assert stage_functions.run_by_hand(windows) is False
    assert stage_functions.run_by_hand(posix) is False
    # a user's own file of that name is no spawn frame, on either system
    assert stage_functions.run_by_hand(["<string>:1 <module>", f"C:\\work\\{start}.py:3 <module>"]) is True


# --- item 11: LinesBefore places a line per release range


WORDING = "KV transfer failed for the request"


class _Line:
    def __init__(self, line: int, text: str) -> None:
        self.line, self.source, self.text, self.data, self.rank, self.kind = line, "paste", text, {}, None, "other"


def test_a_line_before_is_placed_again_for_another_release_range(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = (("serving", None, "0.5.2", "0.5.23", "transfer_worker", "transfer_worker"),)
    monkeypatch.setattr(stage_functions, "_placed", lambda: ({}, ((WORDING, runs),)))
    events: list[Any] = [_Line(1, f"{WORDING} 7"), _Line(2, "Traceback (most recent call last):")]
    before = LinesBefore(events, lambda e: False, {})
    found = before.wording(events[1], ("0.5.10", "0.5.10"))
    assert found is not None and found[0] == "serving"
    # a release after the range prints the wording nowhere: nothing placed (the first range's answer was kept for it)
    assert before.wording(events[1], ("0.5.30", "0.5.30")) is None
    assert before.wording(events[1], ("0.5.10", "0.5.10")) == found


# --- closing15: one matching shape for the tables of raised wordings (package_raises, library_raises, sglang_raises)


def _filled(template: str) -> str:
    return template.replace("{}", "7").replace("{{", "{").replace("}}", "}")


def test_the_raised_wordings_are_found_as_each_table_s_own_loop_found_them() -> None:
    # the loops each module wrote before they shared first_wording, run over every row of every table, its template
    # filled, alone and behind a wrapper's words: the same row (or none) for each (every 5th row of the two large tables)
    from logscope.core import library_raises, package_raises, sglang_raises
    from logscope.core.sglang_asserts import first_wording, wording_regex

    checked = 0
    for row in library_raises._wordings():
        for text in (_filled(row.template), f"Capture cuda graph failed: {_filled(row.template)}"):
            held = [w for w in library_raises._wordings() if w.anchor in text]
            starts = (0, *(m.end() for m in library_raises._WRAPPED.finditer(text)))
            old = next((w for w in held for at in starts if wording_regex(w.template).match(text, at)), None)
            assert library_raises.library_raise(text) == old
            checked += 1
    for row in package_raises._wordings()[::5]:
        text = _filled(row.template).strip()
        rows = package_raises._of_class(row.exception)[0]
        whole = next((w for w in rows if w.anchor in text and w.named and wording_regex(w.template).fullmatch(text)), None)
        heads = (w for w in rows if w.head_anchor and w.head_anchor in text and w.head and wording_regex(w.head).match(text))
        start = next(heads, None)
        old_found = (whole, True) if whole is not None else ((start, False) if start is not None else None)
        assert package_raises.package_raise(row.exception, text) == old_found
        checked += 1
    for exception, rows in sglang_raises._rows().items():
        wordings = sglang_raises._wordings(exception)
        for raw in rows[::5]:
            text = _filled(raw["template"]).strip()
            old_raise = next((w for w in wordings if w.anchor in text and wording_regex(w.template).fullmatch(text)), None)
            assert sglang_raises.sglang_raise_wording(exception, text) == old_raise
            checked += 1
    assert checked > 4000
    # a row without a template (a package wording its literal text does not name) is never matched
    assert first_wording(["", "a{}c"], [0, 1], "abc", lambda w: w) == "a{}c"
    assert first_wording(["a{}c"], [0], "abcd", lambda w: w) is None
    assert first_wording(["a{}c"], [0], "xx: abc", lambda w: w, starts=(0, 4)) == "a{}c"


# --- closing15: the checkout folders come from the libraries' released trees (tools/upstream/checkout_folders.py)


def test_a_folder_counts_when_a_release_holds_code_in_it() -> None:
    from tools.upstream import checkout_folders as tool

    paths = [
        "tests/test_fp8.py",
        "csrc/apis/gemm.hpp",
        "figures/normal.png",  # no code
        "third-party/nvshmem.patch",  # a patch, no code
        ".github/workflows/ci.py",  # hidden
        "setup.py",  # a file at the top, no folder
    ]
    assert tool.code_folders(paths) == {"tests", "csrc"}
    folded = tool.fold(
        {
            "deepseek-ai/DeepGEMM": [("v2.1.0", ["tests/a.py"]), ("v2.1.1", ["tests/a.py", "scripts/b.sh"])],
            "deepseek-ai/DeepEP": [("v1.2.1", ["tests/c.py"])],
        }
    )
    assert folded == {
        "scripts": {"deepseek-ai/DeepGEMM": "v2.1.1"},
        "tests": {"deepseek-ai/DeepEP": "v1.2.1", "deepseek-ai/DeepGEMM": "v2.1.0 .. v2.1.1"},
    }
    assert [t for t in ("v2.30.7-1", "0.1.0", "v2.1.1.post3", "v1.4.0-rc3", "nv_dev_950d31a") if tool.RELEASE_TAG.match(t)] == [
        "v2.30.7-1",
        "0.1.0",
        "v2.1.1.post3",
    ]


def test_the_committed_checkout_folders_are_what_the_tool_writes() -> None:
    from tools.upstream import checkout_folders as tool

    if not all(repo.git_dir().is_dir() for repo in tool.REPOSITORIES):
        pytest.skip("the libraries' git sources are not on this machine (fetch github:<owner>/<name>)")
    committed = json.loads((data_dir("catalog") / CHECKOUT_FILE).read_text(encoding="utf-8"))
    assert {k: v for k, v in committed.items() if k != "doc"} == tool.extract()


def test_a_checkout_is_named_by_its_repository_s_own_folders() -> None:
    folders = checkout_folders()
    assert {"tests", "benchmark", "csrc", "examples", "src", "perftest"} <= folders
    assert checkout_library("/sgl-workspace/DeepGEMM/tests/test_fp8.py") == "DeepGEMM"
    assert checkout_library("/workspace/FlashMLA/benchmark/bench_flash_mla.py") == "FlashMLA"
    # NVSHMEM keeps its performance tests in perftest/ (not in the hand-written list this table replaced)
    assert checkout_library("/opt/nvshmem/perftest/host/pt-to-pt/bw.py") == "NVSHMEM"
    # a user's script right under a folder of the library's name, or under a folder no repository holds code in
    assert checkout_library("/home/user/nccl/sglang_bench.py") is None
    assert checkout_library("/home/user/nccl/my_runs/sglang_bench.py") is None
