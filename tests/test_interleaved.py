"""Two ranks' faulthandler dumps written to one stream at once (issue 43): each piece CPython's faulthandler writes
(faulthandler.c dump_frame: '  File "', the file, '", line ', the number, ' in ', the function) lands next to the
same piece of the other rank's line. Such a line is read back as the one line both wrote; a line the two wrote
differently (their thread ids) stays as it is. The text is constructed in the real shape."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.ingest.interleaved import undoubled

TWO_RANKS = """\
[2026-03-14 07:02:11 TP1] sglang is using nccl==2.27.3
Fatal Python error: Fatal Python error: Segmentation faultSegmentation fault

Current thread 0xCurrent thread 0x00007f31a2b4c74000007f9c0e51a740 (most recent call first):
 (most recent call first):
  File   File ""/usr/local/lib/python3.12/dist-packages/sglang/srt/distributed/device_communicators/pynccl_wrapper.py/usr/local/lib/python3.12/dist-packages/sglang/srt/distributed/device_communicators/pynccl_wrapper.py"", line , line 391391 in  in ncclCommInitRankncclCommInitRank
  File   File ""/usr/local/lib/python3.12/dist-packages/sglang/srt/distributed/device_communicators/pynccl.py/usr/local/lib/python3.12/dist-packages/sglang/srt/distributed/device_communicators/pynccl.py"", line , line 9898 in  in __init____init__
"""  # noqa: E501 - the lines as two ranks wrote them


def test_a_line_two_writers_wrote_at_once_is_read_back_as_theirs():
    assert undoubled("Fatal Python error: Fatal Python error: AbortedAborted") == "Fatal Python error: Aborted"
    assert undoubled('  File   File ""/a/b.py/a/b.py"", line , line 1111 in  in callcall') == (
        '  File "/a/b.py", line 11 in call'
    )
    # the two threads differ: no one line; a line without faulthandler's doubled opener is never taken apart
    assert undoubled("Current thread 0xCurrent thread 0x00007f31a2b4c74000007f9c0e51a740 (most recent call first):") is None
    assert undoubled('  File "/a/b.py", line 11 in call') is None
    assert undoubled("aabbcc") is None


def test_two_ranks_segfaulting_together_in_nccl_init_name_nccl():
    analysis = analyze_model([Source(name="paste.log", path=None, data=TWO_RANKS.encode())])
    failures: list[Failure] = [f for fs in analysis.failures.values() for f in fs]
    assert [(f.finding, f.mechanism) for f in failures] == [("nccl-error", "nccl")]
    assert "Segmentation fault" in str(failures[0].values.get("error", failures[0].event.text))
