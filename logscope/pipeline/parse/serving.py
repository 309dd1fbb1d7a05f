"""The serving stage: which lines show that a server was serving (after startup), so that a failure after
them is a runtime failure, never a startup failure (docs/design.md: a crash while serving is no startup failure).

Markers: SGLang's ready line (an event of its own, `server_ready`), a served request in the uvicorn access log
(`"POST /v1/chat/completions HTTP/1.1" 200 OK`, `"POST /generate HTTP/1.1" 200`), and the scheduler's batch lines
(`Prefill batch. #new-seq`, `Decode batch. #running-req`): the scheduler's event loop was running batches, so every
startup step (weights, pools, capture) was behind it. SGLang's warmup request is such a batch too (it runs before
the ready line); the basis a failure's message gives names the line, so a reader can tell, and when SGLang then says
its warmup request failed the batch was the warmup's (signatures/warmup.py). Not markers: the
warmup's probes that run no batch (`/get_model_info`, `/model_info`, `/health`, `/get_server_info`, and the readiness
probe `/v1/models`).
The lines read from the released sources that a server prints only once it serves (issue 43, i43-serving): the
tokenizer manager's request log (not the warmup request's), the scheduler retracting running requests, uvicorn's
report of a request that raised, vLLM's stats line and request log, and verl's step metrics; each names its source
and release range where it is matched.
"""

from __future__ import annotations

import re
from datetime import datetime

from logscope.core import kinds
from logscope.core.events import Event
from logscope.pipeline.ingest.linescan import AnchoredPattern, StartupScan, first_line_matching
from logscope.pipeline.parse.parsers.base import PREFIX_BYTES

SERVING_MARK = kinds.SERVING_BEGIN  # the event kind of the first serving line of a chunk of input
READY_KINDS = frozenset({kinds.SERVER_READY, SERVING_MARK})

# uvicorn's access log: '10.0.3.4:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK', or the shorter 'POST
# /v1/chat/completions 200 OK' people paste; an error answer too ('"POST /v1/chat/completions HTTP/1.1" 500 Internal
# Server Error', place12): SGLang starts uvicorn only once every scheduler finished startup, so any answer to a request
# (the probes' paths aside) was given by a server past its startup; SGLang's decode log line
# uvicorn's report of a request whose handler raised (see AsgiReport): one spelling for every reader of it
ASGI_EXCEPTION = "Exception in ASGI application"
# the probes' paths: they run no batch, and the HTTP server answers them as soon as uvicorn is up, during the warmup
# too. `/v1/models` is the readiness probe SGLang's own wait_for_server polls (sglang/utils.py, 0.3.5.post2-0.5.23: "Wait
# for the server to be ready by polling the /v1/models endpoint"), and deployments' probes use it: its handler
# (srt/server.py 0.3.x, entrypoints/http_server.py 0.4.1.post7-0.5.23 available_models) lists the tokenizer manager's
# served model names and asks no scheduler for anything, so an answer to it shows the HTTP server up, no request served
PROBE_PATHS = r"/(?:get_model_info|model_info|health|health_generate|get_server_info|server_info|v1/models)\b"
# an error answer only in uvicorn's access-log shape and only to a generation path, never 503 (the "not ready" answer
# of a probe or a router while the backend loads): another program's 4xx/5xx (huggingface_hub's urllib3 debug line of a
# gated download, a readiness probe) is the very answer a stack not yet up gives (review12a item 13)
_GENERATION_PATHS = r"/(?:generate|v1/(?:chat/)?completions|v1/embeddings)\b"
_SERVING = re.compile(
    # a client's URL before the request ('https://huggingface.co:443 "GET /api/... HTTP/1.1" 200': urllib3's debug
    # line of its own request) is no answer of this server
    r"(?<!\d \")\b(?:POST|GET) (?!" + PROBE_PATHS + r")/[^ \"\\]*(?: HTTP/[0-9.]+\\?\"?)? 2\d\d\b"
    r"|(?<!\d \")\b(?:POST|GET) " + _GENERATION_PATHS + r"[^ \"\\]* HTTP/[0-9.]+\\?\" (?!503)[45]\d\d\b"
    # "Decode batch [1234], #running-req" / "Prefill batch [1234], #new-seq": the forward counter that
    # SGLANG_LOG_FORWARD_ITERS adds (scheduler_metrics_mixin.py iter_msg, sglang 0.5.4.post3-0.5.23)
    r"|Decode batch(?: \[\d+\])?[.,] #running-req|Prefill batch(?: \[\d+\])?[.,] #new-seq"
    # a prefill mixed into a running decode batch (Scheduler.get_new_batch_prefill, sglang 0.3.0-0.3.4.post2)
    r"|Prefill batch\(mixed #running-req: \d+\)\. #new-seq"
    # the scheduler refusing a request too long for the pool (managers/utils.py validate_input_length, called from
    # Scheduler.handle_generate_request / handle_embedding_request, sglang 0.4.3.post4-0.5.23): a request arrived
    r"|Input length \(\d+ tokens\) exceeds the maximum allowed length"
    # uvicorn up, in the format SGLang gives it ("[%(asctime)s] %(levelprefix)s %(message)s", datefmt
    # "%Y-%m-%d %H:%M:%S", uvicorn's LOGGING_CONFIG as SGLang sets it, sglang 0.3.4.post2-0.5.23): SGLang starts its HTTP server
    # only once every scheduler reported ready (launch_server after _launch_subprocesses, which waits for the
    # schedulers' "ready"; the dummy health server of nodes >= 1 likewise): weights, pools and capture were done,
    # the warmup request came next. The other uvicorn servers SGLang runs log at "warning" (no such line).
    r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] INFO: +(?:Application startup complete\.|Uvicorn running on )"
    # vLLM's OpenAI server up, under the process prefix vLLM writes on its API server's lines ("(APIServer pid=7) ",
    # utils decorate_logs("APIServer"): entrypoints/openai/api_server.py run_server 0.10.2, launchers/api_server/
    # entry.py 0.34.0): its uvicorn starts only once build_async_engine_client returned, the engine built and ready,
    # and vLLM sends no warmup request after it (api_server.py run_server -> serve_http, vllm 0.10.2-0.34.0)
    r"|\(APIServer pid=\d+\) INFO: +Application startup complete\."
    # SGLang's benchmark client after its first request came back (bench_serving.py: "Initial test run completed.
    # Starting main benchmark run..." 0.3.0-0.4.3.post4, "Warmup completed with N sequences. Starting main
    # benchmark run..." 0.4.4.post4-0.5.23, raised instead when that request failed) and its results table (" Serving Benchmark
    # Result " centred in "=", 0.3.0-0.5.23): a server answered requests
    r"|Starting main benchmark run\.\.\.|=+ Serving Benchmark Result =+"
    # the tokenizer manager's request log (--log-requests): "in=GenerateReqInput(...), out=..." (tokenizer_manager.py
    # 0.3.0-0.4.0.post2), "Receive: obj=GenerateReqInput(...)" and "Finish: obj=..., out=..." (tokenizer_manager.py
    # 0.4.1.post7-0.5.6.post2, utils/request_logger.py 0.5.7-0.5.23), "Receive OpenAI: obj={...}" (request_logger.py
    # 0.5.10.post1-0.5.23), and its JSON form ("event": "request.received" / "request.finished", log_json, 0.5.7-0.5.23).
    # SGLang's own warmup request goes the same way before the ready line (http_server.py _wait_and_warmup /
    # _execute_server_warmup): only a logged request that shows its input (--log-requests-level 2 or 3, the default 2)
    # and none of the warmup's (text "The capital city of France is", input_ids [10, 11, 12], the PD prefill warmup's
    # [[0, 1, 2, 3]] / [[10, 11, 12, 13]] with bootstrap host FAKE_BOOTSTRAP_HOST "2.2.2.2", the VLM warmup's
    # "Describe the image.") is a served request
    # (the input is looked for within 500 characters of its anchor, where a request's first fields stand: rid and
    # session_id, then text and input_ids in io_struct.py GenerateReqInput 0.5.23, text first in 0.4.1.post7; the
    # warmup's within 600, so an input found near the bound still has its warmup words looked at. Unbounded, a line of
    # thousands of anchors was read to its end from each of them, quadratic; from the line's start instead, every line
    # paid a full read, 20% of a crash loop's time)
    r"|(?:\b(?:Receive(?: OpenAI)?|Finish): obj=|\bin=(?:Generate|Embedding)ReqInput\("
    r"|\"event\": \"request\.(?:received|finished)\")"
    r"(?!.{0,600}?(?:The capital city of France is|\b10, 11, 12\b|\[0, 1, 2, 3\]|2\.2\.2\.2|Describe the image\.))"
    r"(?=.{0,500}?(?:\btext=(?!None\b)|\binput_ids=\[|\"(?:text|input_ids|messages|prompt)\": ?[\"\["
    r"]|'(?:messages|prompt)': ?['\"\[]))"
    # the scheduler retracting running requests when decode ran out of KV cache (Scheduler.update_running_batch:
    # "Decode out of memory happened. #retracted_reqs: N" 0.3.0-0.4.6.post5, "KV cache pool is full. Retract requests.
    # #retracted_reqs: N" 0.4.7.post1-0.5.23): retract_decode takes none from a batch of one request (its corner
    # case), so a retraction needs two running requests, more than SGLang's warmup sends to one scheduler
    r"|(?:Decode out of memory happened|KV cache pool is full\. Retract requests)\. #retracted_reqs: [1-9]"
    # vLLM's stats line (vllm/engine/metrics.py LoggingStatLogger.log, vllm 0.6.3.post1; "Engine 000: " before it in
    # vllm/v1/metrics/loggers.py LoggingStatLogger.log, 0.10.1.1, at info only when a throughput of this interval or the
    # last is not zero): the OpenAI server logs it every 10 s from its lifespan, once the engine is built and the app
    # serves (entrypoints/openai/api_server.py lifespan _force_log, both releases), and the engine after the steps of
    # its requests; a vLLM server beside SGLang, or the engine an RL framework generates with
    r"|Avg prompt throughput: [\d.]+ tokens/s, Avg generation throughput: [\d.]+ tokens/s"
    # vLLM's request log (--disable-log-requests off, the default of its OpenAI server): "Received request {id}: prompt:
    # ..." (entrypoints/logger.py RequestLogger.log_inputs, 0.6.3.post1 and 0.10.1.1), "Added request {id}." and
    # "Finished request {id}." (engine/async_llm_engine.py 0.6.3.post1; "Added request" in v1/engine/async_llm.py
    # 0.10.1.1): vLLM sends no warmup request of its own, so a logged request is a client's
    r"|\bReceived request \S+: prompt: |\b(?:Added|Finished) request [\w.:-]+\.\s*$"
    # vLLM's engine core dumping the batch it was executing when the model's execution raised (logging_utils/
    # dump_input.py _dump_engine_exception "Dumping scheduler output for model execution: %s", called only from
    # EngineCore.step and step_with_batch_queue: execute_model_with_error_logging in vllm 0.10.2, log_error_detail in
    # 0.20.2-0.34.0): a step over scheduled requests was running
    r"|\bDumping scheduler output for model execution: "
    # verl's console metrics after a training step (verl 0.4.1 utils/logger/aggregate_logger.py concat_dict_to_str:
    # "step:{step} - {key}:{value:.3f} - ...", printed by Tracking's console logger from RayPPOTrainer.fit after the
    # step's rollout, or after the validation before training, both generated by the rollout engine)
    r"|\bstep:\d+ - [\w/@.-]+:-?\d+\.\d{3}\b"
    # an OpenAI-compatible request's id in a line (a failure of it, an abort, a transfer of its KV cache: "Mooncake
    # transfer failed for request cmpl-09be0283-...-0", built vllm-ascend-4866): the server's handlers name a client's
    # request so (sglang entrypoints/openai/serving_completions.py "cmpl-" and serving_chat.py "chatcmpl-" + uuid hex,
    # 0.4.8.post1-0.5.23; openai_api/adapter.py 0.3.0-0.4.7.post1; vllm entrypoints/openai serving_completion.py
    # "cmpl-", serving_chat.py "chatcmpl-"). SGLang's warmup posts no completion ("/generate", "/encode"; a VLM's to
    # "/v1/chat/completions": http_server.py _execute_server_warmup 0.5.9), so a chat completion's id may be the
    # warmup's (WARMUP_REQUEST)
    r"|\b(?:chat)?cmpl-[0-9a-f]{8}"
    # LMCache's vLLM connector, per request the scheduler looks up or the worker stores (lmcache 0.3.10.post2
    # integration/vllm/vllm_v1_adapter.py get_num_new_matched_tokens "Reqid: %s, Total tokens %d, LMCache hit tokens: %d,
    # need to load: %d" or "... hit tokens: None.", wait_for_save "Storing KV cache for %d out of %d tokens
    # (skip_leading_tokens=%d) for request %s"): vLLM sends no warmup request, so a request reached the engine
    r"|\bReqid: \S+, Total tokens \d+, LMCache hit tokens: (?:\d+|None)"
    r"|\bStoring KV cache for \d+ out of \d+ tokens \(skip_leading_tokens=\d+\) for request "
)
# a request id SGLang's own warmup request may carry: a VLM's warmup is a chat completion (see above)
WARMUP_REQUEST = re.compile(r"\bchatcmpl-[0-9a-f]{8}")
# uvicorn's report of an HTTP request whose handler raised (uvicorn 0.20.0-0.34.0 protocols/http/httptools_impl.py and
# h11_impl.py RequestResponseCycle.run_asgi: msg = "Exception in ASGI application\n", logger.error(msg, exc_info=exc);
# run once per request): the HTTP server, which SGLang starts once every scheduler finished startup, was up and
# answering a request (perhaps the warmup's, as uvicorn's start line: BEFORE_WARMUP). Any uvicorn app prints it
# (mini_lb, a user's proxy): only under a traceback through a frame of the SGLang server's own app is it the server's.
# Its routes and OpenAI handlers: sglang/srt/server.py (0.3.0-0.4.4.post4), entrypoints/http_server.py
# (0.4.1.post7-0.5.23), openai_api/ (adapter.py, 0.3.0-0.4.7.post1), entrypoints/openai/ (0.4.8.post1-0.5.23). Not the
# other uvicorn apps: mini_lb (disaggregation/mini_lb.py 0.4.4.post4-0.5.5.post3, then sglang_router), the EPD
# encoder's disaggregation/encoder/http_server.py, a user's proxy
_SERVER_APP_FRAME = re.compile(r"\bsglang/srt/(?:server\.py|entrypoints/http_server\.py|openai_api/|entrypoints/openai/)")
# the lines from uvicorn's line (or a traceback's last) to the traceback it logged: a blank line, as msg ends in a
# newline, and perhaps a code fence where it was pasted
_REPORT_GAP = 3
_CHAIN_OPENERS = ("During handling of the above exception", "The above exception was")


class AsgiReport:
    """Which traceback the classifier's traceback reader reads is the one uvicorn logged under its report, and whether
    it runs through the server's app: then the report is a serving line. The reader reads the traceback whole (its
    chained ones too) wherever the input's reads or ranges end; this follows the report from line to line."""

    def __init__(self) -> None:
        self.report: tuple[int, str] | None = None  # (line, text) of the report waiting for its traceback
        self.until = -1  # the last line its (next chained) traceback may open at
        self.chained = False  # a traceback of it was read without the server's frame: only a chained one may follow
        self.open = False  # a traceback of it is being read

    def line(self, lineno: int, text: str) -> None:
        """A line read outside a traceback: a report, or words between a report and a traceback (then not the
        traceback it logged)."""
        if ASGI_EXCEPTION in text:
            self.report, self.until, self.chained, self.open = (lineno, text), lineno + _REPORT_GAP, False, False
        elif text.strip():
            self.report = None

    def opened(self, lineno: int, text: str) -> None:
        """A traceback opened at the line."""
        if self.report is None:
            return
        if lineno > self.until or (self.chained and not text.lstrip().startswith(_CHAIN_OPENERS)):
            self.report = None
        else:
            self.open = True

    def closed(self, events: list[Event]) -> tuple[int, str] | None:
        """A traceback closed with its events: the report it was logged under when it ran through the server's app."""
        if self.report is None or not self.open:
            return None
        self.open = False
        if any(_SERVER_APP_FRAME.search(path) for event in events for path in event.data.get("frame_paths", ())):
            report, self.report = self.report, None
            return report
        self.until = max((event.line for event in events), default=self.until) + _REPORT_GAP
        self.chained = True
        return None

    def waits_before(self, lineno: int, now: int) -> bool:
        """Whether a report before the line still waits for its traceback's verdict at line `now`."""
        return self.report is not None and self.report[0] < lineno and (self.open or now <= self.until)


# the serving lines that come before SGLang's own warmup request (a failure the warmup names stays warmup after them)
BEFORE_WARMUP = re.compile(r"Application startup complete\.|Uvicorn running on |" + ASGI_EXCEPTION)
# a batch line SGLang's warmup request prints too (its prefill, its POST /generate; max_new_tokens 8 runs fewer decode
# steps than the decode log's interval, 40: http_server.py _execute_server_warmup, server_args decode_log_interval)
WARMUP_BATCH = re.compile(r"Prefill batch|POST /generate\b")


# vLLM's API server up (see _SERVING): its engine was built and no warmup request follows
VLLM_READY = re.compile(r"\(APIServer pid=\d+\) INFO: +Application startup complete\.")


def may_precede_ready(text: str) -> bool:
    """A serving line that may come before SGLang's ready line: the warmup request's batch or id, or uvicorn's start
    before the warmup. Any other serving line shows requests served once the server was ready."""
    if VLLM_READY.search(text):
        return False
    return bool(WARMUP_BATCH.search(text) or BEFORE_WARMUP.search(text) or WARMUP_REQUEST.search(text))


# a serving mark's data key: may_precede_ready of its text, answered once when the mark is read (classify.py)
MAY_PRECEDE_READY = "may_precede_ready"


def marked_may_precede_ready(marker: Event | None) -> bool:
    """Whether a serving mark may come before SGLang's ready line (may_precede_ready of its text); a ready line, or
    no marker, never. A mark read without the key (no reader of this module wrote it) may: the cautious answer, never
    taken as past the warmup."""
    if marker is None or marker.kind == kinds.SERVER_READY:
        return False
    return bool(marker.data.get(MAY_PRECEDE_READY, True))


# SGLang's warmup is one request (entrypoints/http_server.py _execute_server_warmup, sglang 0.5.2-0.5.23: one POST to
# /generate whose texts are a list over the DP ranks, in PD mode too up to 0.5.9; in 0.5.23's PD mode
# _send_disaggregation_warmup_requests posts one per DP rank at once, asyncio.gather), so its batch lines come
# together: a prefill batch on each rank that runs one (managers/scheduler_metrics_mixin.py log_prefill_stats, one line
# per batch) and its POST lines. The same line again, of the same rank, WARMUP_SPREAD_S or
# more later is a request served after it (an embedding or a PD prefill server prints no decode batch); a second apart
# may be the warmup's own requests answered across a second's turn
WARMUP_SPREAD_S = 2
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:[.,]\d+)?((?: [A-Z]+\d+)*)\]")


def past_warmup(texts: list[str]) -> bool:
    """Whether an input's first serving lines (their texts, in order) show requests served after SGLang's warmup: a
    line the warmup does not print, or a batch line of the warmup's (WARMUP_BATCH) again WARMUP_SPREAD_S after the
    first such line of the same rank (lines without a time stamp show nothing of when)."""
    first_at: dict[tuple[str, str], datetime] = {}
    for text in texts:
        if not may_precede_ready(text):
            return True
        batch, stamp = WARMUP_BATCH.search(text), _STAMP.search(text)
        if batch is None or stamp is None:
            continue
        at = datetime.fromisoformat(stamp.group(1))  # no _strptime import (locale, calendar) per worker
        first = first_at.setdefault((batch.group(0), stamp.group(2)), at)
        if (at - first).total_seconds() >= WARMUP_SPREAD_S:
            return True
    return False


# searched where the bytes are read (ingest's chunks); every match holds one of the anchors
SERVING_BYTES = AnchoredPattern(
    re.compile(_SERVING.pattern.encode()),
    (
        b"POST /",
        b"GET /",
        b"Decode batch",
        b"Prefill batch",
        b"Input length (",
        b"Application startup complete.",
        b"Uvicorn running on ",
        b"Starting main benchmark run",
        b" Serving Benchmark Result ",
        b": obj=",
        b"in=GenerateReqInput(",
        b"in=EmbeddingReqInput(",
        b'"event": "request.',
        b"#retracted_reqs: ",
        b"Avg prompt throughput: ",
        b"Received request ",
        b"Added request ",
        b"Dumping scheduler output for model execution: ",
        b"Finished request ",
        b"step:",
        b"cmpl-",
        b"Reqid: ",
        b"Storing KV cache for ",
    ),
    keep=64,  # a file's first serving lines looked at for requests served after the warmup (past_warmup)
    enough=past_warmup,
)


# where a log's startup part ends, for the coverage of unread prefixed lines: the running server's first line, a
# batch line (the warmup request's prefill is the first; 0.5.x prints "Prefill batch, #new-seq", "Decode batch
# [12], ...", 0.3 "Prefill batch(mixed ..."), SGLang's ready line, or a served request. The runtime chatter after
# it never goes through the grammars line by line.
STARTUP_END_BYTES = AnchoredPattern(
    re.compile(
        (_SERVING.pattern + r"|\b(?:Prefill|Decode) batch(?:[.,(]| \[\d+\])|The server is fired up and ready to roll").encode()
    ),
    (*SERVING_BYTES.anchors, b"The server is fired up and ready to roll"),
)


class ServingMarks:
    """Which of a source's lines become its serving events, and when they are due: its first serving line (ingest found
    it where it read the bytes, or the classifier's traceback reader under uvicorn's report: AsgiReport), and where
    that line may be SGLang's warmup's, the line that shows requests served after the warmup (past_warmup), from the
    source's first serving lines however its reads or ranges were cut."""

    def __init__(self) -> None:
        self.seen = False  # the source's first serving line was placed (only the first one is used)
        self.first: tuple[int, str] | None = None  # the first serving line, still to be placed
        self.lines: list[tuple[int, str]] = []  # the source's first serving lines (as SERVING_BYTES keeps them)
        self.settled = False  # they are all SERVING_BYTES keeps (SERVING_BYTES.add said so)
        self.past_warmup_at: tuple[int, str] | None = None  # the line that showed requests after the warmup, to place
        self.asgi = AsgiReport()  # uvicorn's report of a request that raised, waiting for its traceback

    def chunk(self, first: int, matches: list[tuple[int, str]]) -> None:
        """A chunk's first serving lines (its first line is number `first`)."""
        if not self.seen and self.first is None and matches:
            self.first = (first + matches[0][0], matches[0][1])
        if self.settled:
            return
        self.settled = SERVING_BYTES.add(self.lines, [(first + index, text) for index, text in matches])
        texts = [text for _, text in self.lines]
        if len(texts) > 1 and may_precede_ready(texts[0]) and past_warmup(texts):
            self.past_warmup_at = self.lines[-1]

    def served_request(self, report: tuple[int, str] | None) -> None:
        """uvicorn's report of a request the server's app answered: the first serving line unless one came before it."""
        if report is not None and not self.seen and (self.first is None or report[0] < self.first[0]):
            self.first = report

    def due(self) -> list[int]:
        """The lines of the marks still to be placed."""
        return [mark[0] for mark in (self.first, self.past_warmup_at) if mark is not None]

    def take(self, now: int | None) -> list[tuple[int, str, bool]]:
        """(line, text, whether it showed requests after the warmup) of the marks to place at line `now` (None: the
        source ended); a line after uvicorn's report waits for the verdict on it."""
        out: list[tuple[int, str, bool]] = []
        if self.first is not None and not (now is not None and self.asgi.waits_before(self.first[0], now)):
            (line, text), self.first, self.seen = self.first, None, True
            out.append((line, text, False))
        if self.past_warmup_at is not None and self.first is None:
            (line, text), self.past_warmup_at = self.past_warmup_at, None
            out.append((line, text, True))
        return out


def first_serving_line(data: bytes) -> tuple[int, str] | None:
    """(index, text) of the first serving line among a chunk's bytes, or None."""
    return first_line_matching(SERVING_BYTES, data, 0, len(data))


# every prefixed line of a startup part reaches the classifier (a new wording holds no literal): ingest hands them
# over from the input's start or a new launch to the running server's first line, at most STARTUP_CAP per file
# (linescan.StartupRoom: held per file, so what is handed over does not depend on how the file is cut)
STARTUP_CAP = 5000
# a new launch's first line: its server_args dump (a literal line), after which a startup part begins again
LAUNCH_BEGINS = re.compile(r"server_args=ServerArgs\(")
STARTUP = StartupScan(PREFIX_BYTES, STARTUP_END_BYTES, LAUNCH_BEGINS, STARTUP_CAP)
