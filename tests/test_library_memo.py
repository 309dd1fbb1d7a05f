"""library_of and library_raise are memoised for a crash loop's repeated frames and message lines, never for a whole
traceback (review14a item 11): a long crash loop of distinct tracebacks must not keep them all alive."""

from __future__ import annotations

import tracemalloc

from logscope.core.library_raises import library_raise
from logscope.core.native_libraries import library_of
from logscope.core.text_memo import MEMO_TEXT

FRAME = '  File "/usr/local/lib/python3.12/dist-packages/flashinfer/decode.py", line 1200, in run\n'


def _traceback(request: int) -> str:
    """A whole traceback as an event's full_text holds it (about 17 KiB), its request id its own."""
    frames = "".join(
        f'  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line {100 + k}, in run\n'
        f"    result = self.model_runner.forward(batch)  # request {request}-{k}\n"
        for k in range(120)
    )
    tail = f"RuntimeError: Error in function 'run' at /workspace/csrc/batch_decode.cu:{request}: out of resources\n"
    return "Traceback (most recent call last):\n" + frames + FRAME + "    out = self._op.run(q)\n" + tail


def test_distinct_whole_tracebacks_are_not_kept_alive():
    library_of(_traceback(-1)), library_raise(_traceback(-1))  # the tables and patterns, loaded once
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        named = {(library_of(_traceback(i)), library_raise(_traceback(i))) for i in range(64)}
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert named == {("FlashInfer", None)}
    # 64 tracebacks of 17 KiB: 1.1 MiB if they were the memo's keys
    assert len(_traceback(0)) > 16 * 1024 and kept < 64 * 1024


def test_a_repeated_frame_is_read_once_and_a_whole_traceback_each_time():
    library_of.memo.cache_clear()
    assert [library_of(FRAME) for _ in range(3)] == ["FlashInfer"] * 3
    assert (library_of.memo.cache_info().hits, library_of.memo.cache_info().currsize) == (2, 1)
    assert len(FRAME) <= MEMO_TEXT < len(_traceback(0))
    assert [library_of(_traceback(0)) for _ in range(3)] == ["FlashInfer"] * 3
    assert (library_of.memo.cache_info().hits, library_of.memo.cache_info().currsize) == (2, 1)
