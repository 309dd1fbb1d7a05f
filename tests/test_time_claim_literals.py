"""The Chinese and Japanese time claims (parse/parsers/time_claims.py) and their share of the prefilter's literals
(kinds.TIME_CLAIM_LITERALS): a line reaches the claims only when it holds one of those literals, so every top-level
alternative of a claim pattern written in CJK must hold a literal in each of its matches, and every CJK literal must be
one that a claim's match holds (a literal no pattern uses lets lines through for nothing; a pattern no literal reaches
never runs). Checked on sentences in the shapes people write (constructed), one or more per alternative."""

from __future__ import annotations

import re

import pytest

from logscope.core import kinds
from logscope.pipeline.parse.parsers import time_claims

# (a sentence, the stage its claim places): each alternative below matches at least one of them
SENTENCES = (
    ("推理过程中出现了OOM", "serving"),
    ("推理时报错", "serving"),
    ("推理的时候显存不够", "serving"),
    ("在跑benchmark的时候报错", "serving"),
    ("运行 bench_serving 时崩溃", "serving"),
    ("一发请求就报错", "serving"),
    ("服务运行一段时间后报错", "serving"),
    ("跑了几个小时就挂了", "serving"),
    ("部署了 12 个小时之后崩溃", "serving"),
    ("使用几天后显存不够", "serving"),
    ("部署了3天之后崩溃", "serving"),
    ("运行2天以后出现错误", "serving"),
    ("压测了5天后挂掉", "serving"),
    ("跑了5天就挂了", "serving"),
    ("跑了5天又挂了", "serving"),
    ("运行10天会出现这个错误", "serving"),
    ("运行3天报错", "serving"),
    ("运行3天出错", "serving"),
    ("运行3天崩溃", "serving"),
    ("运行3天挂了", "serving"),
    ("高并发下服务崩溃", "serving"),
    ("压测时报错", "serving"),
    ("发送请求后报错", "serving"),
    ("请求时报错", "serving"),
    ("しばらくすると落ちます", "serving"),
    ("リクエストを送るとエラーになります", "serving"),
    ("启动sglang报错", "startup"),
    ("结果：初始化失败", "startup"),  # place15: initialization failed (built sglang-24049)
    ("模型初始化时报错", "startup"),
)
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
CJK_LITERALS = tuple(literal for literal in kinds.TIME_CLAIM_LITERALS if _CJK.search(literal))


def _alternatives(source: str) -> list[str]:
    """The top-level alternatives of a regex's source (its `|` outside groups and classes)."""
    out, depth, start, in_class, i = [], 0, 0, False, 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    return [*out, source[start:]]


CJK_ALTERNATIVES = tuple(
    (stage, re.compile(alternative))
    for stage, pattern in time_claims._CLAIMS
    for alternative in _alternatives(pattern.pattern)
    if _CJK.search(alternative)
)


def test_the_cjk_claims_and_literals_are_the_ones_this_test_knows():
    assert len(CJK_ALTERNATIVES) == 11
    assert len(CJK_LITERALS) == 23


@pytest.mark.parametrize(("stage", "alternative"), CJK_ALTERNATIVES, ids=[a.pattern[:24] for _, a in CJK_ALTERNATIVES])
def test_every_cjk_claim_matches_a_sentence_and_each_match_holds_a_literal(stage, alternative):
    matches = [(m.group(0), placed) for sentence, placed in SENTENCES for m in alternative.finditer(sentence)]
    assert matches, "no sentence shows this alternative"
    for said, placed in matches:
        assert placed == stage
        # a CJK claim may be reached by a Latin literal of its words ("跑benchmark的时候报错": "benchmark")
        assert any(literal in said for literal in kinds.TIME_CLAIM_LITERALS), f"{said!r}: no prefilter literal reaches it"


@pytest.mark.parametrize("literal", CJK_LITERALS)
def test_every_cjk_literal_is_held_by_a_claim_s_match(literal):
    said = [m.group(0) for sentence, _ in SENTENCES for _, alt in CJK_ALTERNATIVES for m in alt.finditer(sentence)]
    assert any(literal in match for match in said), f"{literal!r}: no claim's match holds it"


@pytest.mark.parametrize(("sentence", "stage"), SENTENCES)
def test_each_sentence_passes_the_prefilter_and_is_placed(sentence, stage):
    assert any(literal in sentence for literal in kinds.TIME_CLAIM_LITERALS)
    parsed = time_claims.parse(sentence)
    assert parsed is not None and parsed.data["stage"] == stage


def test_the_alternatives_split_at_top_level_bars_only():
    assert _alternatives(r"a(?:b|c)|[|x]d|e\|f") == ["a(?:b|c)", "[|x]d", r"e\|f"]
