"""When a paste's own words say a failure happened: a benchmark client run against the server
(`python3 -m sglang.bench_serving ...`: requests were being served) or a sentence ("when benching serving the
following error occurred", "fails during startup", "during kernel warmup", "the hang is in the NCCL communicator
init": SGLang's init_distributed step). Such a claim is weaker evidence than a
log line: it places a failure only when nothing in the log does, and the finding says it was inferred from it."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.pipeline.parse.parsers.base import Parsed
from logscope.pipeline.parse.parsers.prose_guards import CJK_NEGATED, INTENT_WORDS, NEGATED, OTHER_ENGINES, QUESTION_MARKS

LAUNCHER_FAILED = r"\bFailed to (?:launch replica|load model) (?!config\b)[^\s:]+"  # SGLang's "Failed to load model config"
BENCHMARK_CLIENT = "a benchmark client sends requests to a running server"
# a reproduction's client step: a command or call that only talks to a server that is up, so a failure of the server
# shown after it happened while serving (what the step is, pattern). Measured on the built mined pastes (issue 43,
# i43-place4): a load-benchmark client before the failure 3/3 labelled serving, a request to the server 1/1; an
# accuracy script (benchmark/gsm8k/bench_sglang.py) 0/1 (labelled unknown), so accuracy clients are not read
CLIENT_STEPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # SGLang's benchmark client (sglang/bench_serving.py 0.3.0-0.5.23; from 0.5.15.post1 the deprecated alias of
    # sglang/benchmark/serving.py, which launches no server: it only reads --base-url / --host --port)
    (BENCHMARK_CLIENT, re.compile(r"\bsglang\.(?:bench_serving|benchmark\.serving)\b")),
    # vLLM's benchmark client likewise (`vllm bench serve --model ... --request-rate ...`, vLLM's CLI)
    (BENCHMARK_CLIENT, re.compile(r"\bvllm bench serve\b")),
    # SGLang's one-batch benchmark against a running server: with --base-url it connects (bench_one_batch_server.py
    # 0.4.0.post2-0.5.14, benchmark/one_batch_server.py + benchmark/endpoint.py acquire_endpoint 0.5.15.post1-0.5.23);
    # without it, it launches a server of its own, whose startup may be what failed
    (
        BENCHMARK_CLIENT,
        re.compile(r"\bsglang\.(?:bench_one_batch_server|benchmark\.one_batch_server)\b[^\n|;&]{0,400}?--base-url\b"),
    ),
    # the load clients of other projects, each run against a server's URL and never starting one: NVIDIA's genai-perf
    # (`genai-perf profile -m ... --url ...`) and aiperf (`aiperf profile`), guidellm (`guidellm benchmark --target
    # http://...`), EvalScope's stress test (`evalscope perf --url ... --api openai`; its `--api local` runs a model
    # of its own, so not then), per their documentation
    (BENCHMARK_CLIENT, re.compile(r"\bgenai-perf\b|\baiperf profile\b|\bguidellm benchmark\b")),
    (BENCHMARK_CLIENT, re.compile(r"\bevalscope perf\b(?![^\n|;&]{0,400}?--api[ =]local\b)")),
    # a request to SGLang's generation endpoints (entrypoints/http_server.py 0.5.23: "/generate", "/v1/completions",
    # "/v1/chat/completions"; srt/server.py 0.3.0 the same): curl on one line with the URL, or an OpenAI client made
    # with the server's base_url (the openai package's OpenAI / Client)
    (
        "a request sent to the server's generation endpoint, a reproduction step shown before the failure",
        re.compile(r"\bcurl\b(?:(?!\bcurl\b)[^\n|;&]){0,400}?/(?:generate|v1/(?:chat/)?completions)(?=[\s\"'`)\\]|$)"),
    ),
    (
        "a client of the server's OpenAI-compatible endpoint, a reproduction step shown before the failure",
        re.compile(r"\b(?:openai\.)?(?:OpenAI|Client)\(\s*(?:api_key=[^,)]*,\s*)?base_url\s*="),
    ),
)
# how long the server ran before the failure (_CLAIMS' serving claims); its subject may be a startup step instead
# (_STEP_SUBJECT)
_RUN_SPANS: tuple[re.Pattern[str], ...] = (
    # a server that ran well for a while or a stated time ("Server ran normally for ~5.7 h serving an agentic client":
    # built sglang-33549; "works fine for a while, then crashes", "ran stably for 40 min"): the time after its startup;
    # the adverb says it was up, so the bare "ran for 3 h" of a startup step ("loading ran for 2 h") is not read
    re.compile(
        r"(?i)\b(?:works?|worked|working|runs?|ran|running|serves?|served|serving) (?:fine|normally|well|stably|smoothly)"
        r" for (?:a while|some time|a (?:short |long )?(?:time|period)|(?:about |around |roughly |over |more than |~ ?)?"
        r"(?:\d+(?:\.\d+)?|a few|several|many) ?(?:h|hrs?|hours?|min|mins|minutes?|d|days?))\b"
    ),
    # the time it served before the failure, as a span of serving ("died after ~3h of serving", "after a period of normal
    # serving", "after 30 minutes of load"): not "after 2 hours of debugging" (the user's time) nor of loading (a step's)
    # ("after a relatively long period of operation, not at the time of startup": probe sgl-project/sglang#6309)
    # (an offline engine's work is its serving too: "after 50:54 of prediction", "after 3 hours of generation", probe
    # mmcdermott/MEDS_EIC_AR#176; a span as a clock shows it, minutes:seconds or hours:minutes:seconds)
    re.compile(
        r"(?i)\bafter (?:a (?:(?:relatively |fairly |very |quite |rather )?long )?(?:period|while|time)"
        r"|(?:about |around |roughly |over |more than |~ ?)?"
        r"(?:(?:\d+(?:\.\d+)?|a few|several|many) ?(?:h|hrs?|hours?|min|mins|minutes?|d|days?)|\d{1,3}:\d\d(?::\d\d)?)) of "
        r"(?:(?:normal|stable|continuous|heavy) )?"
        r"(?:serving|running|operation|inference|load|traffic|uptime|generation|prediction|decoding)\b"
    ),
    # an unstated span of its running before the failure ("After running for a while, it gives this error:", probe
    # Multiverse4FM/Multiverse-Engine#2; "after serving for some time"): the stated spans' form (the "after running 5
    # hours" of _CLAIMS) with no number, the span's subject a startup step's no serving time (_STEP_SUBJECT); only when
    # its sentence names what ran, the server or "it" (_RAN_SUBJECT): "I ran the test case. After running for a while,
    # an error occurred." is a test program's run (built deepep-290)
    _UNSTATED_SPAN := re.compile(
        r"(?i)\bafter (?:running|serving|working)(?: (?:fine|normally|well|stably|smoothly))? for "
        r"(?:a while|some time|a (?:short |long )?(?:time|period)(?: of time)?)\b"
    ),
    # the server serving for a while ("serves requests for a while before crashing")
    re.compile(
        r"(?i)\bserv(?:es|ed|ing) (?:\w+ )?(?:requests|traffic|queries|users)(?: (?:fine|normally|well|stably|smoothly))? for "
        r"(?:a while|some time|(?:about |around |roughly |over |more than |~ ?)?(?:\d+(?:\.\d+)?|a few|several|many) ?"
        r"(?:h|hrs?|hours?|min|mins|minutes?|d|days?))\b"
    ),
    # the run working most of the time, the failure an occasional one ("communication is normal 99% of the time.
    # Occasionally, this error occurs": built nccl-1905; "it works fine most of the time, but sometimes crashes"): a run
    # that works most of the time is up and serving between its failures; a startup step working so ("loading is fine
    # most of the time") is its step's (_STEP_SUBJECT)
    _MOST_OF_THE_TIME := re.compile(
        r"(?i)\b(?:(?:is|are|was|were) (?:fine|normal|ok|okay|stable|good)"
        r"|(?:works?|worked|working|runs?|ran|running|operates?|operated|operating)"
        r"(?: (?:fine|normally|well|ok|okay|stably|smoothly|correctly))?)"
        r" (?:most of the time|(?:about |around |roughly |over |more than |~ ?)?\d+(?:\.\d+)?% of the time)\b"
    ),
    # the server up for a stated time before it ("after the server has been up for 6 hours", "had been running for 2 days");
    # not a hang's "It has been running for 20 minutes, still stuck at ..." (review12a item 11: a word of waiting later
    # in the clause)
    re.compile(
        r"(?i)\b(?:has|had|have) been (?:up|running|serving)(?: (?:fine|normally|well|stably|smoothly))? for "
        r"(?:a while|some time|(?:about |around |roughly |over |more than |~ ?)?(?:\d+(?:\.\d+)?|a few|several|many) ?"
        r"(?:h|hrs?|hours?|min|mins|minutes?|d|days?))\b"
        r"(?![^.;\n]*\b(?:stuck|hangs?|hanging|hung|still|waiting|loading)\b)"
    ),
)
# a request that is none the server was sent: a code host's ("I submitted a pull request", "we posted a feature
# request", review12a item 11)
_NO_SERVER_REQUEST = r"(?!(?:\w+ )?(?:pull|feature|merge|review|change|bug|support|access) requests?\b)"
# a setting named by the concurrency ("with the concurrency limit set to 8"): the writer's configuration, no time
_CONCURRENCY_SETTING = (
    r"(?! (?:limits?|settings?|flags?|parameters?|arguments?|options?|configs?|configurations?|controls?|caps?)\b)"
)
# the run's request concurrency named as the time of the failure (its claim in _CLAIMS, the comment there)
_CONCURRENCY_CLAIM = re.compile(
    r"(?i)\b(?:with|at|using) (?:a |the )?(?:(?:very )?(?:high|higher|large|larger|heavy|heavier|big|bigger"
    r"|increased) )?(?:request )?concurrency\b"
    + _CONCURRENCY_SETTING
    + r"|\b(?:with|at|using|sending|sent|send) (?:about |around |roughly |over |more than |up to |~ ?)?\d+ concurrent"
    r" (?:requests?|users?|clients?|connections?|threads?|streams?|sessions?|calls?|queries)\b"
    r"|\b(?:when|once|after|whenever|as soon as) (?:the )?(?:request )?concurrency\b"
    + _CONCURRENCY_SETTING
    + r"|\b(?:(?:high|higher|large|heavy) concurrency|concurrency[ =:]*\d+|concurrent \d+"
    r"|\d+ concurrent(?: requests?| users?| clients?)?)"
    r" (?:causes?|caused|leads? to|led to|results? in|resulted in|triggers?|triggered)\b"
)
# the words that say a time went well (_CONTRARY before a claim, _WENT_FINE_AFTER after one)
_WENT_WELL_WORDS = r"fine|ok|okay|no (?:problems?|issues?|errors?)|works?|worked|normal(?:ly)?|succeed(?:s|ed)?|successfully"
# the clause after a concurrency claim saying that run went well ("... but with concurrency 64 it is fine", review17a
# item 3): the time it did not fail
_WENT_FINE_AFTER = re.compile(r"(?i)\b(?:" + _WENT_WELL_WORDS + r")\b")

# the failure at a start said as the start alone: "fails to start", "fails to launch" / "fails to boot" with no object
# of its own ("The server failed to launch under high concurrency."), as the server's, as "fails to start" is
_FAILED_TO_START = re.compile(
    r"(?i)\bfail(?:s|ed)? (?:during|at|on) (?:server |engine )?start-?up\b|\bfail(?:s|ed)? to start\b"
    r"|\bfail(?:s|ed)? to (?:launch|boot)\b(?=\s*(?:[.,;:!)]|$)|\s+(?:under|with|when|while|on|after|because|due|again"
    r"|at|in|every|each)\b)"
)
# any failure word, noun or verb, at the server's start said as its launch or as the bare noun "start" ending the
# clause ("Crash on launch:", "Error on startup:", "fails at launch", "crashing at start:"): the start is the server's,
# unless the launch is another thing's ("failed on launch of the kernel") or the start is of something else ("errors at
# start of decoding")
_FAILED_AT_LAUNCH = re.compile(
    r"(?i)\b(?:crash(?:es|ed|ing)?|fail(?:s|ed|ing)?|errors?(?: out)?|exceptions?|dies|died|dying|hangs?|hung"
    r"|hanging|exits?|exited|OOMs?|OOMed|segfaults?|abort(?:s|ed)?) (?:right |immediately |directly )?"
    r"(?:at|on|upon|during) (?:server |engine )?"
    r"(?:(?:start-?up|launch)\b(?![_-])(?! of (?!(?:the )?(?:server|engine|model)\b))|start(?=\s*(?:[:.,;!)]|$)))"
)
# the loading, the launch or the start named bare as the time ("It crashes while loading.", "Error while loading:",
# "It fails when launching:"): the sentence names no other thing loaded or launched, so the server's own, its step
# not said (the loading the writer sees may be the weights', a capture's or a JIT's); "while loading the dataset"
# names another thing and is not read
_WHILE_LOADING = re.compile(r"(?i)\b(?:while|when|during) (?:loading|launching|starting(?: up)?)(?=\s*(?:[:.,;!)]|$))")
# these three say whose start only by their sentence: one that names another thing that starts, launches or loads (a
# kernel, a client, a script, a dataset, a page, a test) is that thing's start, not the server's ("The fused_moe kernel
# failed to launch due to insufficient shared memory.", "The benchmark client fails at start.", "The dataset script
# errors while loading.", "Error while loading: the page shows a spinner in the web UI.", review17a items 2 and 8)
_START_SAID_BARE = (_FAILED_TO_START, _FAILED_AT_LAUNCH, _WHILE_LOADING)
_SERVER_SUBJECT = re.compile(r"(?i)\b(?:server|engine|sglang|vllm|scheduler|model|it|process|worker|service|instance)\b")


def _another_starts(before: str, after: str, pattern: re.Pattern[str]) -> bool:
    """The claim's subject (the clause's last words before it) names another thing that starts (_ANOTHER_STARTER) with
    no server word after it ("The fused_moe kernel failed to launch", not "In my tests sglang is failing at launch");
    for a bare "while loading", the words after it in its sentence may name what loaded ("Error while loading: the page
    shows a spinner")."""
    words = _clause_before(before).split()[-4:]
    tail = " ".join(words)
    others = list(_ANOTHER_STARTER.finditer(tail))
    if others and not _SERVER_SUBJECT.search(tail, others[-1].end()):
        return True
    if pattern is _WHILE_LOADING:
        rest = _SENTENCE_END.split(_QUOTED_TEXT.sub(" ", after))[0]
        return _ANOTHER_STARTER.search(rest) is not None
    return False


# a quoted span after the claim (an exception's text, a code span) is the program's words, not what the writer names
_QUOTED_TEXT = re.compile(r"`[^`]*`|\"[^\"]*\"")
_ANOTHER_STARTER = re.compile(
    r"(?i)\b(?:kernels?|ops?|operators?|triton|jobs?|tasks?|clients?|benchmarks?|scripts?|datasets?|data ?loaders?"
    r"|pages?|UI|browsers?|tests?|notebooks?|plugins?|extensions?|apps?|jupyter|IDE|docs?)\b"
)


# (stage, pattern): the first that matches a line places it; each holds one of kinds.TIME_CLAIM_LITERALS (the prefilter's)
_CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *(("serving", pattern) for _, pattern in CLIENT_STEPS),
    # "when stress testing", and the forms of writers for whom English is a second language ("when i stressed testing")
    (
        "serving",
        re.compile(r"(?i)\bwhen (?:I |we )?(?:bench(?:ing|marking)?|(?:stress(?:ed)?|load)[- ]test(?:ing|ed)?)\b"),
    ),
    ("serving", re.compile(r"(?i)\bwhen (?:I )?(?:request(?:ing)?|send(?:ing)? requests? to|querying) (?:the )?server\b")),
    # (推理时 / 推理的时候: when inferring, "推理时报错")
    ("serving", re.compile(r"(?i)\b(?:during|while) (?:inference|serving)\b|推理(?:过程中|时|的时候)")),
    # the same as "when stress testing": requests were being sent ("during stress testing", "while load-testing")
    ("serving", re.compile(r"(?i)\b(?:during|while|in) (?:a |the |our )?(?:stress|load)[- ]test(?:ing|s)?\b")),
    (
        "serving",
        re.compile(
            r"(?i)\b(?:ran|running|worked|working) (?:fine |normally |well )?for "
            r"(?:about |around |roughly |nearly |over |more than )?(?:\d+|several|a few|many) (?:hours|days)\b"
        ),
    ),
    # a run that went on for a while before it failed: RL steps (each a rollout the server generated) or requests served
    # first ("after running five steps normally", "after long-time RL training")
    (
        "serving",
        re.compile(
            r"(?i)\bafter\s+(?:running|serving|working)(?:\s+normally|\s+fine|\s+well)?\s+(?:for\s+)?"
            r"(?:(?:about|around|roughly|nearly|over|more than)\s+)?(?:\d+\+?|one|two"
            r"|three|four|five|six|seven|eight|nine|ten|a few|several|some|many|dozens of|hundreds of)\s+"
            # a word before the unit, but no startup step's ("3 warmup steps" are SGLang's startup)
            r"(?:(?!warm-?up|capture|start|init|load|compil)\w+\s+)?"
            r"(?:steps|hours|days|iterations|requests|rounds|rollouts)\b"
        ),
    ),
    ("serving", re.compile(r"(?i)\bafter (?:a )?long[- ]time (?:RL )?(?:training|running|serving)\b")),
    # some hours or days before it failed ("after about 3 hours", "after a few days")
    (
        "serving",
        re.compile(
            r"(?i)\bafter (?:about |around |roughly |nearly |over |more than |~)?(?:\d+|a few|several|many) (?:hours|days)\b"
            # "after 2 hours of debugging" is the user's time; only hours of the server's own running are served
            r"(?! of (?!(?:serving|running|operation|inference|uptime)\b)\w+)"
        ),
    ),
    # a request sent to the server ("when I send requests", "when sending a chat request", "when we post a request"), or
    # the failure came with the first request it got ("fails on the very first streaming request"): the server was up
    (
        "serving",
        re.compile(
            r"(?i)\bwhen (?:I |we )?(?:send(?:ing)?|post(?:ing)?) (?:a |an |the |some |many |multiple |several |concurrent )?"
            r"(?:\w+ )?requests?\b"
        ),
    ),
    ("serving", re.compile(r"(?i)\b(?:on|at|with) the (?:very )?first (?:[\w`/.-]+ ){0,3}?requests?\b")),
    # a benchmark or a stress / load test runs requests against the server ("during the benchmark", "when running the
    # stress test"), and requests it answered before the failure were served ("after processing 200 requests")
    (
        "serving",
        re.compile(
            r"(?i)\b(?:during|while running|when running) (?:the |a |my |our )?(?:(?:serving |throughput |online )?"
            r"benchmark(?:ing)?|(?:stress|load|pressure)[- ]test(?:ing|s)?)\b"
        ),
    ),
    (
        "serving",
        re.compile(
            r"(?i)\bafter (?:processing|handling|sending|receiving|answering) (?:about |around |over |more than |~)?"
            r"(?:\d+|some|a few|several|many|dozens of"
            r"|hundreds of|thousands of) (?:requests|prompts|queries)\b"
        ),
    ),
    # a reproduction step that runs a load client against the server ("2. run a benchmark client", "then I started the
    # stress test script"): requests were sent to a server that was up
    (
        "serving",
        re.compile(
            r"(?i)\b(?:run|ran|running|start|started|launch|launched) (?:a |the |my |our )?(?:serving |throughput )?"
            r"(?:benchmark(?:ing)?|bench|(?:stress|load|pressure)[- ]test(?:ing)?) (?:client|script|tool)s?\b"
        ),
    ),
    # requests in flight when it failed ("when there are running requests in prefill, flush_cache crashes")
    (
        "serving",
        re.compile(
            r"(?i)\bwhen there (?:are|were|is|was) (?:still )?(?:running|ongoing|in-flight|inflight|pending|active"
            r"|concurrent|queued) requests?\b"
        ),
    ),
    # the same in Chinese: after running, inferring or serving for a while (一段时间), some hours (小时) or days (天),
    # it failed ("部署后推理一段时间后报错", "服务跑了几个小时之后崩溃"); under high concurrency (高并发) or a stress test (压测);
    # when requests are sent (发送请求时, 请求时报错)
    (
        "serving",
        re.compile(
            r"(?:运行|推理|跑|使用|服务|部署|压测)了?[^。！？\n]{0,8}?(?:一段时间|几个?小时|\d+\s*个?小时|几天|\d+\s*天)"
            r"(?:后|之后|以后|就|又|会|报错|出错|崩溃|挂)"
        ),
    ),
    # (high concurrency only as a time: "高并发下", "高并发时", "高并发请求": "为了高并发场景部署" is a purpose)
    ("serving", re.compile(r"高并发(?:下|时|的时候|请求|压测)|压测(?:时|的时候|过程中|中)")),
    (
        "serving",
        re.compile(
            r"(?:发送|发|收到)了?[^。！？\n]{0,6}?请求(?:后|时|的时候|之后|就)|请求(?:时|的时候|就)(?:报错|出错|崩溃|挂)"
            # running a benchmark (跑 / 运行 / 执行 bench...): "在跑benchmark的时候报错", and it failed then (报错, 出错,
            # 崩溃, 挂, 失败), no negation between ("跑 benchmark 的时候没有 crash" says it did not)
            r"|(?:跑|运行|执行)了?\s*(?:sglang\.)?bench(?:mark|_serving)?\s*(?:的时候|时|过程中|中)"
            r"(?:(?!没|不|未)[^，。,；\n]){0,6}?(?:报错|出错|崩溃|挂|失败)"
        ),
    ),
    # and in Japanese: after a while (しばらくすると, しばらく動かすと), when a request is sent (リクエストを送ると)
    (
        "serving",
        re.compile(
            r"しばらく(?:すると|して|経つと|経って|動かすと|動かして|使うと|使って)|リクエストを?(?:送る|送信する|投げる)(?:と|時|とき)"
        ),
    ),
    # load, concurrency and traffic are a served server's ("under high concurrency the scheduler crashes", "crashes under
    # normal inference traffic": a form seen in a built paste, sglang-22714; the kind of traffic may stand between)
    (
        "serving",
        re.compile(
            r"(?i)\bunder (?:high|heavy|large|normal|real|production|sustained|constant|continuous|moderate) "
            r"(?:(?:inference|request|user|production|real|API) )?(?:load|concurrency|traffic|QPS|request rates?)\b"
        ),
    ),
    *(("serving", pattern) for pattern in _RUN_SPANS),
    # a benchmark or load test run against the server ("I was running a benchmark against the server")
    (
        "serving",
        re.compile(
            r"(?i)\b(?:run|ran|running|start|started) (?:a |the |my |our )?(?:\w+ )?(?:benchmark|load test|stress test)s?"
            r" against (?:the |my |our |this |a )?(?:server|endpoint|service|instance|deployment|it)\b"
        ),
    ),
    # the server had been serving ("The server had been serving traffic normally.") or the writer sends it a request as a
    # reproduction's narrative ("After the server is ready, I send a request with an image.")
    (
        "serving",
        re.compile(
            r"(?i)\b(?:has|had|have) been (?:serving|handling|processing) (?:\w+ )?(?:requests|traffic|queries)\b"
            r"|(?<!before )(?<!until )\b(?:I|we) (?:then )?(?:send|post|submit) "
            r"(?:a|an|the|one|some|my|our|many|multiple|several|concurrent|\d+) "
            + _NO_SERVER_REQUEST
            + r"(?:\w+ ){0,2}?requests?\b"
        ),
    ),
    # load or concurrency alone ("Crash happens under concurrency 32", "it dies under load"); not "under a traffic burst"
    # (a noun's modifier: a cause named in passing, built sglang-40723)
    (
        "serving",
        re.compile(
            r"(?i)\bunder (?:(?:load|traffic)\b(?! (?:burst|spike|peak)s?\b)(?![ _-]?balanc)"
            r"|concurrency(?: of)? \d+|\d+ concurrent)"
        ),
    ),
    # the run's request concurrency named as the time of the failure ("crashes with high concurrency", "at concurrency
    # 64:", "With 256 concurrent requests:", "when the concurrency exceeds 100", the ESL "concurrent 256 cause" over the
    # error: probes sgl-project/sglang#3696, InternLM/InternLM#762): concurrency counts the requests in flight at once,
    # so the server was up and serving them; a setting named by it ("with the concurrency limit set to 8") is the
    # writer's configuration, no time
    ("serving", _CONCURRENCY_CLAIM),
    # the scheduler's serving phases ("The crash occurs during decoding", "while prefilling", "in the decode stage")
    (
        "serving",
        re.compile(
            r"(?i)\b(?:during|while) (?:decoding|prefilling)\b(?! (?:the|a|an|of|JSON|bytes?|headers?|config)\b)"
            r"|\b(?:during|in) the (?:decode|decoding|prefill) (?:stage|phase)\b"
        ),
    ),
    # requests in hand when it failed ("crashes intermittently while handling requests", "when processing concurrent queries")
    (
        "serving",
        re.compile(
            r"(?i)\b(?:while|when) (?:handling|processing|serving|answering) (?:\w+ )?(?:requests?|queries|traffic|prompts)\b"
        ),
    ),
    # the failure came with a request the writer sent ("crashes as soon as I send a request", "I sent a request and it
    # crashed", "whenever we post a chat request"): the server was up to take it
    (
        "serving",
        re.compile(
            r"(?i)\b(?:as soon as |whenever |once (?=I |we ))(?:I |we )?(?:send|sent|post|posted|submit|submitted) "
            r"(?:a |an |the |one |any |some |my |our |many |multiple |several |concurrent |\d+ )?"
            + _NO_SERVER_REQUEST
            + r"(?:\w+ )?requests?\b"
            r"|\b(?:I|we) (?:then )?(?:sent|posted|submitted) (?:a|an|the|one|some|my|our|many|multiple|several|concurrent|\d+)"
            r" " + _NO_SERVER_REQUEST + r"(?:\w+ ){0,2}?requests?\b"
        ),
    ),
    # a reproduction's numbered or bulleted step that sends the server a request ("2. Send any request to the frontend.
    # 3. The prefill worker crashes.": built dynamo-6273), the step's verb capitalised as a step opens: requests were
    # sent to a server that was up
    (
        "serving",
        re.compile(
            r"(?:(?<![\w.])\d+[.)]|(?<!\S)[-*]|\bStep \d+:?)\s+Send "
            r"(?:a|an|any|some|the|one|many|multiple|several|concurrent|\d+) (?:[\w`/.-]+ ){0,3}?requests?\b"
        ),
    ),
    # a launcher's own log line that its launch of the model raised (Xinference 4.1.0 core/supervisor.py
    # SupervisorActor._launch_builtin_model: f"Failed to launch replica {rep_model_uid}: {result}", core/worker.py
    # WorkerActor.launch_builtin_model: f"Failed to load model {model_uid}"): the model's server was starting
    ("startup", re.compile(LAUNCHER_FAILED)),
    ("warmup", re.compile(r"(?i)\bduring (?:the )?kernel warm-?up\b")),
    # the server's own warmup named by whose it is ("tokenizer_manager becomes None during PD warmup", probe
    # sgl-project/sglang#13021; "during the server warmup stage"): the request SGLang sends before its ready line, in
    # PD mode with the fake bootstrap host (entrypoints/http_server.py _execute_server_warmup, 0.4.6.post5-0.5.23)
    (
        "warmup",
        re.compile(
            r"(?i)\b(?:during|in|at) (?:the )?(?:PD|P/D|server(?:'s)?|SGLang(?:'s)?|engine(?:'s)?) warm-?up"
            r"(?: (?:stage|phase|step|process))?\b"
        ),
    ),
    # a failure during a warmup the sentence names no client of ("fails during warmup with TRANSFER_FAIL": built
    # mooncake-2554, the HiCache store's warmup): every warmup SGLang runs or calls is startup's (the server's warmup
    # request before its ready line, entrypoints/http_server.py _execute_server_warmup 0.4.6.post5-0.5.23; the kernels'
    # warmup, ModelRunner.kernel_warmup; a library's own at its set-up, the Mooncake store's, DeepGEMM's JIT): the step is
    # not said, so startup; a benchmark's warmup requests are served ones (_BENCH_WARMUP)
    (
        "startup",
        re.compile(
            r"(?i)\b(?:fail(?:s|ed)?|crash(?:es|ed)?|dies|died|hangs?|hung|errors? out|OOMs?|OOMed|aborts?|aborted)"
            r" (?:during|at|in|on) (?:the )?warm-?up\b"
        ),
    ),
    # the loading of the model as a process or phase ("During the loading process, an error occurred": built sglang-23386):
    # the server's start, its step not said (the loading the writer sees may be the weights', a capture's or a JIT's)
    # (not the loading of something else: "the loading process of the dataset in my client", review15b item 8)
    (
        "startup",
        re.compile(
            r"(?i)\b(?:during|in|while in) the loading (?:process|phase|stage|step)\b"
            r"(?!\s+of\s+(?!(?:the\s+|my\s+)?(?:model|weights?|checkpoints?)\b))"
        ),
    ),
    ("capture", re.compile(r"(?i)\b(?:during|while) (?:the )?(?:CUDA[- ]?)?graph captur(?:e|ing)\b")),
    # (and "fails to launch" / "boot" with no object of its own, "The server failed to launch under high concurrency.":
    # the launch is the server's, as "fails to start" is; "failed to launch the kernel" is another thing's)
    ("startup", _FAILED_TO_START),
    # a model (its server) that failed to deploy never came up to serve: "failed to deploy", "the model fails to
    # deploy on two GPUs" (a deployment of something else, a fix or the docs, is no server's)
    (
        "startup",
        # (the subject is the model or its server: "the PR bot failed to deploy the preview build" is a CI's, review15c
        # item 11)
        re.compile(
            # (any subject but a CI's or the docs': a model's own name and release, "SGLang 0.4.6 failed to deploy",
            # review15d item 4)
            r"(?i)(?<!\bbot )(?<!\bci )(?<!\bjob )(?<!\bworkflow )(?<!\baction )(?<!\bpipeline )(?<!\bpr )"
            r"(?<!\bdocs )(?<!\bsite )(?<!\bpreview )(?<!\bbuild )"
            r"\bfail(?:s|ed)? to deploy\b"
            r"(?! (?:the |a |my |our )?(?:[\w-]+ )?(?:fix|patch|change|docs?|site|website|pages?|build|preview|image|chart"
            r"|pipeline|job)\b)"
        ),
    ),
    ("startup", re.compile(r"(?i)\bduring (?:server |engine )?(?:start-?up|initiali[sz]ation)\b")),
    # a crash named by the step it ended ("Startup crash occurred"; form seen in pastes: sglang-7211)
    ("startup", re.compile(r"(?i)\bstart-?up crash(?:es|ed)?\b")),
    # a crash word at startup ("crashes at startup", "dies right on startup"), or the server being started when it
    # failed ("when starting the server", "while I launch the engine")
    (
        "startup",
        re.compile(
            r"(?i)\b(?:crash(?:es|ed)?|dies|died|hangs?|hung|exits?|exited|errors? out|OOMs?|OOMed) (?:right |immediately )?"
            r"(?:at|on|during) (?:server |engine )?start-?up\b"
        ),
    ),
    # any failure word, noun or verb, at the server's start said as its launch or as the bare noun "start" ending the
    # clause ("Crash on launch:", "Error on startup:", "fails at launch", "crashing at start:"): the start is the
    # server's, unless the launch is another thing's ("failed on launch of the kernel") or the start is of something
    # else ("errors at start of decoding")
    ("startup", _FAILED_AT_LAUNCH),
    # the loading, the launch or the start named bare as the time ("It crashes while loading.", "Error while loading:",
    # "It fails when launching:"): the sentence names no other thing loaded or launched, so the server's own, its step
    # not said (the loading the writer sees may be the weights', a capture's or a JIT's); "while loading the dataset"
    # names another thing and is not read
    ("startup", _WHILE_LOADING),
    # the server would not start, or its launch failed ("the server cannot start", "it won't come up", "server launch
    # failed", "failed to launch the SGLang server"); the subject is the server ("I didn't launch it with ..." is the
    # user's doing), and no object or verb follows ("doesn't start appearing until later" is the error's)
    (
        "startup",
        re.compile(
            r"(?i)\b(?:server|engine|sglang|it|service|instance|worker|node|process|container|pod)(?: still| just| even)?"
            r" (?:can ?not|can't|cannot|could ?not|couldn't|won't|does not|doesn't|did not|didn't) (?:start|launch|boot"
            r"|come up)\b(?! (?:to|until|unless|it|with)\b| \w+ing\b)"
        ),
    ),
    # the server's start came with an error ("The server to start with the error below:", "sglang server starts with
    # this error"): the error is the start's; a start with an option, a command or a warning is no failure
    (
        "startup",
        re.compile(
            r"(?i)\b(?:server|engine|sglang)(?: to)? start(?:s|ed)? with (?:the |an |a |this |these |following )*"
            # ("an error-free log" names no error; "error handling" no failure, review15c item 9)
            r"(?:following |below )?(?:errors?|exceptions?|traceback)\b(?![-‐])(?! (?:handling|checking|logging)\b)"
        ),
    ),
    (
        "startup",
        re.compile(
            r"(?i)\b(?:server|engine|sglang) (?:start-?up|launch(?:ing)?) (?:failed|fails)\b"
            r"|\bfailed to (?:launch|start) (?:the |a |an )?(?:sglang |SGLang )?(?:server|engine)\b"
        ),
    ),
    (
        "startup",
        re.compile(
            r"(?i)\b(?:when|while) (?:I |we )?(?:start(?:ing)?|launch(?:ing)?) (?:up )?(?:the |a |my |our )?(?:sglang |SGLang )?"
            r"(?:server|engine|service|instance)\b"
            # "when I start the server and send requests": something else came after the start
            r"(?![^.;:!?]{0,40}?\b(?:and|then)\b)"
            # "when launching the server with the following command:": the sentence brings in the command, not the
            # failure (a sentence that also names the failure is time_cues' to read)
            r"(?!\s+(?:with|using|via|by)\s+(?:the\s+)?(?:following|below|this|these)\s+(?:commands?|scripts?|configs?)\b)"
        ),
    ),
    # in Chinese: starting (启动) it reports an error (报错, 出错) or fails (失败): "启动sglang报错", "启动时报错", "启动失败"
    # the words between never say it started well or without error (成功 success, 正常 normal, 没/未/无/不 not, 后 after):
    # "启动成功后运行一段时间报错" (started fine, failed after a while) claims the serving time, not startup
    ("startup", re.compile(r"启动(?:(?!成功|正常|没|未|无|不|后)[\w.-]){0,24}?(?:时|的时候)?(?:报错|出错|失败)")),
    # and initialising (初始化) failed the same way: "初始化失败" (initialization failed: built sglang-24049, "结果：初始化失败"),
    # "模型初始化时报错"; not "初始化成功后..." (initialised fine, then ...)
    ("startup", re.compile(r"初始化(?:(?!成功|正常|没|未|无|不|后)[\w.-]){0,12}?(?:时|的时候)?(?:报错|出错|失败)")),
    # SGLang's load_weight step ("Load weight begin" .. "Load weight end"): "while loading the model", "during weight loading",
    # "in the middle of loading the model", "mid-weight-load" (a form seen in a paste: built vllm-49051)
    (
        "load_weight",
        re.compile(
            r"(?i)\b(?:during|while|when|in the middle of) (?:the )?(?:(?:model|weights?|checkpoint) loading"
            r"|loading (?:the |of )?(?:model(?: weights)?|weights|checkpoints?))\b"
            # "detonates mid-weight-load", "crashes mid model loading"
            r"|\bmid[- ](?:weights?|model|checkpoint)[- ]load(?:ing)?\b"
        ),
    ),
    # SGLang creates its NCCL communicators in the init_distributed step ("Init torch distributed begin/ends")
    (
        "init_distributed",
        re.compile(
            r"(?i)\b(?:hang|hangs|hung|stuck|freezes|froze|fails|failed)\b[^.;:!?]{0,40}?\b(?:in|at|during) (?:the )?"
            r"(?:[\w'*]+ ){0,3}?NCCL (?:communicator )?init(?:iali[sz]ation)?\b"
        ),
    ),
)
# the same clause says the time went well ("Memory was fine while loading the model; the OOM came much later"): the
# claim names when it did not fail
_CONTRARY = re.compile(r"(?i)\b(?:" + _WENT_WELL_WORDS + r")\s+(?:\w+\s+)?$")
# a client step the writer only means to run (a plan, an attempt to come, advice): it ran no request yet
_INTENT = re.compile(r"(?i)\b(?:will|'ll|" + INTENT_WORDS + r"|should|could you|next,? (?:I|we) (?:will|'ll))\b[^.;:!?]*$")
# a question ("Does it also crash during the benchmark?") claims nothing: the claim's sentence ends in a question mark
_QUESTION = re.compile(r"[^.!?。！？\n]*[" + QUESTION_MARKS + "]")


# Markdown's strong emphasis inside a sentence ("crashed after **50:54 of prediction**", probe
# mmcdermott/MEDS_EIC_AR#176; CommonMark 0.31 §6.2 `**` delimiter runs): the presentation, not its words
_STRONG = "**"


def _plain(text: str) -> str:
    return text.replace(_STRONG, "") if _STRONG in text else text


def fits(text: str) -> bool:
    """The line holds a claim (else the grammar is not tried: uvicorn's "Waiting for application startup." is no
    unread line of this grammar)."""
    text = _plain(text)
    return any(pattern.search(text) for _, pattern in _CLAIMS)


def parse(text: str) -> Parsed | None:
    """The first claim of the line, unless the line also claims the other time (startup against serving); the line
    read without Markdown's strong emphasis (_plain)."""
    text = _plain(text)
    found = [(stage, m) for stage, pattern in _CLAIMS if (m := pattern.search(text)) and _asserted(text, m)]
    if len({at_startup(stage) for stage, _ in found}) > 1:
        found = _settled(found)
    if not found or len({at_startup(stage) for stage, _ in found}) > 1:
        return None
    stage, m = found[0]
    # `client`: the claim is a reproduction's client step (a benchmark command, a request), not a sentence of when it
    # failed: it says a request was sent, not that the log pasted beside it went past startup (rules: startup-incomplete)
    data = {"stage": stage, "said": m.group(0), "firm": _firm(text, m), "client": client_step(m.group(0)) is not None}
    return Parsed(kinds.TIME_CLAIM, data)


# what makes a claim too loose to outweigh the log's own last phase line (match.py): another engine or a release named
# in its clause (a comparison: "With vLLM it works fine for a while"), a negation after it in its clause ("Benchmarks
# against the server were never run"), a word of an early failure in its sentence ("... fails right away") (review12a
# item 16)
_OTHER_ENGINE = re.compile(
    rf"(?i)\b(?:{OTHER_ENGINES})\b"
    r"|\bv?\d+\.\d+(?:\.\d+)?\b"
)
_NEGATED_AFTER = re.compile(r"(?i)\b(?:never|not|no longer)\b|n't\b")
_EARLY = re.compile(r"(?i)\b(?:right away|immediately|at startup|on start(?:up)?|during (?:startup|loading))\b")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def firm_sentence(sentence: str) -> bool:
    """A cue sentence (time_cues.py: the whole sentence is what it said) may outweigh a last phase line: no other engine
    or release, negation or word of an early failure anywhere in it."""
    return not (_OTHER_ENGINE.search(sentence) or _NEGATED_AFTER.search(sentence) or _EARLY.search(sentence))


def _firm(text: str, m: re.Match[str]) -> bool:
    """The claim may outweigh a last phase line: no other engine or release in its clause, no negation after it in its
    clause, no word of an early failure in its sentence."""
    before, after = _clause_before(text[: m.start()]), _CLAUSE_END.split(text[m.end() : m.end() + _CLAUSE_REACH])[0]
    sentence = (
        _SENTENCE_END.split(text[: m.start()][-_CLAUSE_REACH:])[-1] + _SENTENCE_END.split(text[m.start() :][:_CLAUSE_REACH])[0]
    )
    return not (
        _OTHER_ENGINE.search(before) or _OTHER_ENGINE.search(after) or _NEGATED_AFTER.search(after) or _EARLY.search(sentence)
    )


# a startup step named in a run span's clause before it is what ran ("the weight loading runs fine for a while", "after
# capture had been running for 2 hours"): no serving time of the server. Searched in the clause alone (the text after
# its last punctuation, within _CLAUSE_REACH characters): one pass, linear in the line (review12a item 14: the word
# followed by [^.;:!?,]*$ rescanned to the punctuation from every step word, quadratic on a long line)
# a warmup of a benchmark client (bench_serving's warmup requests, "Starting initial single prompt test run") named in
# the line: the warmup claim reads nothing there
_WARMUP_WORD = re.compile(r"(?i)warm-?up")
# (and a client of the writer's own: "my test harness sending 10 prompts", "my script", "the load test", review15b item 8)
_BENCH_WARMUP = re.compile(
    r"(?i)\bbench|\bclient\b|\brequests?\b|\b(?:scripts?|harness|tests?|prompts?|load[- ]test\w*|my code)\b|客户端"
)
_STEP_SUBJECT = re.compile(r"(?i)\b(?:load(?:ing)?|captur\w*|compil\w*|initiali[sz]\w*|warm-?up|download\w*|build\w*)\b")
# (a launch or a start of the server working "most of the time" counts launches: "The launch runs fine most of the
# time; 1 in 10 launches it crashes", review15b item 13)
_LAUNCH_SUBJECT = re.compile(r"(?i)\b(?:the |a |each |every )(?:launch(?:es)?|start(?:s|up)?|start-up|boot\w*)\s+$")
# after a run span in its sentence, a turn to another setup: "works fine most of the time on H100, but on A100 it
# crashes right away" (the span speaks of the other setup, review15b item 13)
_OTHER_SETUP_AFTER = re.compile(r"(?i)[^.;!?]*?\bbut\s+(?:on|with|when|for|using|under|in)\b")
# the claim's sentence speaks of another run, an earlier release or the habit before today's failure: "The old version
# ran for 3 days without problems.", "Usually it hangs after running for a few hours, but today it hangs here at
# startup" (review15b item 7)
_OTHER_RUN = re.compile(
    r"(?i)\b(?:(?:old|older|previous|earlier|last) (?:version|release|build|image|run)s?|before (?:the )?upgrad\w*"
    r"|used to|previously|in the past|last (?:week|month|time))\b"
    r"|\b(?:usually|normally|often)\b(?=[^.!?]*\bbut (?:today|now|this time)\b)"
)
# 初始化 of a client, a dataset or a script is none of the server's start (review15b item 8)
_CJK_OTHER_INIT = re.compile(r"客户|数据|脚本")
_CJK_CLAUSE_END = re.compile(r"[，,。；;！!：:]")
_CLAUSE_END = re.compile(r"[.;:!?,]")
_CLAUSE_REACH = 300  # a clause's subject is never further back than this


# what ran, named in an unstated span's sentence (_UNSTATED_SPAN): the server or a part of it, or "it"
_RAN_SUBJECT = re.compile(r"(?i)\b(?:server|service|engine|sglang|scheduler|instance|deployment|worker|model|it)\b")


def _sentence_of(text: str, m: re.Match[str]) -> str:
    """The sentence a match sits in (within _CLAUSE_REACH either side)."""
    return _SENTENCE_END.split(text[: m.start()][-_CLAUSE_REACH:])[-1] + _SENTENCE_END.split(text[m.start() :][:_CLAUSE_REACH])[0]


def _clause_before(before: str) -> str:
    """The clause a match sits in, up to the match: the text after the last punctuation (within _CLAUSE_REACH)."""
    return _CLAUSE_END.split(before[-_CLAUSE_REACH:])[-1]


def _asserted(text: str, m: re.Match[str]) -> bool:
    """The claim is stated as what happened: not negated, conditional, a possibility, contradicted or asked; a client
    step not only something the writer means to do ("Next I will try `python -m sglang.bench_serving ...`")."""
    before = text[: m.start()]
    if m.re in _RUN_SPANS and _STEP_SUBJECT.search(_clause_before(before)):
        return False
    if m.re is _MOST_OF_THE_TIME and _LAUNCH_SUBJECT.search(_clause_before(before)):
        return False
    if m.re is _UNSTATED_SPAN and not _RAN_SUBJECT.search(_sentence_of(text, m)):
        return False
    if m.re in _RUN_SPANS and _OTHER_SETUP_AFTER.match(text, m.end()):
        return False
    sentence = _SENTENCE_END.split(before[-_CLAUSE_REACH:])[-1] + _SENTENCE_END.split(text[m.start() :][:_CLAUSE_REACH])[0]
    if _OTHER_RUN.search(sentence):
        return False
    if m.re is _CONCURRENCY_CLAIM and _WENT_FINE_AFTER.search(_CLAUSE_END.split(text[m.end() : m.end() + _CLAUSE_REACH])[0]):
        return False
    if m.re in _START_SAID_BARE and _another_starts(before, text[m.end() : m.end() + _CLAUSE_REACH], m.re):
        return False
    if m.group(0).startswith("初始化") and _CJK_OTHER_INIT.search(_CJK_CLAUSE_END.split(before)[-1]):
        return False
    if _WARMUP_WORD.search(m.group(0)) and _BENCH_WARMUP.search(text):
        return False  # a benchmark client's warmup requests: served ones, not the server's start
    if client_step(m.group(0)) is not None and _INTENT.search(before):
        return False
    if CJK_NEGATED.search(before[-4:]) or CJK_NEGATED.search(m.group(0)):
        return False
    # a run span says itself that the time went well: what went well before it is the time before ("starts up normally
    # and serves requests for a while before crashing")
    contrary = m.re not in _RUN_SPANS and _CONTRARY.search(before)
    return not (NEGATED.search(before) or contrary or _QUESTION.match(text, m.end()))


def _settled(found: list[tuple[str, re.Match[str]]]) -> list[tuple[str, re.Match[str]]]:
    """Claims of both times in one line where one of them says only how often or what came later: a frequency span
    ("fine 90% of the time") gives way to a startup claim ("sometimes the server crashes at startup"), a 初始化 failure
    after a serving claim ("服务运行一段时间后，NCCL初始化失败": the init came while serving) to the serving claim
    (review15b items 13 and 8)."""
    startup = [(stage, m) for stage, m in found if at_startup(stage)]
    found = [(stage, m) for stage, m in found if m.re is not _MOST_OF_THE_TIME] if startup else found
    first_serving = min((m.start() for stage, m in found if not at_startup(stage)), default=None)
    if first_serving is not None:
        found = [(stage, m) for stage, m in found if not (m.group(0).startswith("初始化") and m.start() > first_serving)]
    return found


def only_intended(said: str, sentence: str) -> bool:
    """A client step read in a code span of a sentence that only means to run it ("I will try `...bench_serving ...`")."""
    at = sentence.find(said)
    return at >= 0 and client_step(said) is not None and _INTENT.search(sentence[:at]) is not None


def client_step(said: str) -> str | None:
    """What a claim's words are when they are a reproduction's client step (CLIENT_STEPS), else None."""
    return next((what for what, pattern in CLIENT_STEPS if pattern.search(said)), None)


def at_startup(stage: str) -> bool:
    return stage != "serving"
