"""Which library a failure belongs to (session 13, lib13): the generic evidence read where the log itself does not
name the raiser. Each case is constructed in the shape people paste (an issue's prose around a cut log); the quiet
cases prove what is not claimed."""

from __future__ import annotations

from logscope.core.model import Failure
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.signatures.match import STATED_FOR_LOG_BASIS


def _failures(text: str) -> list[Failure]:
    analysis = analyze_model([Source(name="paste.md", path=None, data=text.encode())])
    return [f for fs in analysis.failures.values() for f in fs]


CUT_SCHEDULER = """\
## Error Traceback

```
File "sglang/srt/managers/scheduler.py", line 1219, in event_loop_overlap
    batch_result = self.run_batch(batch)
File "sglang/srt/managers/scheduler.py", line 2265, in run_batch
    batch_result = self.model_worker.forward_batch_generation(
```
"""


def test_a_cut_traceback_takes_the_library_of_the_error_the_prose_quotes():
    text = (
        "When serving with speculative decoding there is a sporadic `CUDA error: an illegal memory access was "
        "encountered` crash at `eagle_worker_v2.py:335`.\n\n" + CUT_SCHEDULER
    )
    found = _failures(text)
    cut = [f for f in found if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library, f.library_basis) for f in cut] == [("cuda", "CUDA", STATED_FOR_LOG_BASIS)]


def test_a_cut_traceback_with_no_error_quoted_stays_the_innermost_frame_s():
    text = "The scheduler crashes after a few requests.\n\n" + CUT_SCHEDULER
    cut = [f for f in _failures(text) if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [("sglang", "SGLang")]


def test_two_libraries_quoted_name_neither():
    text = (
        "Sometimes it crashes with `CUDA error: an illegal memory access was encountered`.\n\n"
        "Other times it crashes with `torch.distributed.DistBackendError: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error`.\n\n" + CUT_SCHEDULER
    )
    found = _failures(text)
    assert [f.mechanism for f in found if f.event.kind != "traceback"] == ["cuda", "nccl"]  # both quotes are read
    cut = [f for f in found if f.event.kind == "traceback"]
    assert [(f.mechanism, f.library) for f in cut] == [("sglang", "SGLang")]


IMPORT_CRASH = """\
After building from source, I import the deep_ep module, then the process crashes with a core dump.

```
python -c "import deep_ep"
free(): invalid pointer
Aborted (core dumped)
```
"""


def test_a_generic_crash_takes_the_library_whose_import_the_sentence_says_crashed():
    found = _failures(IMPORT_CRASH)
    logged = [f for f in found if f.event.kind != "stated_failure"]
    assert logged and all(f.library == "DeepEP" and f.library_basis == STATED_FOR_LOG_BASIS for f in logged)
    assert {f.mechanism for f in logged} == {"deepep"}


def test_a_library_named_as_a_setting_of_the_run_names_nothing():
    text = IMPORT_CRASH.replace("I import the deep_ep module", "I run the deep_ep tests")
    logged = [f for f in _failures(text) if f.event.kind != "stated_failure"]
    assert logged and all(f.library is None for f in logged)
