"""The lines a server prints only once it serves requests, read from the released sources (parse/serving.py, issue 43,
i43-serving): each places a failure after it while serving, in its real shape; SGLang's own warmup request, which
runs before the ready line and prints the same request log, places nothing."""

from __future__ import annotations

import pytest

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import Coverage
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest import ranges
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.classify import SourceClassifier
from logscope.pipeline.parse.serving import MAY_PRECEDE_READY, SERVING_MARK, marked_may_precede_ready

CRASH = "[2025-06-01 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"

ASGI = "[2025-06-01 10:00:05] ERROR:    Exception in ASGI application\n"
SITE = "/usr/local/lib/python3.10/dist-packages"
HTTP_SERVER_FRAME = 'sglang/srt/entrypoints/http_server.py", line 481, in generate_request'
TOKENIZER_FRAME = 'sglang/srt/managers/tokenizer_manager.py", line 412, in generate_request'
OPENAI_FRAME = 'sglang/srt/entrypoints/openai/serving_base.py", line 58, in handle_request'
OLD_SERVER_FRAME = 'sglang/srt/server.py", line 112, in generate_request'
MINI_LB_FRAME = 'sglang/srt/disaggregation/mini_lb.py", line 171, in generate'


def _traceback(*frames: str) -> str:
    """The traceback uvicorn logs under its line: a blank line, uvicorn's and starlette's frames, then `frames`."""
    lines = ["", "Traceback (most recent call last):"]
    for frame in ('uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi', *frames):
        lines += [f'  File "{SITE}/{frame}', "    await something()"]
    return "\n".join([*lines, "ValueError: the request is too long"])


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
    # uvicorn 0.20.0-0.34.0 RequestResponseCycle.run_asgi, once per request whose handler raised, with the traceback
    # under it (after a blank line: msg ends in "\n") through the SGLang server's own app
    ("uvicorn-asgi-exception", ASGI + _traceback(HTTP_SERVER_FRAME, TOKENIZER_FRAME)),
    ("uvicorn-asgi-exception-openai", ASGI + _traceback(OPENAI_FRAME)),
    ("uvicorn-asgi-exception-0.3", ASGI + _traceback(OLD_SERVER_FRAME)),
    # an exception group (starlette's task group), then a chained traceback: the server's frame in the last one
    (
        "uvicorn-asgi-exception-group",
        ASGI
        + "\n  + Exception Group Traceback (most recent call last):\n"
        + f'  |   File "{SITE}/uvicorn/protocols/http/h11_impl.py", line 403, in run_asgi\n'
        + "  |     result = await app(  # type: ignore[func-returns-value]\n"
        + "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        + "  +-+---------------- 1 ----------------\n"
        + "    | Traceback (most recent call last):\n"
        + f'    |   File "{SITE}/{HTTP_SERVER_FRAME}\n'
        + "    |     ret = await _global_state.tokenizer_manager.generate_request(obj, request).__anext__()\n"
        + "    | ValueError: the request is too long\n"
        + "    +------------------------------------",
    ),
    (
        "uvicorn-asgi-exception-chained",
        ASGI
        + _traceback(TOKENIZER_FRAME)
        + "\n\nDuring handling of the above exception, another exception occurred:\n\n"
        + _traceback(HTTP_SERVER_FRAME)[1:],
    ),
    (
        "uvicorn-asgi-exception-compose",
        "\n".join("sglang-1  | " + line for line in (ASGI + _traceback(HTTP_SERVER_FRAME)).split("\n")),
    ),
    # vllm 0.6.3.post1 / 0.10.1.1 entrypoints/logger.py RequestLogger.log_inputs
    (
        "vllm-received-request",
        "INFO 10-17 10:00:05 logger.py:37] Received request chatcmpl-9a8b: prompt: '<|user|>hi', "
        "params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: [1, 2, 3], lora_request: None.",
    ),
    # vllm 0.6.3.post1 engine/async_llm_engine.py (and "Added request" in 0.10.1.1 v1/engine/async_llm.py)
    ("vllm-added-request", "INFO 10-17 10:00:05 async_llm_engine.py:207] Added request chatcmpl-9a8b."),
    ("vllm-finished-request", "INFO 10-17 10:00:06 async_llm_engine.py:175] Finished request chatcmpl-9a8b."),
    # an OpenAI-compatible completion's id in a worker's line (vllm-ascend's Mooncake connector, the shape of built
    # vllm-ascend-4866; vllm "cmpl-" + uuid, sglang serving_completions.py "cmpl-" + uuid hex): a client's request
    (
        "completion-id",
        "(Worker_DP0_TP5 pid=2543213) ERROR 12-10 03:24:54 [mooncake_connector.py:410] Mooncake transfer failed for "
        "request cmpl-09be0283-e039-40ce-aefa-da0f36c8cd46-0",
    ),
    (
        "completion-id-hex",
        "[2026-03-01 10:00:05 TP0] Abort request cmpl-5d41402abc4b2a76b9719d911017c592",
    ),
    # LMCache's vLLM connector per request (lmcache 0.3.10.post2 integration/vllm/vllm_v1_adapter.py: its log format
    # "[%(asctime)s] LMCache %(levelname)s: %(message)s (%(filename)s:%(lineno)d:%(name)s)"), the offline engine's
    # request ids being numbers
    (
        "lmcache-lookup",
        "[2026-02-02 08:10:11,120] LMCache INFO: Reqid: 7, Total tokens 1536, LMCache hit tokens: 512, need to load: 512 "
        "(vllm_v1_adapter.py:1539:lmcache.integration.vllm.vllm_v1_adapter)",
    ),
    (
        "lmcache-store",
        "[2026-02-02 08:10:11,480] LMCache INFO: Storing KV cache for 1024 out of 1536 tokens (skip_leading_tokens=512) "
        "for request 7 (vllm_v1_adapter.py:1213:lmcache.integration.vllm.vllm_v1_adapter)",
    ),
    # uvicorn's access log of an error answer: the HTTP server answered a client, so startup was behind it
    (
        "uvicorn-500",
        '[2025-06-04 16:47:58] INFO:     127.0.0.1:47588 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    ),
    ("uvicorn-400", '[2025-06-04 16:47:58] INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 400 Bad Request'),
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
    # the probes' answers during the warmup (http_server.py health: 503 until the warmup is done)
    ("health-503", '[2025-06-01 10:00:03] INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 503 Service Unavailable'),
    # review12a item 13: the error answers a stack not yet up gives: a readiness probe's or router's 503, another
    # program's request (huggingface_hub's urllib3 debug line of a gated download, its own 2xx too)
    ("models-503", 'INFO:     10.0.0.7:40112 - "GET /v1/models HTTP/1.1" 503 Service Unavailable'),
    ("generate-503", 'INFO:     10.0.0.7:40112 - "POST /generate HTTP/1.1" 503 Service Unavailable'),
    (
        "urllib3-401",
        'DEBUG:urllib3.connectionpool:https://huggingface.co:443 "GET /api/models/meta-llama/Llama-3.1-8B-Instruct/'
        'revision/main HTTP/1.1" 401 95',
    ),
    (
        "urllib3-200",
        'DEBUG:urllib3.connectionpool:https://huggingface.co:443 "GET /api/models/meta-llama/Llama-3.1-8B-Instruct/'
        'revision/main HTTP/1.1" 200 95',
    ),
    # another uvicorn app's report: mini_lb (the PD load balancer, its own process), a user's proxy; or the line with
    # no traceback under it (no frame shows whose app raised); or a traceback whose only SGLang frame is a startup one
    ("asgi-mini-lb", ASGI + _traceback(MINI_LB_FRAME)),
    ("asgi-router-mini-lb", ASGI + _traceback('sglang_router/mini_lb.py", line 177, in generate')),
    ("asgi-user-proxy", ASGI + _traceback('/app/proxy.py", line 41, in forward')),
    ("asgi-alone", ASGI),
    ("asgi-encoder", ASGI + _traceback('sglang/srt/disaggregation/encoder/http_server.py", line 90, in encode')),
    (
        "asgi-then-another-traceback",
        ASGI + _traceback(MINI_LB_FRAME) + "\n[2025-06-01 10:00:06] Traceback (most recent call last):\n"
        f'  File "{SITE}/{HTTP_SERVER_FRAME}\n',
    ),
    ("finished-request-prose", "Finished request processing for the whole batch and more"),
]


@pytest.mark.parametrize("line", [line for _, line in SERVED], ids=[name for name, _ in SERVED])
def test_a_served_line_places_a_failure_after_it_while_serving(line):
    [failure] = _failures_on_the_crash_line(line)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.phase_basis.startswith("after line 1")


def _failures_on_the_crash_line(line: str) -> list:
    """The failures read off CRASH pasted under `line` (a traceback under the line gives failures of its own)."""
    analysis = analyze_model([Source(name="paste.log", path=None, data=(line + "\n" + CRASH).encode())])
    crash_at = line.count("\n") + 2
    return [f for fs in analysis.failures.values() for f in fs if f.event.line == crash_at]


@pytest.mark.parametrize(
    "line", [line for name, line in NOT_SERVED if name.startswith("asgi")], ids=[n for n, _ in NOT_SERVED if n.startswith("asgi")]
)
def test_another_apps_asgi_report_places_no_failure_while_serving(line):
    # a scheduler's crash under mini_lb's (or a proxy's) report of a request is no crash of a serving SGLang server
    [failure] = _failures_on_the_crash_line(line)
    assert failure.phase != "serving"


@pytest.mark.parametrize("line", [line for _, line in NOT_SERVED], ids=[name for name, _ in NOT_SERVED])
def test_the_warmup_request_and_look_alikes_are_no_serving_line(line):
    events = SourceClassifier(Source(name="paste.log", path=None, data=line.encode()), Coverage()).run()
    assert not [e for e in events if e.kind == kinds.SERVING_BEGIN and not e.data["may_precede_ready"]]


@pytest.mark.parametrize("line", [line for name, line in NOT_SERVED if name.startswith("warmup")])
def test_a_failure_after_the_warmup_request_is_not_placed_while_serving(line):
    analysis = analyze_model([Source(name="paste.log", path=None, data=(line + "\n" + CRASH).encode())])
    [failure] = [f for fs in analysis.failures.values() for f in fs]
    assert failure.phase != "serving"


@pytest.mark.parametrize("path", ["read", "ranges"])
def test_where_a_read_ends_does_not_change_the_asgi_reports_verdict(path, monkeypatch, tmp_path):
    """review10 item 10: the traceback under uvicorn's line was looked for only to the end of the read holding the line,
    so a read that ended right after it gave another basis ('frame httptools_impl.py:409 run_asgi' instead of 'after
    line N, uvicorn's ...'). The traceback reader reads it whole, wherever reads end."""
    head = (
        "[2025-03-09 14:40:40] server_args=ServerArgs(model_path='Qwen/Qwen2-7B', tp_size=1)\n"
        "[2025-03-09 14:40:46 TP0] Load weight begin. avail mem=78.50 GB\n"
    ) + ("filler " + "x" * 92 + "\n") * 40
    asgi = ASGI
    data = (head + asgi + _traceback(HTTP_SERVER_FRAME) + "\n" + ("filler " + "x" * 92 + "\n") * 40).encode()
    after_asgi = len((head + asgi).encode())
    asgi_line = (head + asgi).count("\n")
    bases = set()
    for read_bytes in (after_asgi, 1 << 20):
        if path == "read":
            source = Source(name="paste.log", path=None, data=data)
            source.read_bytes = read_bytes
        else:  # a range worker's reads (the review's 20 MiB log, its line at a 512 KiB read's end)
            if ranges.workers() < 2:
                pytest.skip("one core: no worker processes")
            monkeypatch.setattr(ranges, "RANGE_MIN_BYTES", 1)
            monkeypatch.setattr(ranges, "READ_BYTES", read_bytes)
            (tmp_path / "big.log").write_bytes(data)
            source = Source(name="big.log", path=tmp_path / "big.log")
        analysis = analyze_model([source])
        [failure] = [f for fs in analysis.failures.values() for f in fs]
        bases.add((failure.finding, failure.phase, failure.phase_basis.split(":")[0]))
    assert bases == {("runtime-crash", "serving", f"after line {asgi_line}, uvicorn's 'Exception in ASGI application'")}


def _served_after_warmup_log() -> str:
    lines = [
        "[2025-03-09 14:40:40] server_args=ServerArgs(model_path='BAAI/bge-large-en-v1.5', tp_size=1, is_embedding=True)",
        "[2025-03-09 14:40:46 TP0] Load weight begin. avail mem=78.50 GB",
        "[2025-03-09 14:40:50 TP0] Load weight end. type=BertModel, dtype=torch.float16, avail mem=77.80 GB, mem usage=0.70 GB.",
    ]
    for i in range(9):
        lines.append(f"[2025-03-09 14:40:{51 + i} TP0] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0")
        lines.append(f'[2025-03-09 14:40:{51 + i}] INFO:     127.0.0.1:4455{i} - "POST /generate HTTP/1.1" 200 OK')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("read_bytes", [200, 1 << 20])
def test_requests_served_after_the_warmup_are_found_however_the_input_is_read(read_bytes):
    """review10 item 7: prefill batches and POST /generate seconds apart (an embedding server, no ready line pasted)
    show requests served after SGLang's one warmup request: the rule startup-incomplete stays quiet, whether the lines
    come in one read or in many."""
    source = Source(name="paste.log", path=None, data=_served_after_warmup_log().encode())
    source.read_bytes = read_bytes
    events = SourceClassifier(source, Coverage()).run()
    marks = [(e.line, e.data["may_precede_ready"], e.data["past_warmup"]) for e in events if e.kind == kinds.SERVING_BEGIN]
    # the first prefill batch (line 4), then the same rank's prefill batch two seconds later (line 8)
    assert marks == [(4, True, False), (8, True, True)]


@pytest.mark.parametrize(
    ("line", "may_precede"),
    [
        ("[2026-03-01 10:00:05 TP0] Abort request cmpl-5d41402abc4b2a76b9719d911017c592", False),
        # SGLang's warmup of a VLM posts a chat completion (http_server.py _execute_server_warmup 0.5.9), whose id
        # serving_chat.py makes "chatcmpl-" + uuid hex: such an id may be the warmup's
        ("[2026-03-01 10:00:05 TP0] Abort request chatcmpl-5d41402abc4b2a76b9719d911017c592", True),
        # too short for a uuid: a word, no id
        ("[2026-03-01 10:00:05] see cmpl-abc in the docs", None),
    ],
    ids=["completion", "chat-completion", "short"],
)
def test_a_request_id_is_a_serving_line_and_a_chat_completion_may_be_the_warmups(line, may_precede):
    events = SourceClassifier(Source(name="paste.log", path=None, data=line.encode()), Coverage()).run()
    marks = [e.data["may_precede_ready"] for e in events if e.kind == kinds.SERVING_BEGIN]
    assert marks == ([] if may_precede is None else [may_precede])


def _error_first(decode_at: str) -> str:
    """The shape of an issue that quotes the error first, then the log that led to it."""
    return (
        "The scheduler died:\n```\n"
        "[2025-06-01 10:00:06 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py", line 2070, in forward\n'
        "    return self.forward_decode(forward_batch)\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n```\nThe log before it:\n```\n"
        f"[2025-06-01 {decode_at} TP0] Decode batch. #running-req: 12, #token: 40000, token usage: 0.10, "
        "gen throughput (token/s): 900.00, #queue-req: 0\n```\n"
    )


@pytest.mark.parametrize(("decode_at", "phase"), [("09:59:45", "serving"), ("10:09:45", "unknown")])
def test_a_serving_line_pasted_after_the_failure_places_it_when_its_stamp_is_earlier(decode_at, phase):
    """place12: the order of the paste is not the order of the log; both full time stamps are (a decode batch stamped
    after the failure shows nothing of the time before it)."""
    analysis = analyze_model([Source(name="paste.log", path=None, data=_error_first(decode_at).encode())])
    [failure] = [f for fs in analysis.failures.values() for f in fs]
    assert failure.phase == phase
    if phase == "serving":
        assert "stamped 2025-06-01 09:59:45, before the failure's 2025-06-01 10:00:06" in failure.phase_basis


# review12a item 8: one default in one place: a serving mark read without the key may precede the ready line (the
# cautious answer, never "past the warmup"); a ready line or no marker never
def test_a_serving_mark_without_the_key_may_precede_the_ready_line():
    def mark(kind: str, data: dict) -> Event:
        return Event(kind=kind, source="s", line=1, text="x", data=data)

    assert marked_may_precede_ready(mark(SERVING_MARK, {})) is True
    assert marked_may_precede_ready(mark(SERVING_MARK, {MAY_PRECEDE_READY: True})) is True
    assert marked_may_precede_ready(mark(SERVING_MARK, {MAY_PRECEDE_READY: False})) is False
    assert marked_may_precede_ready(mark(kinds.SERVER_READY, {})) is False
    assert marked_may_precede_ready(None) is False
