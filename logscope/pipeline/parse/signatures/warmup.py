"""SGLang's warmup request, when the text says it failed: the batch a scheduler was running then was the warmup's.

SGLang starts its HTTP server once every scheduler reported ready, then posts one warmup request (sglang 0.4.1.post7-
0.5.23 entrypoints/http_server.py _execute_server_warmup: requests.post(".../generate"), or /v1/chat/completions for
a VLM); only when it came back does it print "The server is fired up and ready to roll!". So a scheduler's batch
(its event loop's frames, a batch line) shows the server serving, the warmup request included: nothing in the text
tells the warmup's batch from a user's. When the warmup request failed, SGLang says so ("Initialization failed.
warmup error: <traceback>", then kill_process_tree): a batch's failure before that line, with no ready line before
it, was the warmup's, a failure of startup's last step."""

from __future__ import annotations

from dataclasses import replace

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import Failure

WARMUP_FAILED = "process-warmup-failed"  # the signature of SGLang's line (rules/signatures/process.yaml)
# a startup finding for the runtime one the same failure gives while serving
_STARTUP_FINDING = {"runtime-crash": "startup-crash", "runtime-oom": "startup-oom"}


def warmup_batches(found: list[Failure], ready: dict[str, Event]) -> list[Failure]:
    """The serving failures of an input that printed SGLang's warmup failure after them, placed in the warmup step,
    unless its ready line came before them (then the warmup had succeeded)."""
    warmup_lines: dict[str, int] = {}
    for f in found:
        if f.signature == WARMUP_FAILED:
            warmup_lines.setdefault(f.event.source, f.event.line)
    if not warmup_lines:
        return found
    out = []
    for f in found:
        at = warmup_lines.get(f.event.source)
        marker = ready.get(f.event.source)
        readied = marker is not None and marker.kind == kinds.SERVER_READY and marker.line <= f.event.line
        if f.phase == "serving" and at is not None and f.event.line < at and not readied:
            basis = (
                f"{f.phase_basis}; line {at} says SGLang's warmup request failed, and no ready line came before:"
                " the batch was the warmup's"
            )
            finding = _STARTUP_FINDING.get(f.finding, f.finding)
            f = replace(f, phase="warmup", phase_basis=basis, after_ready=False, finding=finding)
        out.append(f)
    return out
