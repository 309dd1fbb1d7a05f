"""Forms the mine7b batch (library and downstream threads) showed on its one scoring (issue 43), each written here in
the real shape of a built paste (fixtures/mined): a vLLM front streaming a chat answer when its engine died, vLLM's
NIXL connector failing a handshake, versions in a sentence, a launch of DeepGEMM's precompile, a FlashInfer JIT build."""

from __future__ import annotations

from logscope.pipeline.parse.parsers.command_shapes import behind_prompt
from tests.helpers import analyze_text, versions_of


def _rules(report: dict) -> list[str]:
    return [f["rule"] for f in report["findings"]]


# dynamo-1471: ai-dynamo's example router scheduling requests, then vLLM's chat stream generator failing
DYNAMO_ROUTER_VLLM = """```
2025-06-10T02:48:30.946Z  INFO kv_router._cost_function: Requests Waiting: 87
2025-06-10T02:48:30.946Z  INFO kv_router.generate: Scheduling to worker_id: 7587887349860267018
2025-06-10T02:48:30.948Z ERROR serving_chat.chat_completion_stream_generator: Error in chat completion stream generator.
Traceback (most recent call last):
  File "/v/python3.12/site-packages/vllm/entrypoints/openai/serving_chat.py", line 503, in chat_completion_stream_generator
    async for res in result_generator:
  File "/workspace/examples/llm/components/processor.py", line 188, in _generate_responses
    async for resp in engine_generator:
ValueError: a python exception was caught while processing the async generator: MQEngineDeadError: Engine loop is not running.
```
"""


def test_a_failure_inside_vllm_s_chat_stream_generator_is_placed_while_serving():
    report = analyze_text(DYNAMO_ROUTER_VLLM, "paste.md")
    assert _rules(report) == ["runtime-crash"]
    assert "chat_completion_stream_generator" in report["findings"][0]["message"]


# kthena-503: a decode pod's log after "then request to router will cause decoding pod crash with logs:"
NIXL_HANDSHAKE = """then request to router will cause decoding pod crash with logs:
```
ERROR 11-22 06:57:51 [nixl_connector.py:548] Handshake with c00824be-282f-4719-9aeb-120dcb516863 failed
ERROR 11-22 06:57:51 [nixl_connector.py:548] Traceback (most recent call last):
ERROR 11-22 06:57:51 [nixl_connector.py:548]   File "/usr/local/lib/python3.12/dist-packages/vllm/d
"""


def test_vllm_s_nixl_handshake_failure_is_a_transfer_failure():
    report = analyze_text(NIXL_HANDSHAKE, "paste.md")
    assert _rules(report) == ["pd-transfer-failed"]
    assert "Handshake with c00824be-282f-4719-9aeb-120dcb516863 failed" in report["findings"][0]["message"]


def test_a_capitalised_cuda_in_a_sentence_is_its_version():
    line = "This is a cloud server from Upcloud provider and comes with Ubuntu 24.04 with Cuda 13.2 preinstalled.\n"
    assert versions_of(analyze_text(line, "paste.md")) == {"cuda": "13.2"}


def test_a_cuda_driver_s_two_digit_version_is_no_driver_release():
    text = "My host has NVSHMEM with the DeepEP patch installed and using cuda driver 12.9, kernel modules are loaded\n"
    assert "driver" not in versions_of(analyze_text(text, "paste.md"))
    assert versions_of(analyze_text("Host: driver 580.173.02, CUDA 13.0\n", "paste.md")) == {
        "driver": "580.173.02",
        "cuda": "13.0",
    }


# deepep-163: DeepGEMM's precompile entry point run with the server's arguments, the prompt's "$" glued to an assignment
COMPILE_DEEP_GEMM = """My command:
```
$NVSHMEM_DEBUG=INFO python3 -m sglang.compile_deep_gemm --model /root/DeepSeek-R1 --tp 8 --trust-remote-code --tp 8 \
--enable-deepep-moe --deepep-mode auto --mem-fraction-static 0.9 --cuda-graph-max-bs 128
```
"""


def test_compile_deep_gemm_s_server_arguments_are_read_behind_a_glued_prompt():
    (launch,) = analyze_text(COMPILE_DEEP_GEMM, "paste.md")["launches"]
    assert launch["config"] == {
        "model_path": "/root/DeepSeek-R1",
        "tp_size": 8,
        "trust_remote_code": True,
        "enable_deepep_moe": True,
        "deepep_mode": "auto",
        "mem_fraction_static": 0.9,
        "cuda_graph_max_bs": 128,
    }
    assert launch["environment"] == {"NVSHMEM_DEBUG": "INFO"}


def test_a_dollar_glued_to_a_variable_that_is_no_assignment_is_no_prompt():
    assert not behind_prompt("$NVSHMEM_DEBUG python3 -m sglang.launch_server --tp 8")
    assert behind_prompt("$NVSHMEM_DEBUG=INFO python3 -m sglang.launch_server --tp 8")


def test_sglang_s_own_example_command_in_its_log_line_is_no_launch():
    line = (
        "[2026-05-20 02:29:31 TP0] Entering DeepGEMM JIT Pre-Compile session. It may take a long time (typically 10-20 "
        "mins) if you have not run `sglang.compile_deep_gemm`. It is recommended to run `sglang.compile_deep_gemm` with "
        "same args as `sglang.launch_server` for pre-compilation to reduce the overhead if you have not run it before. "
        "For example: `python3 -m sglang.compile_deep_gemm --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code`\n"
    )
    assert all(not launch["config"] for launch in analyze_text(line, "paste.md")["launches"])


# nvshmem-81: NVSHMEM's issue template, the failure told in bold inside quotes, its log only linked
NAMED_ERROR_OCCURS = """### How is this issue impacting you?

When using the IBGDA transport mode, an error "**ibv_dealloc_pd failed**" occurs at program termination.
"""


def test_an_error_named_in_quotes_that_occurs_is_a_stated_failure():
    report = analyze_text(NAMED_ERROR_OCCURS, "paste.md")
    assert _rules(report) == ["failure-time-unknown"]
    assert "ibv_dealloc_pd failed" in report["findings"][0]["message"]


def test_an_unnamed_error_that_occurred_states_no_failure_shown():
    text = "As mentioned above, an error occurred when loading into the cuda graph while I was inferring on the H200.\n"
    assert _rules(analyze_text(text, "paste.md")) == []


# model-optimizer-220: TensorRT-LLM's PyExecutor loop (its `_event_loop_wrapper`), not SGLang's scheduler loop
TRTLLM_EXECUTOR = """```
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 278, in _event_loop_wrapper
    self.event_loop()
  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 1606, in _forward_step
    self._handle_errors(error_msg)
  File "/usr/local/lib
"""


def test_another_program_s_event_loop_wrapper_is_no_sglang_serving_loop():
    report = analyze_text(TRTLLM_EXECUTOR, "paste.md")
    assert _rules(report) == ["failure-time-unknown"]
    assert "CUDA error: an illegal memory access" in report["findings"][0]["message"]


# flashinfer-892: FlashInfer 0.2.x's JIT logger opens a build, torch's cpp_extension runs ninja and fails
FLASHINFER_JIT_LOADING = """2025-02-28 11:38:16,846 - INFO - flashinfer.jit: Loading JIT ops: batch_mla_attention_head_dim_ckv_512
2025-02-28 11:38:45,662 - INFO - flashinfer.jit: Finished loading JIT ops: batch_mla_attention_head_dim_ckv_512
2025-02-28 11:38:45,667 - INFO - flashinfer.jit: Loading JIT ops: batch_mla_attention_head_dim_ckv_512_sm90
Traceback (most recent call last):
  File "/root/miniconda3/envs/torch/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 2104, in _run_ninja_build
    subprocess.run(
  File "/root/miniconda3/envs/torch/lib/python3.10/subprocess.py", line 526, in run
    raise CalledProcessError(retcode, process.args,
subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.
"""

# flashinfer-1166: FlashInfer 0.7.4's run_ninja message holds ninja's output, which opens in its JIT folder
FLASHINFER_NINJA_OUTPUT = """seeing similar errors

```
RuntimeError: Ninja build failed. Ninja output:
ninja: Entering directory `/home/ubuntu/.cache/flashinfer/100/cached_ops'
[1/4] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -DTORCH_EXTENSION_NAME=fused_moe_sm100 -c x.cu
```
"""


def _failure_library(report: dict) -> str:
    (finding,) = report["findings"]
    return finding["message"]


def test_a_ninja_build_failure_inside_flashinfer_s_unfinished_jit_load_is_flashinfer_s():
    assert "It was raised in FlashInfer" in _failure_library(analyze_text(FLASHINFER_JIT_LOADING, "paste.md"))


def test_a_finished_jit_load_names_no_library_of_a_later_build_failure():
    closed = FLASHINFER_JIT_LOADING.replace(
        "Loading JIT ops: batch_mla_attention_head_dim_ckv_512_sm90",
        "Finished loading JIT ops: batch_mla_attention_head_dim_ckv_512",
    )
    assert "FlashInfer" not in _failure_library(analyze_text(closed, "paste.md"))


def test_flashinfer_s_ninja_failure_is_named_by_the_jit_folder_ninja_entered():
    assert "It was raised in FlashInfer" in _failure_library(analyze_text(FLASHINFER_NINJA_OUTPUT, "paste.md"))
