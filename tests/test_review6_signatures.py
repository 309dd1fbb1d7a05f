"""Review 6 (items 2, 6, 9, 15): failure wordings read too widely or quoted too short, in the reviewer's inputs."""

from __future__ import annotations

from tests.helpers import analyze_text


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


ILLEGAL_ACCESS = (
    "[rank0]:[E1203 10:00:00.000000000 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process group "
    "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
)


def test_a_closed_socket_gives_way_to_the_failure_under_it():
    # item 2: what a surviving rank prints after its peer died is a consequence, not the cause
    report = analyze_text("Last error:\nsocketProgress: Connection closed by remote peer node-7<58412>\n" + ILLEGAL_ACCESS)
    assert _rules(report) == ["failure-time-unknown"]
    assert "an illegal memory access was encountered" in report["findings"][0]["message"]
    # alone, it is still the failure
    alone = analyze_text("Last error:\nsocketProgress: Connection closed by remote peer node-7<58412>\n")
    assert _rules(alone) == ["nccl-error"]


def test_a_failed_line_without_a_build_output_is_no_ninja_failure():
    # item 6: "FAILED: " after SGLang's prefix, before no path or file
    report = analyze_text("[2026-01-05 10:00:01 TP0] FAILED: 0 requests\n")
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [("unrecognized-failure", "warning")]
    ninja = analyze_text("FAILED: [code=1] /root/.cache/flashinfer/90/cached_ops/norm/norm.cuda.o\n")
    assert _rules(ninja) == ["failure-time-unknown"]


def test_nccl_s_result_is_quoted_whole_before_its_hint():
    # item 9: the result's words ("unhandled cuda") are the failure
    report = analyze_text(
        "Traceback (most recent call last):\n"
        '  File "/app/run.py", line 12, in <module>\n'
        "    dist.all_reduce(t)\n"
        "RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"
    )
    [finding] = report["findings"]
    assert finding["rule"] == "nccl-error"
    assert finding["message"].endswith("RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)")


def test_a_critical_record_without_words_of_a_failure_is_no_failure():
    # item 15: CRITICAL is the record's level only
    assert analyze_text("CRITICAL:root:Running in offline mode\n")["findings"] == []


def test_a_dotted_log_line_after_a_traceback_s_frames_is_no_exception():
    # item 15: "sglang.srt.Config: loaded 3 entries" after frames is a log line, not the exception's line: the traceback
    # is cut before its exception
    report = analyze_text(
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2000, in run\n'
        "    self.event_loop()\n"
        "sglang.srt.Config: loaded 3 entries\n"
    )
    [finding] = report["findings"]
    assert "sglang.srt.Config" not in finding["message"]
    assert "a traceback cut before its exception line" in finding["message"]
    # a class of an exceptions module is still one (CPython prints it with its module)
    named = analyze_text(
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", line 400, in compile\n'
        "    next_module = compile_ir(module, metadata)\n"
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, Hardware limit: 232448\n"
    )
    assert "triton.runtime.errors.OutOfResources" in named["findings"][0]["message"]
