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
