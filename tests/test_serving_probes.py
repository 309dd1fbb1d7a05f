"""The readiness probe `/v1/models` is no served request (logscope/pipeline/parse/serving.py _WARMUP_PATHS): SGLang's
own wait_for_server polls it (sglang/utils.py, 0.3.5.post2-0.5.23) and its handler (http_server.py available_models)
lists the served model names without asking a scheduler, so the HTTP server answers it during the warmup too. A
failure after only such answers is not placed while serving; a request the server answered still places it."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source

# uvicorn's access lines as SGLang formats them, then a scheduler's exception whose frames place nothing
PROBES = (
    '[2025-11-05 10:18:47] INFO:     127.0.0.1:43844 - "GET /v1/models HTTP/1.1" 200 OK\n'
    '[2025-11-05 10:18:50] INFO:     127.0.0.1:58100 - "GET /v1/models HTTP/1.1" 200 OK\n'
)
CRASH = (
    "[2025-11-05 10:18:51 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.11/site-packages/torch/cuda/streams.py", line 224, in synchronize\n'
    "    super().synchronize()\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def _failure(text: str) -> Failure:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert len(found) == 1, found
    return found[0]


def test_readiness_probes_do_not_place_a_failure_while_serving():
    failure = _failure(PROBES + CRASH)
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")


def test_a_model_list_under_its_own_name_is_a_probe_too():
    """`GET /v1/models/<name>` (retrieve_model) is answered the same way."""
    probe = '[2025-11-05 10:18:47] INFO:     127.0.0.1:43844 - "GET /v1/models/qwen HTTP/1.1" 200 OK\n'
    assert _failure(probe + CRASH).phase == "unknown"


def test_an_answered_chat_request_still_places_it_while_serving():
    served = PROBES + '[2025-11-05 10:18:50] INFO:     127.0.0.1:58110 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    failure = _failure(served + CRASH)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.phase_basis.startswith("after line 3 showed it serving")
