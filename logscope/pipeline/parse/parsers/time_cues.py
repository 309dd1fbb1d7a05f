"""When a failure happened, said in a sentence of the issue's own words that also names the failure ("The server
crashes with `X` when I start it on two nodes.", "After a few requests it dies: `RuntimeError: ...`"): a family of
cue words, not a list of phrasings (parse/parsers/time_claims.py keeps the phrasings, and the client steps).

A sentence places its failure when it holds a failure word (crash, fail, error, dies, OOM, hang, ...) and cues of
one kind only: serving cues (requests, inference, generation, a benchmark, a load or stress test, concurrency,
traffic, QPS, a rollout, "after N hours / steps / requests") or startup cues (the server's start, launch, boot or
initialisation, loading the model or weights, graph capture; not "warmup": a benchmark's warmup requests are
served). A sentence with cues of both kinds, a negation, a condition, a possibility, a question, an intent, a fix or
a dismissal places nothing, and the cue words are read outside code spans and quotes only (a quoted exception's
"init" is the library's word, not the writer's).
Like every claim it is weaker evidence than a log line: it places a failure only when nothing in the log does, and
the finding says it was inferred from the issue's words (signatures/match.py)."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.pipeline.parse.parsers import stated_failure
from logscope.pipeline.parse.parsers.base import Parsed
from logscope.pipeline.parse.parsers.prose_guards import (
    CLAUSE,
    CONDITION,
    DENIED,
    INTENT_WORDS,
    NEGATED,
    QUESTION_MARKS,
    SUPPOSED_WORDS,
)

# the failure the sentence speaks of, a verb or a noun, or meeting "this issue" (kinds.TIME_CUE_FAILURE_WORDS, whose
# pieces are also the prefilter's literals)
_FAILURE = re.compile(r"(?i)\b(?:" + "|".join(forms for _, forms in kinds.TIME_CUE_FAILURE_WORDS) + r")\b")
# the server was serving: requests reached it, it ran inference or generation, a benchmark or load drove it, or it had
# run for hours, steps or requests before the failure. Not the words that only name a kind of server ("the inference
# engine"), a pull or feature request, Python's requests package (`requests.post`), nor "serving" alone ("when serving
# model X" is running the server, its startup included: time_claims.py reads "while serving")
# an accuracy benchmark ("the GSM8K benchmark") is no serving cue: SGLang's own accuracy scripts may start an engine
# of their own (sglang/test/few_shot_gsm8k_engine.py: sgl.Engine(model_path=...), 0.5.2), whose startup may be what
# failed; the built mined labels agree (an accuracy client labelled unknown, time_claims.CLIENT_STEPS)
# nor a benchmark named with the tests, or of kernels ("running any benchmark or test will fail" after building
# sgl-kernel, sglang-4357; "the kernel benchmarks", "a micro-benchmark"): a package's own scripts, which start no server
_ACCURACY = re.compile(
    r"(?i)\b(?:gsm-?8k|mmlu(?:-pro)?|humaneval|math(?:-?500)?|aime\d*|gpqa|mmmu|accuracy|eval(?:uation)?)"
    r"\s+(?:benchmark\w*|tests?|evals?)\b"
    r"|\bbenchmark(?:s|ing)?\s+(?:or|and|&|/)\s+(?:unit\s+)?tests?\b|\b(?:unit\s+)?tests?\s+(?:or|and|&|/)\s+benchmarks?\b"
    r"|\b(?:kernels?|ops?|operators?|micro)[- ]?benchmark(?:s|ing)?\b"
)
_SERVING = re.compile(
    r"(?i)\b(?:(?<!pull )(?<!feature )(?<!merge )requests?\b(?!\.\w|\()"
    # "for inference", "for generation" name what the server is for ("I set --mem-fraction-static 0.9 for inference")
    r"|(?<!for )inference\b(?! (?:server|engine|framework|service|backend|stack|image|container|pod|node|cluster|script)s?\b)"
    r"|(?<!for )generation\b(?! config)|generating|benchmark(?:s|ing|ed)?|benching"
    r"|(?:load|stress|pressure|performance|perf)[- ]?test(?:s|ing)?|concurren(?:cy|t)|traffic|(?-i:QPS|RPS)|rollouts?"
    # a chat client's user asking the server (OpenWebUI and the like): "when I ask a question", "the second prompt"
    r"|(?:ask(?:s|ed|ing)?|send(?:s|ing)?|sent|submit(?:s|ted|ting)?|enter(?:s|ed|ing)?) (?:(?:a|an|the|another|my|one|any)"
    r" )?(?:\w+ )?(?:questions?|prompts?|quer(?:y|ies))\b"
    # (not a file, a path or a script's input: "submit the prompt file path", "enter my query into the launch script")
    r"(?! (?:files?|paths?|into|in the (?:launch|command|script)))"
    r"|(?:first|second|third|next|another|each|every) (?:questions?|prompts?|quer(?:y|ies))\b"
    # the server ran, then failed: "The server runs with the log pattern described below and then crashes" (it was up;
    # not "runs into", "runs out of", "runs the warmup")
    # (nor a startup step as its object, "runs cuda graph capture", nor a few seconds alone, "runs for about 5 seconds":
    # the words show no server that was up, review15c item 10)
    r"|(?<=server )runs?\b(?! (?:into|out|on|the|a|an|with(?:out)? (?:the |a |an |this |these )?(?:following |below )?"
    r"(?:commands?|flags?|options?|configs?|arg(?:ument)?s)\b"
    r"|(?:cuda[- ]?|torch[- ]?)?(?:graphs?|captur\w*|load\w*|warm-?ups?|weights?|init\w*|compil\w*|profil\w*|jit)\b"
    r"|(?:for )?(?:about |around |roughly |only |just |~)?(?:\d+|a few|several|some) ?(?:s|secs?|seconds?)\b))"
    r"(?=[^.;:!?]{0,60}\band then\b)"
    r"|after (?:about |around |roughly |nearly |over |more than |~)?(?:\d+\+?|a few|several|many|some|hundreds of"
    # "after 3 hours of loading" are hours of a startup step, "after 2 hours of debugging" the user's
    r"|thousands of) (?:(?:hours|days)(?! of (?!(?:serving|running|operation|inference|uptime)\b)\w+)"
    r"|steps|iterations|epochs|requests|rounds|queries|prompts))\b"
)
# the server was starting: (stage, pattern), the more precise step first. The start words count for the server only
# (its start as a noun, or the verb with the server or "it" as subject or object): "right after training started", "a
# kernel launch failure" and "fails in host-side initialization" are another thing's start
_SERVER = (
    r"(?:the |a |my |our |this )?(?:sglang |SGLang |vllm |vLLM )?"
    r"(?:server|engine|service|instance|model|container|pod|node|worker|scheduler|runtime|it|them)"
)
_STARTS = r"start(?:s|ed|ing)?|launch(?:es|ed|ing)?|boot(?:s|ed|ing)?"
_STARTUP: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "load_weight",
        re.compile(
            r"(?i)\b(?:load(?:ing)? (?:the |of )?(?:model(?: weights)?|weights?|checkpoints?)"
            r"|(?:model|weights?|checkpoint) loading)\b"
        ),
    ),
    (
        "capture",
        re.compile(r"(?i)\b(?:(?:cuda[- ]?)?graph captur(?:e|ing)|captur(?:e|ing) (?:the )?(?:cuda[- ]?)?graphs?)\b"),
    ),
    (
        "startup",
        re.compile(
            r"(?i)\bstart-?up\b|\b(?:" + _STARTS + r"|initiali[sz](?:e|es|ed|ing)|bring(?:ing)? up) (?:up )?" + _SERVER + r"\b"
            r"|\binitiali[sz]ation of " + _SERVER + r"\b"
            r"|\b" + _SERVER + r"(?: is| was)? (?:" + _STARTS + r"|initiali[sz](?:es|ed|ing)"
            r"|initiali[sz]ation|init|coming up)\b(?! (?:to|with|from|over)\b| \w+ing\b)"
            # the failure came before the server was ready: "the server crashes before it is ready"
            r"|\bbefore " + _SERVER + r" (?:is|was|became|becomes|gets|got) ready\b"
        ),
    ),
)
# a line of a log quoted as if it were prose: a timestamp, a table's cell, a rank tag, a glog prefix
_LOGGISH = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|^\s*\||\[rank\d|\b[IWEF]\d{4} ")
# what keeps a sentence from claiming anything (prose_guards.py): before its failure word, a denial in that word's
# clause, or a possibility, an intent, an expectation ("it might crash", "I want to send requests to see the error")
_SUPPOSED = re.compile(r"(?i)\b(?:" + SUPPOSED_WORDS + "|" + INTENT_WORDS + r")\b")
# a serving cue that is what failed ("the smoke benchmark failed", "requests fail"): the client's failure, which a server
# that never came up gives as well
_FAILED_CLIENT = re.compile(r"\W+(?:\w+ly\W+)?" + _FAILURE.pattern.removeprefix("(?i)"), re.IGNORECASE)
# a time said to go well ("memory was fine while loading the model"): the sentence names when it did not fail
_WENT_WELL = re.compile(r"(?i)\b(?:fine|ok|okay|normal(?:ly)?|succe(?:ed|eds|eded|ssful|ssfully)|works? (?:now|well))\b")
# a clause before a turn that says so with the bare verb ("It works at startup, but later it crashed", "Startup works,
# but ..."; not a task's "works on", "works around", "worked with"): only as the clause a turn leaves behind, since in
# a sentence "works" is as often the time it ran before failing ("Now it works for a few requests, then the scheduler
# crashes.")
_WORKED = re.compile(r"(?i)\bwork(?:s|ed)\b(?!\s+(?:on|around|with|through|out)\b)")
# a question: a question mark, or a sentence that opens as one
_ASKED = re.compile("[" + QUESTION_MARKS + r"]|^\W*(?:why|how|what|which|does|do|did|is|are|was|were|has|have)\b", re.IGNORECASE)
# a line of code or a template's checklist, not a sentence of prose
_NOT_PROSE = re.compile(
    r"^\s*(?:[-*+]\s+\[[ xX]\]|<!--|\d+\.\s+I have\b|#|raise\b|def\b|class\b|return\b|import\b|from \w+ import\b|assert\b"
    r"|except\b|self\.)|\w\(|\w=|==|->|[{};]\s*$"
)
# what the writer quotes (a code span, a quoted message) holds the library's words, not the writer's
_QUOTED = re.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”|(?<!\w)'[^'\s][^']*[^'\s]'(?!\w)")
# a launch flag or a code name is the program's word, masked like a quote: "--max-running-requests 256" is no request,
# "--enable-deterministic-inference" no inference, "vllm.inference.worker" no inference either; so is a setting
# written as key=value in a sentence ("The process crashes after the concurrency exceeds 100, when tp=2.",
# "max_running_requests=256"): the setting's words are no cue, and the sentence stays prose (a line of code is told by
# its call's keyword arguments, _CALL_ARGS, or its call, `\w\(`; a line of settings alone keeps too few words)
_CODE = re.compile(r"(?<![\w-])--?[A-Za-z][\w.-]*|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[A-Za-z_]\w*=[^\s,;)]*")
# a call's keyword argument ("sgl.Engine(model_path=..., tp_size=2)", the key after an open parenthesis): a line of code,
# whatever words it holds (the settings' masking above would hide it from _NOT_PROSE's `\w=`)
_CALL_ARGS = re.compile(r"\([^()]*\b[A-Za-z_]\w*=")
# the lexicon is English: a sentence in another script or with another language's negation (kinds.FOREIGN_SCRIPTS,
# kinds.FOREIGN_NEGATIONS), or about another run than the paste's (kinds.OTHER_RUN_WORDS), places nothing by its cue
# words; time_claims.py reads its phrasings
_FOREIGN = re.compile(
    "[" + "".join(span for _, span in kinds.FOREIGN_SCRIPTS) + "]"
    r"|(?i:\b(?:" + "|".join(words for _, words in kinds.FOREIGN_NEGATIONS) + r")\b)"
)
_OTHER_RUN = re.compile(r"(?i)\b(?:" + "|".join(words for _, words in kinds.OTHER_RUN_WORDS) + r")\b")
# the server coming up or not starting, read only to cancel a line ("the server never comes up", "it does not start
# again", "The server fails to start with high concurrency": the failure to start is startup's, whatever serving word
# the sentence also holds): "it comes up and then crashes" is after its startup, so it places nothing itself
_COMES_UP = re.compile(
    r"(?i)\b(?:comes?|came|coming) up\b|(?:\b(?:not|never)|n't) (?:re)?(?:start|launch|boot)"
    r"|\bfail(?:s|ed|ing)? to (?:re)?(?:start|launch|boot)\b"
)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？；])|;\s*|:\s+(?=[`\"'A-Z])")
# a clause turned against a clause that says a time went well ("It starts fine, but crashes during inference"): the
# second clause says when it failed, the first when it did not; read as two sentences. A clause that went well is
# needed: "I start the server ..., but it raised an error" says when in its first clause, of the failure of its second
_TURNED = re.compile(r",\s*(?=(?:but|however)\s)")
_WORD = re.compile(r"[^\W\d_]{2,}")
_MIN_WORDS = 4


def fits(text: str) -> bool:
    return _FAILURE.search(text) is not None and (_SERVING.search(text) is not None or any(p.search(text) for _, p in _STARTUP))


def parse(text: str) -> Parsed | None:
    """The first sentence of the line that places its failure by its cue words, unless a sentence of the line names
    the other time, placed, negated or without a failure word ("It fails during startup on one node; on the other it
    fails during inference.", "It crashed after a few requests. The server does not start again after that.")."""
    parts = sentences(text.strip())
    placed = [found for sentence in parts if (found := place(sentence)) is not None]
    if not placed:
        return None
    stage, said = placed[0]
    if any(serving != (stage == "serving") for sentence in parts for serving in _times_named(sentence)):
        return None
    return Parsed(kinds.TIME_CUE, {"stage": stage, "said": said})


def _times_named(sentence: str) -> set[bool]:
    """The times a sentence of prose names by its cue words, whatever it says of them (True: serving)."""
    said = sentence.strip()
    words = _QUOTED.sub(" ", said)
    # a time said to go well backs the other time ("the server starts successfully. However, it fails when processing
    # an inference request.")
    if _NOT_PROSE.search(words) or _LOGGISH.search(said) or _WENT_WELL.search(words):
        return set()
    masked = _writers(said)
    serving, startup, _ = _cues(masked)
    return ({True} if serving else set()) | ({False} if startup or _COMES_UP.search(masked) else set())


def sentences(text: str) -> list[str]:
    """The sentences of a line, cut outside its code spans and quotes (a quoted "RuntimeError: ..." is one piece)."""
    masked = _QUOTED.sub(lambda m: m.group(0)[0] + "x" * (len(m.group(0)) - 2) + m.group(0)[-1], text)
    out, at = [], 0
    for cut in [*_SENTENCE.finditer(masked), None]:
        end = len(text) if cut is None else cut.start()
        start = clause = at
        for turn in _TURNED.finditer(masked, at, end):
            # (only the clause just before this turn: the ones before it went nowhere well, and re-reading them at each
            # turn was quadratic in a long sentence of turns, review14b item 10)
            before = _QUOTED.sub(" ", text[clause : turn.start()])
            if _WENT_WELL.search(before) or _WORKED.search(before):
                out.append(text[start : turn.start()])
                start = turn.end()
            clause = turn.end()
        out.append(text[start:end])
        if cut is not None:
            at = cut.end()
    return out


_LONGEST_SENTENCE = 1000


def place(sentence: str) -> tuple[str, str] | None:
    """(stage, the sentence as said) when the sentence names a failure and cues of one time only, else None."""
    said = sentence.strip()
    if len(said) > _LONGEST_SENTENCE:
        return None  # no sentence of an issue runs so long; each failure word rescans the text before it
    words = _CODE.sub(" ", _QUOTED.sub(" ", said))
    if len(_WORD.findall(words)) < _MIN_WORDS or _NOT_PROSE.search(words) or _LOGGISH.search(said):
        return None
    if _CALL_ARGS.search(_QUOTED.sub(" ", said)):
        return None
    if _FOREIGN.search(words) or _OTHER_RUN.search(words):
        return None
    masked = _writers(said)
    failures = [m.start() for m in _FAILURE.finditer(said)]
    if not failures or all(_denied(masked[:at]) for at in failures):
        return None
    # anywhere: a condition (and, with stated_failure.rules_out, a fix, a dismissal, a question)
    if CONDITION.search(words) or _WENT_WELL.search(words) or _ASKED.search(words) or stated_failure.rules_out(words):
        return None
    serving, startup, client = _cues(masked)
    if client or bool(serving) == bool(startup):
        return None
    # a cue said in the negative or as a condition ("not during startup", "this is not a graph capture case", "unless
    # ... requests") places nothing
    if any(
        NEGATED.search(masked[:at]) or DENIED.search(CLAUSE.split(masked[:at])[-1]) for at in serving + [at for _, at in startup]
    ):
        return None
    # a serving cue the failure came before ("it crashes before any request is sent", "before I send a request"): the
    # time before any request, no serving time
    if any(_PRIOR.search(CLAUSE.split(masked[:at])[-1]) for at in serving):
        return None
    return ("serving" if serving else startup[0][0]), said[:200]


_PRIOR = re.compile(r"(?i)\b(?:before|until|prior to)\b")


def _writers(said: str) -> str:
    """The writer's words where they stand: quotes, launch flags and code names blanked."""
    blank = lambda m: " " * len(m.group(0))  # noqa: E731 - one substitution for both
    return _CODE.sub(blank, _QUOTED.sub(blank, said))


# a serving run named as a whole (a rollout, a benchmark, a load test, the generation) said to have ended ("after the
# rollout was completed", "once the benchmark finished"): what failed after it came once serving was over (an RL
# trainer's next stage, the client's report), no serving time. A count of requests that completed ("after 100 requests
# completed") is the serving that went on: _SERVING's "after N requests" reads it
_WHOLE_RUN = re.compile(
    r"(?i)(?:rollouts?|benchmark(?:s|ing)?|(?:load|stress|pressure|performance|perf)[- ]?tests?|generation|inference)$"
)
# ("over" and "done" only as the predicate that ends its clause, "after the rollout was over, ...": "inference over a
# large dataset", "inference done with the OpenAI client" are a preposition and a participle, review15c item 6)
_ENDED = re.compile(
    r"(?i)\s+(?:(?:(?:is|was|were|are|has|have|had)\s+(?:been\s+)?|got\s+)?(?:completed?|complete[sd]|finish(?:es|ed)|ended)\b"
    r"|(?:is|was|were|are|(?:has|have|had)\s+been|got)\s+"
    # ("done" unless a preposition makes it a participle; "over" before its clause's end or the next clause's subject:
    # issue prose seldom puts the comma there, "After the benchmark is done the server crashes", review15d item 6)
    r"(?:done\b(?!\s+(?:with|using|by|on|in|for|via|through|from|of)\b)"
    r"|over\b(?=\s*(?:[.,;:!?)]|$)|\s+(?:and|then|when|but|so|the|it|we|i|sglang|my|our|this)\b)))"
)


def _ended(masked: str, m: re.Match[str]) -> bool:
    """The serving cue names a whole run said to have ended right after it (_WHOLE_RUN, _ENDED)."""
    return _WHOLE_RUN.search(m.group(0)) is not None and _ENDED.match(masked, m.end()) is not None


def _cues(masked: str) -> tuple[list[int], list[tuple[str, int]], bool]:
    """The serving cues' and the startup cues' places (with the step), and whether a serving cue is what failed (the
    client's failure, which a server that never came up gives as well: the sentence places nothing). A serving run
    said to have ended is no serving cue (_ended)."""
    found = [m for m in _SERVING.finditer(_ACCURACY.sub(lambda m: " " * len(m.group(0)), masked)) if not _ended(masked, m)]
    client = [m for m in found if _FAILED_CLIENT.match(masked, m.end())]
    startup = [(stage, m.start()) for stage, pattern in _STARTUP for m in pattern.finditer(masked)]
    return [m.start() for m in found if m not in client], startup, bool(client)


def _denied(before: str) -> bool:
    """The failure word is denied, supposed or wished: a denial in its clause, or a possibility or intent before it."""
    return DENIED.search(CLAUSE.split(before)[-1]) is not None or _SUPPOSED.search(before) is not None
