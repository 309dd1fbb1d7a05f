"""Which library a failure belongs to (session 14, lib14): probes of real pastes' shapes (issue threads of the built
split, never stored), each case constructed in that shape; the quiet cases prove what is not claimed."""

from __future__ import annotations

import json

from logscope.core import package_raises
from logscope.core.model import Failure
from logscope.core.package_raises import HEAD_LITERAL, OPENED_LITERAL, package_raise
from logscope.core.sglang_asserts import pieces
from logscope.pipeline.analyze import analyze_model, analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.library import line_library


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


def _findings(text: str) -> list[dict[str, object]]:
    doc = analyze_sources([Source(name="paste.md", path=None, data=text.encode())])
    return [f for f in doc["findings"] if f["rule"] != "coverage"]


# ninja's echo of a FlashInfer JIT compile, logged at ERROR by vLLM's worker (the shape of vllm-project/vllm#36077, a
# built paste): no signature reads it, the line names FlashInfer by its JIT cache's module folder and its wheel's data
NVCC_ECHO = (
    "(Worker pid=11) (Worker_TP1 pid=11) ERROR 03-05 09:56:09 [multiproc_executor.py:880] [1/11] "
    "/usr/local/cuda-12.8/bin/nvcc --generate-dependencies-with-compile --dependency-output "
    "/root/.cache/flashinfer/0.6.4/89/cached_ops/batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_e4m3_dtype_o_bf16_"
    "dtype_idx_i32_head_dim_qk_256_head_dim_vo_256_posenc_0_use_swa_False_use_logits_cap_False_f16qk_False/"
    "batch_prefill_paged_kernel_mask_0.cuda.o.d -isystem /opt/venv/lib/python3.11/site-packages/flashinfer/data/include\n"
)


def test_an_unread_failure_line_names_the_library_its_paths_name():
    found = _findings(NVCC_ECHO)
    assert [(f["rule"], f.get("library"), f.get("phase")) for f in found] == [("unrecognized-failure", "FlashInfer", "unknown")]


def test_an_unread_failure_line_naming_no_library_names_none():
    found = _findings("[2026-01-05 09:00:07 TP0] ERROR: Failed to mmap shard /data/model-00003.safetensors: Bad address\n")
    assert [(f["rule"], f.get("library")) for f in found] == [("unrecognized-failure", None)]


def test_a_library_named_in_words_only_is_no_mark():
    assert line_library("ERROR: the flashinfer backend failed, falling back") is None
    assert line_library(NVCC_ECHO) == "FlashInfer"


# SGLang's DeepGEMM pre-compile runs its compiles in a thread pool through tqdm's thread_map; the copy is cut in the
# standard library's hand-over of the worker's outcome (the shape of sgl-project/sglang#7387): tqdm waited, the
# compile that raised is in the worker, not shown
CUT_IN_HAND_OVER = """\
```text
  File "/opt/app/lib/python3.12/site-packages/sglang/srt/layers/deep_gemm_wrapper/compile_utils.py", line 297, in _compile
    thread_map(compile_func, collected_configs, max_workers=_COMPILE_WORKERS)
  File "/opt/app/python3.12/lib/python3.12/site-packages/tqdm/contrib/concurrent.py", line 51, in _executor_map
    return list(tqdm_class(ex.map(fn, *iterables, chunksize=chunksize), **kwargs))
  File "/opt/app/python3.12/lib/python3.12/site-packages/tqdm/std.py", line 1181, in __iter__
    for obj in iterable:
  File "/opt/app/python3.12/lib/python3.12/concurrent/futures/_base.py", line 619, in result_iterator
    yield _result_or_cancel(fs.pop())
```
"""


def test_a_traceback_cut_in_a_worker_s_hand_over_names_no_waiting_frame():
    cut = [f for f in _failures(CUT_IN_HAND_OVER) if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [(None, None)]


def test_a_worker_s_exception_raised_again_names_no_waiting_frame():
    text = """\
Traceback (most recent call last):
  File "/home/me/run.py", line 12, in <module>
    out = list(tqdm(ex.map(work, items)))
  File "/usr/lib/python3.12/site-packages/tqdm/std.py", line 1181, in __iter__
    for obj in iterable:
  File "/usr/lib/python3.12/concurrent/futures/_base.py", line 449, in result
    return self.__get_result()
  File "/usr/lib/python3.12/concurrent/futures/_base.py", line 401, in __get_result
    raise self._exception
RuntimeError: compile failed with exit code 1
"""
    found = [f for f in _failures(text) if f.event.kind != "traceback" or f.event.data.get("message")]
    assert [f.library for f in found] == [None]


def test_the_package_frame_over_a_standard_library_tool_still_names_it():
    # the stdlib frame under it is a tool the package called (subprocess.run): the package's frame is the raiser
    text = """\
Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/tqdm/std.py", line 1181, in __iter__
    for obj in iterable:
  File "/usr/lib/python3.12/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
"""
    assert [f.library for f in _failures(text)] == ["tqdm"]


# torch.distributed's excepthook prints "[rank<N>]: " before every line (the shape of OpenRLHF/OpenRLHF#613, a
# torchrun's error): the bare exception line behind it is read, and its words are transformers' own raise
# (transformers 4.57.1-5.25.0 tokenization_utils_base.py get_chat_template: raise ValueError(...))
CHAT_TEMPLATE = (
    "ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no template "
    "argument was passed! For information about writing templates and setting the tokenizer.chat_template attribute, "
    "please see the documentation at https://huggingface.co/docs/transformers/main/en/chat_templating\n"
)


def test_an_exception_line_behind_torch_s_rank_prefix_is_read():
    found = _failures("error:\n[rank0]: " + CHAT_TEMPLATE)
    assert [(f.event.kind, f.event.data.get("exception")) for f in found] == [("exception", "ValueError")]


def test_a_bare_exception_line_in_another_package_s_words_names_that_package():
    found = _failures("error:\n" + CHAT_TEMPLATE)
    assert [(f.mechanism, f.library) for f in found] == [("python", "transformers")]
    assert "transformers 4.57.1-5.25.0: transformers/tokenization_utils_base.py:" in str(found[0].library_basis)


def test_the_same_words_of_another_class_name_no_package():
    found = _failures("error:\n" + CHAT_TEMPLATE.replace("ValueError", "RuntimeError", 1))
    assert [f.library for f in found] == [None]


def test_a_package_frame_shown_still_names_the_raiser_by_its_frame():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/entrypoints/openai/serving_chat.py", line 9, in f\n'
        "    prompt_ids = tokenizer.apply_chat_template(messages)\n"
        '  File "/opt/venv/lib/python3.12/site-packages/transformers/tokenization_utils_base.py", line 1824, in g\n'
        "    raise ValueError(\n" + CHAT_TEMPLATE
    )
    found = [f for f in _failures(text) if f.library]
    assert [(f.library, f.library_basis) for f in found] == [
        ("transformers", "its frame is the innermost of an installed package")
    ]


def test_the_package_table_leaves_out_what_sglang_raises_too():
    from logscope.core.resources import data_dir

    folder = data_dir("catalog")
    packages = json.loads((folder / "package_raises.json").read_text(encoding="utf-8"))["raises"]
    sglang = {r["template"] for r in json.loads((folder / "sglang_raises.json").read_text(encoding="utf-8"))["raises"]}
    assert {r["package"] for r in packages} == {"transformers", "huggingface_hub", "flashinfer"}
    assert not sglang & {r["template"] for r in packages}


# a traceback cut in torch's Module call (the shape of sgl-project/sglang#25227): the innermost frame shown only hands
# its arguments on to the module's forward, which the copy cut; torch raised nothing there
CUT_IN_MODULE_CALL = """\
```
  File "/opt/envs/sglang/lib/python3.12/site-packages/sglang/srt/models/gemma4_vision.py", line 287, in forward
    x = self.down_proj(x)
        ^^^^^^^^^^^^^^^^^
  File "/opt/envs/sglang/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1779, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/envs/sglang/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1790, in _call_impl
    return forward_call(*args, **kwargs)
```
"""


def test_a_traceback_cut_in_a_wrapper_s_hand_on_names_no_library():
    cut = [f for f in _failures(CUT_IN_MODULE_CALL) if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [(None, None)]


def test_a_traceback_cut_in_a_package_s_own_work_still_names_it():
    text = CUT_IN_MODULE_CALL.replace("    return forward_call(*args, **kwargs)", "    return F.linear(input, self.weight)")
    cut = [f for f in _failures(text) if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [("python", "torch")]


def test_torch_s_checks_of_the_cuda_driver_and_nvrtc_name_cuda():
    # torch 2.9.1 c10/cuda/driver_api.h C10_CUDA_DRIVER_CHECK, ATen/cuda/Exceptions.h AT_CUDA_NVRTC_CHECK
    for line in (
        "RuntimeError: CUDA driver error: invalid argument\n",
        "RuntimeError: CUDA NVRTC error: NVRTC_ERROR_INVALID_OPTION\n",
        "RuntimeError: cusolver error: CUSOLVER_STATUS_INTERNAL_ERROR, when calling `cusolverDnCreate(handle)`\n",
    ):
        assert [(f.mechanism, f.library) for f in _failures(line)] == [("cuda", "CUDA")], line


def test_a_driver_error_in_a_library_s_frame_stays_that_library_s():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/fused_moe/core.py", line 1570, in run\n'
        "    out = moe_op.trtllm_fp4_block_scale_moe(x)\n"
        "RuntimeError: CUDA driver error: invalid argument\n"
    )
    assert [(f.mechanism, f.library) for f in _failures(text)] == [("flashinfer", "FlashInfer")]


def test_a_bare_line_of_flashinfer_s_wrapper_check_names_flashinfer():
    # flashinfer-python 0.7.4 decode.py BatchDecodeWithPagedKVCacheWrapper.__init__: raise ValueError("The size of
    # paged_kv_indptr_buffer should be batch_size + 1")
    found = _failures("ValueError: The size of paged_kv_indptr_buffer should be batch_size + 1\n")
    assert [(f.mechanism, f.library) for f in found] == [("flashinfer", "FlashInfer")]
    assert "flashinfer 0.7.4: flashinfer/decode.py:" in str(found[0].library_basis)


def test_a_wording_sglang_copied_from_flashinfer_stays_sglang_s():
    # SGLang 0.4.2.post4-0.5.2 raised FlashInfer's cudagraph batch-size check in its own copy of the wrapper (without
    # the final period): the words alone do not tell which raised it, SGLang's own raise is read first
    line = (
        "ValueError: The batch size should be fixed in cudagraph mode, the runtime batch size 7  mismatches the batch "
        "size set during initialization 8\n"
    )
    assert [f.library for f in _failures(line)] == ["SGLang"]


def test_the_first_line_of_a_message_that_goes_on_names_its_package():
    # transformers 4.57.1-5.25.0 models/auto/configuration_auto.py: raise ValueError(f"The checkpoint you are trying to
    # load has model type `{...}` but Transformers does not recognize this architecture. ...\n\nYou can update ...")
    line = (
        "ValueError: The checkpoint you are trying to load has model type `qwen3_next` but Transformers does not "
        "recognize this architecture. This could be because of an issue with the checkpoint, or because your version "
        "of Transformers is out of date.\n"
    )
    found = _failures(line)
    assert [(f.mechanism, f.library) for f in found] == [("python", "transformers")]
    assert str(found[0].library_basis).startswith("the start of a message it raises (transformers 4.57.1-5.25.0")


def test_an_older_release_s_ending_still_names_the_package_by_its_start():
    # transformers 4.57.1 utils/hub.py: "{} does not appear to have a file named {}. Checkout
    # 'https://huggingface.co/{}/tree/{}' for available files."; older releases end "/{revision}' for available files."
    line = (
        "OSError: Qwen/Qwen3-8B does not appear to have a file named config.json. Checkout "
        "'https://huggingface.co/Qwen/Qwen3-8B/main' for available files.\n"
    )
    assert [(f.mechanism, f.library) for f in _failures(line)] == [("python", "transformers")]


# review14a item 1: a wording that a field opens (`{} must be a positive integer, got {}`, flashinfer 0.7.4
# chunked_lm_head.py) is a parameter's name and the words of every package's checks: no package by its words; nor
# when the innermost frame shown, a user's script, is the raise statement itself
USER_RAISE = """\
Traceback (most recent call last):
  File "/home/user/bench/run.py", line 41, in <module>
    main()
  File "/home/user/bench/run.py", line 35, in main
    raise ValueError(f"batch_size must be a positive integer, got {bs}")
ValueError: batch_size must be a positive integer, got 0
"""


def test_a_field_opened_generic_check_raised_by_a_user_s_script_names_no_package():
    assert [(f.mechanism, f.library) for f in _failures(USER_RAISE)] == [(None, None)]


def test_a_bare_field_opened_generic_check_names_no_package():
    for line in (
        "ValueError: max_total_tokens must be a positive integer, got -5\n",
        "ValueError: kv_cache must be contiguous, got stride=(8, 1)\n",
        "ValueError: page_size must be strictly positive, got 0\n",
    ):
        assert [(f.mechanism, f.library) for f in _failures(line)] == [(None, None)], line
    assert package_raise("ValueError", "max_total_tokens must be a positive integer, got -5") is None


def test_a_user_s_frame_that_raises_a_package_s_words_itself_names_no_package():
    # the chat-template words alone name transformers (above); a script of no package whose shown line raises them
    # raised them itself
    text = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/myproj/serve.py", line 12, in check\n'
        '    raise ValueError("Cannot use chat template functions because tokenizer.chat_template is not set")\n' + CHAT_TEMPLATE
    )
    assert [(f.mechanism, f.library) for f in _failures(text)] == [(None, None)]
    called = text.replace(text.splitlines()[2], "    prompt = tokenizer.apply_chat_template(messages)")
    assert [(f.mechanism, f.library) for f in _failures(called)] == [("python", "transformers")]


def test_a_field_opened_wording_of_enough_own_words_still_names_its_package():
    # flashinfer 0.7.4 nvfp4_attention_sm120.py:85: raise ValueError(f"{name} must have shape [batch, heads, seq_len,
    # head_dim], got shape={tuple(t.shape)}")
    found = _failures("ValueError: q must have shape [batch, heads, seq_len, head_dim], got shape=(2, 8)\n")
    assert [(f.mechanism, f.library) for f in found] == [("flashinfer", "FlashInfer")]
    assert "flashinfer 0.7.4: flashinfer/nvfp4_attention_sm120.py:85" in str(found[0].library_basis)


def test_every_wording_that_names_a_package_holds_enough_of_its_own_words():
    rows = package_raises._wordings()
    for w in rows:
        lead = pieces(w.template)[0].strip()
        literal = "".join(p for p in pieces(w.template) if p != "{}").strip()
        assert w.named == (len(lead) >= HEAD_LITERAL or len(literal) >= OPENED_LITERAL), w.template
        if w.head and len(pieces(w.head)[0].strip()) < HEAD_LITERAL:
            assert len("".join(p for p in pieces(w.head) if p != "{}").strip()) >= OPENED_LITERAL, w.template
    generic = {"{} must be a positive integer, got {}", "{} must be contiguous, got stride={}"}
    assert {w.template for w in rows if w.template in generic and (w.named or w.head)} == set()
    assert sum(not w.named for w in rows) == 220


# tvm-ffi's segfault handler names glibc's trampoline by its source file, no symbol (the shape of
# kvcache-ai/Mooncake#1000): the signal hit in the frame after it, not in the trampoline
TVM_SEGFAULT_IN_MOONCAKE = """\
!!!!!!! Segfault encountered !!!!!!!
  File "./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c", line 0, in 0x00007599e9c5051f
  File "<unknown>", line 0, in ibv_destroy_qp
  File "<unknown>", line 0, in mooncake::RdmaEndPoint::deconstruct()
  File "<unknown>", line 0, in mooncake::RdmaEndPoint::~RdmaEndPoint()
  File "<unknown>", line 0, in mooncake::WorkerPool::performPostSend(int)
"""


def test_glibc_s_trampoline_named_by_its_file_is_not_where_the_signal_hit():
    [failure] = _failures(TVM_SEGFAULT_IN_MOONCAKE)
    assert (failure.library, failure.native_frame) == ("Mooncake", "ibv_destroy_qp")


def test_a_line_after_a_faulthandler_frame_is_no_code_of_it():
    # CPython's faulthandler (Python/traceback.c dump_frame) prints '  File "...", line N in f' and nothing under it
    # (the shape of sglang-7338-2, a built paste): the prose after the dump is not the frame's source line
    text = (
        "Fatal Python error: Segmentation fault\n\n"
        "Thread 0x00007fb209fff640 (most recent call first):\n"
        '  File "/home/sglang/python/sglang/srt/disaggregation/mooncake/conn.py", line 259 in process_layer\n'
        '  File "/usr/lib/python3.10/threading.py", line 973 in _bootstrap\n'
        "https://github.com/kvcache-ai/Mooncake/pull/609 not solve\n"
    )
    [failure] = _failures(text)
    threads = failure.event.data["other_threads"]
    assert threads == [
        [
            "/usr/lib/python3.10/threading.py:973 _bootstrap",
            "/home/sglang/python/sglang/srt/disaggregation/mooncake/conn.py:259 process_layer",
        ]
    ]
