"""The lines vLLM's engine prints only while it starts (the engine Dynamo, verl, LMCache, gpustack and vllm-ascend run):
a failure after one, with no line of the engine's end of startup between, came while the engine was starting, as a
failure after an SGLang phase line comes in that step (signatures/match.py reads them like the weight loader's bar).

Each wording with the released source that prints it (read from the wheels of vllm 0.6.3.post1, 0.8.5.post1, 0.10.2,
0.14.1, 0.20.2, 0.27.1 and 0.34.0; none is in SGLang's catalogue):
- "Starting to load model %s..." (worker/model_runner.py ModelRunner.load_model 0.6.3.post1-0.10.2,
  v1/worker/gpu_model_runner.py GPUModelRunner.load_model 0.8.5.post1-0.27.1): loading the weights, until
- "Model loading took %.4f GiB and %.6f seconds" (the same load_model, 0.8.5.post1-0.34.0; "%s GiB memory and" in
  v1/worker/gpu/model_runner.py 0.34.0);
- "Memory profiling takes %.2f seconds" (worker/worker.py determine_num_available_blocks 0.8.5.post1-0.10.2, utils
  memory_profiling's result 0.10.2-0.34.0), "Available KV cache memory: %.2f GiB" (v1/worker/gpu_worker.py
  determine_available_memory 0.10.2-0.34.0), "GPU KV cache size: %s tokens" and "Maximum concurrency for %s tokens per
  request: %.2fx" (v1/core/kv_cache_utils.py 0.8.5.post1-0.34.0, executor/gpu_executor.py and executor_base.py
  initialize_cache 0.6.3.post1-0.10.2): the memory profile and the KV cache's size;
- "Capturing the model for CUDA graphs." (worker/model_runner.py capture_model 0.6.3.post1), "Capturing cudagraphs for
  decoding." (0.8.5.post1-0.10.2): the capture step, until "Graph capturing finished in %.0f secs" (capture_model,
  0.6.3.post1-0.34.0).
(Not read: "Waiting for %d local, %d remote core engine proc(s) to start." of v1/engine/utils.py: its words open no
record once the level prefix is cut, and "Waiting for" opens too many lines of prose to be taken for one.)
The end of the engine's startup: "init engine (profile, create kv cache, warmup model) took %.2f seconds" (v1/engine/
core.py EngineCore._initialize_kv_caches' caller and engine/llm_engine.py, 0.8.5.post1-0.34.0), "Graph capturing
finished in %.0f secs" (the last step, 0.6.3.post1-0.34.0; 0.6.3.post1 prints no "init engine" line), or uvicorn's bare
"INFO:     Application startup complete." / "Uvicorn running on" (the API server's, before 0.10.2 wrote its prefix):
after it the engine may be serving."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.pipeline.parse.parsers.base import Parsed

# (the wording, as a pattern found anywhere in the line: vLLM's level, time and file prefix, a process tag before it;
# the step it shows, or None; what it is)
_LINES: tuple[tuple[re.Pattern[str], str | None, str], ...] = (
    (re.compile(r"\bStarting to load model \S"), "load_weight", "loading the model"),
    (re.compile(r"\bModel loading took [\d.]+ GiB (?:memory )?and [\d.]+ seconds"), None, "the model loaded"),
    (re.compile(r"\bMemory profiling takes [\d.]+ seconds"), None, "the memory profile"),
    (re.compile(r"\bAvailable KV cache memory: [\d.]+ GiB"), None, "the memory profile"),
    (re.compile(r"\bGPU KV cache size: [\d,]+ tokens"), None, "the KV cache sized"),
    (re.compile(r"\bMaximum concurrency for [\d,]+ tokens per request: [\d.]+x"), None, "the KV cache sized"),
    (re.compile(r"\bCapturing (?:the model for CUDA graphs|cudagraphs for decoding)\."), "capture", "capturing CUDA graphs"),
)
_END = re.compile(
    r"\binit engine \(profile, create kv cache, warmup model\) took [\d.]+ s"
    # the capture's end: the last startup step the engine logs (capture_model, 0.6.3.post1-0.34.0); vLLM before
    # 0.8.5.post1 prints no "init engine" line after it
    r"|\bGraph capturing finished in \d+ secs"
    # uvicorn up with no process prefix (vLLM before 0.10.2 writes none on its API server's lines): the API server
    # starts uvicorn only once its engine was built (entrypoints/openai/api_server.py run_server -> serve_http); in
    # SGLang's form too ("[%Y-%m-%d %H:%M:%S] INFO: ...", serving.py), its HTTP server up once every scheduler was ready
    r"|^(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] )?INFO: +(?:Application startup complete\.|Uvicorn running on )"
)


def parse(text: str) -> Parsed | None:
    if _END.search(text):
        return Parsed(kinds.ENGINE_STARTUP_LINE, {"step": None, "what": "the engine's startup done", "ended": True})
    for pattern, step, what in _LINES:
        if pattern.search(text):
            return Parsed(kinds.ENGINE_STARTUP_LINE, {"step": step, "what": what, "ended": False})
    return None
