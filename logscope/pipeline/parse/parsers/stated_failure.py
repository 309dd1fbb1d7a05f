"""A failure the paste states in its own words, not in a log line: "the server crashes with ...", "it failed without
error message", "got \"check timeout failed\" Error.", "the scheduler was killed", "it hangs at ...". Weaker evidence
than a log line: the failure stage keeps it only when the paste shows no failure line at all (failures.py), and the
finding says it was stated in prose. Read only from sentences of prose, never from a log record.

Precision first: a sentence that denies the failure ("no error", "without crashing", "nothing failed"), asks or
supposes it ("what if it fails?", "if the server crashes"), wants or prevents it ("should not crash", "to avoid OOM"),
describes a change ("fix crash when ...") or says it is gone ("the crash is fixed") states no failure of this run."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.core.code_spans import message_span
from logscope.pipeline.parse.parsers.base import Parsed
from logscope.pipeline.parse.parsers.prose_guards import (
    CJK_NEGATED,
    CLAUSE,
    CONDITION,
    CONDITION_WORDS,
    DENIED,
    NEGATED,
    OTHER_ENGINES,
    QUESTION_MARKS,
    SUPPOSED_WORDS,
    ZERO_COUNT,
)

_PROCESS = r"server|service|process|engine|scheduler|worker|pod|container|instance|router|node"
# a bare "OOM errors happen" (the plural) followed by its condition ("... when the KV cache pool is larger than the free memory"),
# in a sentence with nothing of the writer's own run (a person, a number, a rank): how OOM comes about, no report
_GENERIC_OOM_TAIL = re.compile(r"(?i)\s+(?:when(?:ever)?|if|in case|once)\b")
_OWN_RUN = re.compile(r"(?i)\b(?:I|my|me|we|our|us)\b|\d|\brank\b")
# the words right before "<process> crash" that make it the noun (the object of a preposition or a verb: "detects the
# server crash.", "a watchdog for the scheduler crash.", "the log of the server crash.", "looking into the container
# crash!", review16a item 1); any other lead leaves the bare verb ("After 2 hours the server crash.", "... but the
# server crash.", review16b item 4)
_CRASH_NOUN_LEAD = re.compile(
    r"(?i)\b(?:of|for|into|about|from|after|before|during|with|by|to|on|at|in|detects?|detected|detecting|handles?|"
    r"handled|handling|prevents?|prevented|avoids?|avoided|fix(?:es|ed)?|see|saw|investigate|debug|reproduce|"
    r"caused|causes?|explain|trace|analy[sz]e|log|report(?:s|ed)?)\s+(?:(?:the|a|an|this|that|my|our|its|any|every)\s+)?"
    r"(?:sglang\s+)?$"
)
# the error the run printed, quoted as what it was: "The error info in the terminal is 'nan in logits, set
# nan_default_token to proceed in BaseStrategy.forward.'" (zai-org/CogVLM#96, a probe), "the error message was
# `Connection reset by peer`" (the quote opens right after the verb: the message itself, which also makes the sentence
# name its failure, not point at a text elsewhere)
_ERROR_IS = (
    r"(?P<error_is>\b(?:the|an?|my|this)\s+(?:error|exception)(?:\s+(?:message|info|information|output|text|log))?"
    r"(?:\s+(?:in|from|on|of)\s+(?:the\s+|my\s+)?[\w-]+)?\s+(?:is|was|says|said|reads|read|shows|showed)"
    # (the quote may close past the sentence's end: "... BaseStrategy.forward.' This info ...")
    r"(?=\s*[:：]?\s*(?:'[^']{8,200}(?:'|$)|\"[^\"]{8,200}(?:\"|$)|“[^”]{8,200}(?:”|$)|`[^`]{8,200}(?:`|$))))"
)
_QUOTED_ERROR = re.compile("(?i)" + _ERROR_IS.replace("(?P<error_is>", "(?:", 1))

# what the user's run did, as issues word it (each form holds one of kinds.STATED_FAILURE_LITERALS, the prefilter's)
_STATED = re.compile(
    r"(?i)\b(?:crash(?:es|ed|ing)|crash(?= (?:at|in|on|when|while|during|after|with|occurs|occurred|happens|happened"
    r"|randomly|sometimes|often|frequently|immediately|again)\b)"
    r"|(?<=a |e )crash\b(?! (?:logs?|reports?|dumps?|handler|files?|traces?|course)\b)"
    # the bare verb at the end of its sentence after the process ("when i eval ... with gsm8k dataset, the server
    # crash.", probe sgl-project/sglang-jax#195: a writer for whom English is a second language), not the noun after a
    # preposition or a verb (_CRASH_NOUN_LEAD)
    r"|(?P<bare_crash>\b(?:" + _PROCESS + r") crash(?=\s*(?:[.!]|$)))"
    r"|segfault(?:s|ed|ing)?|segmentation fault|core dumped"
    # "the kernel errors out", "it errored out at the first batch" (the phrasal verb: the run stopped on an error)
    r"|error(?:s|ed|ing)? out\b"
    r"|fail(?:s|ed)\b(?:\s+\w+)?\s+(?:with|at|on|during|in|when|while|after|because|without|immediately|randomly)"
    # the progressive after its subject's verb ("the build is failing in the release pipeline at ..."; "a failing test
    # in CI" is no verb)
    + r"|(?P<failing>\b(?:"
    + "|".join(kinds.FAILING_SUBJECT_WORDS)
    + r")(?:\s+(?:"
    + "|".join(kinds.FAILING_ADVERBS)
    + r"))?\s+(?-i:"
    + "|".join(kinds.FAILING_CASES)
    + r")\s+(?:\w+\s+)?(?:with|at|on|during|in|when|while|after|because)\b)"
    + r"|fail(?:s|ed)\s+to\s+(?:start|launch|run|load|initiali[sz]e|allocate|create|connect|register|capture|serve)"
    r"|(?P<got>(?:got|get|getting|gets|hit|hits|encounter(?:ed|s)?|met|meet|see|saw|seeing|receiv(?:e|ed|ing)|report(?:s|ed)?"
    # (what the run's log shows: "the original log shows an NCCL `ALLREDUCE` timeout during ...")
    r"|(?<=logs )show(?:s|ed)?|(?<=log )show(?:s|ed)?|(?<=output )show(?:s|ed)?"
    r"|caus(?:e|es|ed|ing)|leads? to|led to|leading to|results? in|resulted in|resulting in)"
    r"\b(?P<what>[^.;!?]{0,80}?)\b(?:errors?|exceptions?|failures?|crash(?:es)?|(?P<oom_word>OOM|out[- ]of[- ]memory)"
    # (a class that names itself, "I encountered a RuntimeError during decoding"; a timeout, "got NCCL timeout")
    # (a timeout gives way to an error word after it: 'got "check timeout failed" Error'; "timeout" as a verb, "it will
    # timeout when ...", is what may happen, sglang-33740)
    r"|(?P<named>[A-Za-z]\w*(?:Error|Exception)\b|illegal memory access\b"
    r"|(?<!will )(?<!would )(?<!to )(?<!may )(?<!might )(?<!could )(?<!can )(?<!\bwill\s)"
    # (the object ends there or a cue of time or place follows: "see the timeout section", "get the request timeout from
    # the config" name a setting, review14b item 2)
    r"time-?outs?\b(?=\s*(?:[.,;!:)]|$)|\s+(?:after|at|in|on|when|while|during|for|waiting|again)\b)"
    r"(?![^.;!?]{0,60}?\b(?:errors?|exceptions?)\b))))"
    r"|(?:throws?|threw|throwing|raises?|raised|raising)\b[^.;!?]{0,40}?(?:error|exception)"
    r"|(?:died|dies|is dead|(?:is|are|was|were|got|gets|get|'s|’s)"
    r"(?: always| often| randomly| sometimes| suddenly| eventually)? killed"
    r"(?! with| by (?:me|hand|the user))|killed by)"
    r"|OOM(?:ed|'d|[- ]killed)|(?:ran|runs?|running) out of (?:GPU |device |host )?memory"
    # the verb in the present ("the server OOMs during cuda graph capture", "it always OOMs after a few requests", "the
    # job keeps OOMing"); "OOMs" after a determiner or a preposition is the noun ("solutions for OOMs": _OOM_NOUN)
    r"|(?P<oom_verb>\bOOM(?:s|ing))\b"
    # (and the bare verb, as a title or a writer for whom English is a second language puts it: "Prefill out of memory
    # occur when deployed with servers", probe sgl-project/sglang#393)
    # (the bare verb after the plural too, "On my node, OOM errors happen after 2 hours of serving", unless the sentence
    # is a generic statement of how OOM comes about: "OOM errors happen when ...", "in which cases OOM happen", "in
    # general, OOM occur ...", review16a item 2, review16b item 7: _GENERIC_OOM)
    r"|(?:OOM|out[- ]of[- ]memory)(?: errors?)? (?:occurs|occurred|happens|happened)\b"
    r"|(?P<oom_bare>(?<!cases )(?<!general )(?<!general, )(?:OOM|out[- ]of[- ]memory)(?: errors?)? (?:occur|happen)\b)"
    # a sentence that opens with the OOM and says when it came, with no verb ("OOM when deploying gemma-3 on 8 x A800.",
    # "CUDA OOM during cuda graph capture with --tp 8.")
    r"|^(?:(?:CUDA|GPU|NPU|HIP) )?(?:OOM|[Oo]ut[- ]of[- ]memory)(?: errors?)? (?:when|while|during|after|at|on|in)\b"
    # an error named in quotes said to occur: 'an error "**ibv_dealloc_pd failed**" occurs at program termination' (an
    # error that "occurred" unnamed points at a title or a text elsewhere, as "got an error" does)
    r"|(?:error|exception)\s+(?:\"[^\"]{3,120}\"|“[^”]{3,120}”|`[^`]{3,120}`)\s+(?:occurs|occurred|happens|happened)"
    # the error the run printed, quoted as what it was (_ERROR_IS)
    + r"|"
    + _ERROR_IS
    # a code span quoting a failure's own message, said to come again or to occur ("The DeepEP `timeout (dispatch CPU)`
    # recurred verbatim"; the words in the span are the library's: imeout, rror, ailure, xception, crash, the literals;
    # after a word and its blank: the table opens at a word boundary)
    + r"|\s+`(?P<span>[^`]{0,60}?(?:[Tt]imeout|[Tt]imed out|rror|ailure|xception|[Cc]rash)[^`]{0,80})`\s+(?:(?:again|still)\s+)?"
    # ("happens to be 600" is an infinitive frame, "persists across restarts" a state kept: no failure met, review15c
    # item 4)
    r"(?:recur(?:s|red)|reappear(?:s|ed)|re-?occur(?:s|red)|occur(?:s|red)|happen(?:s|ed)\b(?!\s+to\b)"
    r"|persist(?:s|ed)\b(?!\s+(?:across|between|through|over)\b))\b"
    # what a server or a process did, in the other words issues use: it errors out, went down, exited with a code or
    # unexpectedly, keeps restarting, blew up, was terminated by a signal, was unable to start; a request that makes it
    # crash, or that crashes the server ("I was able to crash the server two times", halogen-flash-server#15)
    r"|error(?:s|ed|ing)? out"
    r"|(?P<down>(?:server|service|process|engine|scheduler|worker|pod|container|instance|router|node)s?\s+(?:\w+\s+){0,2}?"
    r"(?:goes|went|go|going|gone) down)"
    # (the present tense only right after the process: "pods that exit with code 137" is a general statement)
    r"|exited with (?:exit )?(?:code|status) (?:-\d+|[1-9]\d*)|exited (?:unexpectedly|abnormally|immediately)"
    # a process that ended on an error or out of turn, in the words of its own end ("Backend llama.cpp exited with
    # error", "the worker terminated unexpectedly", "A few minutes later, all nodes shut down with errors.",
    # sgl-project/sglang#3340; a plain "shut down" is an orderly stop)
    r"|exit(?:s|ed) with (?:an? )?error\b(?!\s+(?:code|status)\s+0\b)|terminated (?:unexpectedly|abnormally)"
    r"|(?P<shutdown>(?:" + _PROCESS + r")s?\s+(?:(?:all|then|just|also|often|sometimes|randomly|suddenly|eventually)\s+)?"
    r"(?:shuts?|shutting) down"
    r" (?:with (?:an? |some )?errors?\b|unexpectedly|abnormally))"
    r"|(?:" + _PROCESS + r")s?\s+(?:(?:always|then|just|also|often|sometimes|randomly|suddenly)\s+)?"
    r"(?:exits? with (?:exit )?(?:code|status) (?:-\d+|[1-9]\d*)|exits? (?:unexpectedly|abnormally|immediately))"
    r"|keeps? (?:restarting|crashing|dying|failing)"
    # a process (or "it") that ran out of memory, said with OOM as a verb: "After several hours the server OOMs", "Decode
    # node OOM after running for a while", "Memory keeps growing until OOM"
    # ("will OOM" is what may happen, "the pod OOM score" the noun: the verb's own context follows it, review14b item 3)
    r"|(?:\bit|(?:" + _PROCESS + r")s?)\s+(?:(?:always|then|just|also|often|sometimes|randomly|suddenly|eventually)\s+)?"
    r"OOMs?\b(?=\s*(?:[.,;!)]|$)|\s+(?:after|when|while|during|at|in|on|with|again|immediately|randomly|every|because"
    r"|due|and|but|or|before|under|sometimes|often)\b)|\buntil (?:it |the \w+ )?OOMs?\b"
    # a process that panicked (a Rust or Go program's end): "The router panics when a worker is removed"
    r"|(?:" + _PROCESS + r")s?\s+(?:(?:always|then|just|also|often|sometimes|randomly|suddenly)\s+)?panic(?:s|ked)\b"
    # the verb "error" with its subject: "It errors with KeyError: 'model.layers.0'"
    r"|(?:\bit|(?:" + _PROCESS + r")s?)\s+error(?:s|ed) (?:with|at|on|during|when|while|after)\b"
    # requests that failed: "All requests fail with 500 Internal Server Error", "Requests start failing after 10 minutes"
    r"|\brequests?\s+(?:(?:all|then|also|often|sometimes|randomly|suddenly|start|started|begin|began|keep|kept)\s+)?"
    r"(?:fail|failing)\b(?! over\b)"
    # a server's answer of a 5xx status: "The server returns 500 errors after a while"
    # (a count is no status: "returns 512 tokens", "returned 523 requests per minute", review14b item 1)
    # (a status's word or an article before it: "returned HTTP 502", "returns a 500 for every request")
    r"|\breturn(?:s|ed|ing)?\s+(?:an?\s+(?:(?:HTTP|status|code|error)\s+){0,2}|(?:(?:HTTP|status|code|error)\s+){1,2})5\d\d\b"
    r"|\breturn(?:s|ed|ing)?\s+5\d\d\b(?=\s*(?:errors?|Internal|Bad Gateway|Service Unavailable|Gateway Timeout"
    r"|status|responses?|codes?|after|when|while|during|on|with|again|from|immediately|randomly|sometimes)\b"
    r"|\s*[,;)]|\s*\.(?!\d)|\s*$)"
    # a 5xx answer the writer's client got: "received a 500 code response" (anthropics/claude-code#47484, a probe), "got
    # a 503 Service Unavailable" (the status's own word after it: a count is no status, "got a 500 token reply")
    r"|\b(?:receiv(?:e|es|ed|ing)|got|gets?|getting)\s+an?\s+(?:(?:HTTP|status|code|error)\s+){0,2}5\d\d\b"
    r"(?=\s+(?:(?:HTTP\s+)?(?:status\s+)?codes?|status|responses?|errors?|Internal|Bad Gateway|Service Unavailable"
    r"|Gateway Timeout)\b)"
    # a process that something killed, said actively: "The watchdog killed the server" (the user's own stop: _USER_STOP)
    # (the past only: "Kubernetes kills pods that exceed their limit" is a general statement)
    r"|\bkilled\s+(?:the\s+|my\s+|our\s+|all\s+)?(?:\w+\s+)?(?:" + _PROCESS + r")(?:s|es)?\b"
    # a process that started and then ended on its own, in a clause after "but": "The container spins up, but exits
    # during loading the model" (AbdBarho/stable-diffusion-webui-docker#296)
    r"|\bbut (?:then )?exit(?:s|ed) (?:during|while|when|after|before|at)\b"
    # an attempt the writer made that then failed, in a clause after "but", the verb last in it: "I have try to deploy
    # DeepSeek-V2-Lite-Chat on Ascend NPU, but it failed." (sgl-project/sglang#3781)
    r"|(?P<but_failed>\bbut (?:it|this|that|they|the (?:server|launch|deployment|startup|service|process|engine|model|run))"
    r"\s+(?:(?:still|always|just|then|also|eventually|immediately)\s+)?fail(?:s|ed)\b(?=\s*(?:[.,;!:)]|$)))"
    # ("blew up" of a process only: "the loss blew up", "the latency blows up" are a metric's)
    r"|(?:" + _PROCESS + r")s?\s+(?:(?:has|have|had)\s+)?(?:blows|blew|blown) up"
    # ("unable to load|run" is said of scripts and benchmarks as often: "failed to load" covers the log's wording)
    r"|terminated by (?:signal|SIG)|unable to (?:start|launch|initiali[sz]e|serve)"
    # a program that cannot start or connect: "The server can't start when I set --tp 8", "The router cannot connect to
    # the prefill server" ("can't load" is said of scripts and files as often, as "unable to load" is)
    # (the program is the subject, never a bare "it": "it doesn't start with sk-" is a key's; the verb ends its clause or
    # a cue of time, cause or place follows, never an object, a gerund or "until": "won't start serving until all
    # weights are loaded", "doesn't start a new process for the tokenizer" describe behaviour, review15b item 3)
    r"|(?P<cant>\b(?:(?:" + _PROCESS + r")s?|sglang|SGLang)\s+(?:(?:still|just|always|sometimes|then)\s+)?"
    r"(?:can(?:'|\u2019)?t|cannot|can not|could(?:n(?:'|\u2019)t| not)|wo(?:n(?:'|\u2019)t)|will not|does(?:n(?:'|\u2019)t| not)"
    r"|did(?:n(?:'|\u2019)t| not))\s+(?:be\s+)?(?:connect(?:ed)?\s+to\b|(?:start(?:ed)?|launch(?:ed)?|connect(?:ed)?|boot|serve"
    r"|come up)\b(?=\s*(?:[.,;!:)]|$)|\s+(?:when|whenever|after|with(?!\s+[\"'`]?\w+-[\"'`]?(?:[\s.,;]|$))|because|at|on|in"
    r"|if|anymore|any more|again|anyway|properly|correctly|successfully|either|now|due|since|during|while|under|using|via)\b)))"
    # a step or a process that failed, said last in its clause: "When enabling --enable-dp-attention, the launch fails."
    r"|(?P<step_fails>\b(?:launch|startup|start-up|deployment|initiali[sz]ation|loading|transfer|handshake|bootstrap|"
    + _PROCESS
    + r")(?:es|s)?"
    # (one phrase of its ends or its object between the step and its verb: "The KV cache transfer from prefill to
    # decode fails under load.", "the launch of the decode server fails")
    r"(?:\s+(?:from|of|between|for)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?(?:\s+(?:to|and)\s+(?:the\s+)?[\w-]+)?)?"
    r"\s+(?:(?:always|then|just|also|still|often|sometimes|randomly|suddenly)\s+)?fail(?:s|ed)\b"
    r"(?=\s*(?:[.,;!)]|$)|\s+(?:between|under|again|every)\b))"
    # a terse report that opens with the step and ends with its failure, nothing after the verb: "launch server with
    # load-format=dummy failed" (probe sgl-project/sglang-jax#366), "deploy Qwen2.5-72B on 2 nodes failed." (a dot inside
    # a word, a model's version, is no sentence's end; "run" is said of tests and scripts as often: left out)
    r"|(?P<step_first>^(?:launch(?:ing)?|start(?:ing)?|deploy(?:ing)?|load(?:ing)?|serv(?:e|ing)|boot(?:ing)?"
    r"|initiali[sz](?:e|ing))\s(?:[^.;!?]|\.(?=\S)){0,120}?\bfail(?:s|ed)(?=\s*[.!]?\s*$))"
    # a timeout said to happen: "NCCL timeout happened during cuda graph capture"
    r"|time-?outs? (?:occurs|occurred|happens|happened)\b"
    # errors of a named kind said to occur ("Running the benchmark, CUDA errors occur after a while.", "NCCL errors
    # happened on node 2"): the word before names them, as an OOM names itself; an unnamed "an error occurred" points
    # at a text elsewhere, as "got an error" does (_names_nothing), and how errors come about in general ("CUDA errors
    # occur when the driver is too old") is no report (_GENERIC_OOM_TAIL, _OWN_RUN, as for OOM)
    # (a count of none or a question is no kind: "No errors occur", "Which errors occur?")
    r"|(?P<errors_occur>\b(?!(?:no|zero|fewer|less|which|what|whatever)\b)(?P<error_kind>[A-Za-z][\w-]*) errors?"
    r" (?:occurs?|occurred|happens?|happened|appears?|appeared)\b)"
    r"|(?P<makes>(?:makes?|made|making) (?:\w+\s+){1,3}?"
    r"crash(?!-\w| less| more often| rarely|[ -](?:course|test|safe|free|report|dump|less|more)\b))"
    r"|crash(?:es|ed|ing)? (?:the|my|our|its) (?:\w+\s+)?(?:server|process|engine|scheduler|service|worker|container|node))\b"
)
# the same said in Chinese (kinds.FAILURE_WORD_TABLE's Chinese rows; each form holds one of their pieces): a step that
# failed or raised an error ("结果：初始化失败", result: initialization failed; "启动报错", an error at start), the server,
# process or model that crashed, died or exited abnormally ("服务直接崩溃", "进程挂了", "模型全部异常退出"), memory that ran
# short ("显存不足", "爆显存"), an error that appeared ("出现报错"), "报错了" (it raised an error)
# (测试 / 训练 / 服务 as a step are as often a topic, "测试报错的用例", "训练过程中显存不足是正常的"; 服务 stays a subject)
_CJK_STEP = r"初始化|启动|加载|运行|部署|推理|调用|请求|编译|安装|执行|连接|分配|创建|拉起|捕获|压测"
_CJK_STATED = re.compile(
    r"(?:" + _CJK_STEP + r")(?:时|的时候|后|过程中)?(?:都|也|就|总是|一直|直接|会|又|还是)?(?:失败|报错|出错|崩溃|崩了|挂了|挂掉)"
    r"|(?:服务|服务器|进程|程序|模型|容器|实例|[Ss]erver|SGLang|sglang|scheduler)(?:就|会|都|全部|直接|突然|又|总是|经常)?"
    r"(?:崩溃|崩了|挂了|挂掉|异常退出)"
    r"|报错了|出错了|崩溃了|出现了?(?:报错|错误|异常|崩溃|OOM)"
    r"|(?:显存|内存|GPU ?memory)(?:不足|不够|溢出|爆了)|爆显存|OOM了"
)
# before it in its sentence: a question, a supposition, a plan or a fix (如果 if, 是否 whether, 怎么 / 如何 / 为什么 how, why,
# 会不会 would it, 能否 can it, 避免 / 防止 avoid, prevent, 修复 / 解决 fix, 同样 / 相同 the same as elsewhere); just before it
# in its clause, a denial or a plan (prose_guards.CJK_NEGATED); after it, a pointer to a text elsewhere (如下 / 以下 as
# follows, below, 截图 a screenshot)
_CJK_SUPPOSED = re.compile(r"如果|若是|假如|万一|是否|怎么|如何|为什么|为何|会不会|能否|避免|防止|修复|解决|同样|相同|一样")
# anywhere in its sentence: when (当), a suggestion, a wish or a request (建议, 希望, 能否, 可以, 请), the past that is
# over (之前, 以前, 原来), normal, unrelated, fixed, solved (正常, 无关, 修复, 解决): "之前出现了OOM，现在调小 batch 后正常了",
# "vLLM 上推理报错，SGLang 上正常", "CI 上单元测试失败，但是跟这个 PR 无关", "建议在加载失败时给出更清晰的提示" (请 the
# request word, not 请求 a request: "部分请求报错了" is a report; 之前 / 以前 / 原来 as "previously", opening a clause, not
# "before X", "启动之前就报错了" is a report)
_CJK_RULED_OUT = re.compile(r"当|建议|希望|能否|可以|请(?!求)|(?:^|[，,；;：:\s])(?:之前|以前|原来)|正常|无关|修复|解决")
# right after it: a condition or a time (失败时, 失败的时候, 失败的话, 崩溃后: "调用失败时返回 500"), unless the clause then says
# it happened (了); a topic (失败的原因, 失败的问题, 报错的用例, 失败问题: "加载失败的原因可能是路径不对")
_CJK_WHEN = re.compile(r"^(?:时|的时候|的话|后|之后)")
_CJK_TOPIC = re.compile(r"^(?:的(?:原因|问题|情况|用例|话|时候|场景|错误)|问题)")
_CJK_QUESTION = re.compile(r"[吗嘛呢][\s。！]*$")
_CJK_CLAUSE = re.compile(r"[，,；;：:、（(]")
_CJK_POINTS = re.compile(r"^[^。！？]{0,12}?(?:如下|以下|下面|截图|图片|附件)")
# the word before "OOMs" / "OOMing" that makes it the noun: a determiner, a quantifier, a preposition, a verb of
# avoiding or causing ("no OOMs", "solutions for OOMs", "to avoid OOMs", "causes OOMs", "random OOMs"); after a verb of
# meeting it is a report as the verb is ("I got OOMs", "we hit OOMs")
_OOM_NOUN = re.compile(
    r"(?i)\b(?:the|a|an|no|any|some|many|more|fewer|less|few|these|those|such|all|frequent|random|occasional|rare|of|for"
    r"|with|without|from|about|to|into|on|in|at|by|and|or|avoid\w*|prevent\w*|fix\w*|caus\w*|handl\w*|reduc\w*)\s+$"
)
# the verbs of cause among the verbs of meeting a failure ("causes the oom exception")
_CAUSE = re.compile(r"(?i)caus|leads? to|led to|leading to|results? in|resulted in|resulting in")
# a clause about whenever something happens, not what did: "When SGLang hits an OOM during a TTS request, ..."
_WHEN = re.compile(r"(?i)\bwhen(?:ever)?\b")
# a clause of whenever or of a time to come, and a sentence that opens as a question does ("Why the router can't
# connect to the prefill server" with no mark)
_BEHAVIOUR_WHEN = re.compile(r"(?i)\b(?:when(?:ever)?|once|until|unless|in case|" + CONDITION_WORDS + r")\b")
_ASKS = re.compile(r"(?i)^\W*(?:why|how|what|is|are|does|do|did|can|could|should|will|would)\b")
_BUT = re.compile(r"(?i)[,;]\s*but\b")  # the turn to a clause of its own
_REPRODUCE = re.compile(r"(?i)\breproduc")
# a verb of meeting in the third person present ("the worker reports an error", "it hits an OOM")
_PRESENT_THIRD = re.compile(r"(?i)(?:gets|hits|encounters|reports|meets|sees|receives)\b")
_WRITER = re.compile(r"\b(?:I|[Ww]e|[Mm]y|[Oo]ur)\b")  # the writer in a clause: their run
_WHEN_OPENS = re.compile(r"(?i)^\W*when(?:ever)?\b")  # a clause that opens with "when"
# before the failure word in its clause, a denial (prose_guards.DENIED); before it in its sentence: a question, a
# supposition, a wish
_SUPPOSED = re.compile(
    r"(?i)\b(?:" + CONDITION_WORDS + "|" + SUPPOSED_WORDS + r"|how do|why does|why do|so that"
    r"|(?:try|tried|trying|attempt\w*) to reproduce|the reported|you reported|you mentioned)\b"
)
# anywhere in its sentence: a change that fixes, avoids or handles it ("sureal crashes in misc situations; this simply
# avoids the crash", opencog#2656, a pull request's description)
_CHANGE = re.compile(
    # (a failure "preventing the engine from starting", keeping something from its normal work, is the failure's
    # consequence, not a fix: a fix prevents a failure, "prevents the server from crashing")
    r"(?i)\b(?:avoid(?:s|ed|ing)?|prevent(?:s|ed|ing)?(?!(?:\s+[\w-]+){1,4}\s+from\s+(?:start|launch|load|serv|runn|initiali[sz]|work)\w*\b)"
    r"|fix(?:es|ed|ing)?|resolv(?:e|es|ed|ing)|solv(?:e|es|ed|ing)"
    r"|handl(?:e|es|ed|ing)|work(?:s|ed)? ?around|hack around|this (?:pr|pull request|change|commit|patch)"
    # (code that catches an exception handles it: "update the lib to catch RuntimeError: CUDA error: out of memory", a
    # pull request's line, probe crynux-network/crynux-node#59; "only catches `queue.Empty`"; not "I caught this error
    # when ...", nor a bare "catch", which a report may use for "get")
    r"|(?<=to )catch|catch(?:es|ing)"
    r"|add(?:s|ed)? (?:a )?(?:test|check|retry|guard))\b"
)
# after it: the failure is gone ("the crash is fixed", "crashes no more")
_GONE = re.compile(
    # possessive: a run of blanks is taken once (50 KB of spaces after "got an error:" took 54 s: review11)
    r"(?i)^\W*+(?:\w++\W++){0,3}?(?:is|are|was|were|has been|have been)?\s*+(?:gone|fixed|resolved|solved)\b|^\s*+no more\b"
)
# anywhere in its sentence: a proposal, a pull request's or the docs' behaviour, a designed one ("I propose that the
# process exit with code 1", "The PR makes the router exit with status 2", "which is expected", "Feature request:
# restart the worker automatically when it exits unexpectedly"; a process "killed automatically" is still a report)
# ("suggests" after the evidence that points at a failure, "this suggests an OOM", "the log suggests", "... — suggests
# a startup failure", is "indicates": an inference about this run, no proposal)
_PROPOSED = re.compile(
    r"(?i)\b(?:propos(?:e|es|ed|al)|(?<!this )(?<!which )(?<!that )(?<!\bit )(?<!log )(?<!logs )(?<!— )(?<!- )"
    r"(?<!traceback )(?<!output )suggests"
    # (advice after any subject: "it suggests to lower ...", "it suggests restarting the router", review15c item 8)
    # (never after the evidence, "This suggests running out of memory", nor before a preposition, "suggests during
    # startup the scheduler crashed", review15d item 5)
    r"|(?<!this )(?<!which )(?<!that )(?<!log )(?<!logs )(?<!— )(?<!- )(?<!traceback )(?<!output )"
    r"suggests(?=\s+(?:to\s+\w|(?!(?:(?:no|some|any|every)thing|during|according|regarding)\b)\w+ing\b))"
    r"|suggest(?:ed|ion)?|PR|docs?(?: \w+)? says?|documentation says|(?:is|as|was) expected"
    r"|feature request)\b"
)
# before a process's "went down" in its clause, or in it: a metric of the process ("GPU utilization of the worker went
# down to 30%"), not the process
_METRIC = re.compile(r"(?i)\b(?:utili[sz]ation|usage|latency|throughput|memory|rate|traffic|number|count)\b|%")
_OF_BEFORE = re.compile(r"(?i)\bof\s+(?:the\s+|my\s+|our\s+|each\s+|every\s+)?$")
# right after it: a change of how often ("the process panics less often", "crashes no longer"), not a failure met
# (review14b item 7; "more often" still says it failed)
_LESS_OFTEN = re.compile(r"(?i)^\s*(?:less (?:often|frequently)|no longer|any ?more)\b")
# a cause verb in the present after a subject of no run of the writer's ("Setting X above 0.9 results in out of memory",
# "A larger chunked prefill size leads to OOM"): a rule, as docs and pull requests state one (review14b item 14); the
# past ("resulted in", "led to") or a subject of the writer's run ("this leads to OOM", "it causes the oom exception")
# is a report
_PRESENT_CAUSE = re.compile(r"(?i)(?:leads? to|results? in|causes?)\b")
_RUN_SUBJECT = re.compile(
    r"(?i)\b(?:this|it|that|my|our|we|I|the (?:server|run|request|engine|process|job|model|container|pod|service))\b"
)
_BY_AMOUNT = re.compile(r"^\s*(?:to|by)\s+~?\d")
# the whole sentence says the run is fine now, or points at another thread's failure ("I've got the same error")
# ("now it works" only where it ends its clause and nothing turns after it: "Now it works with --tp 4 but with --tp 8
# the server crashes", "Now it works for a few requests, then the scheduler crashes" report a failure, review15b item 4)
_FINE = re.compile(
    r"(?i)\b(?:works? (?:now|fine|well|normally)|working (?:now|fine)"
    r"|now (?:it |everything |all )?works?(?=\s*(?:[.!,;]|$))(?![^.!?]*\b(?:but|then|until|except|however)\b)|no longer"
    r"|not any ?more|same|similar|previously"
    r"|used to|in the past|earlier versions?)\b"
)
# anywhere in its sentence (review12a item 25): behaviour as designed or approved ("The CLI errors out with a helpful
# message when --tp is missing, as designed."), another engine's run ("vLLM errors out on this model too", "On vLLM the
# container keeps restarting, but SGLang is fine."), the user's own stop ("terminated by signal 15 when I pressed Ctrl-C")
_DESIGNED = re.compile(
    r"(?i)\b(?:as designed|by design|as expected|as intended|which is (?:good|expected|intended|fine|correct|desired)"
    r"|helpful (?:error )?message)\b"
)
_OTHER_ENGINE = re.compile(
    rf"(?i)^\W*(?:(?:on|with|in|using|under)\s+)?(?:{OTHER_ENGINES})\b"
    r"|\bbut (?:SGLang|it|sglang) (?:is|works|runs|was|worked|ran) (?:fine|well|ok|normally)\b"
)
_USER_STOP = re.compile(
    r"(?i)\bsignal (?:2|15)\b|\bSIG(?:INT|TERM)\b|\bCtrl[- +]?C\b|\b(?:I|we|you) (?:pressed|killed|stopped)\b|docker stop"
)
# a sentence that introduces a text ("it crashes with the following log:", "I got some error like this"): that text is
# the evidence when the paste holds it, and is not shown when it does not (a screenshot, a cut copy); unless the sentence
# names the failure itself, in quotes ("As shown in image, it stuck here then got \"check timeout failed\" Error.")
# ("following" as the verb, "After following the guide, the server dies with code 137", open-webui#6168, points nowhere)
_POINTS = re.compile(
    # ("image" after the word of a container's: "running the Docker image" names what ran, no picture)
    r"(?i)\b(?:(?<!after )(?<!by )(?<!when )(?<!while )(?<!before )(?<!from )following|as follows|like this|like that|below"
    r"|attached|screenshot|(?<!docker )(?<!container )(?<!base )image)\b|[:：]\s*$"
)
_NAMED = re.compile(r"\"[^\"]{3,}\"|`[^`]{3,}`|“[^”]{3,}”")
# a template's checklist line, an HTML comment, or a heading: a title names the report, its body shows the failure (the
# mined labels count a failure told only in the title as not shown, nccl-875)
# after "got an error" (words that name nothing), a colon and the failure's own words on the same sentence: the sentence
# names it ("when prepare_hidden_states for offline training, we meet an error: load_model() missing 1 required
# positional argument: 'tp_rank'", SpecForge#274); a link or a pointer after the colon still points elsewhere
_NAMED_AFTER = re.compile(r"^\s*[:：]\s*(?!https?://|see\b|below\b|as follows\b|here\b)\S[^\n]{3,}", re.IGNORECASE)
_CHECKLIST = re.compile(r"^\s*(?:[-*+]\s+\[[ xX]\]|<!--|\d+\.\s+I have\b|#{1,6}\s|\*\*[^*]+\*\*:?\s*$)")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def fits(text: str) -> bool:
    return _STATED.search(text) is not None or _CJK_STATED.search(text) is not None


def parse(text: str) -> Parsed | None:
    """The first sentence of the line that states a failure of the run, with the words that state it."""
    if _CHECKLIST.match(text):
        return None
    for sentence in _SENTENCE.split(text.strip()):
        said = _stated(sentence)
        if said is not None and ZERO_COUNT.search(sentence) and _stated(ZERO_COUNT.sub(" ", sentence)) is None:
            continue  # its only failure words count nothing ("12 passed, 0 failed in 3.2s")
        if said is not None:
            return Parsed(kinds.STATED_FAILURE, {"sentence": sentence.strip(), "said": said})
    # a sentence that points at the failure's text ("it fails with the following log:") states the failure as well: the
    # classifier keeps it only where that text is no part of the paste, a link or an image instead (POINTS_ELSEWHERE)
    for sentence in _SENTENCE.split(text.strip()):
        if _POINTS.search(sentence) is None:  # (the cheap test first: most sentences point nowhere)
            continue
        said = _stated(sentence, pointing=True)
        if said is not None:
            return Parsed(kinds.STATED_FAILURE, {"sentence": sentence.strip(), "said": said, POINTS: True})
    return None


# the data key of a sentence that points at its failure's text (read only when the paste shows a link or an image there)
POINTS = "points"
# where a pointing sentence's text is not in the paste: a link (a pastebin, a gist, an attached file) or an image after
# the sentence's words on its line, or the next line that holds more than blanks opening with one
_ELSEWHERE = r"(?:https?://|<img\b|!\[|\[[^\]]*\]\(https?://)"
ELSEWHERE_AFTER = re.compile(_ELSEWHERE, re.IGNORECASE)
ELSEWHERE_LINE = re.compile(r"^\s*(?:[-*>]\s*)?" + _ELSEWHERE, re.IGNORECASE)
# a short line that only says the text is attached ("Decode/prefill/router logs are attached.", "Full log attached below:")
ATTACHED_LINE = re.compile(
    r"(?i)^\s*(?:the\s+|full\s+|complete\s+|my\s+)?[\w/ -]{0,40}?\b(?:logs?|outputs?|traces?|files?)\s+(?:is\s+|are\s+)?"
    r"(?:attached|uploaded)\b[^.\n]{0,30}[.:]?\s*$"
)


# words that name no failure: "I got an error", "got some error like this", "I get this error" point at a text
# elsewhere (shown after the sentence, or only in a screenshot); "got \"check timeout failed\" Error" names one
_EMPTY = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "some",
        "same",
        "similar",
        "following",
        "below",
        "above",
        "another",
        "other",
        "new",
        "strange",
        "weird",
        "unknown",
        "many",
        "lots",
        "of",
        "such",
        "any",
        "my",
        "an",
        "following",
        "also",
        "still",
        "again",
        "always",
        "an",
        "error",
        "errors",
    ]
)


# a stated failure that says memory ran out (stated_memory): the host's where its sentence (or its paragraph's line)
# says the kernel or a container limit killed it ("got OOM-killed", "the OOM killer", "OOMKilled") or names host memory
# ("host memory", "512GB RAM"), and names no GPU memory; the device's where the stated words say OOM or "out of
# memory" otherwise (PyTorch's and SGLang's own "... out of memory" are device memory) or 显存 (GPU memory; 内存 in
# Chinese is both and is left out)
_HOST_MEMORY_SAID = re.compile(
    r"(?i)\bOOM[- ]?kill(?:ed|er)\b|\bout of (?:host|CPU|system) memory|\b(?:host|CPU|system) (?:memory|RAM)\b|\bRAM\b"
)
_GPU_MEMORY_SAID = re.compile(r"(?i)\b(?:GPU|device|CUDA|VRAM|HBM)\b|显存")
_DEVICE_MEMORY_SAID = re.compile(r"(?i)\bOOM(?:s|ed|'d|ing)?\b|out[- ]of[- ](?:GPU |device )?memory|显存")
HOST_MEMORY = "host"
DEVICE_MEMORY = "device"


def stated_memory(said: str, sentence: str) -> str | None:
    """Whether a stated failure (its words `said`, in `sentence`: the sentence or the paragraph's line that holds it)
    says memory ran out: HOST_MEMORY, DEVICE_MEMORY or None (a crash, an error, a kill the words do not tie to memory)."""
    if _HOST_MEMORY_SAID.search(sentence) and not _GPU_MEMORY_SAID.search(sentence):
        return HOST_MEMORY
    return DEVICE_MEMORY if _DEVICE_MEMORY_SAID.search(said) else None


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE.split(text.strip()) if part.strip()]


def rules_out(sentence: str) -> bool:
    """A bare sentence that asks about a failure, supposes it, describes a change that fixes or handles it, or says
    the run is fine: a failure's wording in it ("I fixed the CrashLoopBackOff by ...", "if the container exited with
    code 137, ...") is no failure of this run."""
    body = sentence.strip()
    return _asks_fixes_or_dismisses(body) or CONDITION.search(body) is not None or _LIKELY.search(body) is not None


def handles_it(before: str) -> bool:
    """The clause before a failure's words (`before`: the sentence up to them) describes a change that fixes or
    handles the failure, proposes one, or calls it designed ("update the lib to catch RuntimeError: ...", "This PR
    fixes error: ..."): the wording is the code's concern, not this run's. Only the clause just before them: "I added a
    retry but it still fails with RuntimeError: ..." reports it; a question or a condition is left to the caller ("Why
    do I get error: ...?" still reports the error)."""
    body = _AT_WORK.sub(" ", (sentences(before)[-1:] or [""])[0])
    return bool(_CHANGE.search(body) or _PROPOSED.search(body) or _DESIGNED.search(body))


# the program's work at the time it failed, not a change to it: "crashed while handling a batch", "when processing the
# request", "while catching up" (review17a item 6)
_AT_WORK = re.compile(
    r"(?i)\b(?:while|when|whilst|during|after|before|on)\s+(?:handl|catch|process)\w*|\bcatch(?:es|ing)?\s+up\b"
)


# a likelihood, what tends to happen in general ("During high concurrency, illegal memory access is more likely to
# occur, leading to crashes.", the background of sgl-project/sglang#7028, a probe, above the router's own panic)
_LIKELY = re.compile(r"(?i)\b(?:is|are|be|gets?)\s+(?:(?:more|less|very|quite|most|much)\s+)?(?:un)?likely\s+to\b")


def _asks_fixes_or_dismisses(body: str) -> bool:
    if _DESIGNED.search(body) or _OTHER_ENGINE.search(body) or _USER_STOP.search(body):
        return True
    return (
        body.endswith(tuple(QUESTION_MARKS))
        or _FINE.search(body) is not None
        or _CHANGE.search(_AT_WORK.sub(" ", body)) is not None
        or _PROPOSED.search(body) is not None
    )


def _names_nothing(what: str) -> bool:
    # (a server's 5xx status names the failure: "I got a 500 error when sending images")
    return (
        all(word.lower() in _EMPTY for word in re.findall(r"[^\W\d_]+", what))
        and not re.search(r"[\"'`“”]", what)
        and not _STATUS_5XX.search(what)
    )


_STATUS_5XX = re.compile(r"(?<![\d.])5\d\d(?![\d.])")


# the subject of a progressive "is failing at": a CI job, a lint check, a test, a benchmark, a pull request or a docs
# build is no run of the program ("The lint job is failing on main because of ...", review15c item 3; the package's
# own build, "The image build is failing in the release pipeline", still is)
_CI_SUBJECT = re.compile(
    r"(?i)\b(?:ci|jobs?|checks?|lint\w*|workflows?|tests?|test_\w+|unit ?tests?|benchmarks?|prs?|pull requests?|bots?"
    # (the CI word heads the verb's subject, at most one CI noun after it: "In my tests sglang is failing at launch"
    # names the program, review15d item 1)
    r"|docs?|documentation|actions?|pre-commit|ruff|mypy|pipelines?)\b"
    r"(?:\s+(?:jobs?|checks?|runs?|builds?|suites?|workflows?|steps?))?\s*$"
)
# the word the progressive's match holds between "failing" and its preposition ("are failing tests in" -> "tests")
_FAILING_NOUN = re.compile(r"(?i)\bfailing\s+(\w+)\s+\w+$")


def _failing_ci_noun(failing: str) -> bool:
    """Whether "failing" is the adjective of a CI noun ("There are failing tests in the suite."), no run's failure."""
    noun = _FAILING_NOUN.search(failing)
    return noun is not None and _CI_SUBJECT.search(noun.group(1)) is not None


# the count none at the head of a got-verb's object ("zero errors", "no errors", "not any errors")
# (the count word right before the failure noun, at most one count adjective between: "I got No CUDA GPUs are available
# error" quotes a message that opens with "No", "I got no output ... and then a CUDA error" counts no error, review15d
# item 2)
_NONE_COUNT = re.compile(
    r"(?i)\s*(?:(?:absolutely|literally|just|still)\s+)?(?:zero|no(?![-‐])|not any|none of the)\s+"
    r"(?:(?:more|other|new|further|such|real|visible)\s+)?(?=errors?\b|exceptions?\b|failures?\b|crash|OOM\b)"
)


# the failure words read in one sentence before it is taken for none (review14b item 9)
MAX_REJECTED = 16


# words before "errors occur" that relate them to others rather than name their kind ("Related errors happened in vllm
# as well", review17a item 7)
_RELATION_KINDS = frozenset(("related", "several", "different", "few", "multiple", "more", "various", "both", "all"))
_STEP_FIRST_RULED_OUT = re.compile(r"(?i)\b(?:never|not|no|nothing|none|whether|if|unless|without|cannot)\b|n't\b")
# (and a step of another thing than the server: "Deploying the docs failed.", "launch kernels failed.", review17a item 1)
_STEP_FIRST_OTHER = re.compile(
    r"(?i)^\w+\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?(?:[\w-]+\s+)?(?:docs?|documentation|site|website|pages?|kernels?"
    r"|ops?|tests?|ci|jobs?|workflows?|pipelines?|previews?|charts?|packages?|wheels?|datasets?|notebooks?|scripts?)\b"
)


def _in_general(after: str, body: str) -> bool:
    """How a failure comes about in general: its condition follows ("... occur when the driver is too old") and the
    sentence holds nothing of the writer's own run (_GENERIC_OOM_TAIL, _OWN_RUN)."""
    return _GENERIC_OOM_TAIL.match(after) is not None and not _OWN_RUN.search(body)


def _stated(sentence: str, pointing: bool = False) -> str | None:
    """The words that state a failure of the run; `pointing`: only in a sentence that points at a text elsewhere."""
    body = sentence.strip()
    if not body or _asks_fixes_or_dismisses(body):
        return None
    said = _stated_in_chinese(body)  # (a Chinese pointer is its own reader's: _CJK_POINTS)
    if said is not None:
        return None if pointing else said
    points = _POINTS.search(body) is not None and not _NAMED.search(body) and not _QUOTED_ERROR.search(body)
    if points != pointing:
        return None
    for rejected, m in enumerate(_STATED.finditer(body)):
        # (each match reads the sentence before it: a long sentence of rejected matches, "the server never crashes, "
        # x1250, was quadratic, review14b item 9; no sentence that states a failure holds that many rejected before it)
        if rejected >= MAX_REJECTED:
            return None
        before = body[: m.start()]
        clause = CLAUSE.split(before)[-1]
        # (a possibility in a clause the sentence then turns from with "but" is over: "I can launch the inference server,
        # but it crashes when receiving a call", InternLM/lmdeploy#841)
        turned = _BUT.split(before)[-1]
        supposed = _SUPPOSED.search(turned)
        # (and a denial: "the server will not crash on first request, but crash randomly after few hours serving",
        # sgl-project/sglang#25937)
        after = body[m.end() :]
        # (a step's failure or a program that cannot start in a clause of whenever, or a question without its mark:
        # "The router retries when the transfer fails.", "Why the router can't connect to ...", review15b item 3)
        if (m.group("step_fails") or m.group("cant")) and (_BEHAVIOUR_WHEN.search(clause) or _ASKS.match(body)):
            continue
        if m.group("bare_crash") and _CRASH_NOUN_LEAD.search(before):
            continue
        if m.group("oom_bare") and "rror" in m.group("oom_bare") and _in_general(after, body):
            continue
        if m.group("errors_occur") and (
            _names_nothing(m.group("error_kind"))
            or m.group("error_kind").lower() in _RELATION_KINDS
            or _ASKS.match(body)  # ("Do CUDA errors occur on your side too", a question without its mark)
            or _in_general(after, body)
        ):
            continue
        # (and "failing" as the adjective of a CI noun: "There are failing tests in the suite.")
        if m.group("failing") and (_CI_SUBJECT.search(before) or _failing_ci_noun(m.group("failing"))):
            continue
        # (a third person's present meeting in a "when" clause is a condition of a behaviour, a pull request's
        # "Raise when Mooncake registration reports a backend failure." (sglang-37019); the writer's own run, "When I
        # launch it, it hits a CUDA error" without its comma, the past, "when the worker reported an error", and
        # "until", "memory keeps increasing until it gets cuda out of memory", stay reports)
        if m.group("got") and _PRESENT_THIRD.match(m.group("got")) and _WHEN.search(clause) and not _WRITER.search(clause):
            continue
        if m.group("span") and not message_span(m.group("span")):
            continue
        # (the step-first report holds its whole clause: a denial or a condition inside it, "Loading from the cache
        # never failed", "check whether the launch failed", states nothing)
        if m.group("step_first") and (_STEP_FIRST_RULED_OUT.search(m.group(0)) or _STEP_FIRST_OTHER.search(m.group(0))):
            continue
        if DENIED.search(clause) or NEGATED.search(turned) or supposed or _GONE.match(after) or _LESS_OFTEN.match(after):
            continue
        # a "when" clause whose main clause is a possibility states a condition, not what happened: "When the backend
        # SGLang service crashes, the router may also crash as a result." (a pull request's motivation)
        if _WHEN_OPENS.match(clause) and _SUPPOSED.search(body[m.end() :]):
            continue
        # (words between the subject and its verb deny it too: "the server never goes down")
        if (m.group("down") or m.group("makes") or m.group("shutdown")) and DENIED.search(m.group(0)):
            continue
        if m.group("down") and (
            _OF_BEFORE.search(before) or _METRIC.search(clause + m.group(0)) or _BY_AMOUNT.match(body[m.end() :])
        ):
            continue
        # (an OOM names the failure itself, as "an error" does not: "it causes the oom exception", "it encounters the
        # OOM after a certain number of requests" (glm-v-124); an OOM met in a "when" clause is one met in general:
        # "When SGLang hits an OOM during a TTS request, the server does not crash" names nothing that happened,
        # sglang-omni#293)
        if m.group("oom_verb") and _OOM_NOUN.search(before):
            continue
        if m.group("oom_word") and _PRESENT_CAUSE.match(m.group(0)) and not _RUN_SUBJECT.search(clause):
            continue
        named_oom = m.group("oom_word") and (_CAUSE.match(m.group(0)) or not _WHEN.search(clause))
        named = named_oom or m.group("named")
        # (a timeout is met by the verb's own object, a few words at most: "0 tokens received, 300s timeout" is a
        # setting after a count, sgl-project/sglang#22779)
        if (
            m.group("named")
            and m.group("named").lower().startswith("time")
            and not re.fullmatch(r"\s*(?:[\w`-]+\s+){0,3}", m.group("what"))  # (an op in a code span is a word)
        ):
            continue
        if m.group("got") and not named and _names_nothing(m.group("what")) and not _NAMED_AFTER.match(body[m.end() :]):
            continue
        # (an attempt to reproduce that failed is the reader's, no failure of the writer's run)
        if m.group("but_failed") and _REPRODUCE.search(before):
            continue
        # (a count of none opening the object: "The log shows zero errors", "I got no errors", review15c item 7)
        if m.group("got") and m.group("what") is not None and _NONE_COUNT.match(m.string, m.start("what")):
            continue
        # (what a log shows is a failure only when its noun is the writer's, not a quoted word: "The log shows `Error`
        # twice" counts a word)
        what = m.group("what") or ""
        if (m.group("got") or "").lower().startswith("show") and (what.count("`") % 2 or what.count('"') % 2):
            continue  # (the noun inside a quote the object opened)
        return m.group(0)
    return None


def _stated_in_chinese(body: str) -> str | None:
    """The words of a Chinese sentence that state a failure of the run (_CJK_STATED), unless the sentence asks about it,
    supposes, fixes or dismisses it, or its clause denies or plans it, or the words point at a text elsewhere."""
    if _CJK_QUESTION.search(body) or _CJK_RULED_OUT.search(body):
        return None
    for m in _CJK_STATED.finditer(body):
        before, after = body[: m.start()], body[m.end() :]
        if _CJK_SUPPOSED.search(before) or CJK_NEGATED.search(_CJK_CLAUSE.split(before)[-1]):
            continue
        if _CJK_POINTS.match(after) or _CJK_TOPIC.match(after):
            continue
        if _CJK_WHEN.match(after) and "了" not in re.split(r"[，,；;。！!]", after, maxsplit=1)[0]:
            continue
        return m.group(0)
    return None


# a failure's label and its message, the line's opening words ("Run failed: [models] Server Unavailable Error, ...",
# "Error: connection refused", "Deployment failure: ..."): up to three words, a failure word, a colon and the message;
# never a count or a nil after it ("Errors: 0", "failed: none"); read only in an issue template's section on what the run
# did (classify._OBSERVED_SECTION), where the heading makes it the outcome rather than a caption
_OBSERVED = re.compile(
    r"^\s*(?:[-*>]\s*)?(?:\*\*)?(?P<said>(?:[\w.\[\]-]+\s+){0,3}?(?:failed|fails|failure|errors?|exception|crashed|crash)"
    r"(?:\*\*)?\s*[:\uff1a])\s*(?!(?:0|none|no|n/?a|null|nil|false)\b)(?=\S)",
    re.IGNORECASE,
)

_DENIED_LABEL = re.compile(r"(?i)\b(?:no|not|never|without|zero)\b")
_LABEL_CI = re.compile(r"(?i)\b(?:tests?|ci|checks?|lint\w*|jobs?|workflows?|builds?|docs?|pipelines?|suites?)\b")
_TALLY = re.compile(r"\s*\d+\s*(?:of|/|out of)\s*\d+")


def observed(text: str) -> Parsed | None:
    """The failure a line under a heading of what happened states as a label and its message (_OBSERVED), unless the
    label's words ask about, suppose or dismiss it, or the line is a question (the message after the colon is the
    program's text: its own words, "Name or service not known", say nothing of the writer's)."""
    m = _OBSERVED.match(text)
    if m is None or rules_out(m.group("said")) or text.rstrip().endswith(("?", "\uff1f")):
        return None
    if _DENIED_LABEL.search(m.group("said")):
        return None  # "No error: the request succeeds", "Without failures: ..."
    # (a test run's tally, "Tests failed: 3 of 120 in test_sampling.py", review17a item 4)
    if _LABEL_CI.search(m.group("said")) or _TALLY.match(text, m.end()):
        return None
    return Parsed(kinds.STATED_FAILURE, {"sentence": text.strip(), "said": m.group("said").strip(" *:\uff1a")})
