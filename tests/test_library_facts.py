"""The library a failure is named after, in shapes the mined corpus showed (issue 43 item 2): packages that publish no
wheel or only a meta package (DeepEP's `deep_ep`, read from its git source's release tag; NIXL's `nixl`, the meta
package SGLang imports from), a module without the attribute asked for (CPython's "module 'X' has no attribute 'Y'").
Each case is written in the shape people paste; the quiet cases prove what is not claimed."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.core.python_libraries import module_library
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def _named(text: str) -> list[tuple[str | None, str | None]]:
    return [(f.mechanism, f.library) for f in _failures(text)]


def test_deep_ep_and_the_nixl_meta_package_are_in_the_module_table():
    # catalog/python_modules.json, python -m tools.upstream modules: DeepEP v1.2.1's tree, nixl 1.5.2's wheel
    assert module_library("deep_ep") == "DeepEP"
    assert module_library("nixl._bindings") == "NIXL"
    assert module_library("nixl_ep") == "NIXL"


def test_an_import_of_deep_ep_or_nixl_that_failed_names_the_library():
    assert _named("ModuleNotFoundError: No module named 'deep_ep'\n") == [("deepep", "DeepEP")]
    assert _named("ModuleNotFoundError: No module named 'nixl'\n") == [("nixl", "NIXL")]


def test_a_module_without_the_attribute_asked_for_names_its_package():
    # deepgemm-306 (built): an older DeepEP installed, without DeepEP V2's ElasticBuffer
    text = """\
ep_buffer = deep_ep.ElasticBuffer(
                ^^^^^^^^^^^^^^^^^^^^^
AttributeError: module 'deep_ep' has no attribute 'ElasticBuffer'
"""
    assert _named(text) == [("deepep", "DeepEP")]
    assert _named("AttributeError: module 'sgl_kernel' has no attribute 'fp8_blockwise_scaled_mm'\n") == [
        ("sgl_kernel", "sgl-kernel")
    ]
    # a module outside the table names no library of the table: another Python package's (facts12); an object's
    # attribute names none
    assert _named("AttributeError: module 'numpy' has no attribute 'float'\n") == [("python", "numpy")]
    assert _named("AttributeError: 'NoneType' object has no attribute 'deep_ep'\n") == [(None, None)]


def test_a_glog_error_of_a_released_file_is_its_library_s_even_where_a_folder_spells_another():
    # NIXL's UCX backend plugin: plugins/ucx/ucx_backend.cpp is a file of the NIXL wheel (catalog/libraries.json); the
    # folder `ucx` names UCX, which never logs through glog
    [failure] = _failures("E0604 10:21:33.123456 1234 ucx_backend.cpp:1043] Failed to load remote metadata\n")
    assert (failure.mechanism, failure.library) == ("nixl", "NIXL")
    assert failure.event.data["source"] == "plugins/ucx/ucx_backend.cpp:1043"


def test_flashinfer_s_own_error_wording_names_it_without_its_source_path():
    # cut before the issue link that names the project (a terminal's width, a copied line)
    text = "RuntimeError: FlashInfer Internal Error: Invalid configuration : NUM_MMA_Q=1 NUM_MMA_D=8 NUM_MMA_KV=1 NUM_WAR\n"
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library, failure.library_basis) == ("flashinfer", "FlashInfer", "its own error wording")


def test_a_module_qualified_exception_class_ends_the_traceback_with_its_message():
    # triton 3.9.0 triton/runtime/errors.py `class OutOfResources(TritonError)`, raised by compiler.py _init_handles:
    # CPython prints it with its module (traceback.format_exception_only), and the name says nothing of an error
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/triton_ops/extend_attention.py", line 420, in extend_attention_fwd
    _fwd_kernel[grid](
  File "/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", line 449, in _init_handles
    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")
triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 232448, Hardware limit: 232448. Reducing block sizes or `num_stages` may help.
"""  # noqa: E501 - the traceback as printed
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("triton", "Triton")
    assert failure.event.data["exception"] == "triton.runtime.errors.OutOfResources"
    assert failure.event.data["message"].startswith("out of resource: shared memory, Required: 232448")
    # a line in that form with no frames above it is no exception line of a traceback (a logger's `module.Name:`)
    assert _failures("sglang.srt.Engine: started\n") == []


def test_a_message_nixl_s_python_agent_raises_names_nixl():
    # nixl-cu12 1.5.1 nixl_cu12/_api.py:241, catalog/library_raises.json
    [failure] = _failures("RuntimeError: No plugins available for NIXL, cannot start transfers!\n")
    assert (failure.mechanism, failure.library) == ("nixl", "NIXL")


def test_a_torch_compile_graph_break_inside_sglang_s_words_names_torch_a_python_package():
    # torch 2.12.0 torch/_dynamo/graph_break_registry.json GB0007 "Attempted to call function marked as skipped", in
    # catalog/library_raises.json; sglang-23386 (built) states it in prose behind SGLang's piecewise CUDA graph words
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/model_executor/piecewise_cuda_graph_runner.py", line 301, in __init__
    self.capture()
  File "/usr/local/lib/python3.12/dist-packages/torch/_dynamo/variables/functions.py", line 1608, in call_function
    unimplemented_v2(
torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped
"""
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("python", "torch")
    said = "Exception: Piecewise CUDA Graph failed with error: Attempted to call function marked as skipped\n"
    [wrapped] = _failures(said)
    assert (wrapped.mechanism, wrapped.library) == ("python", "torch")
    assert "graph_break_registry.json GB0007" in str(wrapped.library_basis)


SPAWNED_CHILD = """\
Traceback (most recent call last):
  File "/root/DeepEP/tests/test_intranode.py", line 290, in <module>
    torch.multiprocessing.spawn(test_loop, args=(num_processes, args), nprocs=num_processes)
  File "/usr/local/lib/python3.12/dist-packages/torch/multiprocessing/spawn.py", line 340, in spawn
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
  File "/usr/local/lib/python3.12/dist-packages/torch/multiprocessing/spawn.py", line 215, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException:

-- Process 3 terminated with the following error:
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/torch/multiprocessing/spawn.py", line 90, in _wrap
    fn(i, *args)
  File "/root/DeepEP/tests/test_intranode.py", line 250, in test_loop
    buffer = deep_ep.Buffer(group, int(2e9), 0, low_latency_mode=False, num_qps_per_rank=1)
"""


def test_torch_spawn_s_wrapper_gives_way_to_the_child_s_traceback_cut_in_a_library_call():
    # torch 2.9.1 torch/multiprocessing/spawn.py:218-220: the parent re-raises the child's traceback as its message;
    # the child's, cut under a frame that calls deep_ep.Buffer(...), is the failure, in DeepEP's call (deepep-133's shape)
    [failure] = _failures(SPAWNED_CHILD)
    assert (failure.mechanism, failure.library) == ("deepep", "DeepEP")
    assert failure.event.line == 14
    # a whole traceback whose innermost frame makes such a call raised in that frame: nothing is claimed of the call
    # (a script outside DeepEP's own tree: a frame of its checkout, /root/DeepEP/tests/, names DeepEP by its file)
    whole = SPAWNED_CHILD.split("-- Process")[1].split("\n", 1)[1] + "ValueError: bad num_qps_per_rank\n"
    assert "DeepEP" not in [lib for _, lib in _named(whole.replace("/root/DeepEP/tests/", "/root/bench/"))]
    assert [lib for _, lib in _named(whole)] == ["DeepEP"]


def test_a_failure_the_deepep_buffer_rule_reports_carries_deepep_as_its_mechanism():
    # a failure named only by its words ("... DeepEP ..."): the rule that reports it as DeepEP's says so in `mechanism`
    from tests.helpers import analyze_text

    report = analyze_text("DeepEP low-latency mode fails with an error when the buffer is created on 16 ranks.\n")
    found = {f["rule"]: f.get("mechanism") for f in report["findings"]}
    assert found.get("deepep-buffer") == "deepep"


def test_a_flashinfer_cpp_error_without_its_path_names_flashinfer():
    # flashinfer-python 0.7.4 flashinfer/data/include/flashinfer/attention/scheduler.cuh: err_msg << "Number of kv splits "
    # << ... << " exceeds max buffer size " << ... << ". Please increase the threshold." (catalog/library_raises.json)
    [failure] = _failures("RuntimeError: Number of kv splits 96 exceeds max buffer size 64. Please increase the threshold.\n")
    assert (failure.mechanism, failure.library) == ("flashinfer", "FlashInfer")
    assert "scheduler.cuh" in str(failure.library_basis)


def test_a_mooncake_source_file_the_default_wheel_does_not_build_still_names_mooncake():
    # mooncake-965 (built): the MNNVL transport (mooncake-transfer-engine/src/transport/nvlink_transport/
    # nvlink_transport.cpp) is not in the default wheel's strings; catalog/libraries.json reads Mooncake's other sources
    # from its git source's release tag
    line = "E1024 06:51:59.688545 162143 nvlink_transport.cpp:603] NvlinkTransport: cuMemCreate failed: 800\n"
    [failure] = _failures(line)
    assert (failure.mechanism, failure.library) == ("pd_transfer", "Mooncake")
    assert failure.event.data["source"] == "transport/nvlink_transport/nvlink_transport.cpp:603"


def test_a_failure_wording_only_one_library_s_released_objects_print_names_it():
    # catalog/library_messages.json (python -m tools.upstream libraries): sgl-kernel 0.3.21 sm90/common_ops holds
    # "GemmaRMSNorm failed with error code " (its copy of FlashInfer's norm, whose namespace its objects hold);
    # sglang-24302 (built): the exception line alone, in a fence
    text = "RuntimeError: GemmaRMSNorm failed with error code no kernel image is available for execution on the device\n"
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("sgl_kernel", "sgl-kernel")
    assert failure.library_basis == ("a failure wording only its released objects print ('GemmaRMSNorm failed with error code')")


def test_a_wording_the_linker_stored_inside_a_longer_one_names_its_library_too():
    # meds-eic-ar-163 (built): "RMSNorm failed with error code " is no string of its own in sgl-kernel's objects; GNU
    # ld's tail merging stored it as the end of "GemmaRMSNorm failed with error code "
    text = "RuntimeError: RMSNorm failed with error code no kernel image is available for execution on the device\n"
    assert _named(text) == [("sgl_kernel", "sgl-kernel")]


def test_a_wording_several_libraries_print_or_a_bare_runtime_call_names_none():
    # the CUDA runtime's own text is linked into several libraries' objects; a CUDA API call's failure ("cudaMalloc
    # failed.", a string of NVSHMEM's objects alone) is what any library calling it prints
    assert _named("RuntimeError: no kernel image is available for execution on the device\n") == [(None, None)]
    assert _named("RuntimeError: cudaMalloc failed.\n") == [(None, None)]
    # deepgemm-359 (built): DeepGEMM's driver check; "CUDA driver error" is also a string of FlashInfer's sources, but
    # three plain words and an acronym name no library
    text = "CUDA driver error (csrc/.../jit/handle.hpp:141): 200 (CUDA_ERROR_INVALID_IMAGE,\n  device kernel image is invalid)\n"
    assert "FlashInfer" not in [f.library for f in _failures(text)]
    # nvshmem-81 (built): NVSHMEM 3.8.0's IB transports print "ibv_dealloc_pd failed", and another library of the table
    # prints the same two words before its own conversion: they name neither
    text = 'When using the IBGDA transport mode, an error "**ibv_dealloc_pd failed**" occurs at program termination.\n'
    assert [f.library for f in _failures(text)] == [None]


def test_a_source_file_of_nvshmem_s_transport_plugins_names_nvshmem():
    # megatron-bridge-5050 (built): the IBGDA transport's own file, a source path of nvshmem_transport_ibgda.so.7 (NVSHMEM
    # 3.8.0), which catalog/libraries.json reads beside libnvshmem_host.so
    text = (
        "/dvs/p4/build/sw/rel/gpgpu/toolkit/r13.0/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2966: non-zero"
        " status: 7 create DCT share err.\n"
    )
    assert _named(text) == [("nvshmem", "NVSHMEM")]


def test_a_wording_of_code_that_torch_vendors_names_no_library_of_the_table():
    # review9 item 5: pybind11's cast error (torch 2.9.1 torch/include/pybind11/cast.h), which Mooncake's objects also
    # hold since they compile pybind11 in, is no wording of Mooncake's own
    text = "RuntimeError: Unable to cast Python instance of type <class 'int'> to C++ type '?'\n"
    assert "Mooncake" not in [f.library for f in _failures(text)]
    text = (
        "ImportError: Python version mismatch: module was compiled for Python 3.10, but the interpreter version is"
        " incompatible: 3.12.3\n"
    )
    assert "Mooncake" not in [f.library for f in _failures(text)]


def test_a_wording_sglang_raises_itself_names_sglang_before_a_library_s_objects():
    # review9 item 5: sglang 0.5.23 multimodal_gen/.../ipc_a2a_multi.py:239 raises it (FlashInfer's sources hold it too)
    assert _named("RuntimeError: cuMemcpy2DAsync failed with CUresult 1\n") == [("sglang", "SGLang")]
    # "Unsupported head_dim" is a wording of sgl-kernel's objects, and SGLang's own modules print it too (0.5.23
    # kernels/ops/attention/fused_qknorm_rope.py:116, a warning, no raise): it names neither
    text = "ValueError: Unsupported head_dim=80 for JIT fused_qk_norm_rope kernel\n"
    assert [f.library for f in _failures(text)] == [None]


def test_a_phrase_of_plain_english_words_names_no_library_whatever_its_length():
    # review9 item 5: "Unable to get info from" (five plain words of NVSHMEM's objects) is anybody's wording
    assert "NVSHMEM" not in [f.library for f in _failures("RuntimeError: Unable to get info from /dev/nvidia0\n")]
