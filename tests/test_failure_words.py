"""The word tables of the failure readers (logscope/core/kinds.py): one table of failure words from which the log-line
look (parsers/base.FAILURE_WORDS), the stated-failure prefilter and the time cues' lexicon derive; the guards the prose
readers share (parsers/prose_guards.py); and the hand-written English tables of the time cues (another run, another
language), each entry tested."""

from __future__ import annotations

import re

import pytest

from logscope.core import kinds
from logscope.pipeline.parse import prefilter
from logscope.pipeline.parse.classify import FAILURE_LOOK
from logscope.pipeline.parse.parsers import base, prose_guards, stated_failure, time_claims, time_cues

ROWS = {word.word: word for word in kinds.FAILURE_WORD_TABLE}


def test_the_three_failure_word_lists_come_from_one_table():
    assert "|".join(w.record for w in kinds.FAILURE_WORD_TABLE if w.record) == base.FAILURE_WORDS
    assert tuple(p for w in kinds.FAILURE_WORD_TABLE for p in w.stated) == kinds.STATED_FAILURE_LITERALS
    assert tuple(w.cue for w in kinds.FAILURE_WORD_TABLE if w.cue) == kinds.TIME_CUE_FAILURE_WORDS
    assert len(ROWS) == len(kinds.FAILURE_WORD_TABLE)  # one row a word
    assert all(w.record or w.stated or w.cue for w in kinds.FAILURE_WORD_TABLE)  # every row feeds a reader


# a log line that reads like a failure by each record form of the table (tools and libraries that print it)
RECORD_LINES = {
    "fail": ["Failed to allocate the KV cache", "test_mooncake.py::test_transfer FAILED"],
    "error": ["RuntimeError: CUDA error", "[E 2025-06-01] ERROR something went wrong", "error: unrecognized arguments: --tp"],
    "exception": ["Scheduler hit an exception: Exception"],
    "fatal": ["Fatal Python error: Aborted", "[1717171717.1] FATAL ucp_worker.c:120 UCX unreachable"],
    "segmentation fault": ["Segmentation fault (core dumped)"],
    "abort": ["Aborted (core dumped)"],
}


def test_every_record_form_of_the_table_has_its_lines():
    assert set(RECORD_LINES) == {w.word for w in kinds.FAILURE_WORD_TABLE if w.record}


@pytest.mark.parametrize(("word", "line"), [(w, line) for w, lines in RECORD_LINES.items() for line in lines])
def test_a_record_form_makes_a_line_read_like_a_failure(word, line):
    assert re.search(ROWS[word].record, line, re.MULTILINE)
    assert FAILURE_LOOK.search(line)


# a sentence stating the run failed, one for each stated piece of the table
STATED = {
    "crash": ["The server crashed after loading.", "Crashes at random after an hour."],
    "fail": [
        "It fails with an illegal memory access.",
        "The worker failed to start.",
        "Fails with an illegal memory access on H20.",
        "Failed to start the worker after loading.",
        "I hit a NCCL failure on node 2.",
        # the progressive (kinds.FAILING_CASES: "failing" in its three cases, any white space before it)
        "THE SERVER IS STILL FAILING AT CUDA GRAPH CAPTURE.",
        "The server is Failing at CUDA graph capture.",
        "The server is still  failing at CUDA graph capture.",
        "The image build is failing in the release pipeline.",
        "The launches were failing at CUDA graph capture.",
        "The server keeps failing at CUDA graph capture.",
        "The workers keep failing at CUDA graph capture.",
        "The server is still failing at CUDA graph capture.",
        "The server is now failing at load.",
        "The server is also failing during warmup.",
        "The server is consistently failing with OOM.",
        "The server has been failing with OOM since the upgrade.",
    ],
    "error": ["I got a NCCL error on the second node."],
    "exception": ["The scheduler raised an exception while loading."],
    "die": ["The scheduler died after the first request.", "The detokenizer dies quietly."],
    "dead": ["The scheduler is dead after the first request."],
    "dying": ["The server keeps dying.", "The workers keep dying after an hour."],
    "OOM": [
        "The worker OOMed during capture.",
        "When inference with batch size 4, oom occurs.",
        "After an hour oom happens on rank 3.",
        "I got an oom error during capture.",
    ],
    "out of memory": [
        "The server ran out of memory while loading.",
        "The server runs out of GPU memory after a few hours.",
        "The engine ran out of device memory during capture.",
        "The container ran out of host memory while loading the shards.",
        "Out-of-memory errors occurred during the first prefill.",
    ],
    "segfault": ["The worker segfaulted while loading.", "Segfaults every time on H20."],
    "segmentation fault": ["I got a segmentation fault on the second node."],
    "core dumped": ["The process core dumped while loading."],
    "killed": ["The scheduler was killed after the first request."],
    "失败": ["结果：初始化失败"],
    "报错": ["启动报错了", "运行时出错了"],
    "崩溃": ["服务直接崩溃", "服务崩了"],
    "挂了": ["进程挂了", "服务挂掉"],
    "退出": ["模型全部异常退出"],
    "显存不足": ["显存不足，服务停止", "显存不够", "跑到一半爆显存"],
    "down": [
        "The server goes down after an hour.",
        "The server went down after an hour.",
        "Our servers go down after an hour.",
        "The server is going down every hour.",
        "The server has gone down twice today.",
    ],
    "exit": [
        "The server exits with code 1 after loading.",
        "The server exited with code 1 after loading.",
        "Both workers exit with code 137 after loading.",
        "The server exits unexpectedly after loading.",
        "The server exited unexpectedly after loading.",
        "The server exits abnormally after loading.",
        "The server exited abnormally after loading.",
        "The server exits immediately after loading.",
        "The server exited immediately after loading.",
        "The container spins up, but exits during loading the model.",
        "The engine started, but exited during capture.",
        "The engine loaded, but then exited after capture.",
    ],
    "panic": ["The router panics when a worker is removed.", "The router panicked after the first request."],
    "request fail": [
        "All requests fail with 500 Internal Server Error.",
        "The request failed after the first batch.",
        "Requests all fail after an hour.",
        "Requests start failing after 10 minutes.",
        "Requests began failing after 10 minutes.",
        "Requests keep failing after the restart.",
        "Requests then fail with 503.",
    ],
    "5xx": [
        "The server returns 500 errors after a while.",
        "The server returned 502 after loading.",
        "The server keeps returning 500 after the restart.",
        "The generate calls all return 500 after warmup.",
        "The server returns HTTP 500 for every request.",
        "The server returned HTTP 503 after loading.",
        "The server returns a 500 for every request.",
        "I received a 500 code response from the server.",
        "Now I receive a 502 Bad Gateway after loading.",
        "The router receives a 503 Service Unavailable from the decode node.",
        "We got a 500 Internal Server Error from the server.",
        "We get a 500 error for every request.",
        "Every client gets a 502 response after loading.",
        "The benchmark keeps getting a 500 error after warmup.",
    ],
    "timeout met": ["Got NCCL timeout after 10 minutes.", "We hit a NCCL time-out after loading."],
    "illegal memory access": ["We hit an illegal memory access in the decode worker."],
    "restart": ["The pod keeps restarting.", "The pods keep restarting."],
    "blow up": ["The server blows up with OOM.", "The worker blew up with OOM.", "The server has blown up twice."],
    "terminated": [
        "The scheduler was terminated by signal 9.",
        "The worker terminated unexpectedly during cuda graph capture.",
        "The engine process terminated abnormally.",
    ],
    "unable": [
        "The engine is unable to start.",
        "The engine is unable to launch.",
        "The engine is unable to initialize.",
        "The engine is unable to serve requests.",
    ],
    "cannot": [
        "The server can't start with --tp 8.",
        "The engine won't launch after the upgrade.",
        "The router couldn't connect to the prefill server.",
        "The server cannot start after the upgrade.",
        "The engine does not launch with --dp 2.",
        "The router could not connect to the decode server.",
    ],
    "fails": ["When enabling --enable-dp-attention, the launch fails.", "KV transfer failed between prefill and decode nodes."],
    "timeout happened": ["NCCL timeout happened during cuda graph capture.", "A timeout occurred during the warmup."],
}


def test_every_stated_piece_of_the_table_has_its_sentences():
    assert set(STATED) == {w.word for w in kinds.FAILURE_WORD_TABLE if w.stated}
    for word, sentences in STATED.items():
        held = {piece for piece in ROWS[word].stated for sentence in sentences if piece in sentence}
        assert held == set(ROWS[word].stated), word


@pytest.mark.parametrize("sentence", [s for sentences in STATED.values() for s in sentences])
def test_a_stated_piece_reaches_the_stated_failure_reader(sentence):
    assert kinds.STATED_FAILURE_GRAMMAR in prefilter.grammars_for(sentence)
    parsed = stated_failure.parse(sentence)
    assert parsed is not None and parsed.kind == kinds.STATED_FAILURE


def test_the_prose_readers_share_their_guards():
    # one definition each: the denial, the clause, the condition and the negated claim
    assert time_cues.DENIED is stated_failure.DENIED is prose_guards.DENIED
    assert time_cues.CLAUSE is stated_failure.CLAUSE is prose_guards.CLAUSE
    assert time_cues.CONDITION is stated_failure.CONDITION is prose_guards.CONDITION
    assert time_claims.NEGATED is time_cues.NEGATED is stated_failure.NEGATED is prose_guards.NEGATED


@pytest.mark.parametrize("lead", ["If", "Unless", "Whether or not", "In case", "What if"])
def test_a_condition_places_nothing_in_any_prose_reader(lead):
    # the shared condition words: time_claims' negated claim reads "in case" as the time cues always did
    assert time_claims.parse(f"{lead} it fails during startup, restart the node.") is None
    assert time_cues.place(f"{lead} the server crashed after a few requests in our benchmark run.") is None
    assert stated_failure.parse(f"{lead} the server crashed after loading, restart it.") is None
    assert time_claims.parse("It fails during startup, restart the node.") is not None  # the same claims, asserted
    assert time_cues.place("The server crashed after a few requests in our benchmark run.") is not None


@pytest.mark.parametrize("sentence", ["Does it fail during startup?", "Does it also fail during startup？ On H20 it does."])
def test_a_question_claims_nothing(sentence):
    assert time_claims.parse(sentence) is None


PLACED = "the server crashed after a few requests in our benchmark run."

# another run than the paste's: a lead for each entry family of kinds.OTHER_RUN_WORDS
OTHER_RUN = {
    "an older image, release or setup": ["With the old image", "With an older driver"],
    "a run before this one": ["Previously", "Earlier"],
    "the run before an upgrade": ["Before upgrading", "Before the update"],
    "the last version, release or run": ["With the last version", "In the last run"],
    "a version named after 'with'": ["With v0.4.9"],
}


def test_every_other_run_family_has_its_leads():
    assert set(OTHER_RUN) == {what for what, _ in kinds.OTHER_RUN_WORDS}


@pytest.mark.parametrize(("what", "lead"), [(what, lead) for what, leads in OTHER_RUN.items() for lead in leads])
def test_a_sentence_about_another_run_places_nothing(what, lead):
    words = dict(kinds.OTHER_RUN_WORDS)[what]
    assert re.search(r"(?i)\b(?:" + words + r")\b", lead)
    assert time_cues.place(PLACED[:1].upper() + PLACED[1:]) is not None
    assert time_cues.place(f"{lead} {PLACED}") is None


# a character of each script of kinds.FOREIGN_SCRIPTS, in a sentence the English lexicon would place
SCRIPTS = {
    "CJK symbols and punctuation, Hiragana, Katakana": "の",
    "CJK ideographs, extension A": "㐀",
    "CJK ideographs": "服",
    "Hangul syllables": "서",
    "halfwidth and fullwidth forms": "Ａ",
}


def test_every_foreign_script_has_its_character():
    assert set(SCRIPTS) == {what for what, _ in kinds.FOREIGN_SCRIPTS}


@pytest.mark.parametrize(("what", "char"), SCRIPTS.items())
def test_a_sentence_in_another_script_places_nothing(what, char):
    assert re.fullmatch("[" + dict(kinds.FOREIGN_SCRIPTS)[what] + "]", char)
    assert time_cues.place(f"The server crashed after a few requests in our benchmark run ({char}).") is None


# each language's negation words of kinds.FOREIGN_NEGATIONS, in a sentence that places without them
NEGATIONS = {
    "German": ["keinen", "nicht", "nie"],
    "French": ["pas", "jamais", "aucune", "sans"],
    "Spanish": ["sin", "nunca", "ninguna"],
    "Portuguese": ["não"],
    "Italian": ["senza", "mai"],
}


def test_every_language_has_its_negations():
    assert set(NEGATIONS) == {language for language, _ in kinds.FOREIGN_NEGATIONS}


@pytest.mark.parametrize(("language", "word"), [(lang, w) for lang, words in NEGATIONS.items() for w in words])
def test_another_languages_negation_places_nothing(language, word):
    assert re.fullmatch("(?:" + dict(kinds.FOREIGN_NEGATIONS)[language] + ")", word)
    assert time_cues.place(f"The server crashed {word} after a few requests in our benchmark run.") is None


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("The FlashInfer trtllm kernel errors out with intermediate size 704.", True),
        ("It errored out at the first batch.", True),
        ("It no longer errors out after the fix.", False),  # denied
        ("Does it error out on H100?", False),  # a question
        ("If the model errors out, retry.", False),  # a condition
    ],
)
def test_errors_out_states_a_failure(sentence: str, stated: bool):
    """The phrasal verb 'error(s|ed) out' says the run stopped on an error (facts12)."""
    assert (stated_failure.parse(sentence) is not None) is stated


@pytest.mark.parametrize("spacing", [" ", "  ", "   ", "\t", " \t "])
@pytest.mark.parametrize("case", [str.lower, str.upper, str.capitalize])
def test_the_prefilter_and_the_progressive_form_agree(spacing, case):
    # review15c item 13: the fast path (the prefilter's pieces) takes every sentence the form takes: a verb, an adverb
    # or none, any white space before "failing" (a tab too, review15d item 9), in any case the form takes
    for word in kinds.FAILING_SUBJECT_WORDS:
        for adverb in ("", *kinds.FAILING_ADVERBS):
            before = f"The server {word}" + (f" {adverb}" if adverb else "")
            sentence = f"{before}{spacing}{case('failing')} at CUDA graph capture."
            reached = kinds.STATED_FAILURE_GRAMMAR in prefilter.grammars_for(sentence)
            parsed = stated_failure.parse(sentence)
            assert reached and parsed is not None and parsed.kind == kinds.STATED_FAILURE, sentence
    # negative: a runner's count states nothing, nor "failing" without the verb before it
    for sentence in ("3 failing, 10 passed in 2.1s", "Failing that, retry.", "A\tfailing test at random."):
        assert stated_failure.parse(sentence) is None, sentence
