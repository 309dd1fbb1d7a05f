"""The tokenizer manager's exception header places a failure while serving (signatures/match.py _SERVING_HEADERS):
"TokenizerManager hit an exception" is logged only by print_exception_wrapper, which wraps only the tasks
auto_create_handle_loop starts (handle_loop, sigterm_watchdog), and only request handlers call that (generate_request,
the weight updates, sessions; sglang 0.4.1.post7-0.5.23 managers/tokenizer_manager.py): the first request, the
warmup's included, starts them. The tracebacks are in the shape sglang 0.4.6.post5 prints (its file lines)."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source

SITE = "/usr/local/lib/python3.10/dist-packages"
HEADER = "[2025-06-01 10:00:05] TokenizerManager hit an exception: Traceback (most recent call last):\n"
# handle_loop receiving the detokenizer's output (0.4.6.post5 tokenizer_manager.py 1425 print_exception_wrapper, 1121
# handle_loop's recv_pyobj), raising in zmq
HANDLE_LOOP = (
    HEADER + f'  File "{SITE}/sglang/srt/managers/tokenizer_manager.py", line 1425, in print_exception_wrapper\n'
    "    await func()\n"
    f'  File "{SITE}/sglang/srt/managers/tokenizer_manager.py", line 1121, in handle_loop\n'
    "    recv_obj = await self.recv_from_detokenizer.recv_pyobj()\n"
    f'  File "{SITE}/zmq/_future.py", line 372, in recv_pyobj\n'
    "    return self._deserialize(recv, load)\n"
    "pickle.UnpicklingError: invalid load key, '\\x00'.\n"
)


def _failure(text: str) -> Failure:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert len(found) == 1, found
    return found[0]


def test_the_tokenizer_manager_header_places_its_traceback_while_serving():
    failure = _failure(HANDLE_LOOP)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")
    # (the frame under the header places it first since the typed call graph of session 16: print_exception_wrapper
    # is reached only from TokenizerManager.generate_request in the released call graph)
    assert failure.phase_basis.startswith("frame tokenizer_manager.py:")
    assert "print_exception_wrapper runs only while the scheduler serves" in failure.phase_basis


def test_the_header_read_alone_places_it_too():
    """The header with its traceback cut away: the line alone is printed only by that wrapper."""
    failure = _failure(HEADER)
    assert (failure.finding, failure.phase) == ("runtime-crash", "serving")


def test_the_scheduler_header_alone_stays_unknown():
    """The scheduler's header wraps its constructor and its event loop alike: no time from it."""
    failure = _failure(HEADER.replace("TokenizerManager", "Scheduler"))
    assert (failure.finding, failure.phase) == ("failure-time-unknown", "unknown")
