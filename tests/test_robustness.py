"""Never crash, never lie: arbitrary bytes, cut and mutated real pastes, and truncated phase lines."""

from __future__ import annotations

import contextlib
import random
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logscope.core.errors import InputError
from logscope.pipeline.analyze import analyze_sources
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.parsers.sglang_line import parse_line
from tests.helpers import corpus_inputs


def _analyze(data: bytes) -> dict:
    return analyze_sources([Source(name="fuzz.log", path=None, data=data)])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_any_bytes_give_a_report_or_an_input_error(data):
    try:
        report = _analyze(data)
    except InputError as exc:  # the CLI's one-line error (exit 2), e.g. bytes that start like gzip
        assert str(exc).startswith("fuzz.log: ") and "\n" not in str(exc)
        return
    assert report["schema"] == "logscope/1"


def test_real_pastes_cut_and_mutated_never_crash():
    rng = random.Random(7)
    alphabet = "0123456789.[]:=, GBTPDEe\r\n\x1b|"
    for path in corpus_inputs():
        text = path.read_text(errors="replace")
        for _ in range(10):
            cut = text[: rng.randrange(len(text) + 1)]
            chars = list(cut)
            for i in rng.sample(range(len(chars)), k=len(chars) // 20) if chars else []:
                chars[i] = rng.choice(alphabet)
            _analyze("".join(chars).encode())


PHASE_LINES = [
    "[2026-05-07 13:39:14 DP1 TP1 EP1] Load weight end. elapsed=5.05 s, type=Qwen3MoeForCausalLM, avail mem=121.90 GB, "
    "mem usage=16.39 GB.",
    "[2025-10-16 09:06:22 TP5] KV Cache is allocated. #tokens: 2795207, K size: 53.31 GB, V size: 53.31 GB",
    "[2025-11-30 11:18:01] Capture cuda graph end. Time elapsed: 5.92 s. mem usage=1.44 GB. avail mem=37.06 GB.",
    "[2025-11-30 11:18:05] max_total_num_tokens=2261377, chunked_prefill_size=16384, max_prefill_tokens=16384, "
    "max_running_requests=4096, context_len=128000, available_gpu_mem=37.06 GB",
    "[2024-09-01 10:00:00 TP0] max_total_num_tokens=350257, max_prefill_tokens=16384, max_running_requests=4096, "
    "context_len=131072",
    "[2025-10-01 12:00:00 TP0] Use sliding window memory pool. full_layer_tokens=100000, swa_layer_tokens=500000",
    "RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
    "pre_model_load_memory=19.2269287109375, local_gpu_memory=30.54656982421875, local_gpu_memory * 0.9=27.491912841796875",
]
TRUE_NUMBERS = {
    121.90,
    16.39,
    5.05,
    2795207,
    53.31,
    106.62,
    5.92,
    1.44,
    37.06,
    2261377,
    16384,
    4096,
    128000,
    350257,
    100000,
    19.2269287109375,
    30.54656982421875,
    27.491912841796875,
}


def test_a_phase_line_cut_anywhere_is_read_right_or_not_at_all():
    for line in PHASE_LINES:
        for end in range(1, len(line) + 1):
            parsed = parse_line(line[:end])
            if parsed is None:
                continue
            numbers = [
                v
                for k, v in parsed[2].items()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and not k.endswith("_unverified")
            ]
            assert set(numbers) <= TRUE_NUMBERS, (line[:end], parsed[2])


def test_no_catastrophic_backtracking_on_100kb_lines():
    # a correctness guard against exponential time (the one timed test the standards allow), generous bound
    for piece in ("avail mem=1", "[2025-01-01 00:00:00 TP0] ", "Capture cuda ", "a=b, ", "9" * 10, 'File "x", '):
        line = (piece * (100_000 // len(piece)))[:100_000]
        started = time.process_time()
        _analyze(line.encode())
        parse_line(line)
        assert time.process_time() - started < 2.0, piece
    # review 6: one word run on for 100 KB before a key=value (the launch shape's `.*?\S*/sglang/...` was quadratic)
    line = "NCCL_" + "X" * 100_000 + " a="
    started = time.process_time()
    _analyze(line.encode())
    assert time.process_time() - started < 2.0


def test_review9_s_long_lines_stay_linear():
    # review 9: a line of thousands of request-log anchors (the served-request marker's lookaheads ran from each
    # anchor to the line's end), a sentence of thousands of failure words (each rescanned the text before it), and a
    # run of blanks after a pane's bar (the right border's `\s+` was tried from every blank); generous bound
    for text in (
        "Finish: obj=" * 8000,
        "no error " * 6000 + "during inference",
        "\u2502 RuntimeError: boom \u2502\n\u2502" + " " * 40_000 + "x",
        # review 10: a time-stamped line of dashes (the stamped record's field and its separators split the run every way)
        "2025-03-09 14:40:52 " + "-" * 200 + " Error report follows",
        "2025-03-09 14:40:52 " + "- " * 3000 + "Error x",
        # review16a item 7: a caption padded with blanks to a pane's width (the caption's tail of adjacent optional
        # blank runs took hours on 32 KB), and a labelled span's head padded the same way
        "Error message" + " " * 32_000 + "x",
        "Error output" + " " * 32_000 + "\u2502",
        "Error message" + " " * 32_000 + "`x`",
    ):
        started = time.process_time()
        _analyze(text.encode())
        assert time.process_time() - started < 2.0, text[:40]


def test_every_grammar_and_regex_stays_linear_on_adversarial_input():
    # a correctness guard against exponential time, generous bound; CPU time of this process, so that a loaded
    # machine (other processes on the cores) does not fail it
    from lark.exceptions import LarkError

    from logscope.core.grammar_loader import parser
    from logscope.core.resources import data_dir
    from logscope.pipeline.parse.parsers.nvidia_topo import parse_topology

    pieces = (
        "9",
        "9.",
        "a=",
        "[",
        "| ",
        "GPU0 ",
        "NV1 ",
        "'",
        "(",
        "{'a': ",
        'File "',
        "1 GiB ",
        "x:",
        "--a ",
        "Capture ",
        "NVIDIA-SMI ",
        ": ",
    )
    grammars = sorted(p.stem for p in data_dir("grammars").glob("*.lark") if p.stem != "common")
    for name in grammars:
        for piece in pieces:
            text = (piece * (100_000 // len(piece)))[:100_000]
            started = time.process_time()
            with contextlib.suppress(LarkError):
                parser(name).parse(text)
            assert time.process_time() - started < 2.0, (name, piece)
    started = time.process_time()
    parse_topology(["GPU0 " * 20_000, "GPU0 " + "NV18 " * 20_000])
    assert time.process_time() - started < 2.0


def test_mutated_phase_lines_never_yield_a_number_that_is_not_in_the_text():
    rng = random.Random(11)
    lines = [
        line for path in corpus_inputs() for line in path.read_text(errors="replace").split("\n") if parse_line(line) is not None
    ]
    assert len(lines) > 100
    for line in lines:
        for _ in range(5):
            chars = list(line)
            digits = [i for i, c in enumerate(chars) if c.isdigit()]
            if digits:
                chars[rng.choice(digits)] = str(rng.randrange(10))
            if ", " in line and rng.random() < 0.5:  # drop one field
                parts = "".join(chars).split(", ")
                del parts[rng.randrange(1, len(parts))]
                chars = list(", ".join(parts))
            mutated = "".join(chars)
            parsed = parse_line(mutated)
            if parsed is None:
                continue
            for key, value in parsed[2].items():
                if isinstance(value, float) and key.endswith(("_gib", "_s")) and key not in ("kv_gib", "pool_gib"):
                    assert f"{value:.2f}" in mutated or repr(value) in mutated, (mutated, key, value)
                elif isinstance(value, int) and not isinstance(value, bool):
                    assert str(value) in mutated, (mutated, key, value)
