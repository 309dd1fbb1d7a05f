"""Launch commands as people paste them: one command continued over lines with a trailing `\\` (environment
assignments first, flags one per line), `docker run ... -e VAR=value image python3 -m sglang...`, and
`torchrun ... -m sglang.launch_server ...`. The command is joined, the container or launcher prefix turned
into environment and a plain `python -m` launcher, and read by grammars/launch_command.lark."""

from __future__ import annotations

import re
import shlex
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.lazy import lazy_module
from logscope.core.model import TEXT_KEEP
from logscope.core.server_flags import begins_an_option, is_option, known_option, takes, value_type
from logscope.pipeline.parse.parsers import other_lines
from logscope.pipeline.parse.parsers.base import PREFIXED, SHELL_PROMPT, BlockReader

_CONTINUED = re.compile(r"\s\\\s*$")
# the programs that run a command under them (their options and arguments come before it): the environment
# assignments among their words are the launch's, the rest is theirs ("nohup", "numactl --cpunodebind=0",
# "taskset -c 0-31", "env -u X Y=1", "/usr/bin/time -v", "sudo -E")
_WRAPPERS = frozenset(
    {"nohup", "env", "time", "numactl", "taskset", "sudo", "exec", "stdbuf", "nice", "ionice", "chrt", "timeout"}
)
_WRAPPER = r"(?:\S*/)?(?:" + "|".join(sorted(_WRAPPERS)) + r")"
# the programs that run a command in a container, a job or an environment, the command at the end of their words
# ("docker exec -it c python3 -m ...", "srun -N 1 python -m ...", "kubectl exec pod -- python3 -m ...")
_RUNNER = (
    r"(?:(?:docker|podman|kubectl)\s+exec|ray\s+job\s+submit|srun|mpirun|(?:uv|conda|pixi)\s+run"
    r"|(?:apptainer|singularity)\s+(?:exec|run))"
)
_RUNNER_FIRST_WORDS = frozenset(
    {"docker", "podman", "kubectl", "ray", "srun", "mpirun", "uv", "conda", "pixi", "apptainer", "singularity"}
)
_SHELL_OPERATORS = frozenset({"&&", "||", ";", "|", "&"})
# a shell line that starts a command logscope reads: prompt, assignments, docker/torchrun/python/sglang, or a
# wrapper with its options before any of them
_COMMAND_HEAD = re.compile(
    r"^\s*(?:" + SHELL_PROMPT + r")?(?:" + _WRAPPER + r"(?:\s+-\S+)*\s+)*(?:[A-Z_][A-Z0-9_]*=\S*\s*|docker\s+run\b|"
    r"podman\s+run\b|torchrun\b|\S*python3?(?:\.\d+)?\s+-m\s+sglang|sglang\s+serve|uv\s+run\b|(?:numactl|taskset)\s"
    # the interpreter alone on the first line of a continued command ("python \" then "-m sglang.launch_server \")
    r"|\S*python3?(?:\.\d+)?\s+\\\s*$)"
)
_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|[^\s\"'])*")  # one character a step: no backtracking
_HEAD_WORD = re.compile(r"""(?:"[^"]*"|'[^']*'|[^\s"'])+""")
_PROMPT_FIRST = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")")
_DOCKER = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")?(?:sudo\s+)?(?:docker|podman)\s+run\s")
# also inside a Markdown code span: "run `python -m sglang.launch_server --tp 2 ...` and it fails"
_LAUNCHER = re.compile(r"(?:^|[\s`\"'])((?:[^\s`]*/)?python3?(?:\.\d+)?\s+-m\s+sglang\.\w+|sglang\s+serve)(?=\s|`|$)")
# a launcher behind any shell prompt: zsh's "➜  sglang git:(main) ✗ ", "user@host dir % ", "[root@node ~]# ",
# PowerShell's "PS C:\\work> ", starship's "❯ " (the prompt is text up to a prompt sign, or after a leading arrow)
_PROMPT_ANY = r"(?:\([^()\s]+\)\s+)?(?:[➜❯λ»→]\s+(?:\S+\s+){0,3}?(?:[✗✔]\s+)?|(?:\S+\s+){0,4}?\S*[$#%>✗❯➜»]\s+)"
# `python3 -m sglang.<module>`, a path to the interpreter allowed
PYTHON_M_SGLANG = r"(?:[^\s\"'`]*/)?python3?(?:\.\d+)?\s+-m\s+sglang\.\w+"
_ASSIGNMENTS_FIRST = r"(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
_SGLANG_LAUNCHER = r"(?:" + PYTHON_M_SGLANG + r"|sglang\s+serve)"
_LAUNCH_WORDS = _ASSIGNMENTS_FIRST + r"(?:" + _SGLANG_LAUNCHER + r"|torchrun)(?=\s|$)"
# a wrapper or a runner and its words before the launcher ("nohup ", "numactl -N 0 -m 0 ", "docker exec -it box ")
_WRAPPED = r"(?:" + _WRAPPER + r"|" + _RUNNER + r")\s+(?:\S+\s+){0,8}?"
# (under a wrapper or a runner too: "➜  w git:(main) ✗ nohup python3 -m ...")
_UNDER = r"(?:" + _ASSIGNMENTS_FIRST + _WRAPPED + r")?"
_BEHIND_PROMPT = re.compile(r"^\s*(" + _PROMPT_ANY + r")(?:" + _UNDER + _LAUNCH_WORDS + r"|export\s+[A-Z_])")
_TRAILING_ASSIGNMENTS = re.compile(r"(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+)+$")
_TORCHRUN = re.compile(r"(?:^|\s)torchrun\s.*?-m\s+(sglang\.\w+)")
# a continued command flattened onto one line (the line ends lost in a paste): "python3 -m sglang.launch_server \ --tp 4"
_FLAT_CONTINUATION = re.compile(r"\s\\\s+(?=\S)")
# the module run as a script: "python3 /opt/sglang/python/sglang/launch_server.py ...", and under pm2, whose own
# options end at "--": "pm2 start .../sglang/launch_server.py --name sgl -- --model-path ..."
_SCRIPT = re.compile(r"(?:(?<=\s)|^)(?:\S*python3?(?:\.\d+)?\s+)?\S*/sglang/(launch_server|bench_one_batch)\.py(?=\s|$)")
# the module's name run as a command ("`sglang.launch_server --model-path ... --tp 4`", as a script's line has it):
# not a command a shell runs, but the options are the user's; read only where options follow it
_BARE_MODULE = re.compile(r"(?:(?<=[\s`\"'])|^)sglang\.(launch_server|bench_one_batch)(?=\s+--\w)")
_PM2_OPTIONS = re.compile(r"^(python -m sglang\.\w+)\s(?:.*?\s)?--(?=\s)")


# a launch command as a line of its own, not at its start: as a list item's text ("- python3 -m ..."), after another
# command and a shell operator ("cd /work && python3 -m ...", "source .venv/bin/activate; python3 -m ..."), or run
# under a wrapper or a runner ("numactl --cpunodebind=0 python3 -m ...", "docker exec -it c python3 -m ...")
_COMMAND_LINE = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+|[^&;|`]{1,200}?(?:\s&&|\s\|\||;)\s+|"
    + _WRAPPED
    + r")`?"
    + _ASSIGNMENTS_FIRST
    + _SGLANG_LAUNCHER
    + r"\s+-"
)
# a launch command after a label or a lead-in that ends in a colon: "The start command is:  python3 -m ...",
# "Command: sglang serve ...", "启动命令：python3 -m ..." (the command is the rest of the line; the lead-in is prose)
_AFTER_LABEL = re.compile(r"^([^:：`'\"]{0,120}[:：])\s*(" + _ASSIGNMENTS_FIRST + _SGLANG_LAUNCHER + r"\s+-.*)$")


def command_line(text: str) -> bool:
    """A launch command as a list item, after another command, or under a wrapper: a command, not prose."""
    return bool(_COMMAND_LINE.match(text))


def after_label(text: str) -> tuple[str, str] | None:
    """(the lead-in, the launch command after it) when a label or a lead-in ending in a colon comes before a launch
    command, else None."""
    m = _AFTER_LABEL.match(text)
    return (m.group(1), m.group(2)) if m else None


def behind_prompt(text: str) -> bool:
    """A launch command or an export behind a shell prompt of any shape (the prompt is no part of the command)."""
    return bool(_BEHIND_PROMPT.match(text))


def bare_module(text: str) -> bool:
    """The module's name used as a command, options after it (`sglang.launch_server --tp 4`)."""
    return bool(_BARE_MODULE.search(text))


def without_prompt(text: str) -> str:
    """The command after a shell prompt of any shape; the text itself when it holds none."""
    m = _BEHIND_PROMPT.match(text)
    return text[m.end(1) :] if m else text


def normalise_command(text: str) -> tuple[str, dict[str, str]] | None:
    """(a command the launch_command grammar reads, environment from docker -e flags), or None when the text
    holds no SGLang launcher."""
    env: dict[str, str] = {}
    command = _FLAT_CONTINUATION.sub(" ", text) if " \\ " in text else text
    script = _SCRIPT.search(command)
    if script:
        pm2 = "pm2 " in command[: script.start()]
        command = f"{command[: script.start()]}python -m sglang.{script.group(1)}{command[script.end() :]}"
        if pm2:
            at = command.find("python -m sglang.")
            command = command[:at].replace("pm2 start ", "") + _PM2_OPTIONS.sub(r"\1", command[at:])
    bare = _BARE_MODULE.search(command) if not _LAUNCHER.search(command) else None
    if bare:
        command = f"{command[: bare.start()]}python -m sglang.{bare.group(1)}{command[bare.end() :]}"
    torchrun = _TORCHRUN.search(command)
    if torchrun:
        prefix = command[: torchrun.start()]
        rest = command[torchrun.end() :]
        command = f"{prefix} python -m {torchrun.group(1)}{rest}"
    if _DOCKER.match(command):
        launcher = _LAUNCHER.search(command)
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
    launcher = _LAUNCHER.search(command)
    if launcher is None:
        return None
    head = command[: launcher.start(1)]
    if head[-1:] in ("`", '"', "'"):  # a code span or a quoted string: the command ends where it closes
        closing = command.find(head[-1], launcher.start(1))
        command, head = command[launcher.start(1) : closing if closing >= 0 else len(command)], ""
    if head.strip():
        shell = _shell_head(head)
        if shell is None:
            # other text before the launcher (a bash -x "+ ", "Running: ", a log prefix): keep the environment
            # assignments right before it, drop the rest
            assignments = _TRAILING_ASSIGNMENTS.search(head)
            shell = assignments.group(0) if assignments else ""
        command = shell + command[launcher.start(1) :]
    launcher = _LAUNCHER.search(command)
    return (command if launcher is None else _up_to_its_end(command, launcher.end(1))), env


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
        elif word.rsplit("/", 1)[-1] in _WRAPPERS or (not wrapped and word in _RUNNER_FIRST_WORDS):
            wrapped = True
        elif not wrapped:
            return None
    return (prompt.group(0) if prompt else "") + "".join(word + " " for word in kept)


# a redirection at a word's start: "2>&1", ">log.txt", "> log.txt", ">> out", "&> all.log" ("<" is left alone: "<model>"
# is how documents write a placeholder)
_REDIRECTION = re.compile(r"(?:\d+|&)?>>?(?:&\d*-?|\s*(?:\"[^\"]*\"|'[^']*'|[^\s;&|])+)?")


def _up_to_its_end(command: str, start: int) -> str:
    """The command up to where the shell ends it (an unquoted `|`, `;`, `&`, `&&`, `||` or `#` comment), its output
    redirections taken out: `... --disable-cuda-graph 2>&1 &`, `... | tee log`, `... > server.log 2>&1`. Quoted text
    and `$(...)` are passed over whole."""
    out = [command[:start]]
    quote = ""
    depth = 0
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
            quote = char
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
        out.append(char)
        at += 1
    return "".join(out).rstrip()


def parse_command(text: str) -> dict[str, Any] | None:
    """A launch command (docker and torchrun forms too) → {'env', 'args', 'kind'}."""
    normalised = normalise_command(text)
    if normalised is None:
        return None
    command, docker_env = normalised
    data = other_lines.parse_launch_command(command)
    if data is None:
        return None
    data["env"] = {**docker_env, **data["env"]}
    return data


# a line of a script commented out ("# CUDA_LAUNCH_BLOCKING=1 \\", "#   --enable-foo \\"): no part of the command; at a
# command's first line, "# " before assignments alone is a comment (before a launcher, a root shell's prompt)
_COMMENT = re.compile(r"^\s*#")
_COMMENTED_ASSIGNMENTS = re.compile(r"^\s*#\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)+\\\s*$")


_FULL_KEEP = 4000


def _event(kind: str, source: str, line: int, command: str, data: dict[str, Any]) -> Event:
    """A command read over several lines, its text kept whole as a line's is (a docker image's tag may come after the
    first TEXT_KEEP characters)."""
    if len(command) > TEXT_KEEP:
        data["full_text"] = command[:_FULL_KEEP]
    return Event(kind, source, line, command[:TEXT_KEEP], None, None, data, kinds.LAUNCH_COMMAND_GRAMMAR)


class ContinuedCommandReader(BlockReader):
    """A command over several lines joined by trailing backslashes; lines commented out among them (a script's
    `# CUDA_LAUNCH_BLOCKING=1 \\`) are left out, as the shell leaves them."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = (" \\",)

    def starts(self, text: str) -> bool:
        return bool(_CONTINUED.search(text) and (_COMMAND_HEAD.match(text) or _BEHIND_PROMPT.match(text)))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = self.last_line = lineno
        self.parts = [] if _COMMENTED_ASSIGNMENTS.match(text) else [_CONTINUED.sub(" ", text)]
        self.finished = False
        return self

    def feed(self, lineno: int, text: str) -> bool:
        next_line = lineno == self.last_line + 1  # a blank line between: no terminal cut joins across it
        cut = self.finished and bool(self.parts) and next_line and _flag_cut_between(self.parts[-1].rstrip(), text.strip())
        if self.finished and not cut:
            return False
        self.last_line = lineno
        if self.parts and _COMMENT.match(text):
            # a comment once the command began ends it, as bash does (its backslash is part of the comment): the
            # lines after it are another command
            self.finished = True
            return True
        self.finished = not _CONTINUED.search(text)
        piece = _CONTINUED.sub(" ", text) if not self.finished else text
        if cut:  # the terminal cut a flag's name at the end of the last line (no backslash there): its rest is here
            self.parts[-1] = self.parts[-1].rstrip() + piece.strip() + " "
        elif not _COMMENT.match(text):
            self.parts.append(piece)
        return True

    def close(self) -> list[Event]:
        joined = " ".join(part.strip() for part in self.parts)
        data = parse_command(joined)
        if data is None:
            return []
        kind = kinds.LAUNCH_COMMAND if data["kind"] != "export" else kinds.ENV_EXPORT
        data["joined_lines"] = [self.first_line, self.last_line]
        return [_event(kind, self.source, self.first_line, joined, data)]


# a launcher cut after "-m" at a line's end ("pip3 install mooncake-transfer-engine && python3 -m"), its module next
_SPLIT_LAUNCHER = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?python3?(?:\.\d+)?\s+-m\s*$")
_OPTION_AT_END = re.compile(r"(?:^|\s)(--[\w-]+)\s*$")
_WRAPPED_MAX_LINES = 40


def _option_at_end(text: str) -> str | None:
    """The flag (as read: `port`) of an option that ends the text and takes a value it does not give."""
    option = _OPTION_AT_END.search(text)
    flag = option.group(1)[2:].replace("-", "_") if option else None
    return flag if flag is not None and takes(flag) in ("one", "many") else None


def _wants_more(text: str) -> bool:
    """A command line cut where a word must follow: after "python -m", or after an option that takes a value
    (as the released argparse reads it) with none after it."""
    return bool(_SPLIT_LAUNCHER.search(text)) or _option_at_end(text) is not None


_NUMBER_WORD = re.compile(r"^(?:-?\d+(?:\.\d+)?|\$\S+)$")


def _gives_the_value(text: str, line: str) -> bool:
    """The line's first word can be the value the text's last option waits for: a number (or a shell variable) for
    an int or float option, any word for another."""
    flag = _option_at_end(text)
    words = line.split()
    return flag is None or (bool(words) and (value_type(flag) is None or bool(_NUMBER_WORD.match(words[0]))))


_LAST_WORD = re.compile(r"(?:^|\s)(-[\w-]*)$")


def _cut_flag(text: str) -> bool:
    """The text ends in the start of a server flag's name, not a whole one (`... --nnodes 2 --node-r`)."""
    last = _LAST_WORD.search(text.rstrip())
    return last is not None and begins_an_option(last.group(1))


def _flag_cut_between(text: str, line: str) -> bool:
    """The text's last word and the line's first word are one server flag cut in two at a terminal's width (`--dp-`
    then `size 8`): together, and only together, they are an option of a released ServerArgs."""
    if not _cut_flag(text) or not line.split():
        return False
    last = text.rsplit(None, 1)[-1]
    return is_option((last + line.split(None, 1)[0]).split("=", 1)[0])


class WrappedCommandReader(BlockReader):
    """A command hard-wrapped with no backslashes (a terminal, an issue editor, a chat client): a launcher line cut
    where a word must follow (`... --model-path` then the path on the next line, `python3 -m` then
    `sglang.launch_server ...`) goes on over the lines that give that word or start with an option, up to a line
    that is neither; the lines are joined with spaces and read as one command."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = ("sglang.", "sglang serve", " -m")

    def starts(self, text: str) -> bool:
        if _CONTINUED.search(text) or not (_wants_more(text) or _cut_flag(text)):
            return False
        return bool(_SPLIT_LAUNCHER.search(text) or _COMMAND_HEAD.match(text) or _BEHIND_PROMPT.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = self.last_line = lineno
        self.parts = [text.strip()]
        return self

    def feed(self, lineno: int, text: str) -> bool:
        stripped = text.strip()
        if not stripped or PREFIXED.match(text) or len(self.parts) >= _WRAPPED_MAX_LINES:
            return False
        joined = " ".join(self.parts)
        if _SPLIT_LAUNCHER.search(joined) and not stripped.startswith("sglang."):
            return False
        if lineno == self.last_line + 1 and _flag_cut_between(joined, stripped):  # "--node-r" / "ank 0": a cut name
            self.parts[-1] += _CONTINUED.sub(" ", stripped).strip()
            self.last_line = lineno
            return True
        if stripped.startswith("--") and known_option(stripped.split()[0][2:].split("=")[0]):
            pass  # an option: the command goes on
        elif not (_wants_more(joined) and _gives_the_value(joined, stripped)):
            return False
        self.parts.append(_CONTINUED.sub(" ", stripped).strip())
        self.last_line = lineno
        return True

    def close(self) -> list[Event]:
        joined = " ".join(self.parts)
        data = parse_command(without_prompt(joined))
        if data is None or data["kind"] == "export":
            return []
        data["joined_lines"] = [self.first_line, self.last_line]
        return [_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, joined, data)]


# a field of a compose file, a Kubernetes manifest or a JSON spec: "command: sglang serve --tp 4",
# 'command: ["python3", "-m", "sglang.launch_server"]', '"cmd": "python3 -m sglang.launch_server ...",', "- args:"
_FIELD = re.compile(r"""^(\s*)(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*:(?:\s+(.*?))?\s*,?\s*$""")
_ITEM = re.compile(r"^(\s*)-\s+(.*?)\s*$")
# the first word of a launcher given as a list: the interpreter or SGLang's own command
# (or a shell whose -c script is the command: Kubernetes' `command: [bash, -c]` with the script in `args:`; or the
# interpreter's -m, Kubernetes' `args:` after `command: ["python3"]`)
_STARTS_A_LAUNCHER = re.compile(r"^(?:\S*/)?(?:python3?(?:\.\d+)?|sglang|(?:ba|z|da)?sh)$|^-m$")
# the fields that carry on a launcher's words: compose's `entrypoint:` then `command:`, Kubernetes' `command:` then `args:`
_ARGS_FIELDS = frozenset({"args", "command"})
# read only when a field's value is a flow list or a quoted string, which few pastes hold
yaml = lazy_module("yaml")


def _value_words(value: str) -> list[str] | None:
    """The words of a field's value: a flow list's items, a quoted string's shell words, or a plain value's shell
    words (None when the value is not one of these: a block scalar's `|`, a mapping)."""
    if value.startswith(("[", '"', "'")):
        try:
            loaded = yaml.safe_load(value)
        except yaml.YAMLError:
            return None
        if isinstance(loaded, list):
            return [str(item) for item in loaded if isinstance(item, str | int | float)]
        if not isinstance(loaded, str):
            return None
        value = loaded
    if value[:1] in ("|", ">", "{", "&", "*"):
        return None
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _item_text(value: str) -> str:
    """A list item's value as one string: a quoted scalar unquoted, a plain one as written."""
    if value[:1] in ('"', "'"):
        try:
            loaded = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return loaded if isinstance(loaded, str) else value
    return value


# a block scalar's indicator: the value is the lines under the field ("command: >" then the command's lines)
_BLOCK_SCALAR = re.compile(r"^[>|][-+]?$")
# a Dockerfile's exec form, CMD ["python3", "-m", "sglang.launch_server", ...], and a list of a script's words
# given to a name (cmd = ["python3", "-m", "sglang.launch_server", ...], a subprocess call's argument list)
_DOCKER_EXEC = re.compile(r"^\s*(CMD|ENTRYPOINT|[A-Za-z_]\w*(?=\s*=))\s*=?\s*(\[.*\])\s*$")
# a list of flags with no launcher (Kubernetes' `args:` under an image whose entrypoint launches SGLang): read when
# at least this many are options of a released ServerArgs, as a command's flags pasted without it are
_FLAGS_MIN = 3


def _flags_only(words: list[str]) -> bool:
    options = [w for w in words if w.startswith("--")]
    known = [w for w in options if known_option(w[2:].split("=", 1)[0].replace("-", "_"))]
    return bool(words) and words[0].startswith("--") and len(known) >= _FLAGS_MIN and len(known) == len(options)


def _has_launcher(words: list[str]) -> bool:
    pairs = zip(words, words[1:])
    return any((a == "-m" and b.startswith("sglang.")) or f"{a.rsplit('/', 1)[-1]} {b}" == "sglang serve" for a, b in pairs)


def _script(words: list[str]) -> str | None:
    """An item that is a whole launch command by itself: a shell's -c script (`[bash, -c, "python3 -m ..."]`), the
    one string of an `args:` list."""
    return next((word for word in words if " " in word.strip() and _LAUNCHER.search(word)), None)


def _launches(words: list[str]) -> bool:
    return _has_launcher(words) or _script(words) is not None


class FieldCommandReader(BlockReader):
    """A launch command given as the value of a field (compose, Kubernetes, a JSON spec, a Dockerfile's exec form):
    inline, as a flow list, as a block list of items or a block scalar (`command: >`), and carried on by its sibling
    `args:` / `command:` field (Kubernetes' command + args, compose's entrypoint + command) or by the plain lines of a
    multi-line value. The words are joined as the shell would quote them and read as any launch command; an `args:`
    list of flags alone (the image's entrypoint launches SGLang) is read as a command's flags without it."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = (
        "sglang.launch_server",
        "sglang serve",
        "-m sglang.",
        '"sglang.',
        "'sglang.",
        "command:",
        "entrypoint:",
        # indented, as Kubernetes' args are: a literal with a space first is never a line's head (no record of its own)
        " args:",
        ' "args":',
        "CMD [",
        "ENTRYPOINT [",
        ": [",  # a flow list opened at the line's end: its items in the lines under it
    )

    def starts(self, text: str) -> bool:
        m = _FIELD.match(text)
        if m is None:
            exec_form = _DOCKER_EXEC.match(text)
            words = _value_words(exec_form.group(2)) if exec_form else None
            return words is not None and _launches(words)
        if not m.group(3) or _BLOCK_SCALAR.match(m.group(3)):  # "command:" with its words in the lines under it
            return m.group(2) in ("command", "entrypoint", "args")
        if m.group(3) == "[":  # a JSON / JavaScript array of any field, one quoted item a line: read if they are flags
            return True
        words = _value_words(m.group(3))
        return words is not None and (_launches(words) or (m.group(2) == "args" and _flags_only(words)))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line, self.text = lineno, text.strip()
        self.sibling_taken = False
        self.flow = self.listed = False  # an open flow list; the field's value was one (its name says nothing)
        m = _FIELD.match(text)
        if m is None:  # a Dockerfile's CMD / ENTRYPOINT, a script's list
            exec_form = _DOCKER_EXEC.match(text)
            assert exec_form is not None
            self.indent, self.field, self.under = 0, exec_form.group(1), False
            self.words = _value_words(exec_form.group(2))
            self.sibling_taken = True
            return self
        self.indent, self.field = len(m.group(1)), m.group(2)
        self.flow = self.listed = m.group(3) == "["
        if self.flow:
            self.words, self.under = [], False
            return self
        value = m.group(3) if m.group(3) and not _BLOCK_SCALAR.match(m.group(3)) else None
        self.words = _value_words(value) if value else []
        self.under = not value  # the words go on in the lines under the field
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if not text.strip():
            return False
        if self.flow:
            return self._flow_item(text.strip())
        indent = len(text) - len(text.lstrip())
        item = _ITEM.match(text)
        if self.under and item is not None and indent >= self.indent:
            words = _value_words(item.group(2))
            first = not self.words and (self.field != "args" or not (words or [""])[0].startswith("--"))
            if words is not None and len(words) > 1 and _script([_item_text(item.group(2))]):
                words = [_item_text(item.group(2))]  # the shell's script, or the list's one string: a whole command
            elif words is None or len(words) != 1 or (first and not _STARTS_A_LAUNCHER.match(words[0])):
                return False  # a list of something else ("- /bin/app", "- --config"): no line of it is read
            assert self.words is not None
            self.words.append(words[0])
            return True
        field = _FIELD.match(text)
        if field is not None and not text.lstrip().startswith("-") and indent <= self.indent:
            if indent < self.indent or self.sibling_taken or field.group(2) not in _ARGS_FIELDS or self.words is None:
                return False
            self.sibling_taken = True
            self.under = not field.group(3)
            words = _value_words(field.group(3)) if field.group(3) else []
            if words is None:
                return False
            self.words += words
            return True
        if self.under and indent > self.indent and item is None and self.words is not None:
            try:  # a plain value over several lines: "--model-path x" then "--port 30000"
                self.words += shlex.split(text)
            except ValueError:
                self.words += text.split()
            return True
        return False

    def _flow_item(self, item: str) -> bool:
        """One line of an open flow list: a quoted item ("--mem-fraction-static 0.92",), its words as the shell
        splits them; the closing bracket ends the list. An item holding a template's {{PLACEHOLDER}} gives no value."""
        if item.startswith("]"):
            self.flow = False
            return True
        words = _value_words(item.rstrip(",")) if item[:1] in ('"', "'") else None
        if words is None and item[:1] in ('"', "'"):  # several items a line, a flag and its value: "--tp", "2",
            words = _value_words(f"[{item.rstrip(',')}]")
        if words is None or self.words is None:
            return False
        if not any("{{" in word for word in words):
            self.words += words
        return True

    def close(self) -> list[Event]:
        if not self.words:
            return []
        script = None if _has_launcher(self.words) else _script(self.words)
        if script is not None:
            data = parse_command(script)
            if data is None:
                return []
            data["field"] = self.field
            return [_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, script, data)]
        launched = _has_launcher(self.words)
        if not launched and not ((self.field == "args" or self.listed) and _flags_only(self.words)):
            return []
        joined = shlex.join(self.words)
        # the interpreter's arguments alone: Kubernetes' `args: ["-m", "sglang.launch_server", ...]`, whose
        # `command:` (the interpreter) is not shown
        interpreter = "python " if self.words[0] == "-m" else ""
        data = parse_command(f"{interpreter}{joined}" if launched else f"python -m sglang.launch_server {joined}")
        if data is None:
            return []
        data["field"] = self.field
        if launched:
            return [_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, joined, data)]
        data.update(source=kinds.LAUNCH_COMMAND, launcher=None)  # the flags of a launch whose launcher is not shown
        return [_event(kinds.LAUNCH_FLAGS, self.source, self.first_line, joined, data)]
