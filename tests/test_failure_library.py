"""Which library a failure is attributed to when no signature names its mechanism (issue 43): the library whose
code raised it, from the exception's module, a source path in its message, the innermost frame of an installed
package (catalog/python_modules.json, read from the released wheels), CUDA's runtime errors with no library under
them, another Python package, and SGLang's own raises (its catalogued wordings, its frames). Each case is
constructed in the shape people paste; the quiet cases prove what is not claimed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logscope.core.model import Failure
from logscope.core.python_libraries import frame_package, is_stdlib_frame, module_library
from logscope.core.resources import data_dir
from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def _named(text: str) -> list[tuple[str | None, str | None]]:
    return [(f.mechanism, f.library) for f in _failures(text)]


FLASHINFER_JIT = """\
Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/flashinfer/jit/core.py", line 109, in build
    run_ninja(self.build_dir, self.ninja_path, verbose)
  File "/opt/venv/lib/python3.11/site-packages/flashinfer/jit/cpp_ext.py", line 168, in run_ninja
    subprocess.run(command, stdout=sys.stdout, stderr=subprocess.STDOUT, cwd=str(workdir), check=True)
  File "/usr/lib/python3.11/subprocess.py", line 548, in run
    with Popen(*popenargs, **kwargs) as process:
  File "/usr/lib/python3.11/subprocess.py", line 1955, in _execute_child
    raise child_exception_type(errno_num, err_msg, err_filename)
FileNotFoundError: [Errno 2] No such file or directory: 'ninja'
"""


def test_the_innermost_installed_package_names_the_library_past_the_standard_library_frames():
    assert _named(FLASHINFER_JIT) == [("flashinfer", "FlashInfer")]
    [failure] = _failures(FLASHINFER_JIT)
    assert failure.library_frame is not None and "jit/cpp_ext.py:168 run_ninja" in failure.library_frame


def test_the_exception_s_module_names_the_library():
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/triton/runtime/jit.py", line 594, in run
    kernel = self.compile(src, target=target, options=options.__dict__)
  File "/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", line 359, in compile
    next_module = compile_ir(module, metadata)
triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error
"""
    assert _named(text) == [("triton", "Triton")]
    # the module alone, with no frame: a line cut out of a log
    assert _named("triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n") == [("triton", "Triton")]


def test_a_library_s_source_path_in_the_message_names_it():
    text = (
        "subprocess.CalledProcessError: Command '['ninja', '-v', '-C', '/root/.cache/flashinfer/90/cached_ops', "
        "'-f', '/root/.cache/flashinfer/90/cached_ops/build.ninja']' returned non-zero exit status 1.\n"
    )
    assert _named(text) == [("flashinfer", "FlashInfer")]


SGLANG_CUDA = """\
[2026-05-02 09:14:55 TP3] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2704, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py", line 112, in forward
    batch_next_token_ids = torch.multinomial(probs, num_samples=1)
RuntimeError: CUDA error: {error}
"""


@pytest.mark.parametrize(
    "error",
    [
        "an illegal memory access was encountered",
        "device-side assert triggered",
        "CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF)`",
        "unspecified launch failure (cudaErrorLaunchFailure)",
    ],
)
def test_a_cuda_error_with_no_library_frame_under_it_is_cuda_s_not_sglang_s(error):
    assert _named(SGLANG_CUDA.format(error=error)) == [("cuda", "CUDA")]


def test_a_cuda_error_under_a_library_s_frame_is_that_library_s():
    text = SGLANG_CUDA.format(error="an illegal memory access was encountered").replace(
        "/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py",
        "/usr/local/lib/python3.12/dist-packages/flashinfer/sampling.py",
    )
    assert _named(text) == [("flashinfer", "FlashInfer")]


def test_an_exception_raised_in_another_python_package_is_python_s_named_by_the_package():
    text = """\
Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/hf_transformers_utils.py", line 143, in get_config
    config = AutoConfig.from_pretrained(model, trust_remote_code=trust_remote_code, revision=revision, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/transformers/models/auto/configuration_auto.py", line 1073, in from_pretrained
    raise ValueError(
ValueError: The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not recognize this arch.
"""
    assert _named(text) == [("python", "transformers")]


def test_pytorch_s_internal_assert_is_pytorch_s():
    text = (
        'RuntimeError: captures_underway.empty() INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":2967, '
        "please report a bug to PyTorch.\n"
    )
    assert _named(text) == [("python", "torch")]


def test_a_message_sglang_raises_names_sglang_from_the_catalogue():
    # sglang 0.5.20-0.5.23 arg_groups/memory_hook.py handle_offload_compatibility (catalog/sglang.json, kind raise)
    message = (
        "--ple-offload-embedding cannot be combined with --cpu-offload-gb or --offload-group-size: generic layer offload "
        "would stage the pinned PLE embedding back to the device."
    )
    assert _named(f"ValueError: {message}\n") == [("sglang", "SGLang")]
    assert _named(f"KeyError: {message}\n") == [(None, None)]  # SGLang raises it as a ValueError only


def test_the_standard_library_under_sglang_s_frame_leaves_sglang_the_raiser():
    text = """\
Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/utils/common.py", line 684, in assert_pkg_version
    installed_version = version(pkg)
  File "/opt/conda/lib/python3.11/importlib/metadata/__init__.py", line 563, in from_name
    raise PackageNotFoundError(name)
importlib.metadata.PackageNotFoundError: No package metadata was found for sgl-kernel
"""
    [failure] = _failures(text)
    assert (failure.mechanism, failure.signature) == ("sglang", "sglang-raised-srt")


CUT_IN_SGLANG = """\
ERROR 2026-06-15T14:10:59.392125190Z AssertionError: pool already released (self.free_slots=3)
ERROR 2026-06-15T14:10:59.392128409Z [2026-06-15 14:10:59 TP2] Scheduler hit an exception: Traceback (most recent call last):
ERROR 2026-06-15T14:10:59.39Z File "/sgl-workspace/sglang/python/sglang/srt/managers/sched.py", line 270, in run_scheduler_process
ERROR 2026-06-15T14:10:59.392132236Z scheduler.event_loop_overlap()
ERROR 2026-06-15T14:10:59.39Z File "/sgl-workspace/sglang/python/sglang/srt/managers/sched.py", line 1024, in event_loop_overlap
ERROR 2026-06-15T14:10:59.392145373Z batch = self.get_next_batch_to_run()
ERROR 2026-06-15T14:10:59.392152816Z File "/sgl-workspace/sglang/python/sglang
"""


def test_an_exception_whose_innermost_frame_is_cut_inside_sglang_s_tree_is_sglang_s():
    named = [(f.mechanism, f.library, f.phase) for f in _failures(CUT_IN_SGLANG) if f.event.kind == "exception"]
    assert named == [("sglang", "SGLang", "serving")]


def test_what_names_no_package_is_not_attributed():
    user_script = """\
Traceback (most recent call last):
  File "/home/me/bench/run_load.py", line 41, in <module>
    main()
  File "/home/me/bench/run_load.py", line 37, in main
    raise ValueError("no prompts left")
ValueError: no prompts left
"""
    assert _named(user_script) == [(None, None)]
    # a cut traceback whose innermost shown frame is SGLang's is attributed from that frame (docs/design.md: "A
    # traceback cut before its last line is still attributed from its frames"), its basis saying so
    cut = "Traceback (most recent call last):\n" + SGLANG_CUDA.splitlines()[1] + "\n" + SGLANG_CUDA.splitlines()[2] + "\n"
    assert _named(cut) == [("sglang", "SGLang")]


def test_the_module_table_is_read_from_the_released_wheels():
    doc = json.loads((data_dir("catalog") / "python_modules.json").read_text())
    assert doc["wheels"]["Triton"].startswith("triton-")
    assert module_library("flashinfer.jit.core") == "FlashInfer"
    assert module_library("deep_gemm") == "DeepGEMM"  # carried by sgl-kernel's wheel, named after its own library
    assert module_library("sgl_kernel.flash_attn") == "sgl-kernel"
    assert module_library("torch.cuda") is None


@pytest.mark.parametrize(
    ("frame", "package"),
    [
        ("/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py:10 f", "sglang"),
        ("/sgl-workspace/sglang/python/sglang/srt/utils.py:684 assert_pkg_version", "sglang"),
        ("/home/u/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:300 _lazy_init", "torch"),
        ("/opt/conda/lib/python3.11/importlib/metadata/__init__.py:563 from_name", None),
        ("<frozen runpy>:88 _run_code", None),
        ("python/tvm_ffi/cython/function.pxi:814 core.Function.__call__", None),
        ("/home/me/run.py:3 main", None),
    ],
)
def test_a_frame_s_package(frame, package):
    assert frame_package(frame) == package
    assert is_stdlib_frame(frame) == ("importlib" in frame or "frozen" in frame)


@pytest.mark.parametrize(
    ("line", "library"),
    [
        ("ModuleNotFoundError: No module named 'sgl_kernel'", "sgl-kernel"),
        (
            "ImportError: cannot import name 'top_k_renorm_prob' from 'flashinfer.sampling' "
            "(/usr/local/lib/python3.10/dist-packages/flashinfer/sampling.py)",
            "FlashInfer",
        ),
        (
            "ImportError: /usr/local/lib/python3.10/dist-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: "
            "_ZN3c104cuda9SetDeviceEi",
            "sgl-kernel",
        ),
    ],
)
def test_a_failed_import_of_a_library_names_it(line, library):
    assert [lib for _, lib in _named(line + "\n")] == [library]


C10_BACKTRACE = """\
Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f2a5c56c446 in /opt/torch/lib/libc10.so)
"""


@pytest.mark.parametrize(
    ("text", "library"),
    [
        # the c10d watchdog's report and a C++ exception's what(): no exception line, still a failure, CUDA's
        (
            "[rank3]:[E1203 10:00:00.000000000 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 3] Process group "
            "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n",
            "CUDA",
        ),
        (
            "terminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA error: an illegal memory access was encountered\n",
            "CUDA",
        ),
        (C10_BACKTRACE, "CUDA"),
        # Triton's launcher checks the CUDA call itself: its report is Triton's
        ("RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered\n", "Triton"),
        # torch's op dispatch runs the op of the library that called it
        (
            "Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.10/dist-packages/sgl_kernel/moe.py", line 78, in moe_fused_gate\n'
            "    return torch.ops.sgl_kernel.moe_fused_gate.default(\n"
            '  File "/usr/local/lib/python3.10/dist-packages/torch/_ops.py", line 1123, in __call__\n'
            "    return self._op(*args, **(kwargs or {}))\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n",
            "sgl-kernel",
        ),
    ],
)
def test_cuda_errors_in_every_shape_name_cuda_or_the_library_that_checked_or_ran_it(text, library):
    assert [lib for _, lib in _named(text)] == [library]


def test_a_verdict_names_the_library_once():
    [finding] = analyze_sources(
        [Source(name="paste.log", path=None, data=SGLANG_CUDA.format(error="an illegal memory access was encountered").encode())]
    )["findings"]
    assert finding["mechanism"] == "cuda" and finding["library"] == "CUDA"
    assert "(CUDA)" not in finding["message"]
    assert "It was raised in CUDA (a CUDA runtime error, and no library's frame or path under it)." in finding["message"]


def test_an_op_of_a_library_s_namespace_names_it_not_the_sglang_frame_that_called_it():
    text = """\
Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/layers/quantization/fp8_kernel.py", line 912, in sglang_per_token_quant_fp8
    torch.ops.sgl_kernel.sgl_per_token_quant_fp8.default(x, x_q, x_s)
RuntimeError: Expected x.is_contiguous() to be true, but got false.
"""
    assert _named(text) == [("sgl_kernel", "sgl-kernel")]
    line = "RuntimeError: sgl_kernel::fp8_scaled_mm() Expected a value of type 'Tensor' for 'mat_a' but found 'NoneType'.\n"
    assert _named(line) == [("sgl_kernel", "sgl-kernel")]
    assert _named("RuntimeError: c10::Error: bad state\n") == [(None, None)]  # c10 is no library of the table


def test_sglang_s_frame_outside_srt_that_raised_is_sglang_s_a_user_s_frame_under_it_is_not():
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/launch_server.py", line 14, in <module>
    server_args = prepare_server_args(sys.argv[1:])
  File "/usr/local/lib/python3.12/dist-packages/sglang/cli/utils.py", line 52, in get_model_path
    raise ValueError("--model-path is required")
ValueError: --model-path is required
"""
    assert _named(text) == [("sglang", "SGLang")]
    user = text.replace(
        "ValueError: --model-path is required",
        '  File "/home/me/plugins/my_hook.py", line 3, in hook\n    raise ValueError("bad")\nValueError: bad',
    )
    assert _named(user) == [(None, None)]


def test_an_assert_message_of_sglang_s_names_sglang_with_the_releases_that_hold_it():
    # sglang 0.5.11-0.5.23: assert ..., f"num_heads ({...}) must be divisible by attn_tp_size ({...})"
    [failure] = _failures("AssertionError: num_heads (28) must be divisible by attn_tp_size (8)\n")
    assert (failure.mechanism, failure.library) == ("sglang", "SGLang")
    assert failure.library_basis is not None and "sglang 0.5.11-0.5.23" in failure.library_basis
    assert _named("AssertionError: my plugin expected 3 shards, found 2 of them\n") == [(None, None)]
    # the same words under another exception class are no assert of SGLang's
    assert _named("ValueError: num_heads (28) must be divisible by attn_tp_size (8)\n") == [(None, None)]


def test_the_assert_table_is_read_from_every_catalogued_release():
    doc = json.loads((data_dir("catalog") / "sglang_asserts.json").read_text())
    lines = (Path(__file__).resolve().parent.parent / "tools" / "upstream" / "versions.txt").read_text().splitlines()
    versions = [line.split("#", 1)[0].strip() for line in lines]
    assert doc["versions"] == [v for v in versions if v]
    assert all(len(row["template"].replace("{}", "").strip()) >= 16 for row in doc["asserts"])


def test_a_notice_carries_no_failure_mechanism_or_library():
    # SGLang's custom all-reduce fallback is matched by a signature, yet it is no failure: the finding keeps where
    # it was printed and what matched, never a failure's mechanism (which bots and the corpus score read as "failed")
    from logscope.pipeline.analyze import analyze_sources

    text = (
        "[2026-02-03 08:11:40 TP0] Custom allreduce is disabled because this process group spans across nodes.\n"
        "[2026-02-03 08:11:41 TP0] Init torch distributed ends. mem usage=0.42 GB\n"
    )
    report = analyze_sources([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for f in report["findings"] if f["rule"] == "custom-ar-disabled"]
    assert len(found) == 1 and found[0]["signature"]
    assert found[0]["mechanism"] is None and "library" not in found[0]


def test_a_library_s_own_raise_inside_sglang_s_capture_wrapper_names_that_library():
    # flashinfer-python 0.7.4 compilation_context.py:162 get_nvcc_flags_list: raise RuntimeError(f"No supported CUDA
    # architectures found for major versions {supported_major_versions}."); SGLang's cuda_graph_runner wraps it in
    # raise Exception(f"Capture cuda graph failed: {e}\n{CUDA_GRAPH_CAPTURE_FAILED_MSG}")
    text = (
        "[2026-01-09 03:14:55 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
        "Exception: Capture cuda graph failed: No supported CUDA architectures found for major versions [12].\n"
        "Possible solutions:\n"
    )
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library, failure.phase) == ("flashinfer", "FlashInfer", "capture")
    assert failure.library_basis is not None and "compilation_context.py" in failure.library_basis
    # the same words without a library wording are SGLang's wrapper as before; a paraphrase names no library
    assert _named("Exception: Capture cuda graph failed: my own kernel broke down here\n") == [("sglang", "SGLang")]
    assert _named("RuntimeError: no CUDA architectures were supported for majors [12]\n") == [(None, None)]


def test_the_library_raise_table_is_read_from_the_released_wheels():
    doc = json.loads((data_dir("catalog") / "library_raises.json").read_text())
    assert set(doc["wheels"]) == {"FlashInfer", "sgl-kernel", "NIXL", "torch"}
    assert all(len(row["template"].replace("{}", "").strip()) >= 24 for row in doc["raises"])
    assert any(row["where"].startswith("flashinfer/compilation_context.py:") for row in doc["raises"])


TVM_FFI_JIT_BUILD = """\
[2026-05-28 10:11:12 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/rotary_embedding.py", line 233, in forward_cuda
    apply_rope_with_cos_sin_cache_inplace(positions, query, key, self.head_size, self.cos_sin_cache)
  File "/usr/local/lib/python3.12/dist-packages/sglang/jit_kernel/rope.py", line 41, in _jit_fused_rope_module
    return load_jit("fused_rope", *args, cuda_files=["elementwise/rope.cuh"])
  File "/usr/local/lib/python3.12/dist-packages/sglang/jit_kernel/utils.py", line 208, in load_jit
    return load_inline(
  File "/usr/local/lib/python3.12/dist-packages/tvm_ffi/cpp/extension.py", line 823, in load_inline
    build_ninja(str(build_dir))
  File "/usr/local/lib/python3.12/dist-packages/tvm_ffi/cpp/extension.py", line 671, in build_ninja
    raise RuntimeError("\\n".join(msg))
RuntimeError: ninja exited with status 1
"""


def test_a_jit_kernel_build_that_failed_names_sgl_kernel_from_sglang_s_loader_or_the_module_it_builds():
    # apache-tvm-ffi 0.1.15.post2 cpp/extension.py build_ninja: raise RuntimeError("ninja exited with status N ...")
    # under SGLang's load_jit (sglang 0.5.11 jit_kernel/utils.py:208), whose modules are named "sgl_kernel_jit_..."
    [failure] = _failures(TVM_FFI_JIT_BUILD)
    assert (failure.mechanism, failure.library) == ("sgl_kernel", "sgl-kernel")
    assert failure.library_frame is not None and "jit_kernel/utils.py:208 load_jit" in failure.library_frame
    # sglang 0.5.23 kernels/jit/utils/compile/ninja.py: f"Failed to build JIT module {spec.module_name} in {build_dir}"
    built = "RuntimeError: Failed to build JIT module sgl_kernel_jit_fused_rope_true_256_false_bf16_t in /root/.cache/x\n"
    assert _named(built) == [("sgl_kernel", "sgl-kernel")]
    # a CUDA error raised by a JIT kernel's own frame stays CUDA's: no build tool ran under the loader
    launched = TVM_FFI_JIT_BUILD.split('  File "/usr/local/lib/python3.12/dist-packages/tvm_ffi')[0] + (
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    assert _named(launched) == [("cuda", "CUDA")]


def test_sgl_kernel_s_loader_error_behind_a_launcher_s_words_is_named_sgl_kernel():
    # sgl-kernel 0.3.21 load_utils.py: raise ImportError(error_msg), error_msg = f"""\n[sgl_kernel] CRITICAL: ..."""; a
    # launcher logs the exception after its own words, so the message starts on the line under them
    text = (
        "2026-04-11 08:12:09,551 xinference.core.worker 88 ERROR    Failed to load model qwen3-0: [pid=512] \n"
        "[sgl_kernel] CRITICAL: Could not load any common_ops library!\n"
    )
    assert _named(text) == [("sgl_kernel", "sgl-kernel")]


PACKAGE_TREE_RAISE = """\
Traceback (most recent call last):
  File "/workspace/app/infra/rpc/rpc_server.py", line 750, in execute_in_engine_thread
    result = method(*args_bcast, **kwargs_bcast)
  File "/workspace/app/engine/sglang_remote.py", line 405, in launch_server
    return self._engine.launch_server(server_args)
  File "/workspace/app/infra/remote_inf_engine.py", line 365, in _wait_for_server
    raise TimeoutError("server launch failed")
TimeoutError: server launch failed
"""


def test_a_raise_statement_in_a_package_tree_of_no_known_package_is_python_s_named_by_its_folder():
    [failure] = _failures(PACKAGE_TREE_RAISE)
    assert (failure.mechanism, failure.library) == ("python", "app")
    assert failure.library_frame is not None and "remote_inf_engine.py:365 _wait_for_server" in failure.library_frame
    # the frame's statement raises another class than the exception shown: not its raise
    assert _named(PACKAGE_TREE_RAISE.replace("TimeoutError: server", "KeyError: server")) == [(None, None)]
    # one folder only (a script and its helper side by side): no package tree shows
    flat = PACKAGE_TREE_RAISE.replace("/infra/rpc/", "/").replace("/engine/", "/").replace("/infra/", "/")
    assert _named(flat) == [(None, None)]


def test_a_c10_error_backtrace_from_torch_s_source_is_torch_s_a_library_s_own_file_is_that_library_s():
    backtrace = """\
Exception raised from reportProcessMemoryInfo at /pytorch/c10/cuda/CUDACachingAllocator.cpp:1165 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d (0x7f852f77305d in /opt/torch/lib/libc10.so)
frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, char const*) + 0x69 (0x7f85 in /t/libc10.so)
frame #2: <unknown function> + 0x44012 (0x7f852fb4b012 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10_cuda.so)
"""
    assert _named(backtrace) == [("python", "torch")]
    elsewhere = backtrace.replace("/pytorch/c10/cuda/CUDACachingAllocator.cpp", "/workspace/ext/csrc/ops.cpp")
    assert _named(elsewhere) == [(None, None)]


def test_a_message_sglang_raises_in_any_module_names_sglang_with_the_releases_that_hold_it():
    # sglang 0.5.3.post3-0.5.23 server_args.py get_global_server_args: raise ValueError("Global server args is not set
    # yet!"), outside the catalogue's memory-relevant areas (catalog/sglang_raises.json)
    [failure] = _failures("ValueError: Global server args is not set yet!\n")
    assert (failure.mechanism, failure.library) == ("sglang", "SGLang")
    assert failure.library_basis is not None and "sglang 0.5.3.post3-" in failure.library_basis
    assert _named("KeyError: Global server args is not set yet!\n") == [(None, None)]  # SGLang raises it as a ValueError
    # the same words raised in full by another installed package's frame: that package raised them
    other = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/otherpkg/config.py", line 12, in get_args
    raise ValueError("Global server args is not set yet!")
ValueError: Global server args is not set yet!
"""
    assert _named(other) == [("python", "otherpkg")]


def test_the_sglang_raise_table_is_read_from_every_catalogued_release():
    doc = json.loads((data_dir("catalog") / "sglang_raises.json").read_text())
    assert doc["versions"][0] == "0.3.0" and len(doc["versions"]) > 40
    rows = {(r["template"], r["exception"]): (r["first"], r["last"]) for r in doc["raises"]}
    assert rows[("Global server args is not set yet!", "ValueError")][0] == "0.5.3.post3"
    # CPython's own wording, which SGLang's module __getattr__s repeat, is left out (libpython's strings)
    assert doc["cpython"] and ("'{}' object has no attribute '{}'", "AttributeError") not in rows
    assert _named("AttributeError: 'NoneType' object has no attribute 'shape'\n") == [(None, None)]


def test_a_wording_of_too_few_words_to_be_sglang_s_alone_names_nobody():
    # review7 item 10b: "{} has shape {}, expected ({}, {})" (sglang 0.5.18-0.5.23) fits any Python code's message
    assert _named("ValueError: weight has shape (3, 4), expected (4, 4)\n") == [(None, None)]
    assert _named("ValueError: Expected 8 experts in layer 3, got 4\n") == [(None, None)]
    rows = {r["template"] for r in json.loads((data_dir("catalog") / "sglang_raises.json").read_text())["raises"]}
    assert "{} has shape {}, expected ({}, {})" not in rows and "Global server args is not set yet!" in rows
    from tools.upstream.sglang_raises import is_generic_wording

    assert is_generic_wording("`out` must be contiguous.")  # 18 letters
    assert is_generic_wording("Expected {} experts in {}, got {}")  # its anchor " experts in ": two words
    assert not is_generic_wording("Global server args is not set yet!")


# flashinfer-python 0.2.5-0.7.4 include/flashinfer/exception.h: flashinfer::Error's what() is "Error in function
# '<func>' at <__FILE__>:<line>: <message>"; its JIT builds compile the wheel's flashinfer/data/ tree, its
# ahead-of-time kernels were built from the repository's own csrc/ (the path as built, /workspace/csrc/...)
FLASHINFER_ERROR = (
    "Error in function 'BatchPrefillWithPagedKVCacheDispatched' at /usr/local/lib/python3.12/dist-packages/flashinfer/"
    "data/include/flashinfer/attention/prefill.cuh:2436: Invalid configuration : NUM_MMA_Q=1 NUM_MMA_D_QK=8"
)
FLASHINFER_THROUGH_SGLANG = f"""\
[2025-10-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2600, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/flashinfer_backend.py", line 400, in plan
    self.indices_updater_prefill.update(
RuntimeError: {FLASHINFER_ERROR}
"""


def test_a_library_s_error_passed_on_by_sglang_s_frame_names_that_library():
    """SGLang's attention backend is the innermost frame, but the message is FlashInfer's own error with its source
    path: FlashInfer raised it (before: `sglang-raised-srt`, SGLang named)."""
    [failure] = _failures(FLASHINFER_THROUGH_SGLANG)
    assert (failure.mechanism, failure.library, failure.signature) == ("flashinfer", "FlashInfer", None)
    assert failure.phase == "serving"  # still placed by the scheduler's frames


def test_sglang_s_frame_with_a_message_that_names_no_library_stays_sglang_s():
    text = FLASHINFER_THROUGH_SGLANG.replace(
        FLASHINFER_ERROR, "Error in function 'run' at /home/user/myproj/csrc/batch_runner.cu:286: kernel failed"
    )
    [failure] = _failures(text)
    assert (failure.mechanism, failure.signature) == ("sglang", "sglang-raised-srt")


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: Error in function 'run' at /workspace/csrc/trtllm_batched_gemm_runner.cu:286: Error occurred when"
        " running GEMM!\n",
        # tvm-ffi's wrapper prints the what() on the lines under the exception's name
        "tvm.error.InternalError:\nError in function 'run' at /workspace/csrc/trtllm_fused_moe_kernel_launcher.cu:1123:\n"
        "Unsupported architecture\n",
    ],
)
def test_a_source_path_as_built_of_a_wheel_s_data_tree_names_its_library(text: str):
    """flashinfer-python ships csrc/ as flashinfer/data/csrc/ (catalogued data/csrc/<file>); its AOT build prints the
    repository's path."""
    assert _named(text) == [("flashinfer", "FlashInfer")]


def test_a_csrc_file_no_library_ships_names_none():
    assert _named("RuntimeError: Error in function 'run' at /workspace/csrc/my_own_kernel.cu:12: bad\n") == [(None, None)]


# flashinfer-python 0.2.5-0.7.4 get_batch_prefill_uri: the JIT module's name is the op namespace torch's dispatcher prints
FLASHINFER_JIT_OP = (
    "RuntimeError: batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_dtype_o_bf16_dtype_idx_i32_head_dim_qk_128_"
    "head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_False_f16qk_False::plan() expected at most 16 argument(s)"
    " but received 17 argument(s).\n"
)


def test_flashinfer_s_jit_module_named_in_an_op_error_names_flashinfer():
    assert _named(FLASHINFER_JIT_OP) == [("flashinfer", "FlashInfer")]
    # under SGLang's attention backend frame too (not sglang-raised-srt)
    text = FLASHINFER_THROUGH_SGLANG.replace(f"RuntimeError: {FLASHINFER_ERROR}\n", FLASHINFER_JIT_OP)
    assert _named(text) == [("flashinfer", "FlashInfer")]


def test_a_module_name_without_flashinfer_s_uri_shape_names_nothing():
    text = "RuntimeError: my_prefill_module::plan() expected at most 16 argument(s) but received 17 argument(s).\n"
    assert _named(text) == [(None, None)]


# apache-tvm-ffi 0.1.15.post2 python/tvm_ffi/error.py _with_append_backtrace: an error raised in a kernel library's
# C++ code carries its C++ backtrace appended to the Python traceback as frames of Python's form, then the exception line
TVM_FFI_ERROR = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/moe/fused_moe_triton/layer.py", line 900, in forward
    return self.runner.run(dispatch_output, quant_info)
  File "/usr/local/lib/python3.12/dist-packages/flashinfer/fused_moe/core.py", line 1660, in trtllm_fp8_block_scale_moe_op
    result = moe_op.trtllm_fp8_block_scale_moe(
  File "python/tvm_ffi/cython/function.pxi", line 923, in tvm_ffi.core.Function.__call__
  File "<unknown>", line 0, in __tvm_ffi_trtllm_fp8_block_scale_moe
  File "/usr/local/lib/python3.12/dist-packages/flashinfer/data/csrc/trtllm_fused_moe_kernel_launcher.cu", line 1580, in run
    TVM_FFI_ICHECK(hidden_states.size(1) % 128 == 0)
RuntimeError: Check failed: (hidden_states.size(1) % 128 == 0) is false: hidden_size must be divisible by 128
"""


def test_tvm_ffi_s_appended_native_frames_keep_the_traceback_to_its_exception_line():
    """Before: the first native frame closed the traceback ('a traceback cut before its exception line')."""
    [failure] = _failures(TVM_FFI_ERROR)
    assert (failure.mechanism, failure.library) == ("flashinfer", "FlashInfer")
    assert failure.event.data.get("exception") == "RuntimeError"
    assert "hidden_size must be divisible by 128" in failure.event.text
    assert not failure.event.data.get("incomplete")


def test_sgl_kernel_s_runtime_check_passed_on_by_sglang_s_frame_names_sgl_kernel():
    """A source path of sgl-kernel's csrc/ in the message under SGLang's MoE frame (before: sglang-raised-srt)."""
    text = FLASHINFER_THROUGH_SGLANG.replace(
        f"RuntimeError: {FLASHINFER_ERROR}",
        "RuntimeError: Runtime check failed at /sgl-workspace/sglang/sgl-kernel/csrc/moe/moe_fused_gate.cu:420: bad",
    )
    assert _named(text) == [("sgl_kernel", "sgl-kernel")]


@pytest.mark.parametrize(
    ("line", "package"),
    [
        ("ModuleNotFoundError: No module named 'vllm'\n", "vllm"),
        (
            "ImportError: cannot import name 'is_torch_fx_available' from 'transformers.utils'"
            " (/usr/local/lib/python3.12/dist-packages/transformers/utils/__init__.py)\n",
            "transformers",
        ),
        ("AttributeError: module 'transformers' has no attribute 'Qwen3VLForConditionalGeneration'\n", "transformers"),
    ],
)
def test_an_import_error_of_a_package_outside_the_table_is_another_python_package_s(line: str, package: str):
    assert _named(line) == [("python", package)]


def test_an_import_error_of_the_standard_library_names_no_package():
    assert _named("ModuleNotFoundError: No module named '_lzma'\n") == [(None, None)]


# a frame line a copy broke after its path: the released frame (sglang 0.5.10.post1 mem_cache/memory_pool.py
# _init_mamba_pool, run while the memory pool is set up) still places the failure
BROKEN_FRAME = """\
## Error
File "/home/u/sglang-env/lib/python3.10/site-packages/sglang/srt/mem_cache/memory_pool.py",
line 499, in _init_mamba_pool
torch.OutOfMemoryError: CUDA out of memory.
Tried to allocate 18.56 GiB.
"""


def test_a_frame_line_broken_after_its_path_is_one_frame():
    [failure] = _failures(BROKEN_FRAME)
    assert (failure.mechanism, failure.phase) == ("memory", "memory_pool")
    assert failure.event.data["frames"] == ["memory_pool.py:499 _init_mamba_pool"]
    assert not failure.event.data.get("cut_frame")


def test_a_path_alone_with_no_line_after_it_stays_a_cut_frame():
    text = BROKEN_FRAME.replace("line 499, in _init_mamba_pool\n", "")
    [failure] = _failures(text)
    assert failure.phase != "memory_pool"


CUT_UNDER_SGLANG = """\

[2026-03-19 13:32:53 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3000, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 400, in __init__
    self.tp_worker = TpModelWorker(
"""


def test_a_cut_traceback_s_raiser_is_the_library_the_issue_s_sentence_names():
    """The frames that would name the raiser were cut away; the sentence stating the failure names one library."""
    text = "With DeepGEMM enabled the server crashes during CUDA graph capture.\n" + CUT_UNDER_SGLANG
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("deepgemm", "DeepGEMM")
    assert failure.library_basis is not None and "lower confidence" in failure.library_basis
    # the log alone: SGLang's frame, as before
    assert _named(CUT_UNDER_SGLANG) == [("sglang", "SGLang")]


def test_two_libraries_stated_name_neither_and_a_shown_raiser_is_kept():
    text = "With DeepGEMM enabled the server crashes, and FlashInfer fails too.\n" + CUT_UNDER_SGLANG
    assert _named(text) == [("sglang", "SGLang")]
    text = "With DeepGEMM enabled the server crashes during startup.\n\n" + FLASHINFER_THROUGH_SGLANG
    assert _named(text) == [("flashinfer", "FlashInfer")]


LINK_FAILED = """\
/usr/bin/ld: cannot find cuda_0.o: No such file or directory
collect2: error: ld returned 1 exit status
"""


def test_a_generic_crash_wording_takes_the_library_a_sentence_names_by_its_jit_module():
    """SGLang's JIT kernel modules are sgl-kernel's (sgl_kernel_jit_*: JIT_MODULES); the linker's line names none."""
    text = "Startup fails because the JIT build for `sgl_kernel_jit_fused_rope_true_256` fails at the link step:\n\n"
    [failure] = _failures(text + LINK_FAILED)
    assert (failure.signature, failure.mechanism, failure.library) == ("process-link-failed", "sgl_kernel", "sgl-kernel")
    [failure] = _failures(LINK_FAILED)
    assert (failure.mechanism, failure.library) == ("process", None)


LOAD_THEN_LINK_ERROR = """\
```
[2025-06-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)
[2025-06-01 10:00:05] Load weight begin. avail mem=78.50 GB
collect2: error: ld returned 1 exit status
```
"""


@pytest.mark.parametrize(
    "sentence",
    [
        "The server crashes on start with tp 8; DeepEP is installed but not used.",
        "The server crashes on start, so I cannot test the new DeepGEMM kernels.",
        "The server crashes on start, I am using the triton attention backend.",
        "The server crashes on start even though I built FlashInfer from source.",
    ],
)
def test_a_library_the_sentence_names_as_a_setting_or_an_intent_is_no_raiser_of_the_log_s_failure(sentence):
    """review12a item 20: the sentence names a library it does not blame; the log shows no raiser: none is said."""
    for log in (LOAD_THEN_LINK_ERROR, CUT_UNDER_SGLANG):
        assert all(library in (None, "SGLang") for _, library in _named(sentence + "\n" + log)), (sentence, log)


@pytest.mark.parametrize(
    ("sentence", "library"),
    [
        ("With DeepGEMM enabled the server crashes during CUDA graph capture.", "DeepGEMM"),
        ("The server crashes on start: FlashInfer fails while compiling its kernels.", "FlashInfer"),
        ("The server crashes on start with an error in DeepGEMM.", "DeepGEMM"),
        ("The server crashes on start, which calls FlashInfer's TllmGenFmhaRunner.", "FlashInfer"),
    ],
)
def test_a_library_named_as_what_failed_still_names_the_cut_traceback_s_raiser(sentence, library):
    assert [lib for _, lib in _named(sentence + "\n" + CUT_UNDER_SGLANG)] == [library]


def test_a_library_opening_the_sentence_that_says_it_errors_names_the_raiser():
    # flashinfer-3206's first line (built split): the library is the sentence's subject
    sentence = "FlashInfer trtllm kernel for nvfp4 MoE model with intermediate size 704 errors out."
    assert [lib for _, lib in _named(sentence + "\n" + CUT_UNDER_SGLANG)] == ["FlashInfer"]
    sentence = "FlashInfer is installed but the server crashes on start."
    assert [lib for _, lib in _named(sentence + "\n" + CUT_UNDER_SGLANG)] == ["SGLang"]
