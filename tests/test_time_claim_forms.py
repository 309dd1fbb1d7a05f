"""Every form a time claim's pattern reads (parse/parsers/time_claims.py) passes the prefilter, so none is dropped
before the grammar sees it (review 6 item 14: "When running a benchmark", "During our benchmark", "After answering"
were read by the patterns but held none of kinds.TIME_CLAIM_LITERALS). The forms are spelled out of each pattern
itself: every alternative of every group, each optional part with and without it, at a sentence's start capitalised
too when the pattern ignores case."""

from __future__ import annotations

import itertools
import re
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest

from logscope.pipeline.analyze import analyze_model
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse.literal_set import literal_scan
from logscope.pipeline.parse.parsers import time_claims

_CAP = 5000  # forms per pattern at most (the largest holds about 2,000)


def _forms(items: list[tuple[object, object]]) -> list[str]:
    out = [""]
    for op, av in items:
        out = [a + b for a, b in itertools.product(out, _node(op, av))][:_CAP]
    return out


def _node(op: object, av: object) -> list[str]:  # noqa: PLR0911 (one return per regex node kind)
    if op is sre_constants.LITERAL:
        return [chr(av)]  # type: ignore[arg-type]
    if op is sre_constants.IN:  # a character class: one member stands for it
        first = av[0]  # type: ignore[index]
        if first[0] is sre_constants.NEGATE:  # "anything but ...": a blank, unless blanks are excluded too
            blank_out = any(
                item in ((sre_constants.LITERAL, 32), (sre_constants.CATEGORY, sre_constants.CATEGORY_SPACE)) for item in av
            )  # type: ignore[union-attr]
            return ["x" if blank_out else " "]
        if first[0] is sre_constants.LITERAL:
            return [chr(first[1])]
        if first[0] is sre_constants.CATEGORY:
            return [" " if first[1] is sre_constants.CATEGORY_SPACE else "a"]
        return ["a"]
    if op is sre_constants.ANY:
        return ["a"]
    if op is sre_constants.BRANCH:
        return [form for branch in av[1] for form in _forms(list(branch))]  # type: ignore[index]
    if op is sre_constants.SUBPATTERN:
        return _forms(list(av[-1]))  # type: ignore[index]
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
        low, _high, body = av  # type: ignore[misc]
        inner = _forms(list(body))
        counts = sorted({low, max(low, 1)})
        return [form for n in counts for parts in itertools.product(inner, repeat=n) for form in ["".join(parts)]]
    return [""]  # an anchor, a boundary or a look-ahead: nothing of the text


def _claim_forms() -> list[tuple[int, str]]:
    out = []
    for index, (_stage, pattern) in enumerate(time_claims._CLAIMS):
        for form in _forms(list(sre_parse.parse(pattern.pattern, pattern.flags & ~re.UNICODE))):
            variants = {form, form[:1].upper() + form[1:]} if pattern.flags & re.IGNORECASE else {form}
            out += [(index, f"So it goes: {v}") for v in sorted(variants) if pattern.search(v)]
    return out


def test_every_claim_pattern_spells_forms():
    assert {index for index, _ in _claim_forms()} == set(range(len(time_claims._CLAIMS)))


def test_every_form_of_every_claim_passes_the_prefilter():
    scan = literal_scan()
    dropped = sorted({form for _, form in _claim_forms() if not scan.holds(form)})
    assert dropped == []


# --- review 6: the claims read in the reviewer's inputs (items 3, 4, 11, 14), before a failure of the paste
WATCHDOG = (
    "[rank14]:[E319 05:16:21.789822241 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 14] Process group watchdog "
    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.00 GiB. GPU 0 has a total capacity of 79.10 GiB "
    "of which 3.12 GiB is free.\n"
)


def _placed(prose: str, log: str) -> tuple[str, str]:
    analysis = analyze_model([Source(name="paste.log", path=None, data=f"{prose}\n```\n{log}```\n".encode())])
    (failure,) = [f for fs in analysis.failures.values() for f in fs]
    return failure.finding, failure.phase


@pytest.mark.parametrize(
    ("prose", "log", "placed"),
    [
        # item 14: forms the patterns read that the prefilter dropped
        ("It crashes when running a benchmark against it:", WATCHDOG, ("runtime-crash", "serving")),
        ("During our benchmark the server died:", WATCHDOG, ("runtime-crash", "serving")),
        ("After answering 300 requests the server died:", WATCHDOG, ("runtime-crash", "serving")),
        # item 11: "could" of an ability or of what did happen is no mere possibility
        ("I could reproduce it during startup every time, with 8 GPUs.", OOM, ("startup-oom", "startup")),
        ("The server could crash during startup, as it did here:", OOM, ("startup-oom", "startup")),
    ],
    ids=["running-a-benchmark", "during-our-benchmark", "after-answering", "could-reproduce", "could-crash"],
)
def test_a_claim_the_reviewer_wrote_places_the_failure(prose, log, placed):
    assert _placed(prose, log) == placed


@pytest.mark.parametrize(
    ("prose", "log"),
    [
        # item 4: a question, and a claim the same clause contradicts
        ("Does it also crash during the benchmark?", OOM),
        ("Memory was fine while loading the model; the OOM came much later.", OOM),
        # a possibility still places nothing
        ("Issues may be encountered during startup on some drivers.", OOM),
        # review11: a Chinese claim said in the negative (it failed before any request was sent)
        ("还没发请求时就报错了，服务启动不起来：", OOM),
        # a high-concurrency test only planned
        ("我们计划做高并发测试，但是服务根本起不来：", OOM),
        # place12: a stated time with no word that the server was up (a startup step's time), a request only meant
        ("The weight loading ran for 2 h and then:", OOM),
        ("Next I will send a request to it. But first:", OOM),
        # a run span whose subject is a startup step; the user's hours; a request only asked about; a local evalscope
        ("The weight loading runs fine for a while, then:", OOM),
        ("After 2 hours of debugging I still get this error:", OOM),
        ("Does it crash as soon as you send a request?", OOM),
        ("evalscope perf --model Qwen3-8B --api local --parallel 4", OOM),
        # before any request (time_cues read "request" as a serving cue); a decoder's input
        ("It crashed before I sent any requests.", OOM),
        ("Before I send a request, the server crashes:", OOM),
        ("The tokenizer fails while decoding the config:", OOM),
        # review12a item 11: a code host's request, a hang's time, a load balancer
        ("I submitted a pull request to add a check, see #1234.", OOM),
        ("We posted a feature request about this last week.", OOM),
        ("We send a merge request with the fix.", OOM),
        ("It has been running for 20 minutes, still stuck at the line below, then it dies.", OOM),
        ("We run it under load balancing with nginx.", OOM),
        # place15: a startup step that works most of the time is that step's; a failure rate is no working time
        ("Weight loading works fine most of the time, but sometimes it dies:", OOM),
        ("It fails about 10% of the time with this error:", OOM),
        # runtime16: a span only asked about; a span naming no server or "it" (built deepep-290: a test program's run)
        ("Does it crash after running for a while?", OOM),
        # a clock span of the user's own time, in bold too
        ("After **1:30 of debugging** I still get:", OOM),
        ("I ran the test case on two nodes.\nAfter running for a while, an error occurred.", OOM),
    ],
    ids=[
        "question",
        "fine-while-loading",
        "may-be",
        "chinese-not-yet-sent",
        "chinese-planned",
        "ran-for-no-adverb",
        "send-intended",
        "step-runs-fine",
        "hours-of-debugging",
        "asked",
        "evalscope-local",
        "before-any-request",
        "before-i-send",
        "decoding-the-config",
        "pull-request",
        "feature-request",
        "merge-request",
        "running-but-stuck",
        "load-balancing",
        "loading-fine-most-of-the-time",
        "fails-n-percent",
        "asked-after-running-for-a-while",
        "bold-clock-span-of-debugging",
        "after-running-for-a-while-no-subject",
    ],
)
def test_a_question_a_contrary_clause_or_a_possibility_places_nothing(prose, log):
    assert _placed(prose, log)[1] == "unknown"


@pytest.mark.parametrize(
    "prose",
    [
        # review 6 item 3: started fine, failed after a while; started without error, failed on a request (never the
        # startup time; i43-place11: the serving time, by the Chinese forms of time_claims.py)
        "启动成功后运行一段时间报错",
        "启动没有报错，但是请求时报错",
        "模型上线后跑了一段时间就报错：",
        "服务跑了几个小时之后崩溃：",
        "高并发压测时调度进程崩溃：",
        # Japanese: after a while; when a request is sent
        "しばらくすると次のエラーで落ちます：",
        "リクエストを送ると次のエラーが出ます：",
        # the forms of writers for whom English is a second language, a load client's step, requests in flight
        "The service throws this exception when i stressed testing sglang with eagle:",
        "2. run a benchmark client\n3. the service throws an exception:",
        "When there are running requests in prefill, flush_cache leads to this crash:",
        # place12: the kind of traffic named (built sglang-22714), an abbreviated run time (built sglang-33549), a
        # numbered step that sends a request (built dynamo-6273)
        "The server then crashes under normal inference traffic:",
        "Server ran normally for ~5.7 h serving an agentic client, then the decode hung:",
        "1. Run the launch script\n2. Send any request to the frontend.\n3. The prefill worker crashes:",
        # a run span, requests in hand, a request sent, other projects' load clients, Chinese "when inferring"
        "The server works fine for a while, then crashes with:",
        "The server died after ~3h of serving:",
        "The crash happens after the server has been up for 6 hours:",
        "It crashes intermittently while handling requests:",
        "The server starts fine but crashes as soon as I send a request:",
        "After the server started successfully, I sent a request and it crashed:",
        "Running genai-perf against the server, it crashed:",
        "evalscope perf --url http://127.0.0.1:8000/v1/chat/completions --parallel 20 --api openai",
        "guidellm benchmark --target http://localhost:8000 --rate 20",
        "推理时报错：",
        "I was running a benchmark against the server. Then the scheduler crashed with:",
        "The server had been serving traffic normally. Suddenly it crashed:",
        "After the server is ready, I send a request with an image.\nThe scheduler then crashes:",
        "The server starts up normally and serves requests for a while before crashing:",
        "Crash happens under concurrency 32 with long prompts:",
        "The crash occurs during decoding:",
        "服务启动后，发送请求就报错：",
        "在跑benchmark的时候报错：",
        # place15: the run works most of the time, the failure is occasional (built nccl-1905: "communication is normal
        # 99% of the time. Occasionally, this error occurs")
        "The model operates with a TP of 16, and communication is normal 99% of the time. Occasionally, this error occurs:",
        "It works fine most of the time, but sometimes the scheduler crashes with:",
        # initialised fine, then it failed after a while: the serving time, not the startup's (初始化 ... 失败 reads
        # no success between)
        "初始化成功后运行一段时间报错：",
        # runtime16: an unstated span of running before it (probe Multiverse4FM/Multiverse-Engine#2)
        "After running for a while, it gives this error:",
        "The scheduler died after serving normally for some time:",
        # runtime16: an offline engine's work, a span as a clock, Markdown's strong emphasis (probe
        # mmcdermott/MEDS_EIC_AR#176: "then crashed ..., after **50:54 of prediction**.")
        "The engine crashed at 260/4,304 prediction batches, after **50:54 of prediction**.",
        "It died after 3 hours of generation:",
        "The error occurred after a relatively long period of operation, not at the time of startup",
    ],
    ids=[
        "zh-started-fine",
        "zh-started-no-error",
        "zh-a-while",
        "zh-hours",
        "zh-load",
        "ja-a-while",
        "ja-request",
        "stressed-testing",
        "benchmark-client-step",
        "running-requests",
        "under-normal-traffic",
        "ran-normally-hours-abbreviated",
        "step-send-a-request",
        "works-fine-for-a-while",
        "hours-of-serving",
        "been-up-for",
        "while-handling-requests",
        "as-soon-as-i-send",
        "i-sent-a-request",
        "genai-perf",
        "evalscope-perf",
        "guidellm",
        "zh-when-inferring",
        "benchmark-against-the-server",
        "had-been-serving",
        "i-send-a-request",
        "serves-requests-for-a-while",
        "under-concurrency-n",
        "during-decoding",
        "zh-request-then-error",
        "zh-running-benchmark",
        "normal-n-percent-of-the-time",
        "works-fine-most-of-the-time",
        "zh-initialised-fine-then-a-while",
        "after-running-for-a-while",
        "after-serving-for-some-time",
        "bold-clock-span-of-prediction",
        "hours-of-generation",
        "relatively-long-period-of-operation",
    ],
)
def test_a_sentence_of_the_serving_time_places_the_failure_while_serving_inferred(prose):
    assert _placed(prose, WATCHDOG)[1] == "serving"


def test_a_question_answered_places_by_its_answer_only():
    # the question claims nothing; its answer ("crashes at startup") does
    assert _placed("After processing 200 requests? No, it crashes at startup before any request.", OOM)[1] == "startup"


def test_a_sentence_of_when_it_failed_outweighs_the_last_phase_line_of_a_cut_log():
    """place12: the startup's head and the crash's tail pasted under "it crashes after running for 3 hours": the step
    after the last phase line (capture) would hold only for a log pasted whole from that line to the failure."""
    log = (
        "[2025-06-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n"
        "[2025-06-01 10:00:31 TP0] Memory pool end. avail mem=14.00 GB\n"
        "[2025-06-01 13:00:31 TP0] Scheduler hit an exception: RuntimeError: CUDA error: an illegal memory access was"
        " encountered\n"
    )
    assert _placed("The server crashes after running for 3 hours under load.", log) == ("runtime-crash", "serving")
    # without the sentence the last phase line places it, as before
    assert _placed("The log:", log) == ("startup-crash", "capture")


# review12a item 14: a run span's step subject is looked for in its clause alone: linear in the line. A line of 40,000
# step words before "works fine for a while" took about 35 s per 160 KB (quadratic) on main eccb3375, searching the
# whole text before the span from every step word; the search is now given at most the clause's reach (no timing here:
# the bound is on what the search is given)
def test_a_long_line_of_step_words_before_a_run_span_is_searched_in_its_clause_alone(monkeypatch):
    line = "loading " * 40_000 + ", it works fine for a while then crashes."
    searched: list[int] = []
    real = time_claims._STEP_SUBJECT

    class Spy:
        def search(self, text: str) -> re.Match[str] | None:
            searched.append(len(text))
            return real.search(text)

    monkeypatch.setattr(time_claims, "_STEP_SUBJECT", Spy())
    parsed = time_claims.parse(line)
    assert parsed is not None
    assert searched and max(searched) <= time_claims._CLAUSE_REACH
    assert time_claims.parse("the weight loading works fine for a while, then:") is None


# review12a item 16: a claim outweighs the log's last phase line only when it is firm: no other engine or release in its
# clause, no negation after it, no word of an early failure in its sentence
CUT_LOG = (
    "[2025-06-01 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n"
    "[2025-06-01 10:00:31 TP0] Memory pool end. avail mem=14.00 GB\n"
    "[2025-06-01 13:00:31 TP0] Scheduler hit an exception: RuntimeError: CUDA error: an illegal memory access was"
    " encountered\n"
)


@pytest.mark.parametrize(
    "prose",
    [
        "With vLLM it works fine for a while; with SGLang the server fails right away.",
        "Under concurrency 32 vLLM is fine; SGLang fails as shown.",
        "Benchmarks against the server were never run, it fails first.",
    ],
    ids=["other-engine-and-right-away", "other-engine-after", "negated-after"],
)
def test_a_loose_claim_does_not_outweigh_the_last_phase_line(prose):
    assert _placed(prose, CUT_LOG) == ("startup-crash", "capture")


@pytest.mark.parametrize(
    "prose",
    [
        # place15: a warmup named with no client (built mooncake-2554: the HiCache store's warmup), the model's loading as
        # a process (built sglang-23386): startup, its step not said
        "SGLang with Mooncake as HiCache backend fails during warmup with TRANSFER_FAIL: -800 if MC_USE_TENT is enabled",
        "The server crashed at the warm-up:",
        "During the loading process, an error occurred indicating an upload issue.",
    ],
    ids=["fails-during-warmup", "crashed-at-the-warm-up", "during-the-loading-process"],
)
def test_a_warmup_or_the_loading_named_places_the_failure_at_startup_without_a_step(prose):
    assert _placed(prose, WATCHDOG) == ("startup-crash", "startup")


@pytest.mark.parametrize(
    "prose",
    [
        # a benchmark client's warmup requests are served ones; a warmup that went fine names no failure's time
        "The benchmark fails during warmup with a connection error:",
        "The client crashed during warmup, the server log shows:",
        "Warmup went fine, but later it failed:",
    ],
    ids=["benchmark-warmup", "client-warmup", "warmup-went-fine"],
)
def test_a_client_s_warmup_places_nothing_at_startup(prose):
    assert _placed(prose, WATCHDOG)[1] != "startup"


def test_a_model_that_failed_to_deploy_failed_at_startup():
    # fix15b (gpustack-3383's shape): the template's "Actual result" says "failed to deploy", then a c10d warning and its
    # C++ frames: the model's server never came up, the failure is at startup
    paste = (
        "### Actual result\n\nfailed to deploy\n\n```\n[rank1]:[W1119 17:59:26.271588084 TCPStore.cpp:125] [c10d] recvValue"
        " failed on SocketImpl(fd=61, addr=[localhost]:33850, remote=[localhost]:30005): Failed to recv, got 0 bytes."
        " Connection was likely closed. Did the remote server shutdown or crash?\n"
        "Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:682 (most recent call first):\n```\n"
    )
    analysis = analyze_model([Source(name="paste.md", path=None, data=paste.encode())])
    found = [f for fs in analysis.failures.values() for f in fs]
    assert [f.phase for f in found] == ["startup"]
    claim = time_claims.parse("The model fails to deploy on two GPUs.")
    assert claim is not None and claim.data["stage"] == "startup"
    # negatives: a deployment of a fix or the docs is no server's; a deployment that worked claims nothing
    assert time_claims.parse("The CI failed to deploy the docs site.") is None
    assert time_claims.parse("The model deployed fine on two GPUs.") is None
    without = analyze_model([Source(name="paste.md", path=None, data=paste.replace("failed to deploy", "see below").encode())])
    assert [f.phase for fs in without.failures.values() for f in fs] == ["unknown"]


def test_a_startup_step_that_ran_for_a_while_is_no_serving_time():
    """runtime16: the span's subject is a startup step (_STEP_SUBJECT): the claim reads nothing, the cue sentence
    names the step (time_cues)."""
    assert time_claims.parse("The weight loading after running for a while dies with:") is None
    assert _placed("The weight loading after running for a while dies with:", OOM) == ("startup-oom", "load_weight")
