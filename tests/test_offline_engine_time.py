"""A failure of SGLang's offline engine (sgl.Engine, as RL frameworks and user scripts drive it) placed in time by the
engine's own frame (rules/signatures/phases.yaml phase-*-offline-engine-*): its constructor launches the server's
processes and waits for every scheduler to report ready (startup), its request methods send a request to the
tokenizer manager the constructor started (serving). The tracebacks are in the shape Python prints them, with the
released files, lines and code (sglang 0.5.9 entrypoints/engine.py, 0.3.6.post3 srt/server.py)."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source

SITE = "/usr/local/lib/python3.12/dist-packages"


def _failure(text: str) -> Failure:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert len(found) == 1, found
    return found[0]


def _traceback(frames: list[tuple[str, int, str, str]], last: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        lines += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join([*lines, last]) + "\n"


# sglang 0.5.9: Engine.__init__ (163) -> _launch_subprocesses (1084) -> _wait_for_scheduler_ready (894): a scheduler
# died before it reported ready, and the pipe's recv raises EOFError
ENGINE_START = _traceback(
    [
        ("/workspace/rollout.py", 57, "<module>", "engine = Engine(model_path=model_path, tp_size=4)"),
        (f"{SITE}/sglang/srt/entrypoints/engine.py", 163, "__init__", "_launch_subprocesses("),
        (
            f"{SITE}/sglang/srt/entrypoints/engine.py",
            1084,
            "_launch_subprocesses",
            "scheduler_infos = _wait_for_scheduler_ready(scheduler_pipe_readers, scheduler_procs)",
        ),
        (f"{SITE}/sglang/srt/entrypoints/engine.py", 894, "_wait_for_scheduler_ready", "data = scheduler_pipe_readers[i].recv()"),
        ("/usr/lib/python3.12/multiprocessing/connection.py", 250, "recv", "buf = self._recv_bytes()"),
        ("/usr/lib/python3.12/multiprocessing/connection.py", 430, "_recv_bytes", "buf = self._recv(4)"),
        ("/usr/lib/python3.12/multiprocessing/connection.py", 399, "_recv", "raise EOFError"),
    ],
    "EOFError",
)


def test_the_engine_constructor_places_the_failure_at_startup():
    failure = _failure(ENGINE_START)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert failure.phase_basis == "frame engine.py:163 __init__"


GENERATE_FRAME = (
    f"{SITE}/sglang/srt/entrypoints/engine.py",
    294,
    "generate",
    "ret = self.loop.run_until_complete(generator.__anext__())",
)
# sglang 0.5.9 Engine.generate (294): the request's generator run on the engine's loop; the tokenizer manager refuses
# an input longer than the context (its wording, sglang 0.5.9 tokenizer_manager.py _validate_one_request)
ENGINE_GENERATE = _traceback(
    [
        ("/workspace/offline_bench.py", 40, "<module>", "outputs = llm.generate(prompts, sampling_params)"),
        GENERATE_FRAME,
        ("/usr/lib/python3.12/asyncio/base_events.py", 687, "run_until_complete", "return future.result()"),
    ],
    "ValueError: The input (40961 tokens) is longer than the model's context length (40960 tokens).",
)


def test_a_request_to_the_engine_places_the_failure_while_serving():
    failure = _failure(ENGINE_GENERATE)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.phase_basis == "frame engine.py:294 generate"


# the same request's traceback cut under the engine's frame (a paste cut there: no exception line, no frame below):
# before the engine's locator, nothing placed it
ENGINE_GENERATE_CUT = _traceback(
    [
        ("/workspace/offline_bench.py", 40, "<module>", "outputs = llm.generate(prompts, sampling_params)"),
        GENERATE_FRAME,
    ],
    "",
)


def test_a_cut_traceback_under_the_engine_request_is_placed_while_serving():
    failure = _failure(ENGINE_GENERATE_CUT)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    assert failure.phase_basis == "frame engine.py:294 generate"


def test_the_user_script_alone_places_nothing():
    """The user's own frame (no SGLang frame under it) says nothing of the engine's time: unknown."""
    cut = _traceback([("/workspace/rollout.py", 57, "<module>", "engine = Engine(model_path=model_path, tp_size=4)")], "EOFError")
    failure = _failure(cut)
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")


# sglang 0.3.6.post3 srt/server.py: Engine.__init__ (811) -> launch_engine (448), the scheduler's pipe read
ENGINE_START_0_3 = _traceback(
    [
        ("/workspace/offline_bench.py", 21, "<module>", "llm = sgl.Engine(model_path=args.model, tp_size=8)"),
        (f"{SITE}/sglang/api.py", 50, "Engine", "return Engine(*args, **kwargs)"),
        (f"{SITE}/sglang/srt/server.py", 811, "__init__", "launch_engine(server_args=server_args)"),
        (f"{SITE}/sglang/srt/server.py", 448, "launch_engine", "data = scheduler_pipe_readers[i].recv()"),
        ("/usr/lib/python3.10/multiprocessing/connection.py", 250, "recv", "buf = self._recv_bytes()"),
        ("/usr/lib/python3.10/multiprocessing/connection.py", 383, "_recv", "raise EOFError"),
    ],
    "EOFError",
)


def test_the_older_engine_constructor_places_the_failure_at_startup():
    failure = _failure(ENGINE_START_0_3)
    assert (failure.finding, failure.phase) == ("startup-crash", "startup")
    assert failure.phase_basis == "frame server.py:811 __init__"
