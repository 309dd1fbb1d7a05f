"""Where a launch command stands in a line, and the shapes that start one: behind a shell prompt of any shape, under a
wrapper or a runner (parsers/command_runners.py), after another command and a shell operator, as a list item, after a
label that ends in a colon, or as the module's name alone; the prompt and the lead-in are no part of the command."""

from __future__ import annotations

import ast
import re

from logscope.pipeline.parse.parsers.base import FAILURE_WORDS, SHELL_PROMPT, strip_prefix
from logscope.pipeline.parse.parsers.command_runners import CONTAINER_START, RUNNER, WRAPPER, alternation
from logscope.pipeline.parse.parsers.prose_guards import CONDITION_WORDS, INTENT_WORDS, QUESTION_MARKS, SUPPOSED_WORDS

# the interpreter's own options before "-m" ("python -u -m sglang.launch_server", "python3 -X faulthandler -m ..."): the
# letters of CPython's usage text (-b -B -d -E -i -I -O -P -q -s -S -u -v) and -X / -W with their argument
INTERPRETER_OPTIONS = r"(?:\s+-[bBdEiIOPqsSuv]{1,4}|\s+-[XW]\s*[\w.:=-]+){0,4}"
# a wrapper's name, a path to it allowed ("/usr/bin/time")
WRAPPER_WORD = r"(?:\S*/)?" + alternation(WRAPPER)
# a wrapper (or a chain of them) with its options and their values, then the command it runs: an assignment, an
# interpreter, sglang, torchrun or a container tool ("nice -n 10 python3 ...", "timeout 600 python ...", "sudo -E env
# X=1 ..."); a sentence that opens with a wrapper's name as an English word ("timeout (self.watchdog_timeout=300, ...)",
# "timeout for dispatch CPU", "nice to see") runs nothing
_RUN_BY_A_WRAPPER = r"(?:[A-Z_][A-Z0-9_]*=|\S*python|sglang\s|torchrun\s|docker\s|podman\s)"
_RUNS_A_COMMAND = r"(?:" + WRAPPER_WORD + r"|" + alternation(RUNNER) + r")"
# (each word has one reading: an option, a number, or the word after an option that is neither a wrapper, a runner
# nor the command, so a line of wrapper words that runs nothing fails in linear time)
_WRAPPER_ARGUMENT = r"(?:-\S+(?:\s+(?!" + _RUNS_A_COMMAND + r"\s|" + _RUN_BY_A_WRAPPER + r")[^\s\d-]\S*)?|\d\S*)\s+"
WRAPPED_COMMAND = r"(?:" + WRAPPER_WORD + r"\s+(?:" + _WRAPPER_ARGUMENT + r"){0,6})+" + _RUN_BY_A_WRAPPER
# one word as a shell splits a line: a quoted part keeps its blanks (`-e NOTE="a b"`, `--gpus '"device=0,1"'`)
_SHELL_PART = r"""(?:[^\s"']|"[^"\n]*"|'[^'\n]*')"""
_SHELL_WORD = _SHELL_PART + r"+"
# a word that is neither an option, a number nor an assignment
_PLAIN_WORD = r"(?![-\d])(?![A-Za-z_]\w*=)" + _SHELL_WORD
# a wrapper's or a runner's own words before the command: an option and the word after it (its value, or none), an
# assignment ("env X=1"), a number ("timeout 600"): "numactl -N 0 -m 0 ", "nsys profile -o out --trace=cuda,nvtx ",
# "docker run --gpus all -e NOTE="a b" "; a sentence that opens with the program's name ("podman run works on the other
# node but python3 -m ...", "nsys profile shows ...", "gdb says ...") gives words of none of these and runs nothing
# (each word has one reading: a value is no number or assignment, so a line that runs nothing fails in quadratic time
# at worst, over a bounded count of words)
_OWN_WORD = (
    r"(?:-" + _SHELL_PART + r"*(?:\s+" + _PLAIN_WORD + r")?|[A-Za-z_]\w*=" + _SHELL_PART + r"*|\d" + _SHELL_PART + r"*)\s+"
)


def _own_words(most: int, target: bool) -> str:
    """Up to `most` of a program's own words; and, where it takes one (`target`), the one plain word of its container,
    pod or image among them."""
    words = r"(?:" + _OWN_WORD + r"){0," + str(most) + r"}"
    return words + (r"(?:" + _PLAIN_WORD + r"\s+" + words + r")?" if target else "")


# a wrapper or a runner (or a chain of them: "sudo docker exec ...") and its words before the launcher ("nohup ",
# "numactl -N 0 -m 0 ", "docker exec -it box ")
_WRAPPED = (
    r"(?:(?:"
    + WRAPPER_WORD
    + r"|"
    + alternation(RUNNER, target=False)
    + r")\s+"
    + _own_words(8, target=False)
    + r"|"
    + alternation(RUNNER, target=True)
    + r"\s+"
    + _own_words(8, target=True)
    + r"){1,3}"
)
# SGLang's command line's subcommands that take server arguments: "sglang serve" (ServerArgs) and "sglang generate", a
# multimodal (diffusion) run whose parser adds multimodal_gen's ServerArgs.add_cli_args (--model-path, --tp-size, ...;
# sglang 0.5.5 .. 0.5.23 sglang/cli/main.py subparsers, sglang/cli/generate.py add_multimodal_gen_generate_args)
SGLANG_CLI = r"sglang\s+(?:serve|generate)"
# a shell line that starts a command logscope reads: after a prompt and a wrapper or a runner with its words
# ("nice -n 10 ", "numactl -N 0 ", "uv run "), assignments, a container start, torchrun, the launcher, or the
# interpreter alone on the first line of a continued command ("python \" then "-m sglang.launch_server \"); or
# wrappers and runners with their options alone before the continuation ("numactl -N 0 -m 0 \")
COMMAND_HEAD = re.compile(
    r"^\s*(?:"
    + SHELL_PROMPT
    + r")?(?:(?:"
    + _WRAPPED
    + r")?(?:[A-Z_][A-Z0-9_]*=\S*\s*|"
    + alternation(CONTAINER_START)
    + r"\b|torchrun\b|\S*python3?(?:\.\d+)?"
    + INTERPRETER_OPTIONS
    + r"\s+-m\s+(?:dynamo\.)?sglang|"
    + SGLANG_CLI
    + r"|\S*python3?(?:\.\d+)?\s+\\\s*$)|(?:"
    + _RUNS_A_COMMAND
    + r"\s+(?:"
    + _WRAPPER_ARGUMENT
    + r"){0,6})+\\\s*$)"
)
# SGLang's modules, and ai-dynamo's SGLang worker, which takes SGLang's server arguments (ai-dynamo 0.7.1
# dynamo/sglang/args.py, 0.4.0 dynamo.sglang.worker and .decode_worker: ServerArgs.add_cli_args(parser)), and
# sglang-router's launcher of a data-parallel server with its router (sglang_router/launch_server.py of sglang-router
# 0.1.4 .. 0.3.2: ServerArgs.add_cli_args(parser), then its own options under the "--router-" prefix)
SGLANG_MODULE = r"(?:sglang\.\w+|dynamo\.sglang(?:\.(?:worker|decode_worker))?(?![\w.])|sglang_router\.launch_server(?![\w.]))"
# also inside a Markdown code span: "run `python -m sglang.launch_server --tp 2 ...` and it fails"
LAUNCHER = re.compile(
    r"(?:^|[\s`\"'])((?:[^\s`]*/)?python3?(?:\.\d+)?"
    + INTERPRETER_OPTIONS
    + r"\s+-m\s+"
    + SGLANG_MODULE
    + r"|"
    + SGLANG_CLI
    + r")(?=\s|`|$)"
)
# a launcher behind any shell prompt: zsh's "➜  sglang git:(main) ✗ ", "user@host dir % ", "[root@node ~]# ",
# PowerShell's "PS C:\\work> ", starship's "❯ " (the prompt is text up to a prompt sign, or after a leading arrow)
# or a "$ " that lost its blank before an assignment ("$NVSHMEM_DEBUG=INFO python3 -m ...": no shell expands a variable
# into the name of an assignment that starts a command; a form seen in pastes)
_PROMPT_ANY = (
    r"(?:\([^()\s]+\)\s+)?(?:[➜❯λ»→]\s+(?:\S+\s+){0,3}?(?:[✗✔]\s+)?|(?:\S+\s+){0,4}?\S*[$#%>✗❯➜»]\s+"
    r"|\$(?=[A-Z_][A-Z0-9_]*=))"
)
# `python3 -m sglang.<module>`, a path to the interpreter allowed
PYTHON_M_SGLANG = r"(?:[^\s\"'`]*/)?python3?(?:\.\d+)?" + INTERPRETER_OPTIONS + r"\s+-m\s+" + SGLANG_MODULE
_ASSIGNMENTS_FIRST = r"(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
_SGLANG_LAUNCHER = r"(?:" + PYTHON_M_SGLANG + r"|" + SGLANG_CLI + r")"
_LAUNCH_WORDS = _ASSIGNMENTS_FIRST + r"(?:" + _SGLANG_LAUNCHER + r"|torchrun)(?=\s|$)"
# (under a wrapper or a runner too: "➜  w git:(main) ✗ nohup python3 -m ...")
_UNDER = r"(?:" + _ASSIGNMENTS_FIRST + _WRAPPED + r")?"
_BEHIND_PROMPT = re.compile(r"^\s*(" + _PROMPT_ANY + r")(?:" + _UNDER + _LAUNCH_WORDS + r"|export\s+[A-Z_])")
# uv runs a module itself: `uv run [uv's options] -m sglang.launch_server ...` is `python -m sglang.launch_server ...` in
# the project's environment (uv 0.4.17, astral-sh/uv#7754: `uv run --module/-m`, "equivalent to python -m <module>");
# the words between "run" and "-m" are uv's own options ("--with x", "--no-sync")
_UV_RUN_MODULE = r"uv\s+run\s+(?:(?!-m\s|--module[\s=])\S+\s+){0,8}?(?:-m\s+|--module[\s=]\s*)(?=" + SGLANG_MODULE + r")"
UV_RUN_MODULE = re.compile(r"(?:(?<=[\s`\"'])|^)" + _UV_RUN_MODULE)
# the module's name run as a command ("`sglang.launch_server --model-path ... --tp 4`", as a script's line has it):
# not a command a shell runs, but the options are the user's; read only where options follow it
BARE_MODULE = re.compile(r"(?:(?<=[\s`\"'])|^)sglang\.(launch_server|bench_one_batch)(?=\s+--\w)")

# a launch command as a line of its own, not at its start: as a list item's text ("- python3 -m ..."), after another
# command and a shell operator ("cd /work && python3 -m ...", "source .venv/bin/activate; python3 -m ..."), run
# under a wrapper or a runner ("numactl --cpunodebind=0 python3 -m ...", "docker exec -it c python3 -m ..."), or
# in the image a container start runs ("podman run --device nvidia.com/gpu=all ... image python3 -m ...")
_COMMAND_LINE = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+|[^&;|`]{1,200}?(?:\s&&|\s\|\||;)\s+|"
    + _WRAPPED
    + r"|"
    # a container start's options and image, as many words as a `podman run` / `docker run` line gives them
    + alternation(CONTAINER_START)
    + r"\s+"
    + _own_words(40, target=True)
    + r")`?"
    + _ASSIGNMENTS_FIRST
    + _SGLANG_LAUNCHER
    + r"\s+-"
)
# `uv run -m sglang.<module>` as a line of its own (after a prompt and assignments)
_UV_COMMAND_LINE = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")?`?" + _ASSIGNMENTS_FIRST + _UV_RUN_MODULE)
# a launch command after a label or a lead-in that ends in a colon: "The start command is:  python3 -m ...",
# "Command: sglang serve ...", "启动命令：python3 -m ..." (the command is the rest of the line; the lead-in is prose)
# (a bold label's closing "**" after its colon too: "**Command:** python3 -m ...")
_AFTER_LABEL = re.compile(r"^([^:：`'\"]{0,120}[:：](?:\*\*|__)?)\s*(" + _ASSIGNMENTS_FIRST + _SGLANG_LAUNCHER + r"\s+-.*)$")


def command_line(text: str) -> bool:
    """A launch command as a list item, after another command, under a wrapper, or run by `uv run -m`: a command,
    not prose."""
    return bool(_COMMAND_LINE.match(text) or _UV_COMMAND_LINE.match(text))


# a launch command inside a sentence with no colon before it: "I launched with python3 -m sglang.launch_server --tp 4
# and it fails at the first request" (the lead-in is words of prose, no quote, code span, bracket or shell operator; an
# option follows the launcher, so "python -m sglang.launch_server is slow" states no command)
_LEAD_IN_SIGNS = frozenset(":：`'\"<>{}[]|&;=$\\")
_IN_SENTENCE = re.compile(r"(?<=\s)" + _SGLANG_LAUNCHER + r"\s+--?[A-Za-z]")
# a lead-in that asks, supposes, conditions or means to run it ("Does python -m ... --tp 8 work with DeepEP?", "If I
# use ...", "I want to try ..."): the command is named, not run
_NOT_RUN = re.compile(
    r"(?i)^\W*(?:has|have|had|did|does|do|is|are|was|were|can|could|should|would|will|why|how|what|which)\b"
    r"|\b(?:" + CONDITION_WORDS + r"|" + SUPPOSED_WORDS + r"|" + INTENT_WORDS + r")\b"
)


# a lead-in that states the writer's own run: a first-person subject and a past or present run verb right before the
# command, an object and "with/using/via/by" optional ("I launched with ...", "We run ...", "I'm running the server
# with ..."); or a reproduction step's imperative as a numbered or bulleted item ("1. Run python -m ..."). Anything
# else before a launcher (advice, a recommendation, an example, docs' imperative, another person's run, a PR's text,
# "Anyone tried ...") names a command, it states no run of the writer's
_RUN_VERB = (
    r"(?:launched|launch|ran|run|running|started|start|starting|used|use|using|tried|deployed|deploy|served|serve"
    r"|executed|execute)"
)
_OWN_RUN = re.compile(
    r"(?i)(?:^|[\s,.;(])(?:i|we|i'm|we're|i've|we've|my team|our team)\s+"
    r"(?:(?:am|are|was|were|have|had|just|also|then|first|now|always|again|simply|originally|currently|still)\s+){0,3}"
    + _RUN_VERB
    + r"(?:\s+(?:[\w.-]+\s+){0,3}?(?:with|using|via|by|as))?\s*$"
    # the subject left out, a past run verb opening the sentence: "Launched with ...", "Started the server with ..."
    r"|^\W*(?:launched|ran|started|used|tried|deployed|executed|served)"
    r"(?:\s+(?:[\w.-]+\s+){0,3}?(?:with|using|via|by|as))?\s*$"
    r"|^\s*(?:[-*+]|\d+[.)])\s+(?:run|start|launch|execute)(?:\s+(?:[\w.-]+\s+){0,3}?(?:with|using|via|by))?\s*$"
)
# a negation or a word of advice in the lead-in: the command is not (or not yet) the writer's run
_NOT_OWN = re.compile(
    r"(?i)\b(?:not|never|without|instead|please|recommend\w*|suggest\w*|should|example|e\.g|docs?|documentation|you)\b"
    r"|n't\b"
)


def launcher_in_sentence(text: str) -> tuple[str, str] | None:
    """(the lead-in, the text from the launcher on) when a sentence's words of prose (up to 120 characters, a letter
    among them) come right before a launcher that an option follows, the lead-in states the writer's own run (a
    first-person subject and a run verb, or a reproduction step's numbered imperative), and the sentence neither asks,
    supposes, advises nor negates (a question, a condition, a possibility, an intent), else None."""
    m = _IN_SENTENCE.search(text, 0, 400)
    if m is None or m.start() > 120:
        return None
    lead = text[: m.start()]
    if not any(c.isalpha() for c in lead) or any(c in _LEAD_IN_SIGNS for c in lead) or _NOT_RUN.search(lead):
        return None
    if not _OWN_RUN.search(lead) or _NOT_OWN.search(lead):
        return None
    if any(mark in text for mark in QUESTION_MARKS):  # a question names the command, it states no run
        return None
    return lead, text[m.start() :]


# a lead-in in Chinese words alone before the command, no colon: "执行 python -m sglang.launch_server ..." (执行 "run"),
# "我用 sglang serve ..." ("I use"); the command ends where the sentence's Chinese words go on after it (the command's
# reader stops at a word no option takes)
_AFTER_CJK_LEAD_IN = re.compile(
    r"^\s*([\u4e00-\u9fff][\u4e00-\u9fff\uff0c\u3001]{0,11})\s+(" + _ASSIGNMENTS_FIRST + _SGLANG_LAUNCHER + r"\s+-.*)$"
)


# the Chinese lead-in states a run: a run verb (执行 "run", 运行 "run", 启动 "start", 部署 "deploy", 跑 "run"), or
# 用/使用 "use" after 我/我们 "I/we" ("我用 sglang serve ..."), or the paste's own label (启动命令 "the start command")
_CJK_RUN = re.compile(r"执行|运行|启动|部署|跑|(?:我|我们)\S{0,3}(?:使用|用)")
# ... and neither asks (请问 "may I ask", 怎么/如何 "how", 是否/能否 "whether", 吗 "?"), advises (建议 "suggest", 试试
# "try", 可以 "may"), negates (不要 "don't", 别 "don't", 不 "not", 没 "not"), nor conditions (如果 "if")
_CJK_NOT_RUN = re.compile(r"请问|怎么|如何|是否|能否|吗|建议|试试|可以|不|别|没|如果|？|\?")
# a question after the command: 吗/？ ("?"), 怎么/如何 "how", 是否/能否 "whether"
_CJK_QUESTION = re.compile(r"吗|怎么|如何|是否|能否|？")


def after_label(text: str) -> tuple[str, str] | None:
    """(the lead-in, the launch command after it) when a label or a lead-in ending in a colon, or a few Chinese words
    that state a run, come before a launch command, else None."""
    m = _AFTER_LABEL.match(text)
    if m is None:
        m = _AFTER_CJK_LEAD_IN.match(text)
        if m is not None and (
            not _CJK_RUN.search(m.group(1)) or _CJK_NOT_RUN.search(m.group(1)) or _CJK_QUESTION.search(m.group(2))
        ):
            return None
    return (m.group(1), m.group(2)) if m else None


def behind_prompt(text: str) -> bool:
    """A launch command or an export behind a shell prompt of any shape (the prompt is no part of the command)."""
    return bool(_BEHIND_PROMPT.match(text))


def uv_run_module(text: str) -> bool:
    """A launch through `uv run -m sglang.<module>` (uv runs the module as `python -m` would)."""
    return bool(UV_RUN_MODULE.search(text))


def bare_module(text: str) -> bool:
    """The module's name used as a command, options after it (`sglang.launch_server --tp 4`)."""
    return bool(BARE_MODULE.search(text))


def without_prompt(text: str) -> str:
    """The command after a shell prompt of any shape; the text itself when it holds none."""
    m = _BEHIND_PROMPT.match(text)
    return text[m.end(1) :] if m else text


# a launch's argv as a Python or JSON list of strings, as a program that starts the server prints it: a log line
# ("Launching server: ['python3', '-m', 'sglang.launch_server', '--tp', '2']") or CPython's CalledProcessError
# ("Command '['python3', '-m', ...]' returned non-zero exit status 1.", subprocess.py: "Command '%s' returned
# non-zero exit status %d." with the argv's repr); items are plain quoted strings, so the list ends at its first "]"
_ARGV_ITEM = r"""(?:'[^'\\\n]*'|"[^"\\\n]*")"""
_ARGV_LIST = re.compile(r"\[\s*" + _ARGV_ITEM + r"(?:\s*,\s*" + _ARGV_ITEM + r")*\s*,?\s*\]")
_ARGV_LAUNCHER = re.compile(
    r"""["'](?:[^"'\s]*/)?python3?(?:\.\d+)?["']\s*,\s*["']-m["']\s*,\s*["']""" + SGLANG_MODULE + r"""["']"""
)


def _launcher_list(text: str) -> re.Match[str] | None:
    """The first list of strings in the text that runs an SGLang launcher, or None."""
    if _ARGV_LAUNCHER.search(text) is None:
        return None
    return next((m for m in _ARGV_LIST.finditer(text) if _ARGV_LAUNCHER.search(m.group(0)) is not None), None)


def argv_words(text: str) -> list[str] | None:
    """The words of the first list of strings in the text that runs an SGLang launcher, or None."""
    m = _launcher_list(text)
    if m is None:
        return None
    try:
        words = ast.literal_eval(m.group(0))
    except (ValueError, SyntaxError):
        return None
    return [str(word) for word in words]


# a label before the list, at most three words after a log prefix ("cmd = ", '"cmd": ', "Launching server: ", "CMD ",
# "- "), or none
_ARGV_LABEL = re.compile(r"^\s*(?:\S+\s+){0,2}\S*\s*$")
# a sentence's words going on after the list ("... "--tp", "2"] crashes with CUDA error: ..."), not a structure's next
# field (', "gpus": 8}'), a closing quote ("Command '[...]' returned ...") or a comment ("  # the launch")
# a failure stated in a sentence's words before the list: the record forms of the failure words (base.FAILURE_WORDS)
# or a sentence's ("crashes", "fails", "CUDA error: ...", "out of memory")
_FAILURE_STATED = re.compile(
    FAILURE_WORDS + r"|(?i:\berror\b|\bexception\b|\bcrash|\bfail|segmentation fault|out of memory|\bOOM\b|\babort)"
)
_PROSE_AFTER = re.compile(r"[\s.,;:!?)\]}]*[A-Za-z][\w'-]*\s+[A-Za-z]")


def argv_in_a_sentence(text: str) -> bool:
    """The launcher's argv list is quoted inside a sentence: more than a label's words before it and a sentence's words
    after it ("I tried these argv lists and neither works: ["python3", "-m", ...] crashes with CUDA error: ..."). The
    line is then the sentence (what it states is read as prose's), not the list's record."""
    m = _launcher_list(text)
    if m is None:
        return False
    before = text[: m.start()]
    message = strip_prefix(before)  # (a log prefix before the label is the record's)
    if _ARGV_LABEL.match(message) is not None:
        return False
    # words after it, or a sentence before it that states a failure ("It crashes with CUDA error: an illegal memory
    # access was encountered when I run ["python3", "-m", ...]"): a log record's message before an argv it prints
    # states no failure of its own
    return _PROSE_AFTER.match(text, m.end()) is not None or (message == before and _FAILURE_STATED.search(before) is not None)
