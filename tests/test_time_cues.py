"""The cue lexicon (parse/parsers/time_cues.py): a sentence that names its failure and holds cues of one time only
places it, inferred from the issue's words; every guard keeps a sentence from placing anything (issue 43,
i43-serving). Sentences written here test the reader; the mined corpus measures it."""

from __future__ import annotations

import pytest

from logscope.core import kinds
from logscope.core.model import Coverage
from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse import prefilter
from logscope.pipeline.parse.classify import SourceClassifier
from logscope.pipeline.parse.parsers import stated_failure, time_cues
from tests.helpers import analyze_text

TRACEBACK = """```
Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/foo/bar.py", line 10, in run
    x()
RuntimeError: something went wrong in the kernel
```
"""

PLACED = [
    # the two sentences of the issue (today both gave time unknown)
    ("The server crashes with `X` when I start it on two nodes.", "startup"),
    ("After a few requests it dies: `RuntimeError: boom`", "serving"),
    # serving cues
    ("Then a request to the router makes the decode pod crash with these logs:", "serving"),
    ("We occasionally hit this issue during stress testing.", "serving"),
    ("The scheduler hangs under high concurrency.", "serving"),
    ("It crashed after about 3 hours of serving.", "serving"),
    ("The rollout workers die in the middle of a rollout.", "serving"),
    ("During inference the process gets killed.", "serving"),
    ("The error shows up while generating long outputs.", "serving"),
    ("The server crashes during the throughput benchmark.", "serving"),
    ("It fails after 200 steps of RL training.", "serving"),
    ("With QPS above 20 the engine segfaults.", "serving"),
    # startup cues
    ("SGLang crashes when launching the server with tp 8.", "startup"),
    ("It crashes when the server is starting.", "startup"),
    ("The engine hits an OOM while loading the model weights.", "load_weight"),
    ("The process fails during CUDA graph capture on H20.", "capture"),
    ("The pod got killed at startup every time.", "startup"),
    # an error message's own words after the failure word deny nothing ("No model info found")
    ("I start the server and load the model from a local path, but it raises an error: No model info found.", "load_weight"),
    # a launch flag is masked like a quote: it cancels no cue of the writer's (review9 4a)
    ("I set --max-running-requests 64 and it crashes during CUDA graph capture.", "capture"),
]

NOT_PLACED = [
    # a guard: negation, condition, possibility, question, intent, a fix, a dismissal
    ("It does not crash after a few requests.", "negation"),
    ("No error shows up during inference at all.", "negation of the failure"),
    ("It crashes with this trace, and not at startup.", "negation of the cue"),
    ("If it crashes during the benchmark, lower the request rate.", "condition"),
    ("The server might crash when sending many requests.", "possibility"),
    ("Why does it crash after a few requests?", "question"),
    ("Does the error appear during inference", "question without its mark"),
    ("I am going to try sending requests to see the error.", "intent"),
    ("This PR fixes a crash when sending requests.", "a fix"),
    ("Memory was fine while loading the model; the OOM came much later.", "a time that went well"),
    # cues of both kinds, in one sentence or in two of one line
    ("When I start the server and send requests, it crashes.", "both kinds"),
    ("It fails during startup on one node; on the other it fails during inference.", "both kinds, two clauses"),
    # no cue of the writer's: the words are the library's (quoted), or name a kind of server or another thing's start
    ("But there's an `'unspecified launch failure'` error.", "quoted words"),
    ('I got "Failed to initialize the engine" in the log file.', "quoted words"),
    ("The inference engine crashes with a segfault.", "a kind of server"),
    ("The process raised an error right after training started.", "another thing's start"),
    ("The original code fails in host-side initialization.", "a component's initialization"),
    ("A CUDA kernel launch failure is reported by the worker.", "a kernel's launch"),
    ("When serving with sglang serve, I get a segfault.", "serving alone is running the server"),
    ("The server crashes during execution of the GSM8K benchmark.", "an accuracy benchmark"),
    ("The server process crashed during the warmup.", "warmup: SGLang's or a benchmark's"),
    ("Multiple mlx5 QPs reported a local length error.", "QPs are queue pairs"),
    ("It crashes after 2 hours of debugging the loader.", "the user's hours"),
    ("See the pull request for the crash details here.", "a pull request"),
    ("The smoke benchmark failed three times before the diagnosis.", "the client is what failed"),
    # a launch flag or a code name holds the program's words, not the writer's (review9 4a)
    ("With --max-running-requests 256 the server crashes.", "a launch flag"),
    ("With --enable-deterministic-inference the server crashes every time.", "a launch flag's last word"),
    ("Setting --generation-config auto makes the server crash.", "a launch flag's first word"),
    ("The server crashes with an OOM when I set --mem-fraction-static 0.9 for inference.", "inference as a purpose"),
    ("The crash comes from vllm.inference.worker in my setup.", "a dotted code name"),
    # the lexicon is English: a sentence in another language places nothing by cues (review9 4b)
    ("Beim benchmark gibt es keinen crash.", "German negation"),
    ("跑 benchmark 的时候没有 crash，只有 error log。", "Chinese"),
    ("在发送 requests 时不会 crash。", "Chinese, requests"),
    ("Pas de crash pendant le benchmark, seulement au démarrage.", "French negation"),
    ("サーバーは benchmark 中に crash しません。", "Japanese"),
    # "the issue", "the bug" is no event with a time (review9 4c)
    ("The issue is that generation is slow, not a crash.", "the issue, and a denied crash"),
    ("This bug was introduced by PR 1234 which changed the inference path.", "the bug"),
    ("This issue shows up during stress testing.", "an issue that is no met failure"),
    # a serving cue dropped as the client's failure leaves the sentence unplaced (review9 4d)
    ("Request failed with error: the server is starting up.", "the client's failure"),
    # another run, or a cue of the other kind anywhere on the line, even negated (review9 4e)
    ("With the old image it crashed after a few requests; with the new one the server never comes up.", "another run"),
    ("It crashed after a few requests. The server does not start again after that.", "a negated cue of the other kind"),
    ("I start the server with tp 8. After a few requests it crashes.", "a cue of the other kind without a failure word"),
    # no failure word, or no sentence of prose
    ("After a few requests the latency goes up a lot.", "no failure word"),
    ("2025-11-09 15:39:31 worker failed to start the engine", "a log line"),
    ("| 2024-11-28T07:42:11Z | initialization of the engine failed |", "a table of a log"),
    ("raise RuntimeError(msg) when starting the server fails", "code"),
]


@pytest.mark.parametrize(("sentence", "stage"), PLACED, ids=[s for s, _ in PLACED])
def test_a_sentence_with_cues_of_one_time_places_its_failure(sentence, stage):
    placed = time_cues.place(sentence)
    assert placed is not None and placed[0] == stage


@pytest.mark.parametrize(("sentence", "why"), NOT_PLACED, ids=[w for _, w in NOT_PLACED])
def test_a_guarded_or_mixed_sentence_places_nothing(sentence, why):
    parsed = time_cues.parse(sentence)
    assert parsed is None, why


def test_a_time_said_to_go_well_cancels_no_other_sentence():
    # the form of sglang-35779 (built part): the startup went well, the failure came with a request
    line = "The server starts successfully. However, the service fails when processing an inference request."
    parsed = time_cues.parse(line)
    assert parsed is not None and parsed.data["stage"] == "serving"


def _failures(text: str) -> list[tuple[str, str, str]]:
    analysis = analyze_model([Source(name="issue.md", path=None, data=text.encode())])
    return [(f.finding, f.phase, f.phase_basis) for fs in analysis.failures.values() for f in fs]


@pytest.mark.parametrize(
    ("prose", "finding", "phase"),
    [
        ("The server crashes with `X` when I start it on two nodes.", "startup-crash", "startup"),
        ("After a few requests it dies.", "runtime-crash", "serving"),
    ],
)
def test_the_sentence_places_the_failure_of_the_paste_inferred(prose, finding, phase):
    [(found, placed, basis)] = _failures(f"{prose}\n\n{TRACEBACK}")
    assert (found, placed) == (finding, phase)
    assert "the paste's own words" in basis and "lower confidence" in basis


def test_a_cue_sentence_after_the_log_places_it_too():
    # the sentence names the failure it speaks of, so it may follow the log
    [(found, placed, _)] = _failures(f"{TRACEBACK}\nWe occasionally hit this crash during stress testing.\n")
    assert (found, placed) == ("runtime-crash", "serving")


def test_a_phrase_claim_wins_over_a_cue_sentence():
    # time_claims' phrasing is the more exact reading: a cue sentence that disagrees does not cancel it (review9 4b)
    prose = "It fails during startup.\n\nAfter a few requests it dies.\n"
    [(found, placed, basis)] = _failures(prose + TRACEBACK)
    assert (found, placed) == ("startup-crash", "startup")
    assert "fails during startup" in basis


def test_a_chinese_sentence_gives_its_phrase_claim_again():
    # review9 4b: the Chinese sentence's English "benchmark" was read as a serving cue and cancelled time_claims' '启动的时候报错'
    [(found, placed, basis)] = _failures("跑 benchmark 的时候没有 crash，启动的时候报错：\n\n" + TRACEBACK)
    assert (found, placed) == ("startup-crash", "startup")
    assert "启动的时候报错" in basis


def test_a_log_line_never_reads_as_a_cue_sentence():
    log = "[2026-01-05 10:00:01 TP0] Scheduler hit an exception: request failed when starting the server\n"
    events = SourceClassifier(Source(name="one.log", path=None, data=log.encode()), Coverage()).run()
    assert [e for e in events if e.kind == kinds.TIME_CUE] == []
    # the same words as a sentence of the issue
    prose = "The scheduler failed when I started the server again and sent requests.\n"
    events = SourceClassifier(Source(name="one.md", path=None, data=prose.encode()), Coverage()).run()
    assert [e.kind for e in events if e.kind == kinds.TIME_CUE] == []  # both kinds of cue: nothing


FAILURE_WORDS = [
    "crashes",
    "crashed",
    "crashing",
    "crash",
    "fails",
    "failed",
    "failing",
    "failure",
    "failures",
    "error",
    "errors",
    "exception",
    "exceptions",
    "dies",
    "died",
    "die",
    "dying",
    "dead",
    "OOM",
    "OOMs",
    "OOMed",
    "OOM'd",
    "hangs",
    "hanging",
    "hang",
    "hung",
    "stuck",
    "freezes",
    "freezing",
    "froze",
    "segfaults",
    "segfaulted",
    "killed",
    "aborts",
    "aborted",
    "timeouts",
    "timeout",
    "time-out",
] + ["out of memory", "segmentation fault", "timed out", "hit this issue", "encountered the problem", "met that bug"]


@pytest.mark.parametrize("word", FAILURE_WORDS)
def test_every_failure_word_reaches_the_lexicon(word):
    # the prefilter's literals (kinds.TIME_CUE_LITERALS, from the same table) hold every failure word the lexicon
    # reads, at a sentence's start too
    for sentence in (f"After a few requests it {word} again.", f"{word[:1].upper()}{word[1:]} after a few requests."):
        assert kinds.TIME_CUE_GRAMMAR in prefilter.grammars_for(sentence), sentence
        assert time_cues.fits(sentence), sentence


# --- a sentence hard-wrapped over lines (issue bodies wrapped at 80 columns): its cue on one line, its failure word on
# the next; the words are read joined, the cue kept on the failure word's line
WRAPPED_STARTUP = (
    "During SGLang worker startup on an AMD MI355X virtual function (`gfx950`), two\n"
    "small metadata operations failed after the scheduler child had initialized its\n"
    "ROCm process state:\n"
)


def test_a_sentence_wrapped_over_lines_places_its_failure():
    [(found, placed, basis)] = _failures(WRAPPED_STARTUP)
    assert (found, placed) == ("startup-crash", "startup")
    assert "During SGLang worker startup on an AMD MI355X virtual function (`gfx950`), two small metadata" in basis


def test_a_wrapped_serving_sentence_after_the_log_places_it_while_serving():
    prose = "We only hit this crash after the server had been serving\nrequests for about three hours.\n"
    [(found, placed, _)] = _failures(f"{TRACEBACK}\n{prose}")
    assert (found, placed) == ("runtime-crash", "serving")


@pytest.mark.parametrize(
    "prose",
    [
        "During SGLang worker startup on an AMD MI355X virtual function.\nsmall metadata operations failed later on.\n",
        "During SGLang worker startup on an AMD MI355X virtual function\n\nsmall metadata operations failed later on.\n",
        "- During SGLang worker startup on an AMD MI355X virtual function\nsmall metadata operations failed later on.\n",
    ],
    ids=["sentence-ended", "paragraph-break", "list-item"],
)
def test_lines_of_separate_sentences_are_not_joined(prose):
    assert [placed for _, placed, _ in _failures(prose)] in ([], ["unknown"])


# --- a chat user's question or prompt is a request the server took; a clause turned against one that went well
# ("starts fine, but ...") says when it failed on its own
@pytest.mark.parametrize(
    ("sentence", "stage", "said"),
    [
        (
            "The script starts fine, and the first question works, but when I ask a question a second time in OpenWebUI,"
            " the script crashes.",
            "serving",
            "but when I ask a question a second time in OpenWebUI, the script crashes.",
        ),
        ("The server dies after the second prompt.", "serving", "The server dies after the second prompt."),
        ("The server starts fine, but crashes during inference.", "serving", "but crashes during inference."),
        ("It loads the weights fine, however it crashes while capturing cuda graphs.", "capture", None),
    ],
)
def test_a_chat_question_or_a_clause_after_one_that_went_well_places_it(sentence, stage, said):
    parsed = time_cues.parse(sentence)
    assert parsed is not None and parsed.data["stage"] == stage
    assert said is None or parsed.data["said"] == said


def test_a_prompt_given_to_a_script_or_a_flag_is_no_request_and_before_ready_is_startup():
    # review14b item 15: the chat cue's object goes to the server, not into a launch script or a file path; an explicit
    # "before it is ready" in the same sentence is the startup
    x3 = time_cues.parse("With sglang 0.5.3 I enter my query into the launch script and the server crashes before it is ready.")
    assert x3 is not None and x3.data["stage"] == "startup"
    x1 = "With sglang 0.5.3, after I submit the prompt file path with --model-path, the server crashes with no log."
    assert time_cues.parse(x1) is None
    # a prompt sent to the server still places the crash while serving; before it, nothing
    sent = time_cues.parse("After I submit the prompt in the chat UI, the server crashes.")
    assert sent is not None and sent.data["stage"] == "serving"
    assert time_cues.parse("With sglang 0.5.3, the server crashed before it was ready, I could not even send a prompt.") is None


def test_a_turned_clause_after_a_clause_that_names_the_time_is_one_sentence():
    # "I start the server ..., but it raised an error": the start is the time of the error of the second clause
    parsed = time_cues.parse("I start the server in a K8S pod and load the model from a local path, but it raised an error")
    assert parsed is not None and parsed.data["stage"] == "load_weight"


def test_a_prose_line_with_no_cue_in_reach_looks_for_no_heading(monkeypatch):
    # review14a's note on 0f92c6a1: the wrapped-cue reader looked back over the section's headings (up to
    # _SECTION_LOOKBACK lines) for every prose line; only a joined sentence that may hold a cue asks now
    calls: list[int] = []
    real = SourceClassifier._reporting

    def reporting(self, lineno):
        calls.append(lineno)
        return real(self, lineno)

    monkeypatch.setattr(SourceClassifier, "_reporting", reporting)
    prose = "we installed sglang and torch from the wheels and then\nthe sglang server loaded its weights from disk\n" * 200
    [(found, placed, _)] = _failures(f"{prose}\n{WRAPPED_STARTUP}")
    assert (found, placed) == ("startup-crash", "startup")  # the wrapped cue is still read, its section looked at
    assert 1 <= len(calls) <= 4


def test_a_short_line_ends_its_sentence_whatever_its_punctuation():
    # two sentences of an issue, each on its own line without a period: the first is no hard-wrapped piece of the
    # second (a wrap cuts a line near its width), so the second's "request is running" does not place the first's failure
    text = (
        "it failed without error message\n"
        "when I change --chunked-prefill-size=4096, it works but only 1 request is running, like this\n"
    )
    assert [(f["rule"], f["phase"]) for f in analyze_text(text)["findings"]] == [("failure-time-unknown", "unknown")]


def test_a_long_sentence_of_turns_reads_each_clause_once(monkeypatch):
    """review14b item 10: at each ", but" the clause just before it is read for a time that went well, not the whole
    sentence since its last cut (quadratic: 50 KB of "the server was slow, but " took 3 s)."""
    read: list[int] = []
    real = time_cues._WENT_WELL

    class Counting:
        def search(self, text):
            read.append(len(text))
            return real.search(text)

    monkeypatch.setattr(time_cues, "_WENT_WELL", Counting())
    text = "the server was slow, but " * 1000 + "it crashed."
    assert time_cues.sentences(text) == [text]
    assert len(read) == 1000
    assert sum(read) <= len(text)
    # (a clause that went well still cuts the sentence there)
    assert time_cues.sentences("the server was slow, but the server starts fine, but it crashes when serving.") == [
        "the server was slow, but the server starts fine",
        "but it crashes when serving.",
    ]


def test_a_serving_run_said_to_have_ended_is_no_serving_time():
    # fix15b (slime-537's shape, constructed): an RL run's OOM "when switching to the train stage after the rollout was
    # completed" came once the rollout was over: no serving time, the OOM's time unknown
    ended = "I encountered an OOM error when switching to the train stage after the rollout was completed in a co-located setup."
    assert time_cues.parse(ended) is None
    assert time_cues.parse("The server crashed with an OOM error after the benchmark finished.") is None
    report = analyze_text(f"# Problem\n{ended}\n")
    assert [f["rule"] for f in report["findings"]] == ["oom-time-unknown"]
    # negative: the rollout or benchmark still running, or a count of requests that completed, is serving
    during = time_cues.parse("I encountered an OOM error during the rollout in a co-located setup.")
    assert during is not None and during.data["stage"] == "serving"
    counted = time_cues.parse("The server crashes with an OOM error after 100 requests completed.")
    assert counted is not None and counted.data["stage"] == "serving"
    running = time_cues.parse("It crashes with an OOM error while the benchmark is running.")
    assert running is not None and running.data["stage"] == "serving"


def test_over_and_done_as_a_preposition_or_a_participle_end_no_run():
    # review15c item 6: "inference over a large dataset" is the run going on (a preposition), not "the inference was over"
    over = time_cues.parse("While running inference over a large dataset, the server crashed with the error below.")
    assert over is not None and over.data["stage"] == "serving"
    done = time_cues.parse("The server crashed while running inference done with the OpenAI client.")
    assert done is not None and done.data["stage"] == "serving"
    report = analyze_text(
        "While running inference over a large dataset, the server crashed with the error below.\n\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    assert [f["rule"] for f in report["findings"]] == ["runtime-crash"]
    # positives of the ended run: "over" and "done" as the predicate ending the clause
    assert time_cues.parse("After the rollout was over, the trainer crashed.") is None
    assert time_cues.parse("The trainer crashed after the rollout was done.") is None


def test_it_suggests_with_an_infinitive_or_a_gerund_is_advice():
    # review15c item 8: "it/this suggests to lower ..." / "suggests restarting ..." is advice, no failure of this run
    assert stated_failure.parse("It suggests to lower --mem-fraction-static when the server crashes with OOM.") is None
    faq = "The FAQ entry for this error is clear: it suggests restarting the router when a worker crashes."
    assert stated_failure.parse(faq) is None
    # positive: an inference's object after "suggests" still states
    this = time_cues.parse("This suggests an OOM during CUDA graph capture.")
    assert this is not None and this.data["stage"] == "capture"
    assert stated_failure.parse("The log suggests something crashed during CUDA graph capture.") is not None


def test_suggests_after_the_evidence_is_an_inference_not_a_proposal():
    # fix15b (llm-d-benchmark-668's shape): "— suggests a startup/model loading failure" says what the evidence shows
    said = time_cues.parse("Pod runs for ~30 seconds before crashing — suggests vLLM startup/model loading failure.")
    assert said is not None and said.data["stage"] == "load_weight"
    this = time_cues.parse("This suggests an OOM during model loading.")
    assert this is not None and this.data["stage"] == "load_weight"
    # negatives: a proposal ("I suggest", "he suggests that ... should") places nothing
    assert time_cues.parse("I suggest the server exits with code 1 when loading the model fails.") is None
    assert time_cues.parse("He suggests that the server should exit when it crashes at startup.") is None


def test_a_benchmark_named_with_the_tests_or_of_kernels_is_no_serving_cue():
    # mine16b (sglang-4357): a package's own benchmark and test scripts start no server
    said = "We noticed that after `make build` in sgl-kernel, and then running any benchmark or test will fail at cu"
    assert time_cues.parse(said) is None
    assert time_cues.parse("It fails when running the kernel benchmarks.") is None
    assert time_cues.parse("Unit tests and benchmarks fail with an ImportError after the upgrade.") is None
    # positives: a benchmark, or one beside a load test, drives the server
    bench = time_cues.parse("The server crashes during the benchmark.")
    assert bench is not None and bench.data["stage"] == "serving"
    load = time_cues.parse("The server crashed while I was running a benchmark or load test.")
    assert load is not None and load.data["stage"] == "serving"
    # the whole paste: the import-time traceback of a kernel benchmark script is placed nowhere
    text = (
        "We noticed that after `make build` in sgl-kernel, and then running any benchmark or test will fail at cu\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/sgl-kernel/benchmark/bench_per_tensor_quant_fp8.py", line 9, in <module>\n'
        "    from sgl_kernel import sgl_per_tensor_quant_fp8\n"
        '  File "/home/u/venv/lib/python3.10/site-packages/sgl_kernel/__init__.py", line 12, in <module>\n'
        "    from sgl_kernel import common_ops\n"
        "ImportError: /home/u/venv/lib/python3.10/site-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: x\n"
    )
    found = [(f["rule"], f["phase"], f["mechanism"]) for f in analyze_text(text)["findings"]]
    assert found == [("failure-time-unknown", "unknown", "sgl_kernel")]
