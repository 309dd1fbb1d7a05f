"""The second review of this stop (notes review8): bounded patterns on long lines, a library the sentence sets aside,
a JIT build folder entered earlier, a client step after "the next day"."""

from __future__ import annotations

import re
from typing import Any

from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers import stated_env, time_claims


def _document(text: str) -> dict[str, Any]:
    return analyze_sources([Source(name="paste.log", path=None, data=text.encode())], cases=False)


# a gap that may run the rest of the line (".*?", "[^\n]*?") makes a line of repeats backtrack: each start scans to the
# end (a 24 KB line of clone commands took 70 s); the gaps of these patterns are bounded
_UNBOUNDED_GAP = re.compile(r"\.\*|\*\?")


def test_the_clone_pattern_has_only_bounded_gaps():
    assert _UNBOUNDED_GAP.search(stated_env._CLONE.pattern) is None
    assert stated_env._CLONE.search("git clone -b v0.4.9 " * 1200 + " version 0.5.2") is None


def test_the_client_step_patterns_have_only_bounded_gaps():
    patterns = [pattern.pattern for _, pattern in time_claims.CLIENT_STEPS]
    assert patterns and all(_UNBOUNDED_GAP.search(p) is None for p in patterns)


def test_the_clone_of_a_release_tag_is_still_read():
    found = stated_env._CLONE.search("git clone -b v0.4.9 --depth 1 https://github.com/sgl-project/sglang.git")
    assert found is not None and found.group(1) == "0.4.9"


def _library(text: str) -> str | None:
    document = _document(text)
    return next((f.get("library") for f in document["findings"] if f.get("library")), None)


def test_a_library_the_sentence_sets_aside_is_not_named():
    text = "The server crashes with `Unsupported architecture` even without flashinfer.\n"
    assert "FlashInfer" not in str(_document(text)["findings"])
    named = "It calls FlashInfer's TllmGenFmhaRunner and fails immediately with `Unsupported architecture`.\n"
    assert "FlashInfer" in str(_document(named)["findings"])


def test_a_build_folder_entered_before_a_finished_build_names_nothing():
    text = (
        "ninja: Entering directory `/root/.cache/flashinfer/90/cached_ops'\n"
        "[2/2] c++ batch_decode.cuda.o -shared -o batch_decode.so\n"
        "[2025-06-01 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.00 GB, "
        "mem usage=15.00 GB.\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py", line 2104, in _run_ninja_build\n'
        "    subprocess.run(\n"
        "RuntimeError: Error building extension 'my_own_ext'\n"
    )
    assert "FlashInfer" not in str(_document(text)["findings"])


def test_a_client_step_the_next_day_still_places_the_failure_while_serving():
    text = (
        "The next day I ran `python -m sglang.bench_serving --backend sglang` and the server crashed:\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/mymod.py", line 3, in f\n'
        "KeyError: 'x'\n"
    )
    rules = [f["rule"] for f in _document(text)["findings"]]
    assert "runtime-crash" in rules
