"""Failures pasted in forms that gave nothing or the wrong library (issue 43): a CI console's time stamp before every
line, torch.distributed's per-rank excepthook prefix on a cut traceback, c10's frame list with the first letter of
its opener lost. Each paste is written here in the real shape."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source, clean

SITE = "/usr/local/lib/python3.11/site-packages"


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


# Jenkins' Timestamper before every line of a quoted container log, blank quoted lines between
CI_STAMPED = f"""> [2026-03-14T08:21:07.118Z]   File "{SITE}/sglang/srt/models/qwen2.py", line 611, in load_weights
>
> [2026-03-14T08:21:07.118Z]     param = params_dict[name]
>
> [2026-03-14T08:21:07.119Z] KeyError: 'model.embed_tokens.weight'
>
> [2026-03-14T08:21:07.119Z]
"""


def test_a_ci_console_time_stamp_is_a_wrapper_and_the_traceback_under_it_is_read():
    assert clean('[2026-03-14T08:21:07.118Z]   File "x.py", line 1, in f') == ['  File "x.py", line 1, in f']
    assert clean("[2026-03-14T08:21:07.119Z]") == []
    failure = _failures(CI_STAMPED)
    assert [(f.finding, f.phase) for f in failure] == [("startup-crash", "load_weight")]
    assert failure[0].event.text == "KeyError: 'model.embed_tokens.weight'"


# torch 2.5.1-2.12.0 distributed_c10d.py: once a process group exists, every line of an uncaught exception's traceback
# is printed behind "[rank<N>]: "; this one is cut inside its exception line
RANK_PREFIXED = f"""[rank3]: Traceback (most recent call last):
[rank3]:   File "/home/user/run.py", line 20, in <module>
[rank3]:     engine.generate(prompts)
[rank3]:   File "{SITE}/torch/cuda/streams.py", line 231, in synchronize
[rank3]:     super().synchronize()
[rank3]: torch.Acce
"""


def test_a_cut_traceback_behind_torchs_rank_prefix_is_a_failure_of_that_rank():
    (failure,) = _failures(RANK_PREFIXED)
    assert failure.finding == "failure-time-unknown"
    assert failure.event.rank is not None and failure.event.rank.label == "rank3"
    assert failure.event.data["frames"][-1] == "streams.py:231 synchronize"


# c10's CUDA check, quoted in an issue, its opener's first letter lost to the copy
C10_CUT_OPENER = (
    "> xception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 "
    "(most recent call first):\n"
    "> frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 "
    "(0x7f11d2b785e8 in /usr/lib/python3/dist-packages/torch/lib/libc10.so)\n"
    "> frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2 "
    "(0x7f11d2f3f422 in\n"
)


def test_c10s_frame_list_with_its_opener_cut_is_a_cuda_failure():
    (failure,) = _failures(C10_CUT_OPENER)
    assert failure.mechanism == "cuda"
    assert failure.event.data["native_frames"][0] == "c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43"


# the CUDA error only in the prose, then the scheduler's traceback cut before its exception line
PROSE_CUDA_ERROR = f"""With --enable-dp-attention (sglang 0.4.3) the server hits a CUDA illegal memory access after a few minutes of load.

[2026-02-09 16:43:26 TP2] Scheduler hit an exception: Traceback (most recent call last):
  File "{SITE}/sglang/srt/managers/scheduler.py", line 1796, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "{SITE}/sglang/srt/managers/scheduler.py", line 522, in event_loop_overlap
    result = self.run_batch(batch)
  File "{SITE}/sglang/srt/managers/sch
"""  # noqa: E501 - a sentence as written


def test_a_cuda_error_named_in_prose_names_cuda_for_the_cut_traceback_after_it_with_lower_confidence():
    failures = _failures(PROSE_CUDA_ERROR)
    prose = next(f for f in failures if f.signature == "process-cuda-illegal-address")
    assert (prose.finding, prose.mechanism, prose.phase) == ("runtime-crash", "cuda", "serving")
    assert "lower confidence" in prose.phase_basis
    assert "of the SGLang traceback at line 6 printed just after it" in prose.phase_basis  # its innermost frame
    # the sentence states a version too, and is no failure of its own for it
    analysis = analyze_model([Source(name="paste.log", path=None, data=PROSE_CUDA_ERROR.encode())])
    assert analysis.launches[0].versions.get("sglang") == "0.4.3"
    assert sum(1 for f in failures if f.event.line == 1) == 1


def test_a_mechanisms_signature_wins_over_a_generic_crash_signature_on_the_same_line():
    line = "CUDA error (/sgl-workspace/sgl-kernel/csrc/moe/moe_align_kernel.cu:301): an illegal memory access was encountered\n"
    (failure,) = _failures(line)
    assert (failure.signature, failure.library) == ("kernel-cuda-check", "sgl-kernel")


# sgl-kernel 0.3.21 load_utils.py raises ImportError(error_msg) whose text starts with a newline: Python prints the
# exception line empty and the message under it
MESSAGE_UNDER_THE_LINE = """ImportError:
[sgl_kernel] CRITICAL: Could not load any common_ops library!
Attempted locations:
1. Architecture-specific pattern: /opt/venv/lib/python3.12/site-packages/sgl_kernel/sm90/common_ops.* - found files: []
2. Fallback pattern: /opt/venv/lib/python3.12/site-packages/sgl_kernel/common_ops.* - found files: []
GPU Info:
- Compute capability: 90

Thanks for any help.
"""


def test_an_exception_printed_with_its_message_under_the_line_takes_those_lines_as_its_message():
    (failure,) = _failures(MESSAGE_UNDER_THE_LINE)
    assert failure.library == "sgl-kernel"
    message = failure.event.data["message"]
    assert message.startswith("[sgl_kernel] CRITICAL: Could not load any common_ops library! Attempted locations:")
    assert message.endswith("- Compute capability: 90")  # up to the blank line


def test_a_line_a_grammar_reads_ends_the_message_under_an_empty_exception_line():
    text = (
        "torch.OutOfMemoryError:\n"
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.06 GiB is free.\n"
    )
    kinds_read = sorted(f.finding for f in _failures(text))
    assert "oom-time-unknown" in kinds_read  # the torch OOM text is read as one, not swallowed into the message


def test_a_traceback_header_where_the_copy_ends_is_a_cut_failure():
    # the copy stops right after CPython's "Traceback (most recent call last):" (its frames and exception cut off)
    (failure,) = _failures("The server crashed on the first request:\n```\nTraceback (most recent call last):\n```\n")
    assert failure.event.data["header_only"] and failure.signature is None
    # the header quoted in a sentence, or followed by its frames and exception, is not such a failure
    assert _failures("Every log I have starts with `Traceback (most recent call last):` and nothing else.\n") == []
    (whole,) = _failures('Traceback (most recent call last):\n  File "/x/scheduler.py", line 9, in run\nKeyError: 1\n')
    assert not whole.event.data.get("header_only")
