"""A launch command's text as grammars/launch_command.lark reads it: a continued command flattened onto one line joined,
the module run as a script, through torchrun or pm2 turned into a plain `python -m` launcher, a container's `-e`
flags taken as environment, the shell's words before the launcher (assignments, wrappers, runners) kept or dropped, and
the command cut where the shell ends it (an operator, a comment, a redirection)."""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

from logscope.core.server_flags import known_option, may_take, takes
from logscope.pipeline.parse.parsers import other_lines
from logscope.pipeline.parse.parsers.base import SHELL_PROMPT
from logscope.pipeline.parse.parsers.command_runners import CONTAINER_START, RUNNER_FIRST_WORDS, WRAPPER_NAMES, alternation
from logscope.pipeline.parse.parsers.command_shapes import (
    BARE_MODULE,
    INTERPRETER_OPTIONS,
    LAUNCHER,
    UV_RUN_MODULE,
    WRAPPER_WORD,
    argv_words,
    launcher_in_sentence,
)
from logscope.pipeline.parse.parsers.quote_cut import before_open_quote

_SHELL_OPERATORS = frozenset({"&&", "||", ";", "|", "&"})
_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|[^\s\"'])*")  # one character a step: no backtracking
_HEAD_WORD = re.compile(r"""(?:"[^"]*"|'[^']*'|[^\s"'])+""")
_PROMPT_FIRST = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")")
_DOCKER = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")?(?:" + WRAPPER_WORD + r"\s+)*" + alternation(CONTAINER_START) + r"\s")
_TRAILING_ASSIGNMENTS = re.compile(r"(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+)+$")
_TORCHRUN = re.compile(r"(?:^|\s)torchrun\s.*?-m\s+(sglang\.\w+)")
# a continued command flattened onto one line (the line ends lost in a paste): "python3 -m sglang.launch_server \ --tp 4"
_FLAT_CONTINUATION = re.compile(r"\s\\\s+(?=\S)")
# the module run as a script: "python3 /opt/sglang/python/sglang/launch_server.py ...", and under pm2, whose own
# options end at "--": "pm2 start .../sglang/launch_server.py --name sgl -- --model-path ..."
# (the path relative to the checkout's python/ folder too: "python sglang/launch_server.py ...")
_SCRIPT = re.compile(r"(?:(?<=\s)|^)(?:\S*python3?(?:\.\d+)?\s+)?(?:\S*/)?sglang/(launch_server|bench_one_batch)\.py(?=\s|$)")
_PM2_OPTIONS = re.compile(r"^(python -m sglang\.\w+)\s(?:.*?\s)?--(?=\s)")
# the interpreter's own options before "-m" are no server arguments ("python -u -m ...": unbuffered output)
_INTERPRETER_OPTIONS = re.compile(r"(python3?(?:\.\d+)?)" + INTERPRETER_OPTIONS + r"(?=\s+-m\s)")


# what a copy from a rendered page, a chat client or a word processor puts in a command's place: a no-break or other
# Unicode space between its words, an en or em dash (an editor's "smart" dashes) for an option's "--" ("–tp 8": read
# only before a released option's name)
_UNICODE_SPACES = str.maketrans(
    dict.fromkeys("\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " ")
)
_SMART_DASHES = re.compile(r"(?<!\S)[\u2010-\u2015\u2212]{1,2}(?=([a-z][a-z0-9_-]*))")


def _as_typed(text: str) -> str:
    """The command as the user typed it, where a copy changed its blanks or its option dashes."""
    if text.isascii():
        return text
    text = text.translate(_UNICODE_SPACES)
    return _SMART_DASHES.sub(lambda m: "--" if known_option(m.group(1).rstrip("-").replace("-", "_")) else m.group(0), text)


def normalise_command(text: str) -> tuple[str, dict[str, str]] | None:
    """(a command the launch_command grammar reads, environment from docker -e flags), or None when the text
    holds no SGLang launcher."""
    env: dict[str, str] = {}
    text = _as_typed(text)
    argv = argv_words(text) if "[" in text else None
    if argv is not None:  # a launch's argv printed as a list: its words as the shell would quote them
        text = shlex.join(argv)
    command = _FLAT_CONTINUATION.sub(" ", text) if " \\ " in text else text
    command = _INTERPRETER_OPTIONS.sub(r"\1", command) if " -m " in command else command
    if "uv" in command:
        command = UV_RUN_MODULE.sub("python -m ", command, count=1)
    script = _SCRIPT.search(command)
    if script:
        pm2 = "pm2 " in command[: script.start()]
        command = f"{command[: script.start()]}python -m sglang.{script.group(1)}{command[script.end() :]}"
        if pm2:
            at = command.find("python -m sglang.")
            command = command[:at].replace("pm2 start ", "") + _PM2_OPTIONS.sub(r"\1", command[at:])
    bare = BARE_MODULE.search(command) if not LAUNCHER.search(command) else None
    if bare:
        command = f"{command[: bare.start()]}python -m sglang.{bare.group(1)}{command[bare.end() :]}"
    torchrun = _TORCHRUN.search(command)
    if torchrun:
        prefix = command[: torchrun.start()]
        rest = command[torchrun.end() :]
        command = f"{prefix} python -m {torchrun.group(1)}{rest}"
    if _DOCKER.match(command):
        launcher = LAUNCHER.search(command)
        if launcher is None:
            return None
        try:
            words = shlex.split(command[: launcher.start(1)], posix=True)
        except ValueError:
            words = command[: launcher.start(1)].split()
        for i, word in enumerate(words):
            if word in ("-e", "--env") and i + 1 < len(words) and "=" in words[i + 1]:
                key, _, value = words[i + 1].partition("=")
                env[key] = value
            elif word.startswith("--env=") and "=" in word[6:]:
                key, _, value = word[6:].partition("=")
                env[key] = value
        command = command[launcher.start(1) :]
    launcher = LAUNCHER.search(command)
    if launcher is None:
        return None
    head = command[: launcher.start(1)]
    # a launcher inside an unquoted list a tool prints its container's arguments in (GPUStack's "arguments: [python -m
    # sglang.launch_server ... --port 40024], ports: [40024]"): the list's "]" ends the command
    listed = head.count("[") > head.count("]")
    if head[-1:] in ("`", '"', "'"):  # a code span or a quoted string: the command ends where it closes
        command, head = quoted_command(command, launcher.start(1), head[-1]), ""
    if head.strip():
        shell = _shell_head(head)
        if shell is None:
            # other text before the launcher (a bash -x "+ ", "Running: ", a log prefix): keep the environment
            # assignments right before it, drop the rest
            assignments = _TRAILING_ASSIGNMENTS.search(head)
            shell = assignments.group(0) if assignments else ""
        command = shell + command[launcher.start(1) :]
    launcher = LAUNCHER.search(command)
    return (command if launcher is None else _up_to_its_end(command, launcher.end(1), listed)), env


def quoted_command(command: str, start: int, quote: str) -> str:
    """The command inside the code span or the quoted string its launcher opens at `start`: up to the closing quote.
    A string with backslash escapes in it is a program's string literal (a Python repr: `launcher_cmd: ['python3 -m
    sglang.launch_server ... --model-loader-extra-config \\'{"num_threads": 8}\\' --disable-cuda-graph']`): an escaped
    quote does not close it, and its text is the literal's value."""
    if quote == "`":
        closing = command.find(quote, start)
        return command[start : closing if closing >= 0 else len(command)]
    at = start
    while at < len(command) and command[at] != quote:
        at += 2 if command[at] == "\\" else 1
    text = command[start : min(at, len(command))]
    if "\\" in text and at < len(command):
        try:
            value = ast.literal_eval(quote + text + quote)
        except (ValueError, SyntaxError):
            return text
        return value if isinstance(value, str) else text
    return text


def _shell_head(head: str) -> str | None:
    """The words before a launcher as the grammar reads them (a prompt, then the environment assignments) when they
    are a shell command's head: assignments and wrappers or runners with their options and arguments (`X=1 nohup`,
    `numactl -N 0 -m 0`, `env -u A B=2`, `docker exec -e A=1 box`), after any command that ends before it
    (`cd /x && `); None when other text is among them."""
    prompt = _PROMPT_FIRST.match(head)
    kept: list[str] = []
    wrapped = False
    for word in _HEAD_WORD.findall(head[prompt.end() if prompt else 0 :]):
        if word in _SHELL_OPERATORS or word.endswith(";"):  # another command before it: its words are not the launch's
            kept, wrapped = [], False
        elif _ASSIGNMENT.fullmatch(word):
            kept.append(word)
        elif word.rsplit("/", 1)[-1] in WRAPPER_NAMES or (not wrapped and word in RUNNER_FIRST_WORDS):
            wrapped = True
        elif not wrapped:
            return None
    return (prompt.group(0) if prompt else "") + "".join(word + " " for word in kept)


# a redirection at a word's start: "2>&1", ">log.txt", "> log.txt", ">> out", "&> all.log" ("<" is left alone: "<model>"
# is how documents write a placeholder)
_REDIRECTION = re.compile(r"(?:\d+|&)?>>?(?:&\d*-?|\s*(?:\"[^\"]*\"|'[^']*'|[^\s;&|])+)?")


def _up_to_its_end(command: str, start: int, listed: bool = False) -> str:
    """The command up to where the shell ends it (an unquoted `|`, `;`, `&`, `&&`, `||` or `#` comment), its output
    redirections taken out: `... --disable-cuda-graph 2>&1 &`, `... | tee log`, `... > server.log 2>&1`. Quoted text
    and `$(...)` are passed over whole. `listed`: the command stands in a list, whose unquoted closing `]` ends it."""
    out = [command[:start]]
    quote = ""
    opened = 0  # where in `out` the open quote began
    depth = 0
    brackets = 0  # "[" opened inside the command itself
    at = start
    while at < len(command):
        char = command[at]
        if quote:
            if char == "\\" and quote == '"':
                out.append(command[at : at + 2])
                at += 2
                continue
            quote = "" if char == quote else quote
        elif char in "\"'`":
            quote, opened = char, len(out)
        elif char == "\\":
            out.append(command[at : at + 2])
            at += 2
            continue
        elif command.startswith("$(", at):
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif depth == 0 and command[at - 1].isspace() and (redirection := _REDIRECTION.match(command, at)):
            at = redirection.end()
            continue
        elif depth == 0 and char in "|;&#" and (char != "#" or command[at - 1].isspace()):
            break
        elif listed and char in "[]":
            if char == "]" and not brackets:
                break
            brackets += 1 if char == "[" else -1
        out.append(char)
        at += 1
    if quote == "`":
        # a backtick the shell never closes is the end of the Markdown code span the command was quoted in
        # (`--port 30000\`` closing a span opened lines above): the command ends before it
        out = out[:opened]
    return "".join(out).rstrip()


# every launcher normalise_command reads holds one of these: "-m sglang.<module>" (torchrun's too), the module's name
# alone, "sglang serve" / "sglang generate", ".../sglang/launch_server.py", ai-dynamo's "-m dynamo.sglang",
# sglang-router's launcher
_LAUNCHER_LITERALS = ("sglang.", "sglang serve", "sglang generate", "sglang/", "dynamo.sglang", "sglang_router.launch_server")


def may_hold_a_launcher(text: str) -> bool:
    """A cheap test before parse_command: text without these literals holds no launch command."""
    return any(literal in text for literal in _LAUNCHER_LITERALS)


# sglang-router's launcher takes the server's arguments and its own, all under the "--router-" prefix
# (sglang_router/launch_server.py of 0.1.4 .. 0.3.2: RouterArgs.add_cli_args(parser, use_router_prefix=True) and
# "--router-dp-worker-base-port"); no ServerArgs option starts with "router" (catalog/server_flags.json)
_ROUTER_LAUNCHER = re.compile(r"-m\s+sglang_router\.launch_server(?![\w.])")
_ROUTER_OWN = "router_"


# a usage example's metavariable in angle brackets ("Example: sglang serve --model-path <model> [options]", the
# deprecation warning of sglang 0.5.12 launch_server.py): a command whose every value is one is an example, no run (a
# run's command with one placeholder among real values keeps it as printed: "--model-path <MODEL_PATH> --nnodes 2")
_PLACEHOLDER = re.compile(r"<[^<>\n]+>")


# `sglang serve <model> [flags]`: the CLI takes the model's path as its first word (sglang 0.5.16 .. 0.5.23
# cli/serve.py _normalize_positional_model_path: a first word that is no option becomes "--model-path <word>"); read
# only where the word is a path or a hub id (holds a "/") and an option or the command's end follows it
# (the word's part before its first "/" holds none, so only that "/" can split it: one scan, linear in the word; two
# runs of one class around any "/" were quadratic in a word of many, review14a item 9)
_POSITIONAL_MODEL = re.compile(r"(?<![\w.-])(sglang\s+serve)\s+(?=[^\s\-\"'`])([^\s\"'`<>{}/]*/[^\s\"'`<>{}]*)(?=\s+--|\s*$)")


def parse_command(text: str) -> dict[str, Any] | None:
    """A launch command (docker and torchrun forms too) → {'env', 'args', 'kind'}."""
    normalised = normalise_command(text)
    if normalised is None:
        return None
    command, docker_env = normalised
    if "serve" in command:
        command = _POSITIONAL_MODEL.sub(r"\1 --model-path \2", command, count=1)
    data = other_lines.parse_launch_command(command)
    if data is None and (whole_words := before_open_quote(command)) is not None:
        data = other_lines.parse_launch_command(whole_words)
    if data is None or data.pop("prose", False):
        return None
    data["env"] = {**docker_env, **data["env"]}
    if data["args"] and all(isinstance(v, str) and _PLACEHOLDER.fullmatch(v) for v in data["args"].values()):
        return None  # a usage example, no run: nothing but metavariables
    if _ROUTER_LAUNCHER.search(command):
        data["args"] = {k: v for k, v in data["args"].items() if not k.startswith(_ROUTER_OWN)}
    return data


# a shell word as the launch_command grammar's WORD reads it: quoted parts, escapes and plain characters, no blank
_SHELL_WORD = re.compile(r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|\\\S|[^\s"'\\])+""")
_OWN_VALUE = re.compile(r"--[\w-]+=|[A-Z_][A-Z0-9_]*=")  # "--served-model-name=...", "VAR=..." (a container's -e too)
_OPTION = re.compile(r"--?[\w-]+")
_ONE = ("one", "optional")  # what argparse lets such an option take (server_flags.takes)


def valued_words(text: str) -> list[str] | None:
    """The shell words of the launch command in `text` that hold a value of its own, as typed: the one word after an
    option that takes a single value (`--served-model-name "..."`, a JSON argument), an `--option=value` word, an
    environment assignment; None when the text holds no launcher. A multi-value option's words are not among them:
    an untyped list takes any words up to the next option, so prose after the command ("--lora-paths a b and got
    \"RuntimeError: ...\"") may be read as them (a typed list stops at the first word its type refuses)."""
    if not may_hold_a_launcher(text) or normalise_command(text) is None:
        return None
    words: list[str] = []
    before = ""
    for word in _SHELL_WORD.findall(text):
        if _OWN_VALUE.match(word) or (_OPTION.fullmatch(before) and takes(before.lstrip("-").replace("-", "_")) in _ONE):
            words.append(word)
        before = word
    return words


def quoted_in_its_words(span: str, words: list[str]) -> bool:
    """Quoted text inside one of a launch command's valued words (valued_words): the command's, never a failure the
    line quotes."""
    return any(span in word for word in words)


# the punctuation a sentence puts right after a command's last word ("... --tp 4, and it fails"; "... --tp 4.")
_SENTENCE_MARK = re.compile(r"[.,;:!?)]+$")


def command_in_sentence(text: str) -> tuple[str, str, str] | None:
    """(the lead-in, the launch command, the words after it) of a command written inside a sentence ("I launched with
    python3 -m sglang.launch_server --model-path X --attention-backend flashinfer and at the first request it
    fails"): the command ends at the first word that is neither an option nor a value its option takes (as the
    released argparse reads it: server_flags.takes / may_take), so a later option in the sentence's words ("..., but
    --tp 4 works") is not the command's; None when the line holds no such sentence."""
    if not may_hold_a_launcher(text[:400]):
        return None
    found = launcher_in_sentence(text)
    if found is None:
        return None
    lead, rest = found
    launcher = LAUNCHER.search(rest)
    if launcher is None:
        return None
    end = launcher.end(1)
    flag: str | None = None
    wants = "none"
    for m in _SHELL_WORD.finditer(rest, end):
        mark = _SENTENCE_MARK.search(m.group(0))
        word = m.group(0)[: mark.start()] if mark else m.group(0)
        if _OPTION.fullmatch(word) or _OWN_VALUE.match(word):
            flag = word.lstrip("-").replace("-", "_") if "=" not in word else None
            wants = (takes(flag) or "one") if flag else "none"
        elif word and (wants in _ONE or (wants == "many" and flag is not None and may_take(flag, word))):
            wants = "many" if wants == "many" else "none"
        else:
            break
        end = m.start() + len(word)
        if mark:  # the sentence's punctuation closes the command
            break
    command = rest[:end]
    if command == rest[: launcher.end(1)]:
        return None
    return lead, command, rest[end:]
