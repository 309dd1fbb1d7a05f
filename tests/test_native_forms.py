"""Native libraries' own lines in the forms people paste (issue 43): what is a failure of theirs and what is not,
from the libraries' released sources. Each paste is written here in the real shape."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.core.nccl_demoted import demoted_since
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


# NCCL 2.10's NCCL_DEBUG=INFO start of a rank with no IB verbs library: ibvwrap.cc WARNs, then NCCL uses sockets
NO_IBVERBS = """gpu7:20211:20211 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>
gpu7:20211:20211 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
gpu7:20211:20211 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]
gpu7:20211:20211 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>
gpu7:20211:20211 [0] NCCL INFO Using network Socket
NCCL version 2.10.3+cuda11.3
"""


def test_a_nccl_warn_that_later_releases_print_as_info_is_no_failure():
    # NVIDIA/nccl: WARN in src/misc/ibvwrap.cc up to v2.10.3-1, INFO(NCCL_INIT, ...) from v2.11.4-1
    assert demoted_since("Failed to open libibverbs.so[.1]") == "v2.11.4-1"
    assert demoted_since("Invalid NCCL_NTHREADS 1000 (maximum 512).") == "v2.27.3-1"
    assert _failures(NO_IBVERBS) == []


def test_a_nccl_warn_still_printed_as_warn_stays_a_failure():
    assert demoted_since("Call to ibv_create_qp failed") is None
    text = NO_IBVERBS + "gpu7:20211:20290 [0] transport/net_ib.cc:580 NCCL WARN Call to ibv_create_qp failed\n"
    (failure,) = _failures(text)
    assert failure.finding == "nccl-error"
    assert "ibv_create_qp" in failure.event.text


# Mooncake Store under a KV-cache connector: glog ERROR lines of its store client only, no SGLang line around them
MOONCAKE_STORE = """mooncake store keeps failing:
E0312 08:14:51.730114  9921 master_client.cpp:192] Failed to mount segment due to rpc error
E0312 08:14:51.730152  9921 store_py.cpp:191] Failed to mount segment: UNKNOWN_ERROR
I0312 08:14:51.730201  9921 client.cpp:88] retrying
"""


def test_a_glog_error_line_is_a_failure_of_the_library_whose_released_source_file_it_names():
    from logscope.core.native_libraries import source_path

    # mooncake-transfer-engine 0.3.13.post1's strings name these paths
    assert source_path("master_client.cpp") == "mooncake-store/src/master_client.cpp"
    assert source_path("client.cpp") is None  # a name several catalogued paths end in says nothing
    failures = _failures(MOONCAKE_STORE)
    assert [(f.finding, f.mechanism, f.signature) for f in failures] == [
        ("pd-transfer-failed", "pd_transfer", "pd-mooncake-native"),
        ("pd-transfer-failed", "pd_transfer", "pd-mooncake-native"),
    ]
    assert failures[0].event.line == 2 and failures[0].matched == "mooncake-store/src/master_client.cpp:192"


def test_a_glog_info_or_warning_line_of_a_library_is_no_failure():
    assert _failures(MOONCAKE_STORE.replace("E0312", "W0312")) == []


# torch_memory_saver's own lines when it maps a paused KV cache back (torch-memory-saver 0.0.10's strings), then prose
RETRY_NOTICE = "cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue e.g. torch allocator will free cache and retry)"
MEMORY_SAVER = f"""[torch_memory_saver.cpp] {RETRY_NOTICE}
[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp func=resume line=172

Resuming the weights after the rollout fails like this although nvidia-smi shows free memory.
"""


def test_torch_memory_savers_cuda_check_of_an_out_of_memory_is_an_oom():
    (failure,) = _failures(MEMORY_SAVER)
    assert (failure.finding, failure.mechanism, failure.signature) == (
        "oom-time-unknown",
        "memory",
        "oom-cuda-memory-saver-check",
    )
    assert failure.event.line == 2  # the retry notice before it says it may be no issue: not the failure


# a device-side assertion of a kernel quoted in a pull request's prose, the launch above it
DEVICE_ASSERT = """The low-latency buffer needs more QPs than channels, otherwise:
`Assertion failed: /workspace/DeepEP/csrc/kernels/internode.cu:512, condition: ibgda_get_state()->num_rc_per_pe >= num_channels`
"""


def test_a_kernels_device_assertion_is_a_failure_of_the_library_whose_file_it_prints():
    failures = _failures(DEVICE_ASSERT)
    assert {(f.signature, f.mechanism, f.library) for f in failures} == {("process-device-assert", "deepep", "DeepEP")}
    assert {f.finding for f in failures} == {"failure-time-unknown"}


# the middle of a c10::Error's native backtrace (torch c10/util/Backtrace.cpp "frame #N: ..."), cut before frame #0
# and after (dynamo-14281's shape): interpreter frames of a renamed process, no message, no library
C10_FRAMES_CUT = """frame #34: _PyEval_EvalFrameDefault + 0xa89 (0x5d6f09 in VLLM::Worker_TP0)
frame #35: _PyObject_Call_Prepend + 0xc2 (0x54a782 in VLLM::Worker_TP0)
frame #36: VLLM::Worker_TP0() [0x5a31b8]
frame #37: PyObject_Call + 0x6c (0x54b0ac in VLLM::Worker_TP0)
frame #38: _Py
"""


def test_c10_frames_cut_before_frame_0_are_still_a_native_crash():
    (failure,) = _failures(C10_FRAMES_CUT)
    assert failure.event.text.startswith("native backtrace: frame #34: _PyEval_EvalFrameDefault")
    assert failure.event.data["native_frames"][0].startswith("_PyEval_EvalFrameDefault + 0xa89")
    assert len(failure.event.data["native_frames"]) == 5


def test_c10_frames_under_their_exception_line_stay_one_backtrace():
    text = (
        "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
        "(most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f0c in /usr/lib/libc10.so)\n"
        "frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2 (0x7f0d in "
        "/usr/lib/libc10_cuda.so)\n"
        "frame #2: <unknown function> + 0x1bd1e (0x7f0e in /usr/lib/libc10_cuda.so)\n"
    )
    (failure,) = _failures(text)
    assert len(failure.event.data["native_frames"]) == 4  # the raising function, then frames #0-#2


def test_a_ray_actor_that_exited_on_purpose_is_no_failure():
    # ray 2.49.2 gcs_server: "The actor is dead because its worker process has died. Worker exit type: " + the type
    intended = (
        "The actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT Worker exit detail: "
        "Worker exits by an user request. exit_actor() is called.\n"
    )
    assert _failures(intended) == []
    (failure,) = _failures(intended.replace("INTENDED_USER_EXIT", "SYSTEM_ERROR"))
    assert failure.signature == "process-ray-actor-worker-died"


def test_glibcs_heap_check_before_2_26_is_read_in_its_wrapper():
    (failure,) = _failures("*** Error in `python3': double free or corruption (fasttop): 0x00007f2c1c0017a0 ***\n")
    assert failure.signature == "process-glibc-double-free"


def test_a_go_panic_is_read_only_at_a_lines_start():
    (failure,) = _failures("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n")
    assert failure.signature == "process-go-panic"
    assert _failures("The operator logs a warning when it recovers from a panic: nothing to see here.\n") == []
