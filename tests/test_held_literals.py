"""HeldLiterals (review15a item 7): the positions of the literals a text holds, by an index of their heads, exactly as
the `in` loop over every literal names them, in order; and the tables that use it give their first match as before."""

from __future__ import annotations

import random
import time

import pytest

from logscope.core import library_raises, package_raises, sglang_raises, stage_functions
from logscope.core.held_literals import HeldLiterals
from logscope.pipeline.parse.signatures.pattern import compile_pattern


def _naive(literals, text):
    return [at for at, literal in enumerate(literals) if literal in text]


def test_held_literals_name_what_the_in_loop_names_on_random_texts():
    rng = random.Random(15)
    alphabet = "ab c:xy"
    literals = ["", "a", "ab", *("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20))) for _ in range(400))]
    literals += [literals[5], literals[40]]  # a literal twice: both positions
    index = HeldLiterals(literals)
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        if rng.random() < 0.5:
            text += rng.choice(literals) + text[:5]
        assert index.held(text) == _naive(literals, text)


@pytest.mark.parametrize(
    "table",
    [
        lambda: [literal for literal, _ in stage_functions._placed()[1]],
        lambda: [w.anchor for w in library_raises._wordings()],
        lambda: [w.anchor for w in package_raises._wordings()],
        lambda: [w.anchor for w in sglang_raises._wordings("ValueError")],
    ],
)
def test_each_table_index_names_what_the_in_loop_names_on_its_own_literals(table):
    literals = table()
    assert len(literals) > 50
    index = HeldLiterals(literals)
    rng = random.Random(7)
    for literal in rng.sample(literals, 200):
        for text in (literal, f"ERROR x] {literal} (at 3)", literal[1:], literal[:-1], literal.upper()):
            assert index.held(text) == _naive(literals, text)


def test_a_message_looked_up_costs_a_fraction_of_the_in_loop():
    # the placement table: ~6,800 literals, a 100-character line: the loop tested each (2.5 ms), the index ~0.01 ms
    literals = [literal for literal, _ in stage_functions._placed()[1]]
    index = HeldLiterals(literals, head=12)
    text = "**ERROR 12-08 22:01:01 engine.py:1] ValueError: Error in model execution 1 of the batch at step 40**"
    started = time.process_time()
    for _ in range(200):
        index.held(text)
    indexed = time.process_time() - started
    started = time.process_time()
    for _ in range(200):
        _naive(literals, text)
    assert indexed * 5 < time.process_time() - started


def test_a_pattern_requires_its_longest_literal_as_its_haystack_holds_it():
    pattern = compile_pattern("CUDA out of memory. Tried to allocate {size:size}", "t:1:1")
    assert pattern.required == "CUDA out of memory. Tried to allocate "
    assert pattern.match("x") is None
    assert pattern.match("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB") == {"size": "2.00 GiB"}
    nocase = compile_pattern("Segmentation Fault", "t:1:1", nocase=True)
    assert nocase.required == "segmentation fault" and nocase.match("a SEGMENTATION FAULT here") == {}
    assert compile_pattern("^{code:int} failed", "t:1:1").required == " failed"


def test_the_signatures_a_line_could_match_give_the_same_best_as_all_of_them():
    # match._holding: only the signatures whose required literal the evidence holds reach _best; its answer is the
    # one the whole candidate tuple gives, on fixture lines and on each case log's lines of the bundled signatures
    from logscope.pipeline.parse.signatures import match
    from logscope.pipeline.parse.signatures.loader import bundled_signatures
    from tests.helpers import ROOT

    signatures = bundled_signatures()
    lines = []
    for path in sorted((ROOT / "fixtures" / "real").iterdir())[:40]:
        if path.suffix in (".log", ".txt"):
            lines += path.read_text(errors="replace").splitlines()[:300]
    for path in sorted((ROOT / "rules" / "signatures").glob("*.cases.yaml")):
        lines += path.read_text().splitlines()
    assert len(lines) > 2000
    compared = 0
    for kind in ("line", "exception", "frame", "native_frame"):
        candidates = signatures.naming(kind)
        if not candidates:
            continue
        for line in lines:
            for exception in (None, line.split(":", 1)[0].strip()):
                whole = match._best(candidates, line, exception)
                assert match._best(match._holding(candidates, line), line, exception) == whole
                compared += whole is not None
    assert compared > 200  # many lines are matched by some signature


class _Counted(str):
    """A text that counts the `literal in text` tests made on it."""

    tests = 0

    def __contains__(self, literal: object) -> bool:
        type(self).tests += 1
        return super().__contains__(literal)  # type: ignore[operator]


def test_a_head_repeated_along_the_text_has_its_literals_tested_once():
    # review15c item 1: 50 literals under "Invalid ", a text of that head 4,096 times: each literal tested once (it was
    # 50 x 4,096 tests); 10,000 other literals keep the text short beside the table (no `in` loop fallback)
    literals = [f"Invalid {i} value" for i in range(50)] + [f"other literal {i:05d}" for i in range(10_000)]
    index = HeldLiterals(literals)
    text = _Counted("Invalid " * 4096)
    _Counted.tests = 0
    assert index.held(text) == _naive(literals, str(text)) == []
    assert _Counted.tests == 50


@pytest.mark.parametrize("size", [3, 8, 40])
def test_held_literals_name_what_the_in_loop_names_on_texts_long_beside_the_table(size):
    # both paths: a few literals (shorter than HEAD, exactly HEAD, longer) against texts up to 400 characters
    rng = random.Random(size)
    alphabet = "ab c:xy"
    for _ in range(300):
        literals = ["".join(rng.choice(alphabet) for _ in range(rng.choice([1, 7, 8, 9, 15]))) for _ in range(size)]
        index = HeldLiterals(literals)
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        if rng.random() < 0.5:
            text += rng.choice(literals)
        assert index.held(text) == _naive(literals, text)


def test_a_long_line_costs_no_more_than_the_in_loop():
    # review15c item 12: a 32,000-character line of random words against library_raises' anchors: the index was 2x
    # (and, with repeated heads, 30x) the loop it replaced
    literals = [w.anchor for w in library_raises._wordings()]
    index = HeldLiterals(literals)
    rng = random.Random(12)
    words = [
        "the",
        "of",
        "model",
        "batch",
        "request",
        "failed",
        "token",
        "cache",
        "layer",
        "weight",
        "run",
        "unsupported",
        "Unsupported",
        "invalid",
    ]
    text = " ".join(rng.choice(words) for _ in range(6000))[:32_000]
    assert index.held(text) == _naive(literals, text)
    started = time.process_time()
    for _ in range(5):
        index.held(text)
    indexed = time.process_time() - started
    started = time.process_time()
    for _ in range(5):
        _naive(literals, text)
    looped = time.process_time() - started
    assert indexed <= 1.5 * looped, (indexed, looped)
