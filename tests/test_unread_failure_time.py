"""An unread failure line (unrecognized-failure: no signature names it) after a line of its input that shows the server
serving (a served request, the ready line) came while the server served: the finding's phase says so; with no such
line before it, its time stays unknown. The shape of an LMCache retrieval error under vLLM's request log."""

from __future__ import annotations

from typing import Any

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source

REQUEST = "INFO 09-25 00:42:05 [async_llm.py:270] Added request chatcmpl-2c45aa08-405b-4d28-9d72-8ad3058f6852.\n"
UNREAD = (
    "(RayWorkerWrapper pid=999) [2025-09-25 00:42:06,089] LMCache ERROR: The number of retrieved tokens is less than the"
    " expected number of tokens\n"
)


def _unread(text: str) -> dict[str, Any]:
    doc = analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)
    [finding] = [f for f in doc["findings"] if f["rule"] == "unrecognized-failure"]
    return finding


def test_an_unread_failure_after_a_served_request_is_while_serving():
    assert _unread(REQUEST + UNREAD)["phase"] == "serving"


def test_an_unread_failure_before_any_serving_line_stays_unknown():
    assert _unread(UNREAD + REQUEST)["phase"] == "unknown"
    assert _unread(UNREAD)["phase"] == "unknown"


# vLLM's engine core dumps the batch it was executing when the model's execution raised (logging_utils/dump_input.py,
# called only from EngineCore.step / step_with_batch_queue, vllm 0.10.2-0.34.0): a line that itself shows requests served
DUMP = (
    "(EngineCore_DP0 pid=559) ERROR 10-20 03:20:50 [dump_input.py:76] Dumping scheduler output for model execution:"
    " SchedulerOutput(scheduled_new_reqs=[NewRequestData(req_id=chatcmpl-d84d91bb00e14fbba6aeb52c981e38f1,"
    "prompt_token_ids_len=70730\n"
)


def test_vllm_s_dump_of_the_failing_step_is_while_serving():
    assert _unread(DUMP)["phase"] == "serving"


def test_a_traceback_after_vllm_s_dump_is_while_serving():
    traceback = (
        "(EngineCore_DP0 pid=559) Traceback (most recent call last):\n"
        '(EngineCore_DP0 pid=559)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 711,'
        " in run_engine_core\n"
        "(EngineCore_DP0 pid=559)     engine_core.run_busy_loop()\n"
        "(EngineCore_DP0 pid=559) RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    doc = analyze_sources([Source(name="paste.log", path=None, data=(DUMP + traceback).encode())], cases=False)
    crashes = [f for f in doc["findings"] if f["rule"] == "runtime-crash"]
    assert [f["phase"] for f in crashes] == ["serving"]


# a relaunch (a second server_args dump, its weights loading) or a restarted vLLM engine after the first launch's ready
# line is a new startup: an unread failure during it did not come while the first launch served (review14b item 6)
ARGS = "[2025-10-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85)\n"
READY = "[2025-10-01 10:00:30] The server is fired up and ready to roll!\n"
RELAUNCH = (
    "[2025-10-01 11:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-32B', tp_size=2, mem_fraction_static=0.85)\n"
    "[2025-10-01 11:00:05] Load weight begin. avail mem=78.50 GB\n"
)
SHARD = "myplugin: shard index failed: cannot open /models/q32/shard-3\n"


def test_an_unread_failure_during_a_relaunch_s_startup_is_not_while_serving():
    assert _unread(ARGS + READY + RELAUNCH + SHARD)["phase"] == "unknown"
    # the same launch's ready line, then the failure: serving
    assert _unread(ARGS + READY + SHARD)["phase"] == "serving"
    # the relaunch's own ready line after its startup: serving again
    assert _unread(ARGS + READY + RELAUNCH + READY + SHARD)["phase"] == "serving"


def test_an_unread_failure_after_a_restarted_vllm_engine_s_startup_line_is_not_while_serving():
    up = "(APIServer pid=7) INFO:     Application startup complete.\n"
    loading = "(EngineCore pid=9) INFO 05-06 16:50:02 [gpu_model_runner.py:1329] Starting to load model Qwen/Qwen3-8B...\n"
    failed = "(EngineCore pid=9) kvconnector: shard handshake failed: peer reset\n"
    assert _unread("```\n" + up + loading + failed + "```\n")["phase"] == "unknown"
    assert _unread("```\n" + up + failed + "```\n")["phase"] == "serving"
