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
from logscope.pipeline.parse.parsers import other_lines
from logscope.pipeline.parse.parsers.base import SHELL_PROMPT, BlockReader

_CONTINUED = re.compile(r"\s\\\s*$")
# a shell line that starts a command logscope reads: prompt, assignments, docker/torchrun/python/sglang
_COMMAND_HEAD = re.compile(
    r"^\s*(?:" + SHELL_PROMPT + r")?(?:(?:sudo|nohup|env|exec|time)\s+)*(?:[A-Z_][A-Z0-9_]*=\S*\s*|docker\s+run\b|podman\s+run\b|"
    r"torchrun\b|\S*python3?(?:\.\d+)?\s+-m\s+sglang|sglang\s+serve|uv\s+run\b)"
)
_DOCKER = re.compile(r"^\s*(?:" + SHELL_PROMPT + r")?(?:sudo\s+)?(?:docker|podman)\s+run\s")
# also inside a Markdown code span: "run `python -m sglang.launch_server --tp 2 ...` and it fails"
_LAUNCHER = re.compile(r"(?:^|[\s`])((?:[^\s`]*/)?python3?(?:\.\d+)?\s+-m\s+sglang\.\w+|sglang\s+serve)(?=\s|`|$)")
_TRAILING_ASSIGNMENTS = re.compile(r"(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+)+$")
_TORCHRUN = re.compile(r"(?:^|\s)torchrun\s.*?-m\s+(sglang\.\w+)")


def normalise_command(text: str) -> tuple[str, dict[str, str]] | None:
    """(a command the launch_command grammar reads, environment from docker -e flags), or None when the text
    holds no SGLang launcher."""
    env: dict[str, str] = {}
    command = text
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
    if head.endswith("`"):  # a code span: the command ends where it closes
        closing = command.find("`", launcher.start(1))
        command, head = command[launcher.start(1) : closing if closing >= 0 else len(command)], ""
    if head.strip() and not _COMMAND_HEAD.match(head + "x"):
        # other text before the launcher (a bash -x "+ ", "Running: ", nohup, a log prefix): keep the environment
        # assignments right before it, drop the rest
        assignments = _TRAILING_ASSIGNMENTS.search(head)
        command = (assignments.group(0) if assignments else "") + command[launcher.start(1) :]
    return command, env


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


class ContinuedCommandReader(BlockReader):
    """A command over several lines joined by trailing backslashes."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = (" \\",)

    def starts(self, text: str) -> bool:
        return bool(_CONTINUED.search(text) and _COMMAND_HEAD.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.parts = [_CONTINUED.sub(" ", text)]
        self.finished = False
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.finished:
            return False
        self.parts.append(_CONTINUED.sub(" ", text) if _CONTINUED.search(text) else text)
        self.finished = not _CONTINUED.search(text)
        return True

    def close(self) -> list[Event]:
        joined = " ".join(part.strip() for part in self.parts)
        data = parse_command(joined)
        if data is None:
            return []
        kind = kinds.LAUNCH_COMMAND if data["kind"] != "export" else kinds.ENV_EXPORT
        data["joined_lines"] = [self.first_line, self.first_line + len(self.parts) - 1]
        return [Event(kind, self.source, self.first_line, joined[:300], None, None, data, self.grammar)]
