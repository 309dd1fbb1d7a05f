"""runtime16: a failure the scheduler loop's code alone places while serving (its frames run the warmup's batch too),
with no serving line before it, is the warmup's when the paste's own sentence says startup or names the server's
warmup ("tokenizer_manager becomes None during PD warmup", probe sgl-project/sglang#13021); a serving line before it,
or a sentence of serving, keeps it serving."""

from __future__ import annotations

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers import time_claims

# the decode loop's frames of a PD decode server (sglang 0.5.5 disaggregation/decode.py), cut after recv_requests
LOOP = (
    "[2025-11-10 22:51:07 DP19 TP19 EP19] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2717, in run_scheduler_process\n'
    "    scheduler.event_loop_overlap_disagg_decode()\n"
    '  File "/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", line 120, in decorate_context\n'
    "    return func(*args, **kwargs)\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/decode.py", line 812, in event_loop_overlap_disagg_decode\n'
    "    recv_reqs = self.recv_requests()\n"
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1102, in recv_requests\n'
    "    control_reqs = broadcast_pyobj(\n"
)
DECODE = (
    "[2025-11-10 22:51:06 DP19 TP19 EP19] Decode batch, #running-req: 3, #token: 4098, token usage: 0.01, "
    "gen throughput (token/s): 210.31, #queue-req: 0,\n"
)


def _placed(text: str) -> tuple[str, str]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    (failure,) = [f for fs in analysis.failures.values() for f in fs]
    return failure.finding, failure.phase


def test_the_servers_warmup_named_in_the_title_places_the_loops_failure_at_warmup():
    text = f"# [Bug] tokenizer_manager becomes None during PD warmup\n\n```\n{LOOP}```\n"
    assert _placed(text) == ("startup-crash", "warmup")


def test_a_startup_sentence_places_the_loops_failure_at_warmup():
    text = f"The server crashes at startup with:\n```\n{LOOP}```\n"
    assert _placed(text) == ("startup-crash", "warmup")


def test_a_decode_batch_before_it_keeps_it_serving():
    text = f"# [Bug] tokenizer_manager becomes None during PD warmup\n\n```\n{DECODE}{LOOP}```\n"
    assert _placed(text) == ("runtime-crash", "serving")


def test_without_a_sentence_the_loops_frames_place_it_serving():
    assert _placed(f"```\n{LOOP}```\n") == ("runtime-crash", "serving")


def test_a_benchmarks_warmup_is_no_servers_warmup():
    assert time_claims.parse("during PD warmup") is not None
    assert time_claims.parse("It crashes during the server warmup stage, as the benchmark client's requests arrive") is None


UVICORN = (
    "[2025-11-10 22:51:00] INFO:     Started server process [1234]\n"
    "[2025-11-10 22:51:00] INFO:     Waiting for application startup.\n"
    "[2025-11-10 22:51:00] INFO:     Application startup complete.\n"
    "[2025-11-10 22:51:00] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"
    "[2025-11-10 22:51:01 DP19 TP19 EP19] Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, "
    "#running-req: 0, #queue-req: 0,\n"
)


def test_a_warmup_sentence_over_only_the_warmups_lines_places_it_at_warmup():
    text = f"# [Bug] tokenizer_manager becomes None during PD warmup\n\n```\n{UVICORN}{LOOP}```\n"
    assert _placed(text) == ("startup-crash", "warmup")


def test_a_line_past_the_warmup_keeps_it_serving():
    ready = "[2025-11-10 22:51:02] The server is fired up and ready to roll!\n"
    text = f"# [Bug] tokenizer_manager becomes None during PD warmup\n\n```\n{UVICORN}{ready}{LOOP}```\n"
    assert _placed(text) == ("runtime-crash", "serving")
