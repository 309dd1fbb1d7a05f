"""The lines a server prints only once it serves requests, read from the released sources (parse/serving.py, issue 43,
i43-serving): each places a failure after it while serving, in its real shape; SGLang's own warmup request, which
runs before the ready line and prints the same request log, places nothing."""

from __future__ import annotations

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.serving import is_serving_line

CRASH = "[2025-06-01 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"

SERVED = [
    # tokenizer_manager.py 0.3.0-0.4.0.post2 (--log-requests): logger.info(f"in={obj}, out={out}")
    (
        "0.3-in-out",
        "[2024-10-01 10:00:05] in=GenerateReqInput(text='Once upon a time', input_ids=None, image_data=None, "
        "sampling_params={'max_new_tokens': 32}, rid='9f8e', return_logprob=False, stream=False), "
        "out={'text': ' there was', 'meta_info': {'prompt_tokens': 5, 'completion_tokens': 32}}",
    ),
    # tokenizer_manager.py 0.4.1.post7-0.5.6.post2, utils/request_logger.py 0.5.7-0.5.23 (level 2, the default)
    (
        "receive",
        "[2025-06-01 10:00:05] Receive: obj=GenerateReqInput(text='Tell me about GPUs', input_ids=None, "
        "input_embeds=None, image_data=None, sampling_params={'temperature': 0.7, 'max_new_tokens': 256}, "
        "rid='3b1c0e', return_logprob=False)",
    ),
    (
        "finish",
        "[2025-06-01 10:00:07] Finish: obj=GenerateReqInput(text=None, input_ids=[128000, 791, 6864], "
        "sampling_params={'max_new_tokens': 8}, rid='77aa'), out={'text': 'Paris', 'meta_info': {'id': '77aa'}}",
    ),
    # utils/request_logger.py 0.5.10.post1-0.5.23 log_openai_received_request
    (
        "receive-openai",
        "[2026-03-01 10:00:05] Receive OpenAI: obj={'model': 'default', 'messages': [{'role': 'user', 'content': "
        "'hi'}], 'max_tokens': 64}",
    ),
    # utils/request_logger.py 0.5.7-0.5.23 with --log-requests-format json (log_utils.log_json)
    (
        "json",
        '[2026-03-01 10:00:05] {"timestamp": "2026-03-01T10:00:05.120000", "event": "request.received", "rid": "5c", '
        '"obj": {"text": "Summarise this page", "sampling_params": {"max_new_tokens": 128}}}',
    ),
    # scheduler.py 0.4.7.post1-0.5.23 update_running_batch (logger.warning)
    (
        "retract",
        "[2025-06-01 10:00:05 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 3, "
        "#new_token_ratio: 0.4000 -> 0.7000",
    ),
    # scheduler.py / tp_worker.py 0.3.0-0.4.6.post5
    (
        "retract-0.3",
        "[2024-10-01 10:00:05 TP0] Decode out of memory happened. #retracted_reqs: 2, #new_token_ratio: 0.3000 -> 0.6000",
    ),
    # vllm 0.6.3.post1 vllm/engine/metrics.py LoggingStatLogger.log
    (
        "vllm-v0-stats",
        "INFO 10-17 10:00:05 metrics.py:349] Avg prompt throughput: 120.4 tokens/s, Avg generation throughput: 35.2 "
        "tokens/s, Running: 4 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.2%, CPU KV cache usage: 0.0%.",
    ),
    # vllm 0.10.1.1 vllm/v1/metrics/loggers.py LoggingStatLogger.log
    (
        "vllm-v1-stats",
        "(APIServer pid=81) INFO 08-20 10:00:05 [loggers.py:123] Engine 000: Avg prompt throughput: 52.0 tokens/s, "
        "Avg generation throughput: 48.3 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%, "
        "Prefix cache hit rate: 0.0%",
    ),
    # uvicorn 0.20.0-0.34.0 RequestResponseCycle.run_asgi, once per request whose handler raised
    ("uvicorn-asgi-exception", "[2025-06-01 10:00:05] ERROR:    Exception in ASGI application"),
    # vllm 0.6.3.post1 / 0.10.1.1 entrypoints/logger.py RequestLogger.log_inputs
    (
        "vllm-received-request",
        "INFO 10-17 10:00:05 logger.py:37] Received request chatcmpl-9a8b: prompt: '<|user|>hi', "
        "params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: [1, 2, 3], lora_request: None.",
    ),
    # vllm 0.6.3.post1 engine/async_llm_engine.py (and "Added request" in 0.10.1.1 v1/engine/async_llm.py)
    ("vllm-added-request", "INFO 10-17 10:00:05 async_llm_engine.py:207] Added request chatcmpl-9a8b."),
    ("vllm-finished-request", "INFO 10-17 10:00:06 async_llm_engine.py:175] Finished request chatcmpl-9a8b."),
    # verl 0.4.1 utils/logger/aggregate_logger.py concat_dict_to_str, printed after a training step (Ray prefix)
    (
        "verl-step",
        "(TaskRunner pid=1234) step:2 - global_seqlen/min:10240.000 - actor/entropy:0.512 - timing_s/gen:41.203",
    ),
]

NOT_SERVED = [
    # SGLang's own warmup request (http_server.py _wait_and_warmup / _execute_server_warmup), before the ready line
    (
        "warmup-text",
        "[2025-06-01 10:00:03] Receive: obj=GenerateReqInput(text='The capital city of France is', input_ids=None, "
        "sampling_params={'temperature': 0, 'max_new_tokens': 8})",
    ),
    (
        "warmup-ids",
        "[2025-06-01 10:00:03] Finish: obj=GenerateReqInput(text=None, input_ids=[10, 11, 12], "
        "sampling_params={'temperature': 0, 'max_new_tokens': 8}), out={'text': ''}",
    ),
    (
        "warmup-pd-prefill",
        "[2025-06-01 10:00:03] Receive: obj=GenerateReqInput(input_ids=[[10, 11, 12, 13]], "
        "bootstrap_host=['2.2.2.2'], bootstrap_room=[0])",
    ),
    (
        "warmup-openai-vlm",
        "[2026-03-01 10:00:03] Receive OpenAI: obj={'messages': [{'role': 'user', 'content': [{'type': 'text', "
        "'text': 'Describe the image.'}]}], 'max_tokens': 8}",
    ),
    # levels 0 and 1 leave the input out: the warmup's request cannot be told from a user's
    (
        "no-input-shown",
        "[2025-06-01 10:00:05] Receive: obj=GenerateReqInput(rid='3b1c0e', sampling_params={'temperature': 0.7})",
    ),
    # a retraction of no request: a batch of one (retract_decode's corner case), as the warmup's would be
    (
        "retract-none",
        "[2025-06-01 10:00:05 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 0, "
        "#new_token_ratio: 0.4000 -> 0.7000",
    ),
    ("step-word", "Loading checkpoint step:2 from /ckpt"),
    ("finished-request-prose", "Finished request processing for the whole batch and more"),
]


@pytest.mark.parametrize("line", [line for _, line in SERVED], ids=[name for name, _ in SERVED])
def test_a_served_line_places_a_failure_after_it_while_serving(line):
    assert is_serving_line(line)
    analysis = analyze_model([Source(name="paste.log", path=None, data=(line + "\n" + CRASH).encode())])
    [failure] = [f for fs in analysis.failures.values() for f in fs]
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.phase_basis.startswith("after line 1")


@pytest.mark.parametrize("line", [line for _, line in NOT_SERVED], ids=[name for name, _ in NOT_SERVED])
def test_the_warmup_request_and_look_alikes_are_no_serving_line(line):
    assert not is_serving_line(line)


@pytest.mark.parametrize("line", [line for name, line in NOT_SERVED if name.startswith("warmup")])
def test_a_failure_after_the_warmup_request_is_not_placed_while_serving(line):
    analysis = analyze_model([Source(name="paste.log", path=None, data=(line + "\n" + CRASH).encode())])
    [failure] = [f for fs in analysis.failures.values() for f in fs]
    assert failure.phase != "serving"
