"""Failures in real pastes that logscope read as nothing (issue 43, items 2-3): each form here gave no failure finding
(or only an unrecognised line) before its reader was made generic. The pastes are excerpts of public threads, in the
shape people paste them (the thread is named at each); the quiet cases prove what is not claimed."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source, clean


def _findings(text: str) -> list[dict[str, Any]]:
    document = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    return list(document["findings"])


def _rules(text: str) -> list[str]:
    return [f["rule"] for f in _findings(text)]


# kvcache-ai/Mooncake#1592: glog ERROR lines of Mooncake's RDMA context, a wording no signature knows, cut mid-line
MOONCAKE_GID = """\
E0302 08:32:30.369483 57711 rdma_context.cpp:450] Failed to query GID 244 on rocep153s0/: No data available [61]
E0302 08:32:30.369483 57716 rdma_context.cpp:450] Failed to query GID 23 on rocep233s0/: No data available [61]
E0302 08:32:30.369490 57711 rdma_context.cpp:450] Failed to qu
"""


def test_a_glog_error_line_of_a_librarys_own_source_is_its_failure():
    (finding,) = _findings(MOONCAKE_GID)
    assert finding["rule"] == "pd-transfer-failed"
    assert finding["severity"] == "error"
    assert "Failed to query GID 244 on rocep153s0/: No data available [61]" in finding["message"]
    assert finding["evidence"][0]["line"] == 1


def test_glog_info_and_warning_lines_are_no_failure():
    text = (
        "W0724 03:14:20.702893 104002 worker_pool.cpp:303] Too many errors found in local RNIC 10.0.2.69:15858@mlx5_bond_2,"
        " mark it inactive\n"
    )
    assert _rules(text) == []


# sgl-project/sglang#7888: NVSHMEM's error print with no message after its status, and its not-initialized error
# quoted in the prose
IBRC = "/sgl-workspace/nvshmem/src/modules/transport/ibrc/ibrc.cpp:1433: non-zero status: 7 "
NVSHMEM_STATUS = (
    "Prefill node starts successfully\n"
    'But Decode node failed and reported "NVSHMEM API called before NVSHMEM initialization has completed" as below\n'
    "\n"
    "ibv_modify_qp failed \n"
    f"{IBRC}{IBRC}\n"
)


def test_nvshmem_status_lines_and_its_not_initialized_error_are_deepeps_failure():
    findings = _findings(NVSHMEM_STATUS)
    assert [f["rule"] for f in findings] == ["deepep-buffer"]
    assert "NVSHMEM API called before NVSHMEM initialization has completed" in findings[0]["message"]
    assert findings[0]["evidence"][0]["line"] == 2
    status_only = "\n".join(NVSHMEM_STATUS.splitlines()[3:]) + "\n"  # the status lines alone: NVSHMEM's failure still
    findings = _findings(status_only)
    assert "deepep-buffer" in [f["rule"] for f in findings]
    assert any("1433: non-zero status: 7" in f["message"] for f in findings)


# deepseek-ai/DeepGEMM#140: pytest's failure report, the exception behind its fail marker "E"
PYTEST_FAIL = """\
E       RuntimeError: Failed: Assertion error csrc/jit_kernels/impls/smxx_layout.hpp:136 'mn % 4 == 0 and num_groups == 1'

../../../vllm/utils/deep_gemm.py:111: RuntimeError
"""

# vllm-project/vllm#21533: pytest's short test summary in a CI console (a time stamp in brackets, the console's bar)
NODE = "kernels/moe/test_deepgemm.py::test_deepgemm_vs_triton"
LAYOUT = "RuntimeError: Failed: Assertion error csrc/utils/layout.hpp:57 'Unknown recipe'"
PYTEST_SUMMARY = (
    f"[2025-07-30T20:52:36Z] FAILED {NODE}[32-2-mnk1] - {LAYOUT}\n"
    "--\n"
    f"  | [2025-07-30T20:52:36Z] FAILED {NODE}[32-2-mnk2] - {LAYOUT}\n"
    "  | [2025-07-30T20:52:36Z] ==== 6 failed, 7292 passed, 1902 ski\n"
)


def test_pytests_fail_marker_and_short_summary_are_wrappers():
    assert clean(PYTEST_FAIL.splitlines()[0]) == [
        "RuntimeError: Failed: Assertion error csrc/jit_kernels/impls/smxx_layout.hpp:136 'mn % 4 == 0 and num_groups == 1'"
    ]
    assert clean(PYTEST_SUMMARY.splitlines()[0]) == [LAYOUT]
    (finding,) = _findings(PYTEST_FAIL)
    assert finding["rule"] == "failure-time-unknown"
    assert "RuntimeError: Failed: Assertion error csrc/jit_kernels/impls/smxx_layout.hpp:136" in finding["message"]
    assert "It was raised in DeepGEMM" in finding["message"]
    (finding,) = _findings(PYTEST_SUMMARY)
    assert finding["rule"] == "failure-time-unknown"
    assert LAYOUT in finding["message"]


def test_a_passing_tests_summary_and_an_e_word_are_no_failure():
    assert clean("PASSED kernels/moe/test_deepgemm.py::test_deepgemm_vs_triton[32-2-mnk1]") == [
        "PASSED kernels/moe/test_deepgemm.py::test_deepgemm_vs_triton[32-2-mnk1]"
    ]
    assert clean("Every rank printed its line") == ["Every rank printed its line"]
    assert _rules("==== 7292 passed, 1902 skipped in 812.31s ====\n") == []


# vllm-project/vllm#22532: vLLM's later logger format (the file in brackets) behind Ray's process prefix, before every
# line of a traceback cut before its exception
VLLM = "(EngineCore_0 pid=1147865) ERROR 08-08 17:42:35 [core.py:682] "
VLLM_BRACKETED = (
    f"{VLLM}EngineCore failed to start.\n"
    f"{VLLM}Traceback (most recent call last):\n"
    f'{VLLM}  File "/home/minio/piotr/rv/vllm/vllm/v1/engine/core.py", line 673, in run_engine_core\n'
    f"{VLLM}    engine_core = EngineCoreProc(*args, **kwargs)\n"
)


def test_vllms_bracketed_logger_prefix_is_a_wrapper():
    assert clean(VLLM_BRACKETED.splitlines()[1]) == ["Traceback (most recent call last):"]
    findings = _findings(VLLM_BRACKETED)
    assert [f["rule"] for f in findings] == ["startup-crash"]
    assert "core.py:673 run_engine_core" in findings[0]["message"]


# sgl-project/sglang#10951: one sentence holding the launch command and, in full-width quotes, the error it gave
LAUNCH_AND_QUOTED = (
    "运行python -m sglang.launch_server --model-path /xxx/xxx/qwen3-0.6b 后报错"
    "“ImportError: libnvrtc.so.12: cannot open shared object file: No such file or directory”\n"
)


def test_a_failure_quoted_in_the_sentence_of_a_launch_command_is_read_with_it():
    document = analyze_sources([Source(name="paste.log", path=None, data=LAUNCH_AND_QUOTED.encode())], cases=False)
    assert document["launches"][0]["config"]["model_path"] == "/xxx/xxx/qwen3-0.6b"
    (finding,) = document["findings"]
    assert finding["rule"] == "failure-time-unknown"
    assert "ImportError: libnvrtc.so.12: cannot open shared object file" in finding["message"]


# sgl-project/sglang#11409's first line: the release stated before the failure the sentence quotes in a code span
@pytest.mark.parametrize(
    ("sentence", "version"),
    [
        (
            "When running the DeepSeek-V3.2-Exp model with SGLang v0.5.3, the server crashes during execution of the "
            "GSM8K benchmark with the following assertion error: `AssertionError: assert logits.shape[0] == "
            "len(seq_lens_expanded)`",
            "0.5.3",
        ),
        ("It worked in v0.5.2, with SGLang v0.5.3 it fails: `RuntimeError: x`", None),  # which one runs: not said
        ("Please upgrade sglang to v0.5.4, it fixes: `RuntimeError: x`", None),  # advice, not the release in use
    ],
)
def test_a_sentence_quoting_a_failure_still_states_the_release_before_it(sentence, version):
    document = analyze_sources([Source(name="paste.log", path=None, data=(sentence + "\n").encode())], cases=False)
    assert [f["rule"] for f in document["findings"]] == ["failure-time-unknown"]
    assert document["launches"][0]["sglang_version"]["version"] == version


# UCX's own log line (libucs of libucx-cu12 1.22.0: "[%lu.%06lu] [%s:%-5d:%s] %17s:%-4u %-4s %-5s %*s%s"), as
# pasted in public notes of mpirun and srun runs: with its time and host, behind srun's "1: " label, or without both
UCX_ERRORS = [
    "1: [1653901933.475958] [gpu02:5215 :0]            sock.c:325  UCX  ERROR   connect(fd=40, "
    "dest_addr=172.17.0.1:40703) failed: Connection refused",
    "ib_md.c:282  UCX  ERROR ibv_reg_mr(address=0x320000000, length=1024,",
    "[1650121445.321789] [cpn3286:242769:0]          select.c:514  UCX  ERROR   no active messages transport to "
    "<no debug data>: posix/memory - Destination is unreachable",
]


@pytest.mark.parametrize("line", UCX_ERRORS)
def test_a_ucx_error_line_is_a_failure_of_ucx_whatever_its_file(line):
    (finding,) = _findings(line + "\n")
    assert finding["rule"] == "failure-time-unknown"
    assert finding["library"] == "UCX"
    assert line.split("UCX  ERROR")[1].strip()[:20] in finding["message"]


def test_ucx_warn_and_diag_lines_are_no_failure():
    quiet = (
        "UCX  WARN  transports 'cuda_copy','cuda_ipc' are not available, please use\n"
        "[1752139321.465799] [gpu-node-3:2847 :0]          parser.c:2041 UCX  WARN  unused environment variable: "
        "UCX_IB_GID_INDEX\n"
    )
    assert _findings(quiet) == []


# a glog ERROR line's file is a library's only for the libraries that log through glog (Mooncake, NIXL), and never a
# file they vendor: "logging.cc" is FlashInfer's name too, "init.cc" NCCL's, "arg.cc" abseil's inside NIXL
@pytest.mark.parametrize(
    "line",
    [
        "E0101 10:00:00.000000 123 logging.cc:10] could not open config file, using defaults",
        "E0000 00:00:1736790394.171548 3462 init.cc:232] grpc_wait_for_shutdown_with_timeout() timed out.",
        "E0101 10:00:00.000000 123 arg.cc:77] bad flag value",
    ],
)
def test_another_programs_glog_error_line_names_no_library(line):
    findings = _findings(line + "\n")
    assert [f["rule"] for f in findings] == ["unrecognized-failure"]
    assert all(f.get("library") is None for f in findings)


# gpustack-5641 (built): a caption that names the log below it, the failure stated in the steps above it
GPUSTACK_CAPTION = """\
### ▶️ Steps to reproduce

1. Deploy qwen3-0.6b to 2 worker(each has one 4080 GPU) with sglang 0.5.12.post1
2. Failed to start the model with logs
3. Starting with sglang 0.5.9, could start

Failed model start logs\x20
```
2026-06-17 16:49:19.444655+08:00 - gpustack.worker.backends.base - INFO - Preparing model files...
2026-06-17 16:49:19.449791+08:00 - gpustack.worker.backends.base - INFO - Model files are ready.
```
"""


def test_a_caption_above_a_log_is_no_failure_line_and_the_stated_failure_speaks():
    (finding,) = _findings(GPUSTACK_CAPTION)
    assert finding["rule"] == "startup-crash"
    assert "Failed to start the model with logs" in finding["message"]
    assert "Failed model start logs" not in finding["message"]


@pytest.mark.parametrize("caption", ["Error log:", "**Error log:**", "Decode node crash logs:", "error message:", "Error logs"])
def test_a_caption_names_the_text_below_it(caption):
    assert _rules(f"{caption}\n```\nINFO:     Started server process [2619]\n```\n") == []


@pytest.mark.parametrize("line", ["Failed to open log", "Error reading output:", "Error: log file missing"])
def test_a_failure_about_a_log_is_no_caption(line):
    assert _rules(f"{line}\n```\nINFO:     Started server process [2619]\n```\n") != []


# review13a item 9: a clean summary's zero counts are no failure (an unrecognised failure line is a failure of unknown
# time since silent13, so a count of nothing must not become one); a real failure beside a zero count still is one
BENCH_SUMMARY = """\
============ Serving Benchmark Result ============
Backend:                                 sglang
Successful requests:                     1000
Failed requests:                         0
Benchmark duration (s):                  120.5
Total errors: 0
No errors found in the output.
"""


@pytest.mark.parametrize(
    "text",
    [
        BENCH_SUMMARY,
        "num_errors: 0\nError count: 0\n",
        "[2025-06-01 10:00:00] INFO: total failed: 0, total ok: 100\n",
        "========== 12 passed, 0 failed in 3.2s ==========\n",
    ],
    ids=["bench-summary", "counters", "log-record", "test-summary"],
)
def test_a_count_of_zero_failures_is_no_failure(text):
    assert _findings(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'Failed requests: 0\nTraceback (most recent call last):\n  File "/x/y.py", line 3, in f\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n",
        "[rank3]: NCCL watchdog: failed rank = 0 timed out after 600000 ms\n",
        "Total errors: 0, but the server crashed with a segmentation fault.\n",
        # a numbered thing, not a count of none (review13b item 1)
        "Rank 0 failed to initialize the process group\n",
        "Process 0 failed with exit code 1\n",
        "The server died: rank 0 failed with an NCCL timeout.\n",
        "ERROR: 0 bytes free on device 0\n",
    ],
    ids=[
        "traceback-after-summary",
        "failed-rank-zero",
        "zero-then-crash",
        "rank-0-failed",
        "process-0-failed",
        "stated-rank-0",
        "zero-bytes",
    ],
)
def test_a_failure_beside_a_zero_count_is_still_read(text):
    assert _findings(text) != []
