"""Which library a failure belongs to (session 13, lib13): the generic evidence read where the log itself does not
name the raiser. Each case is constructed in the shape people paste (an issue's prose around a cut log); the quiet
cases prove what is not claimed."""

from __future__ import annotations

import json

from logscope.core.model import Failure
from logscope.core.native_libraries import library_of
from logscope.core.python_libraries import frame_package, module_library
from logscope.core.resources import data_dir
from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.library import Raiser
from logscope.pipeline.parse.signatures.match import STATED_FOR_LOG_BASIS
from logscope.pipeline.parse.signatures.stated_library import BASIS, stated_raiser


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


CUT_SCHEDULER = """\
## Error Traceback

```
File "sglang/srt/managers/scheduler.py", line 1219, in event_loop_overlap
    batch_result = self.run_batch(batch)
File "sglang/srt/managers/scheduler.py", line 2265, in run_batch
    batch_result = self.model_worker.forward_batch_generation(
```
"""


def test_a_cut_traceback_takes_the_library_of_the_error_the_prose_quotes():
    text = (
        "When serving with speculative decoding there is a sporadic `CUDA error: an illegal memory access was "
        "encountered` crash at `eagle_worker_v2.py:335`.\n\n" + CUT_SCHEDULER
    )
    found = _failures(text)
    cut = [f for f in found if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library, f.library_basis) for f in cut] == [("cuda", "CUDA", STATED_FOR_LOG_BASIS)]


def test_a_cut_traceback_with_no_error_quoted_stays_the_innermost_frame_s():
    text = "The scheduler crashes after a few requests.\n\n" + CUT_SCHEDULER
    cut = [f for f in _failures(text) if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [("sglang", "SGLang")]


def test_two_libraries_quoted_name_neither():
    text = (
        "Sometimes it crashes with `CUDA error: an illegal memory access was encountered`.\n\n"
        "Other times it crashes with `torch.distributed.DistBackendError: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error`.\n\n" + CUT_SCHEDULER
    )
    found = _failures(text)
    assert [f.mechanism for f in found if f.event.kind != "traceback"] == ["cuda", "nccl"]  # both quotes are read
    cut = [f for f in found if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [("sglang", "SGLang")]


IMPORT_CRASH = """\
After building from source, I import the deep_ep module, then the process crashes with a core dump.

```
python -c "import deep_ep"
free(): invalid pointer
Aborted (core dumped)
```
"""


def test_a_generic_crash_takes_the_library_whose_import_the_sentence_says_crashed():
    found = _failures(IMPORT_CRASH)
    logged = [f for f in found if f.event.kind != "stated_failure"]
    assert logged and all(f.library == "DeepEP" and f.library_basis == STATED_FOR_LOG_BASIS for f in logged)
    assert {f.mechanism for f in logged} == {"deepep"}


def test_a_library_named_as_a_setting_of_the_run_names_nothing():
    text = IMPORT_CRASH.replace("I import the deep_ep module", "I run the deep_ep tests")
    logged = [f for f in _failures(text) if f.event.kind != "stated_failure"]
    assert logged and all(f.library is None for f in logged)


CHECKOUT_ASSERT = """\
Traceback (most recent call last):
  File "/sgl-workspace/DeepGEMM/tests/test_fp8.py", line 245, in <module>
    test_m_grouped_gemm_contiguous()
  File "/sgl-workspace/DeepGEMM/tests/test_fp8.py", line 128, in test_m_grouped_gemm_contiguous
    assert diff < 0.001, f'{m=}, {k=}, {n=}, {diff:.5f}'
AssertionError: m=4096, k=7168, n=4096, 0.00312
"""

CHECKOUT_CUDA = """\
root@host:/workspace/FlashMLA# python tests/test_flash_mla.py
b=128, s_q=1, mean_sk=4096, h_q=16, h_kv=1, d=576, dv=512, causal=True, varlen=False
Traceback (most recent call last):
  File "/workspace/FlashMLA/tests/test_flash_mla.py", line 152, in <module>
    test_flash_mla(b, s_q, s, h_q, h_kv, d, dv, causal, varlen)
  File "/workspace/FlashMLA/tests/test_flash_mla.py", line 90, in flash_mla
    torch.cuda.synchronize()
torch.AcceleratorError: CUDA error: an illegal memory access was encountered
"""


def test_a_frame_of_a_library_s_source_tree_names_that_library():
    [failure] = _failures(CHECKOUT_ASSERT)
    assert (failure.mechanism, failure.library) == ("deepgemm", "DeepGEMM")
    assert failure.library_frame is not None and "test_fp8.py:128" in failure.library_frame
    # a CUDA error its test hit is the kernel's it ran, not CUDA's own
    [failure] = _failures(CHECKOUT_CUDA)
    assert (failure.mechanism, failure.library) == ("flashmla", "FlashMLA")


def test_a_script_outside_any_library_s_tree_names_no_library():
    text = CHECKOUT_ASSERT.replace("/sgl-workspace/DeepGEMM/tests/", "/home/me/gemm-bench/")
    [failure] = _failures(text)
    assert failure.library is None  # the user's own assert: its program's verdict, no library's
    text = CHECKOUT_CUDA.replace("/workspace/FlashMLA/tests/", "/home/me/mla-bench/")
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("cuda", "CUDA")


def test_a_library_frame_under_the_checkout_frame_is_the_raiser():
    # the checkout's script only called in: the innermost frame, an installed package's, raised
    text = CHECKOUT_ASSERT.replace(
        "    assert diff < 0.001, f'{m=}, {k=}, {n=}, {diff:.5f}'\nAssertionError: m=4096, k=7168, n=4096, 0.00312\n",
        "    out = flashinfer.gemm.bmm_fp8(a, b, a_scale, b_scale, torch.bfloat16)\n"
        '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/gemm/gemm_base.py", line 1210, in bmm_fp8\n'
        '    raise ValueError("Unsupported dtype")\n'
        "ValueError: Unsupported dtype\n",
    )
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("flashinfer", "FlashInfer")


def test_an_attribute_error_on_an_object_of_sglang_s_class_is_sglang_s():
    # SGLang's own frame is the innermost package frame shown: its code asked its own object
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/bench_one_batch.py", line 412, in load_model
    self.model.capture_aux_hidden_states = True
AttributeError: 'Glm4vMoeForConditionalGeneration' object has no attribute 'capture_aux_hidden_states'
"""
    [failure] = _failures(text)
    assert (failure.mechanism, failure.library) == ("sglang", "SGLang")
    assert failure.library_basis is not None and "class Glm4vMoeForConditionalGeneration (sglang 0.5.1.post3-" in (
        failure.library_basis
    )


def test_a_bare_attribute_error_on_a_class_name_sglang_shares_names_nobody():
    # review13b item 8: transformers and vLLM define many of SGLang's class names; without a frame the name is no owner
    for line in (
        "AttributeError: 'LlamaForCausalLM' object has no attribute 'lm_head'\n",
        "**AttributeError: 'Glm4vMoeForConditionalGeneration' object has no attribute 'capture_aux_hidden_states'**\n",
    ):
        assert [f.library for f in _failures(line)] == [None], line


def test_a_loader_s_import_error_in_a_script_is_not_the_script_s():
    # review13b item 3: the dynamic loader's words are the imported package's environment, not the script's code
    text = """\
Traceback (most recent call last):
  File "/home/user/test_kernel.py", line 3, in <module>
    from sgl_kernel import fused_add_rmsnorm
ImportError: libcudart.so.12: cannot open shared object file: No such file or directory
"""
    [failure] = _failures(text)
    assert failure.mechanism != "python" and failure.library != "test_kernel.py"


def test_an_attribute_error_on_another_object_or_under_another_package_s_frame_is_not_sglang_s():
    assert [f.library for f in _failures("AttributeError: 'MyCustomRunner' object has no attribute 'step'\n")] == [None]
    # another installed package's frame raised it: that package's
    text = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/transformers/modeling_utils.py", line 1987, in __getattr__
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
AttributeError: 'Qwen2ForCausalLM' object has no attribute 'capture_aux_hidden_states'
"""
    [failure] = _failures(text)
    assert failure.library != "SGLang" and failure.mechanism == "python"
    # a user's script of no package asked its SGLang object for an attribute it lacks: the script's typo (review13a)
    text = """\
Traceback (most recent call last):
  File "/home/user/my_bench.py", line 30, in <module>
    print(engine.server_args.enable_dp_attn)
AttributeError: 'ServerArgs' object has no attribute 'enable_dp_attn'
"""
    [failure] = _failures(text)
    assert failure.library != "SGLang" and failure.mechanism == "python"


def test_the_class_table_is_read_from_every_catalogued_release():
    doc = json.loads((data_dir("catalog") / "sglang_classes.json").read_text())
    assert doc["versions"][0] == "0.3.0" and len(doc["versions"]) >= 41
    rows = {name: (first, last) for name, first, last in doc["classes"]}
    assert rows["ServerArgs"] == ("0.3.0", doc["versions"][-1])
    assert not any(name.startswith("Test") or len(name) < 8 for name in rows)


def _failure_findings(text: str) -> list[tuple[str, str | None, str | None]]:
    report = analyze_sources([Source(name="paste.md", path=None, data=text.encode())])
    return [(f["rule"], f.get("mechanism"), f.get("library")) for f in report["findings"] if "mechanism" in f]


def test_a_finding_whose_first_failure_is_a_generic_wording_names_the_library_its_other_failures_name():
    text = (
        "Starting the server fails with version errors, eg: undefined symbol: cuGreenCtxDestroy;\n"
        "ImportError: cannot import name 'fused_marlin_moe' from 'sgl_kernel' "
        "(/opt/conda/lib/python3.10/site-packages/sgl_kernel/__init__.py)\n"
    )
    assert _failure_findings(text) == [("startup-crash", "sgl_kernel", "sgl-kernel")]


def test_a_generic_first_failure_keeps_its_own_when_the_others_name_two_libraries():
    text = (
        "Starting the server fails with version errors, eg: undefined symbol: cuGreenCtxDestroy;\n"
        "ImportError: cannot import name 'fused_marlin_moe' from 'sgl_kernel' "
        "(/opt/conda/lib/python3.10/site-packages/sgl_kernel/__init__.py)\n"
        "ImportError: cannot import name 'BatchDecodeWithPagedKVCacheWrapper' from 'flashinfer' "
        "(/opt/conda/lib/python3.10/site-packages/flashinfer/__init__.py)\n"
    )
    assert _failure_findings(text) == [("startup-crash", "process", None)]


USER_SCRIPT = """\
Traceback (most recent call last):
  File "/home/me/run_bench.py", line 42, in <module>
    main()
  File "/home/me/run_bench.py", line 30, in main
    llm = sgl.Engine(model_path=args.model, tp=2)
TypeError: Engine.__init__() got an unexpected keyword argument 'tp'
"""


def test_cpython_s_exception_in_a_script_of_no_package_is_another_python_program_s():
    [failure] = _failures(USER_SCRIPT)
    assert (failure.mechanism, failure.library) == ("python", "run_bench.py")
    assert failure.library_frame is not None and "run_bench.py:30" in failure.library_frame


def test_a_script_frame_that_only_calls_into_a_package_or_a_bare_frame_is_not_the_raiser():
    # SGLang's frame under the script's raised it
    text = USER_SCRIPT.replace(
        "TypeError: Engine.__init__() got an unexpected keyword argument 'tp'\n",
        '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/entrypoints/engine.py", line 130, in __init__\n'
        "    server_args = ServerArgs(**kwargs)\n"
        "TypeError: ServerArgs.__init__() got an unexpected keyword argument 'tp'\n",
    )
    [failure] = _failures(text)
    assert (failure.mechanism, failure.signature) == ("sglang", "sglang-raised-srt")
    # a frame without its folder may be any package's file; an exception of a package's own class is not CPython's
    [failure] = _failures(USER_SCRIPT.replace("/home/me/run_bench.py", "run_bench.py"))
    assert failure.library is None
    [failure] = _failures(USER_SCRIPT.replace("TypeError:", "requests.exceptions.ConnectionError:"))
    assert failure.library != "run_bench.py"
    # the script's own raise statement is its program's verdict, not the interpreter's error
    own = USER_SCRIPT.replace("llm = sgl.Engine(model_path=args.model, tp=2)", "raise TypeError(f'bad model {args.model}')")
    [failure] = _failures(own.replace("Engine.__init__() got an unexpected keyword argument 'tp'", "bad model x"))
    assert failure.library is None


DEEP_EP_CRASH = """\
[host:12345:0:12400] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8000008f)
==== backtrace (tid:  12400) ====
 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f52100bb374]
 1  /opt/hpcx/ucx/lib/libucs.so.0(+0x3c575) [0x7f52100bb575]
 2  /opt/hpcx/ucx/lib/libucs.so.0(+0x3c856) [0x7f52100bb856]
 3  /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f2a2db65520]
 4  /usr/local/lib/python3.10/dist-packages/deep_ep_cpp.cpython-310-x86_64-linux-gnu.so(+0x5a2b1) [0x7f25edc5a2b1]
 5  /usr/local/lib/python3.10/dist-packages/deep_ep_cpp.cpython-310-x86_64-linux-gnu.so(+0x4c11e) [0x7f25edc4c11e]
 6  /usr/lib/x86_64-linux-gnu/libc.so.6(+0x94ac3) [0x7f2a2dbb7ac3]
=================================
"""


def test_a_library_s_extension_module_beside_its_package_names_it():
    frame = "/usr/local/lib/python3.10/dist-packages/deep_ep_cpp.cpython-310-x86_64-linux-gnu.so(+0x5a2b1) [0x7f25]"
    assert library_of(frame) == "DeepEP"
    assert frame_package(frame) == "deep_ep_cpp" and module_library("deep_ep_cpp") == "DeepEP"
    [failure] = _failures(DEEP_EP_CRASH)
    assert (failure.mechanism, failure.library, failure.signal) == ("deepep", "DeepEP", "Segmentation fault")
    assert failure.native_frame is not None and "deep_ep_cpp" in failure.native_frame


def test_another_package_s_extension_module_names_no_library():
    frame = "/usr/local/lib/python3.12/dist-packages/_cffi_backend.cpython-312-x86_64-linux-gnu.so(+0x5a2b1) [0x7f25]"
    assert library_of(frame) is None and frame_package(frame) is None
    [failure] = _failures(DEEP_EP_CRASH.replace("deep_ep_cpp", "_cffi_backend"))
    assert failure.library is None


def test_the_extension_table_is_read_from_deepep_s_release_tags():
    doc = json.loads((data_dir("catalog") / "extension_modules.json").read_text())
    assert doc["modules"] == {"deep_ep_cpp": "DeepEP"} and doc["read"]["DeepEP"].startswith("git tags v1.2.1")
    from tools.upstream.extension_modules import extension_names

    setup_py = "ext_modules=[\n    CUDAExtension(\n        name='deep_ep_cpp',\n        include_dirs=['csrc/'],"
    assert extension_names(setup_py) == {"deep_ep_cpp"}
    assert extension_names("ext_modules=[CUDAExtension(name='deep_ep._C', sources=sources)]") == set()


CUTLASS_CHECK = """\
When running the grouped GEMM test on B200, DeepGEMM crashes with an internal CUTLASS error.

```
Got cutlass error: Error Internal at: 283
```
"""


def test_a_kernel_check_several_libraries_print_takes_the_library_the_sentence_blames():
    [failure] = _failures(CUTLASS_CHECK)
    assert (failure.mechanism, failure.library, failure.signature) == ("deepgemm", "DeepGEMM", "kernel-cutlass-check")
    assert failure.library_basis == STATED_FOR_LOG_BASIS
    [failure] = _failures(CUTLASS_CHECK.replace("DeepGEMM crashes", "the test crashes"))
    assert (failure.mechanism, failure.library) == ("kernel_library", None)


def test_a_finding_whose_first_failure_is_a_shared_kernel_check_names_the_library_of_the_next():
    text = (
        "Got cutlass error: Error Internal at: 283\n"
        "RuntimeError: Error in function 'run' at /workspace/csrc/trtllm_batched_gemm_runner.cu:286: GEMM failed\n"
    )
    assert _failure_findings(text) == [("failure-time-unknown", "flashinfer", "FlashInfer")]
    alone = "Got cutlass error: Error Internal at: 283\n"
    assert _failure_findings(alone) == [("failure-time-unknown", "kernel_library", None)]


def test_a_native_library_the_sentence_blames_names_the_generic_crash():
    text = (
        "On the second node NCCL crashes with a segfault while the communicator is set up.\n\n"
        "```\nFatal Python error: Segmentation fault\n```\n"
    )
    logged = [f for f in _failures(text) if f.event.kind != "stated_failure"]
    assert [(f.mechanism, f.library, f.library_basis) for f in logged] == [("nccl", "NCCL", STATED_FOR_LOG_BASIS)]


def test_a_native_library_named_as_a_setting_or_a_step_is_not_blamed():
    assert stated_raiser("I set NCCL_DEBUG=INFO and it crashes.") is None
    assert stated_raiser("The server hangs after NCCL init.") is None
    assert stated_raiser("FlashMLA fails on B200 with a CUTLASS error.") == Raiser("FlashMLA", BASIS, None)
    text = "I set NCCL_DEBUG=INFO and the server crashes.\n\n```\nFatal Python error: Segmentation fault\n```\n"
    assert [f.library for f in _failures(text) if f.event.kind != "stated_failure"] == [None]


CUT_THEN_ERROR = (
    (
        "[2026-03-01 10:00:00 TP0] Decode batch. #running-req: 12, #token: 40512, token usage: 0.31, "
        "gen throughput (token/s): 1520.33, #queue-req: 0\n"
    )
    + """\
[2026-03-01 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2565, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1001, in event_loop_overlap
    batch_result = self.run_batch(batch)
[2026-03-01 10:00:02 TP0] RuntimeError: CUDA error: an illegal memory access was encountered
"""
)


def test_a_cut_traceback_s_frame_gives_way_to_the_failure_that_shows_what_raised_it():
    assert _failure_findings(CUT_THEN_ERROR) == [("runtime-crash", "cuda", "CUDA")]
    # with no such failure the cut traceback's innermost frame still names it
    alone = CUT_THEN_ERROR.rsplit("[2026-03-01 10:00:02 TP0] RuntimeError", 1)[0]
    assert _failure_findings(alone) == [("runtime-crash", "sglang", "SGLang")]


def test_a_folder_named_after_a_library_is_its_checkout_only_with_a_repository_s_folder_under_it():
    # review13b item 7: a user's script in a folder named after the library it uses is the user's
    from logscope.core.native_libraries import checkout_library

    assert checkout_library("/sgl-workspace/DeepGEMM/tests/test_fp8.py") == "DeepGEMM"
    assert checkout_library("/workspace/FlashMLA/tests/test_flash_mla.py") == "FlashMLA"
    assert checkout_library("/home/user/nccl/sglang_bench.py") is None
    text = """\
Traceback (most recent call last):
  File "/home/user/nccl/sglang_bench.py", line 14, in <module>
    client = sgl.RuntimeEndpoint("http://localhost:30000", timeout=30)
TypeError: RuntimeEndpoint.__init__() got an unexpected keyword argument 'timeout'
"""
    [failure] = _failures(text)
    assert failure.library != "NCCL" and failure.mechanism == "python"


# fix15b: a library named in prose as the compound that failed ("the FlashInfer JIT compilation of sampling kernels
# fails", "a FlashMLA kernel crash") or the step it failed at ("at the FlashMLA compilation step") names the library of
# a failure the log shows with no raiser (kserve-4565's and deep-learning-containers-6738's shapes, constructed)
NINJA_CUT = """\
When running the server's Docker image, the FlashInfer JIT compilation of sampling kernels fails with a Ninja build error, \
preventing the engine from starting.

```
ERROR 07-02 07:04:46 [core.py:500] EngineCore failed to start.
ERROR 07-02 07:04:46 [core.py:500] Traceback (most recent call last):
ERROR 07-02 07:04:46 [core.py:500]   File "/venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py", line 2506, \
in _run_ninja_build
ERROR 07-02 07:04:46 [core.py:500]     subprocess.run(
```
"""

NVCC_ERRORS = """\
The SGLang wheel build is failing in the release pipeline at the FlashMLA compilation step. It dies with \
`static_assert` failures:

```
csrc/kernels/sm100/decode/kernel.cuh(327): error: static assertion failed
    static_assert(FOLD_FACTOR == 4);
2 errors detected in the compilation of "decode.cu"
```
"""


def test_a_library_named_as_the_compound_or_the_step_that_failed_names_an_unread_failure_s_library():
    cut = [f for f in _failures(NINJA_CUT) if f.event.kind == "traceback"]
    assert [(f.library, f.library_basis) for f in cut] == [("FlashInfer", STATED_FOR_LOG_BASIS)]
    logged = [f for f in _failures(NVCC_ERRORS) if f.event.kind != "stated_failure"]
    assert logged and {(f.library, f.library_basis) for f in logged} == {("FlashMLA", STATED_FOR_LOG_BASIS)}
    assert stated_raiser("We hit a FlashMLA kernel crash on H20.", as_raiser=True) == Raiser("FlashMLA", BASIS, None)
    assert stated_raiser("flashinfer fails to compile on sm120.", as_raiser=True) == Raiser("FlashInfer", BASIS, None)


def test_a_library_named_as_installed_a_version_or_a_flag_names_no_failure_s_library():
    for sentence in (
        "FlashInfer 0.2.5 is installed and the server fails to start.",
        "FlashInfer version 0.2.5 fails here.",
        "I use --attention-backend flashinfer and the server crashes.",
        "The flashinfer backend fails with this error.",
        "The server crashes at startup; FlashMLA is installed.",
    ):
        assert stated_raiser(sentence, as_raiser=True) is None, sentence
    installed = NVCC_ERRORS.replace("at the FlashMLA compilation step", "with FlashMLA installed")
    logged = [f for f in _failures(installed) if f.event.kind != "stated_failure"]
    assert logged and all(f.library != "FlashMLA" for f in logged)


def test_a_library_named_right_before_its_quoted_failure_message_is_the_raiser():
    said = "With the new build the DeepEP `timeout (dispatch CPU)` recurred on every node."
    assert stated_raiser(said, as_raiser=True) == Raiser("DeepEP", BASIS, None)
    # negative: a span after the name that quotes no failure (a setting, a function) names no raiser
    assert stated_raiser("The DeepEP `low_latency_mode` flag was on and the server crashed.", as_raiser=True) is None


def test_a_library_named_before_its_quoted_op_and_the_failure_noun_is_the_raiser():
    # fix15b: "an NCCL `ALLREDUCE` timeout" names NCCL as what timed out; a timeout that is its setting does not
    text = "The original log shows an NCCL `ALLREDUCE` timeout during the second `generate_sequences`.\n"
    assert [(f.library, f.phase) for f in _failures(text)] == [("NCCL", "unknown")]
    for sentence in (
        "I set the NCCL `NCCL_TIMEOUT` timeout to 7200 but the server crashed.",
        "The server crashed; the NCCL `ALLREDUCE` timeout of 1800 s was hit.",
        "The server crashed with the NCCL `ALLREDUCE` timeout = 600.",
    ):
        assert stated_raiser(sentence, as_raiser=True) is None, sentence


def test_a_setting_or_an_option_in_a_code_span_names_no_failing_library():
    # review15c item 5: a key, a setting or an option in the span after the name is no quoted failure message
    for sentence in (
        "I launch sglang with the NCCL `TIMEOUT=1800` setting from the docs and the server crashes during CUDA graph capture.",
        "I launch sglang with the NCCL `NCCL_TIMEOUT=600` set and the server crashes during CUDA graph capture.",
        "I launch sglang with the NCCL `timeout` option and the server crashes during CUDA graph capture.",
        "I launch sglang with the NCCL `timeout: 1800` option and the server crashes during CUDA graph capture.",
    ):
        assert stated_raiser(sentence, as_raiser=True) is None, sentence
    # positives: the library's own message quoted
    said = "the DeepEP `timeout (dispatch CPU)` recurred"
    assert stated_raiser(said, as_raiser=True) == Raiser("DeepEP", BASIS, None)
    said = "After the upgrade the NCCL `unhandled system error` occurred on rank 3."
    assert stated_raiser(said, as_raiser=True) == Raiser("NCCL", BASIS, None)
