"""Failures named from evidence people paste (issue 43): Mooncake's own error lines, SGLang's own exceptions, the
frames and lines that place a failure in time. Each case is in its real shape; quiet cases prove what is not read."""

from __future__ import annotations

from typing import Any

import pytest

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def _named(failure: Failure) -> tuple[str, str | None, str | None, str]:
    return failure.finding, failure.mechanism, failure.signature, failure.phase


def _findings(text: str) -> list[dict[str, Any]]:
    return analyze_sources([Source(name="paste.log", path=None, data=text.encode())])["findings"]


MOONCAKE_BENCH = (
    "W0331 10:52:07.700984 297905 transfer_engine_bench.cpp:410] Invalid flag: buffer size is smaller than "
    "require_size, adjust to 68719476736\n"
    "I0331 10:52:07.731801 297905 rdma_context.cpp:426] Find best gid index: 3 on mlx5_0/\n"
    "I0331 10:52:07.733109 297905 rdma_context.cpp:125] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 3) "
    "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:01\n"
)


def test_mooncake_info_lines_alone_name_no_failure():
    assert _failures(MOONCAKE_BENCH) == []
    assert [f["rule"] for f in _findings(MOONCAKE_BENCH)] == []


def test_mooncake_handshake_error_is_pd_transfer_at_an_unknown_time():
    text = MOONCAKE_BENCH + (
        "E0331 10:54:20.638639 297912 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, check mtu, gid, "
        "peer lid, peer qp num: Connection timed out [110]\n"
    )
    [failure] = _failures(text)
    assert _named(failure) == ("pd-transfer-failed", "pd_transfer", "pd-mooncake-modify-qp", "unknown")
    assert failure.values == {"state": "RTR"}
    [finding] = _findings(text)
    assert finding["message"].startswith("The Mooncake transfer backend failed at an unknown time (no phase line")
    assert finding["message"].endswith("peer qp num: Connection timed out [110]")


def test_mooncake_store_put_errors_name_the_error_code():
    text = (
        "[2025-06-16 07:25:02 DP7 TP7] Connect to Mooncake store successfully.\n"
        "E0616 07:25:02.248354 40411 client.cpp:380] Failed to start put operation: NO_AVAILABLE_HANDLE\n"
        "E0616 07:25:02.248379 40411 store_py.cpp:372] Put operation failed with error: NO_AVAILABLE_HANDLE\n"
    )
    found = [(f.signature, f.values) for f in _failures(text)]
    assert found == [("pd-mooncake-store-put", {}), ("pd-mooncake-store-put-error", {"error": "NO_AVAILABLE_HANDLE"})]


SERVING_TRACEBACK = """\
[2026-06-15 14:10:40] The server is fired up and ready to roll!
[2026-06-15 14:10:59 TP7] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1024, in event_loop_overlap
    batch = self.get_next_batch_to_run()
  File "/usr/local/lib/python3.12/dist-packages/torch/nn/functional.py", line 2550, in layer_norm
    return torch.layer_norm(input, normalized_shape, weight, bias, eps)
RuntimeError: expected scalar type BFloat16 but found Float
"""


def test_an_exception_raised_in_sglang_frames_names_sglang():
    text = SERVING_TRACEBACK.replace(
        '  File "/usr/local/lib/python3.12/dist-packages/torch/nn/functional.py", line 2550, in layer_norm\n'
        "    return torch.layer_norm(input, normalized_shape, weight, bias, eps)\n",
        '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py", line 412, in release_kv_cache\n'
        '    assert req.kv_committed_len > 0, "Committed KV cache already freed"\n',
    )
    [failure] = _failures(text)
    assert _named(failure) == ("runtime-crash", "sglang", "sglang-raised-srt", "serving")


def test_an_exception_raised_in_torch_under_sglang_frames_is_not_sglang_but_torch_s():
    [failure] = _failures(SERVING_TRACEBACK)
    assert (failure.finding, failure.mechanism, failure.phase) == ("runtime-crash", "python", "serving")
    assert failure.library == "torch"


def test_a_cut_traceback_in_sglang_frames_is_sglang_s_and_a_cuda_error_in_them_is_cuda_s():
    # a traceback cut before its exception line is attributed from its frames (docs/design.md): the innermost shown
    cut = SERVING_TRACEBACK.split('  File "/usr/local')[0]
    assert [(f.finding, f.mechanism) for f in _failures(cut)] == [("runtime-crash", "sglang")]
    cuda = SERVING_TRACEBACK.replace(
        "/usr/local/lib/python3.12/dist-packages/torch/nn/functional.py",
        "/sgl-workspace/sglang/python/sglang/srt/layers/layernorm.py",
    ).replace(
        "RuntimeError: expected scalar type BFloat16 but found Float",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    )
    assert [f.mechanism for f in _failures(cuda)] == ["cuda"]


REPLAY_CALL = """\
  File "/opt/sglang/python/sglang/srt/model_executor/model_runner.py", line 994, in forward
    return self.cuda_graph_runner.replay(
"""
# a graph runner's replay called from a batch's forward is serving; capture's own frame still locates capture
GRAPH_FRAMES = [
    (
        "[2025-05-20 10:00:01 TP0] TpModelWorkerClient hit an exception: Traceback (most recent call last):\n"
        '  File "/opt/sglang/python/sglang/srt/managers/tp_worker.py", line 175, in forward_batch_generation\n'
        "    logits_output = self.model_runner.forward(forward_batch)\n" + REPLAY_CALL,
        ("runtime-crash", "serving", "frame tp_worker.py:175 forward_batch_generation"),
    ),
    (
        "Traceback (most recent call last):\n"
        '  File "/opt/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 390, in capture\n'
        "    self.capture_one_batch_size(bs, forward)\n" + REPLAY_CALL + "RuntimeError: something went wrong\n",
        ("startup-crash", "capture", "frame cuda_graph_runner.py:390 capture"),
    ),
]


@pytest.mark.parametrize(("text", "expected"), GRAPH_FRAMES, ids=["replay-is-serving", "capture-is-capture"])
def test_graph_runner_frames_place_the_failure(text, expected):
    [failure] = _failures(text)
    assert (failure.finding, failure.phase, failure.phase_basis) == expected


def test_a_scheduler_header_whose_traceback_is_not_read_is_a_crash_placed_by_a_refused_request():
    text = (
        "[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). "
        "Use a shorter input or enable --allow-auto-truncate.\n"
        "[2025-03-03 06:49:28 TP5] Scheduler hit an exception: Traceback (most recent call last):\n"
    )
    [failure] = _failures(text)
    assert (failure.finding, failure.phase, failure.phase_basis) == ("runtime-crash", "serving", "after line 1 showed it serving")
    [finding] = _findings(text)
    assert finding["message"].endswith("Scheduler hit an exception (no traceback read after it).")


def test_a_scheduler_header_before_its_traceback_is_no_failure_of_its_own():
    [failure] = _failures(SERVING_TRACEBACK)
    assert (failure.event.line, failure.event.kind) == (7, "exception")
    [finding] = _findings(SERVING_TRACEBACK)
    assert "RuntimeError: expected scalar type BFloat16 but found Float" in finding["message"]


def test_without_a_request_line_the_scheduler_header_time_is_unknown():
    text = "[2025-03-03 06:49:28 TP5] Scheduler hit an exception: Traceback (most recent call last):\n"
    assert [(f.finding, f.phase) for f in _failures(text)] == [("failure-time-unknown", "unknown")]


def test_nvshmem_bootstrap_exit_is_a_deepep_transport_failure_with_transport_advice():
    text = (
        "/sgl-workspace/nvshmem/install/include/host/nvshmemx_api.h:63: non-zero status: 7: Connection timed out, "
        "exiting...\naborting due to error in nvshmemi_init_thread\n"
    )
    found = [(f.signature, f.values) for f in _failures(text)]
    assert found == [
        ("deepep-transport-nvshmem-status", {"status": 7, "reason": "Connection timed out"}),
        ("deepep-transport-nvshmem-abort", {"where": "nvshmemi_init_thread"}),
    ]
    [finding] = _findings(text)
    assert (finding["rule"], finding["severity"]) == ("deepep-buffer", "error")
    assert finding["hint"].startswith("DeepEP's transport setup failed, not its memory")


def test_deepep_kernel_timeouts_name_deepep_and_other_timeouts_do_not():
    line = "DeepEP dispatch forwarder timeout (RDMA meta), channel: 2, RDMA: 1, nvl: 7, src RDMA lane: 3, dst NVL: 7\n"
    [failure] = _failures(line)
    assert (failure.signature, failure.values) == (
        "deepep-transport-kernel-timeout",
        {"what": "dispatch forwarder", "channel": 2},
    )
    assert _failures("Using DeepEP low latency mode; NCCL timeout is 600 s\n") == []


def test_nvshmem_ibgda_set_up_check_places_the_deepep_failure_at_startup():
    # NVSHMEM 3.4.5's ibgda transport checks, printed on their own (no init function named): both lines are error
    # checks of its endpoint set-up (catalog/native_stages.json error_sites), so the failure is at startup
    text = (
        "/build/nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah.\n"
        "WARN: Failed to initialize all selected devices. Perf may be limited.\n"
        "/build/nvshmem/src/modules/transport/ibgda/ibgda.cpp:2966: non-zero status: 7 create DCT share err.\n"
    )
    [failure, *_] = _failures(text)
    assert (failure.finding, failure.mechanism, failure.phase) == ("deepep-buffer", "deepep", "startup")
    assert "error check in ibgda_create_dct_shared_objects" in failure.phase_basis


def test_mooncake_transfer_engine_install_failure_is_at_startup():
    # the transfer engine's start (Mooncake 0.3.9): RDMA transport install fails in TransferEngineImpl::init
    text = (
        "E0302 09:15:07.980793     7 rdma_transport.cpp:662] RdmaTransport: No available RNIC\n"
        "E0302 09:15:07.980796     7 transfer_engine_impl.cpp:293] Failed to install RDMA transport, type=rdma\n"
        "E0302 09:15:07.980798     7 client_service.cpp:288] Failed to initialize transfer engine, rc=-1\n"
    )
    failures = _failures(text)
    assert {(f.finding, f.mechanism, f.phase) for f in failures} == {("pd-transfer-failed", "pd_transfer", "startup")}
    assert any("TransferEngineImpl::init" in f.phase_basis for f in failures)
