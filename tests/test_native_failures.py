"""Native and library failures in every common shape (issue 43, items 2 and 3): the verdict quotes the signal or
error and the innermost frame where it hit, names the library from catalog/libraries.json (read from the released
packages by tools/upstream/libraries.py), never a block's header; messages only a running server prints place a
failure while serving; a wording quoted in prose is evidence of lower confidence, and the finding says so."""

from __future__ import annotations

import json
import re

import pytest

from logscope.core.native_libraries import crash_frames, library_names, library_of
from logscope.core.resources import data_dir
from logscope.pipeline.parse.signatures.loader import bundled_signatures
from tests.helpers import analyze_text

READY = "[2026-03-01 10:00:00] The server is fired up and ready to roll!\n"
LOAD_END = (
    "[2026-06-01 10:00:00 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=120.00 GB, "
    "mem usage=15.00 GB.\n"
)
# the shape UCX prints with debug information (NCCL's proxy thread hit by SIGSEGV), then CPython's faulthandler
UCX_NCCL = (
    "==== backtrace (tid:  41234) ====\n"
    " 0 0x0000000000042520 __sigaction()  ???:0\n"
    " 1 0x000000000006a920 SaveProxy()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/proxy.cc:518\n"
    " 2 0x000000000006ca3a ncclProxySaveOp()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/proxy.cc:546\n"
    " 3 0x0000000000049543 uploadProxyOps()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/enqueue.cc:1145\n"
    "=================================\n"
    "Fatal Python error: Segmentation fault\n"
    "\n"
    "Thread 0x00007fbaf7ff7640 (most recent call first):\n"
)


def _only(report: dict, rule: str) -> dict:
    found = [f for f in report["findings"] if f["rule"] == rule]
    assert found, [(f["rule"], f["message"]) for f in report["findings"]]
    return found[0]


def test_the_ucx_block_names_nccl_the_segfault_and_the_innermost_frame_never_its_header():
    report = analyze_text(READY + UCX_NCCL)
    finding = _only(report, "nccl-error")
    assert finding["phase"] == "serving"
    assert "Segmentation fault in SaveProxy() .../src/proxy.cc:518 (NCCL)" in finding["message"]
    assert "==== backtrace" not in json.dumps(report["findings"])
    assert {f["rule"] for f in report["findings"]} == {"nccl-error"}  # one crash, not a second generic one


def test_the_ucx_block_without_a_ready_line_keeps_nccl_and_an_unknown_time():
    finding = _only(analyze_text(UCX_NCCL), "nccl-error")
    assert finding["phase"] == "unknown"
    assert "Segmentation fault in SaveProxy()" in finding["message"]


def test_ucx_handler_frames_and_the_trampoline_are_skipped_to_the_frame_that_faulted():
    text = LOAD_END + (
        "[node3:5512:0:5600] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address "
        "0x7f2a00000000)\n"
        "==== backtrace (tid:   5600) ====\n"
        " 0  /usr/local/lib/python3.12/dist-packages/libucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f51a2c0e8a4]\n"
        " 1  /usr/local/lib/python3.12/dist-packages/libucx/lib/libucs.so.0(+0x2ba5f) [0x7f51a2c0ea5f]\n"
        " 2  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f51a3042520]\n"
        " 3  /usr/local/lib/python3.12/dist-packages/libucx/lib/ucx/libuct_cuda.so.0(uct_cuda_ipc_ep_put_zcopy+0x91) "
        "[0x7f51a13c11f0]\n"
        " 4  /usr/local/lib/python3.12/dist-packages/libucx/lib/libucp.so.0(+0x8a1f2) [0x7f51a1402a12]\n"
        "=================================\n"
    )
    finding = _only(analyze_text(text), "startup-crash")
    assert finding["phase"] == "memory_pool"
    assert "Segmentation fault in .../ucx/libuct_cuda.so.0(uct_cuda_ipc_ep_put_zcopy) (UCX)" in finding["message"]
    assert "ucs_handle_error" not in finding["message"] and "Caught signal" not in finding["message"]


def test_every_ranks_caught_signal_line_before_one_backtrace_is_one_crash():
    text = (
        READY
        + "".join(
            f"[node2:26215{r}:0:26216{r}] Caught signal 11 (Segmentation fault: address not mapped to object at address "
            f"0x1100007{r})\n"
            for r in range(4)
        )
        + (
            "==== backtrace (tid: 262161) ====\n"
            "0 0x000000000003926d __GI_getenv()  :0\n"
            "1 0x0000000000059038 ucs_sysv_alloc()  /build/ucx-v1.7.x/src/ucs/sys/sys.c:748\n"
            "2 0x000000000000dcbf uct_mem_alloc()  /build/ucx-v1.7.x/src/uct/base/uct_mem.c:224\n"
        )
    )
    report = analyze_text(text)
    assert len(report["findings"]) == 1
    assert "Segmentation fault in __GI_getenv() :0 (UCX: ucs_sysv_alloc() .../sys/sys.c:748)" in report["findings"][0]["message"]


def test_an_abseil_signal_block_quotes_the_signal_the_innermost_frame_and_the_library_of_the_frame_below():
    text = READY + (
        "*** SIGSEGV received at time=1767261062 on cpu 12 ***\n"
        "PC: @     0x7f3a1c2d4e10  (unknown)  flash::run_mha_fwd_splitkv_dispatch<>()\n"
        "    @     0x7f3a1c2d4e10  (unknown)  /usr/local/lib/python3.12/dist-packages/sgl_kernel/flashmla_ops.abi3.so"
        "(+0x1c4e10)\n"
        "    @     0x7f3a1d001234         64  at::native::empty_cuda()\n"
        "Fatal Python error: Segmentation fault\n"
    )
    finding = _only(analyze_text(text), "runtime-crash")
    assert finding["message"].startswith("The server crashed while serving (after the ready line at line 1): SIGSEGV in ")
    assert "flash::run_mha_fwd_splitkv_dispatch<>() (FlashMLA: .../sgl_kernel/flashmla_ops.abi3.so)" in finding["message"]


def test_a_gdb_core_backtrace_reads_the_signal_line_as_its_opener():
    text = LOAD_END + (
        "Program terminated with signal SIGSEGV, Segmentation fault.\n"
        "#0  0x00007f673afbf86a in nvshmemi_transfer_rma_nbi () from "
        "/usr/local/lib/python3.12/dist-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3\n"
        "#1  0x00007f673afb0000 in deep_ep::Buffer::sync(std::vector<int> const&) () from "
        "/usr/local/lib/python3.12/dist-packages/deep_ep_cpp.cpython-312-x86_64-linux-gnu.so\n"
    )
    finding = _only(analyze_text(text), "deepep-buffer")
    # DeepEP's Buffer::sync called into NVSHMEM: the library whose code ran it, with NVSHMEM where it hit
    hit = "SIGSEGV in nvshmemi_transfer_rma_nbi () from .../lib/libnvshmem_host.so.3 (DeepEP through NVSHMEM)"
    assert hit in finding["message"]
    assert finding["phase"] == "memory_pool"


def test_a_live_gdb_session_gives_its_signal_to_the_backtrace_bt_prints():
    text = READY + (
        'Thread 87 "python3" received signal SIGSEGV, Segmentation fault.\n'
        "[Switching to Thread 0x7ffe8dfff640 (LWP 4121)]\n"
        "0x00007fff2a1c2d3e in ?? () from /usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2\n"
        "(gdb) bt\n"
        "#0  0x00007fff2a1c2d3e in ncclProxyProgress () from /opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/"
        "libnccl.so.2\n"
        "#1  0x00007ffff7c94ac3 in start_thread () from /lib/x86_64-linux-gnu/libc.so.6\n"
    )
    finding = _only(analyze_text(text), "nccl-error")
    assert "SIGSEGV in ncclProxyProgress () from .../lib/libnccl.so.2 (NCCL)" in finding["message"]
    assert finding["phase"] == "serving"


def test_a_glog_check_failure_quotes_its_check_and_the_frame_below_glogs_own():
    text = LOAD_END + (
        "F1104 06:35:19.118512 2368741 transfer_engine.cpp:120] Check failed: (ret) == (0) failed to install transport\n"
        "*** Check failure stack trace: ***\n"
        "    @     0x7f8f2c1a1b2d  google::LogMessage::Fail()\n"
        "    @     0x7f8f2c1a9e71  google::LogMessage::SendToLog()\n"
        "    @     0x7f8f2b801234  mooncake::TransferEngine::init()\n"
        "Fatal Python error: Aborted\n"
    )
    report = analyze_text(text)
    assert len(report["findings"]) == 1
    message = report["findings"][0]["message"]
    assert "Check failed: (ret) == (0) failed to install transport in mooncake::TransferEngine::init() (Mooncake)" in message
    assert "google::" not in message


def test_a_glog_fatal_line_alone_is_a_failure():
    report = analyze_text("F1104 06:35:19.118512 2368741 engine.cpp:120] Check failed: ptr != nullptr\n")
    assert [f["rule"] for f in report["findings"]] == ["failure-time-unknown"]
    assert "Check failed: ptr != nullptr" in report["findings"][0]["message"]


def test_a_faulthandler_dump_in_pynccl_names_nccl_over_the_generic_crash():
    text = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x0000724a7c9a9300 (most recent call first):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl_wrapper.py", '
        "line 404 in ncclCommInitRank\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl.py", line 111 in '
        "__init__\n"
    )
    report = analyze_text(text)
    assert {f["rule"] for f in report["findings"]} == {"nccl-error"}


def test_a_cuda_check_of_a_kernel_library_is_a_failure_that_names_the_library_and_keeps_the_place():
    text = (
        "[2026-06-01 09:50:20 TP0] Capture cuda graph end. Time elapsed: 38.21 s. mem usage=2.10 GB. avail mem=11.42 GB.\n"
        "CUDA error (/sgl-workspace/flash-mla/csrc/sm90/decode/get_decoding_sched_meta.cu:111): invalid argument\n"
    )
    report = analyze_text(text)
    finding = _only(report, "failure-time-unknown")
    assert (
        "CUDA error (/sgl-workspace/flash-mla/csrc/sm90/decode/get_decoding_sched_meta.cu:111): invalid argument "
        "(FlashMLA)" in finding["message"]
    )
    assert finding["signature"] == "kernel-cuda-check"
    assert finding["library"] == "FlashMLA"


def test_flashinfers_cuda_call_check_is_a_failure_naming_flashinfer():
    text = READY + (
        "CUDA Error: an illegal memory access was encountered (700) /usr/local/lib/python3.12/dist-packages/flashinfer/"
        "data/include/flashinfer/attention/prefill.cuh: line 2349 at function cudaLaunchKernel((void*)kernel, nblks)\n"
    )
    finding = _only(analyze_text(text), "runtime-crash")
    assert finding["library"] == "FlashInfer"
    assert "CUDA Error: an illegal memory access was encountered (700)" in finding["message"]


@pytest.mark.parametrize(
    ("text", "library"),
    [
        ("SaveProxy()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/proxy.cc:518", "NCCL"),
        ("/usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2(+0x8d1c2) [0x7f01d9e8d1c2]", "NCCL"),
        ("ncclProxySaveOp()  ???:0", "NCCL"),
        ("/usr/local/lib/python3.12/dist-packages/libucx/lib/libucp.so.0(+0x8a1f2) [0x7f51a1402a12]", "UCX"),
        ("ucp_worker_progress()  /tmp/build/ucx/src/ucp/core/ucp_worker.c:2922", "UCX"),
        ("nvshmemi_transfer_rma_nbi () from /opt/nvshmem/lib/libnvshmem_host.so.3", "NVSHMEM"),
        ("deep_ep::Buffer::sync(std::vector<int> const&) ()", "DeepEP"),
        ("/sgl-workspace/DeepEP/csrc/deep_ep.cpp:230", "DeepEP"),
        ("/usr/local/lib/python3.12/dist-packages/flashinfer/data/include/flashinfer/attention/prefill.cuh:2311", "FlashInfer"),
        ("/sgl-workspace/flash-mla/csrc/sm90/decode/get_decoding_sched_meta.cu:111", "FlashMLA"),
        ("/home/u/vllm/cmake-build-release/_deps/flashmla-src/csrc/smxx/mla_combine.cu:201", "FlashMLA"),
        ("/sgl-workspace/sglang/sgl-kernel/csrc/moe/moe_align_kernel.cu:301", "sgl-kernel"),
        ("deep_gemm::jit::Compiler::build(std::string const&) ()", "DeepGEMM"),
        ("/usr/local/lib/python3.12/dist-packages/mooncake/engine.so(_ZN8mooncake14TransferEngine8submitEv+0x1a)", "Mooncake"),
        ("/usr/local/lib/python3.12/dist-packages/.nixl_cu12.mesonpy.libs/plugins/libplugin_UCX.so(+0x3c1f0)", "NIXL"),
        ("/lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f51a3042520]", None),
        ("/usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so(+0x1a2b3c)", None),
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.1(+0x2af853)", None),
    ],
)
def test_a_frame_or_path_names_its_library_from_the_catalogue(text: str, library: str | None):
    assert library_of(text) == library


def test_the_catalogue_holds_every_library_the_issue_names_each_read_from_a_release():
    rows = json.loads((data_dir("catalog") / "libraries.json").read_text())["libraries"]
    names = {"NCCL", "UCX", "NVSHMEM", "DeepEP", "FlashInfer", "FlashMLA", "sgl-kernel", "DeepGEMM", "Mooncake", "NIXL"}
    assert set(library_names()) == names == set(rows)
    for name, row in rows.items():
        # a wheel, a git source's release tag, or a wheel and the sources its release tag holds besides (Mooncake's)
        wheel = re.search(r"\.whl(?:; its other sources from the git source at tag v\S+)?$", row["source"])
        assert wheel or row["source"].startswith("git source at tag v"), name
    # the CUDA-check wording the kernel_library signature reads is a string of the released binaries
    assert "CUDA error (%s:%d): %s" in rows["FlashMLA"]["checks"]


def test_frames_before_the_signal_trampoline_are_the_handlers_own():
    frames = ["ucs_handle_error()  ???:0", "__sigaction()  ???:0", "SaveProxy()  /x/src/proxy.cc:518"]
    assert crash_frames(frames) == ["SaveProxy()  /x/src/proxy.cc:518"]
    assert crash_frames(["SaveProxy()  /x/src/proxy.cc:518"]) == ["SaveProxy()  /x/src/proxy.cc:518"]


# ---- item 3: serving-only messages, header-less tracebacks, wordings quoted in prose


def test_prefill_out_of_memory_is_placed_while_serving_from_the_released_scheduler_code():
    text = (
        "[2026-03-02 11:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/allocation.py", line 239, in '
        "alloc_paged_token_slots_extend\n"
        "    raise RuntimeError(\n"
        "RuntimeError: Prefill out of memory. Try to lower your batch size.\n"
    )
    report = analyze_text(text)
    assert [f["rule"] for f in report["findings"]] == ["runtime-oom"]
    assert report["findings"][0]["phase"] == "serving"
    assert (
        "Out of memory while serving: Prefill out of memory. Try to lower your batch size." in (report["findings"][0]["message"])
    )


def test_a_header_less_tracebacks_last_line_is_its_message_and_places_it_while_serving():
    text = (
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler_runtime_checker_mixin.py", line 180, in '
        "check_memory\n"
        "    raise ValueError(msg)\n"
        "ValueError: pool memory leak detected! [full] total=981504, available=981246, evictable=0, protected=0\n"
    )
    finding = _only(analyze_text(text), "runtime-crash")
    assert "ValueError: pool memory leak detected! [full] total=981504, available=981246" in finding["message"]
    assert "cut before its exception line" not in finding["message"]


def test_an_sglang_wording_quoted_in_prose_is_evidence_of_lower_confidence_said_in_the_finding():
    text = (
        "### Describe the bug\n\n"
        "After about two hours of load it crashes with Scheduler watchdog timeout (self.watchdog_timeout=300, "
        "self.soft=False). Restarting helps for a while.\n"
    )
    finding = _only(analyze_text(text), "runtime-crash")
    assert "lower confidence" in finding["message"]
    assert "watchdog timeout (self.watchdog_timeout=300, self.soft=False)" in finding["message"]
    assert "Restarting" not in finding["message"]


# each serving signature and the anchors tools/upstream/serving_only.py looked for in the released wheels
SERVING_ANCHORS = {
    "serving-prefill-out-of-memory": ["Prefill out of memory. Try to lower your batch size."],
    "serving-decode-out-of-memory": ["Decode out of memory. Try to lower your batch size."],
    "serving-alloc-req-slots-out-of-memory": ["alloc_req_slots runs out of memory."],
    "serving-memory-leak": ["memory leak detected!"],
    "serving-watchdog-timeout": ["Watchdog timeout ({self.watchdog_timeout", 'watchdog timeout "'],
    "serving-watchdog-stuck-batch": ["{self.cur_batch.batch_size()=}"],
    "pd-kv-transfer-error-any-room": ["raise KVTransferError("],
}


# a source that opens with another package's name and release range ("uvicorn 0.30.0-0.55.0 protocols/...")
_OTHER_PACKAGE = re.compile(r"(?!sglang )[a-z][\w-]* \d+\.\d+[\w.]*(?:-\d+\.\d+[\w.]*)? ")


def test_every_serving_signature_has_sites_in_the_released_code_all_in_functions_only_serving_runs():
    doc = json.loads((data_dir("catalog") / "serving_only.json").read_text())["messages"]
    sigs = [s for s in bundled_signatures().signatures if s.phase == "serving" and s.finding]
    # a serving signature of another package's wording (its source cites that package's releases first and no sglang
    # release: uvicorn's "Exception in ASGI application") has no site in SGLang's code; it quotes its wording instead
    others = {s.id: s for s in sigs if _OTHER_PACKAGE.match(s.source) and "sglang " not in s.source}
    assert set(others) == {"serving-asgi-exception"}
    for sig in others.values():
        assert sig.pattern.source in sig.source, sig.id
    assert {s.id for s in sigs} - set(others) == set(SERVING_ANCHORS)
    for sig_id, anchors in SERVING_ANCHORS.items():
        for anchor in anchors:
            sites = doc[anchor]["sites"]
            assert sites, (sig_id, anchor)
            allowed = tuple(doc[anchor]["functions"])
            assert all(site["function"].rsplit(".", 1)[-1] in allowed for site in sites), (sig_id, anchor)


# tvm-ffi's SIGSEGV handler (apache-tvm-ffi 0.1.15 src/ffi/backtrace.cc): its header, then native frames in Python's
# frame form, innermost first; glibc's raise path on top (the handler re-raises the signal)
TVM_FRAMES = (
    '  File "<unknown>", line 0, in pthread_kill\n'
    '  File "<unknown>", line 0, in gsignal\n'
    '  File "<unknown>", line 0, in cuEventQuery\n'
    '  File "<unknown>", line 0, in uct_cuda_base_iface_event_fd_arm\n'
    '  File "<unknown>", line 0, in ucp_worker_arm\n'
    '  File "<unknown>", line 0, in 0xffffffffffffffff\n'
)


@pytest.mark.parametrize("head", ["!!!!!!! Segfault encountered !!!!!!!\n", "Fatal Python error: Segmentation fault\n\n"])
def test_tvm_ffi_s_segfault_frames_name_the_frame_that_raised_and_the_library(head):
    report = analyze_text(head + TVM_FRAMES)
    failures = [f for f in report["findings"] if f.get("mechanism") == "ucx"]
    assert failures, [(f["rule"], f["message"]) for f in report["findings"]]
    assert "in cuEventQuery (UCX: uct_cuda_base_iface_event_fd_arm)" in failures[0]["message"]
    assert "<unknown>" not in failures[0]["message"] and "gsignal" not in failures[0]["message"]


def test_a_python_frame_is_no_native_frame():
    report = analyze_text(
        'Traceback (most recent call last):\n  File "/sgl/python/sglang/srt/managers/scheduler.py", line 10, in run\n'
        "ValueError: bad\n"
    )
    assert any("ValueError: bad" in f["message"] for f in report["findings"])


# one crash of NIXL's UCX progress thread (the frames of ai-dynamo/nixl#2102 and sglang#23499) under each handler's
# header: CPython's faulthandler, tvm-ffi's, UCX's and Abseil's
NIXL_UCX_FRAMES = (
    '  File "<unknown>", line 0, in gsignal\n'
    '  File "<unknown>", line 0, in cuEventQuery\n'
    '  File "<unknown>", line 0, in uct_cuda_base_iface_event_fd_arm\n'
    '  File "<unknown>", line 0, in ucp_worker_arm\n'
    '  File "<unknown>", line 0, in nixlUcxWorker::arm() const\n'
    '  File "<unknown>", line 0, in nixlUcxSharedThread::run()\n'
)


@pytest.mark.parametrize(
    "text",
    [
        "Fatal Python error: Segmentation fault\n\n" + NIXL_UCX_FRAMES,
        "!!!!!!! Segfault encountered !!!!!!!\n" + NIXL_UCX_FRAMES,
        "[node3:5512:0:5600] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))\n"
        "==== backtrace (tid:   5600) ====\n"
        " 0  /usr/lib/libuct_cuda.so.0(uct_cuda_base_iface_event_fd_arm+0x2e4) [0x7f51a2c0e8a4]\n"
        " 1  /usr/lib/libucp.so.0(ucp_worker_arm+0x5f) [0x7f51a2c0ea5f]\n"
        "=================================\n",
    ],
)
def test_a_native_segfault_has_one_signature_whichever_handler_printed_it(text):
    failures = [f for f in analyze_text(text)["findings"] if f.get("signature")]
    assert [f["signature"] for f in failures] == ["process-native-segfault"], [(f["rule"], f["message"]) for f in failures]


def test_a_python_only_faulthandler_dump_keeps_its_own_signature():
    text = (
        "Fatal Python error: Segmentation fault\n\nThread 0x00007f1c2effd640 (most recent call first):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1748 in run_scheduler_process\n'
    )
    assert [f["signature"] for f in analyze_text(text)["findings"] if f.get("signature")] == ["process-fatal-python-error"]


@pytest.mark.parametrize("head", ["!!!!!!! Segfault encountered !!!!!!!\n", "Fatal Python error: Segmentation fault\n\n"])
def test_nixl_calling_into_ucx_is_named_nixl_with_ucx_innermost(head):
    (finding,) = [f for f in analyze_text(head + NIXL_UCX_FRAMES)["findings"] if f.get("signature")]
    assert (finding["mechanism"], finding["library"]) == ("nixl", "NIXL")
    assert "in cuEventQuery (NIXL through UCX: uct_cuda_base_iface_event_fd_arm)" in finding["message"]


def test_a_crash_inside_one_library_names_no_caller():
    report = analyze_text("!!!!!!! Segfault encountered !!!!!!!\n" + TVM_FRAMES)
    (finding,) = [f for f in report["findings"] if f.get("signature")]
    assert (finding["mechanism"], finding["library"]) == ("ucx", "UCX") and "through" not in finding["message"]
