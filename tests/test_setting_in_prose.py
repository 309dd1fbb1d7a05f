"""A setting written as key=value inside a sentence of prose (parse/parsers/time_cues.py _CODE): the setting is the
program's word, masked like a flag, so its words are no cue ("max_running_requests=256" is no request) and the sentence
stays prose ("The process crashes after the concurrency exceeds 100, when tp=2.": `tp=2` used to make the whole
sentence read as code, probe InternLM/InternLM#762). A line of settings alone, or a line of code, places nothing."""

from __future__ import annotations

import pytest

from logscope.pipeline.parse.parsers import time_cues
from tests.helpers import failure_placed

ERROR = "RuntimeError: CUDA error: an illegal memory access was encountered\n"


def _placed(prose: str) -> tuple[str, str]:
    return failure_placed(f"{prose}\n```\n{ERROR}```\n")


@pytest.mark.parametrize(
    ("prose", "placed"),
    [
        ("The server crashes during inference with tp=2.", ("runtime-crash", "serving")),
        ("The process crashes after the concurrency exceeds 100, when tp=2.", ("runtime-crash", "serving")),
        # the setting's own words ("requests") are no serving cue: the startup the sentence names stands
        ("It crashes at startup with max_running_requests=256 and tp_size=8.", ("startup-crash", "startup")),
    ],
)
def test_a_setting_in_a_sentence_leaves_its_prose_read(prose, placed):
    assert _placed(prose) == placed


@pytest.mark.parametrize(
    "line",
    [
        # SGLang's summary line without its time stamp, a shell line, a call: settings and code, no sentence
        "max_total_num_tokens=1234, chunked_prefill_size=8192, max_running_requests=4097, context_len=1024",
        "CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --tp 2 --port 30000",
        'llm = sgl.Engine(model_path="Qwen/Qwen3-8B", tp_size=2)  # crashes during inference',
        # a setting whose words hold a serving cue, in a sentence with no other cue
        "It crashes with max_running_requests=256.",
    ],
)
def test_settings_alone_or_code_place_nothing(line):
    assert time_cues.parse(line) is None
