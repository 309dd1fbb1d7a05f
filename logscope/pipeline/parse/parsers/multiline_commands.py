"""A launch command over several lines: continued by trailing backslashes (assignments first, flags one per line,
lines commented out among them), or hard-wrapped with none (a terminal, an issue editor, a chat client)."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import TEXT_KEEP
from logscope.core.server_flags import known_option
from logscope.pipeline.parse.parsers.base import CONTINUED_LINE, PREFIXED, BlockReader
from logscope.pipeline.parse.parsers.command_cuts import (
    SPLIT_LAUNCHER,
    cut_flag,
    flag_cut_between,
    flags_only,
    gives_the_value,
    wants_more,
)
from logscope.pipeline.parse.parsers.command_shapes import COMMAND_HEAD, LAUNCHER, behind_prompt, without_prompt
from logscope.pipeline.parse.parsers.command_text import parse_command

_CONTINUED = re.compile(r"\s\\\s*$")
# a line of a script commented out ("# CUDA_LAUNCH_BLOCKING=1 \\", "#   --enable-foo \\"): no part of the command; at a
# command's first line, "# " before assignments alone is a comment (before a launcher, a root shell's prompt)
_COMMENT = re.compile(r"^\s*#")
_COMMENTED_ASSIGNMENTS = re.compile(r"^\s*#\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)+\\\s*$")
_WRAPPED_MAX_LINES = 40


_FULL_KEEP = 4000


def command_event(kind: str, source: str, line: int, command: str, data: dict[str, Any]) -> Event:
    """A command read over several lines, its text kept whole as a line's is (a docker image's tag may come after the
    first TEXT_KEEP characters)."""
    if len(command) > TEXT_KEEP:
        data["full_text"] = command[:_FULL_KEEP]
    return Event(kind, source, line, command[:TEXT_KEEP], None, None, data, kinds.LAUNCH_COMMAND_GRAMMAR)


# a note after a line's backslash ("--tp 4 \\  # was 8"): bash ends the command there; the lines below are shown as the
# same command only when they read as its further arguments (NOTED_GOES_ON)
_NOTED = re.compile(r"(?<!\\)\\\s+#.*$")


def noted_goes_on(text: str) -> bool:
    """The line after a noted backslash continues the command: an option, or an indented line, that is no command of
    its own (a script's next command after `launch_server ... \\  # the server` is another command, as bash reads it)."""
    if COMMAND_HEAD.match(text) or behind_prompt(text):
        return False
    return text.lstrip().startswith("-") or text[:1] in (" ", "\t")


def _flags_after_the_value(text: str) -> bool:
    """The words after the line's first (a value) are flags alone, or there are none: a command's line, no sentence."""
    words = _CONTINUED.sub(" ", text).strip().split(None, 1)
    return len(words) < 2 or flags_only(words[1])


class ContinuedCommandReader(BlockReader):
    """A command over several lines joined by trailing backslashes; lines commented out among them (a script's
    `# CUDA_LAUNCH_BLOCKING=1 \\`) are left out, as the shell leaves them."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    # a launcher's line continued with no blank before its backslash ("... --tp 8\\") holds a launcher's literal
    literals = (" \\", "sglang.", "sglang serve")

    def starts(self, text: str) -> bool:
        return bool(CONTINUED_LINE.search(text) and (COMMAND_HEAD.match(text) or behind_prompt(text)))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = self.last_line = lineno
        self.parts = [] if _COMMENTED_ASSIGNMENTS.match(text) else [CONTINUED_LINE.sub(" ", text)]
        self.finished = False
        self.noted = bool(_NOTED.search(text))  # its backslash has a note after it
        self.ended_on_words = False  # the command's last line gave words (no comment ended it)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        next_line = lineno == self.last_line + 1  # a blank line between: no terminal cut joins across it
        cut = self.finished and bool(self.parts) and next_line and flag_cut_between(self.parts[-1].rstrip(), text.strip())
        # the command's last line cut after an option that takes a value (`--mem-fraction-static` with no backslash
        # after it, its value on the next line: a terminal's or an editor's wrap): the value's line goes on with it
        valued = (
            self.finished
            and self.ended_on_words
            and bool(self.parts)
            and next_line
            and wants_more(self.parts[-1].rstrip())
            and not SPLIT_LAUNCHER.search(self.parts[-1])
            and not text.lstrip().startswith("-")
            and gives_the_value(self.parts[-1].rstrip(), text.strip())
            and _flags_after_the_value(text)
        )
        if self.finished and not cut and not valued:
            return False
        if self.noted and not noted_goes_on(text):  # bash ended the command at the note: this line is none of it
            self.finished = True
            return False
        self.last_line = lineno
        self.noted = bool(_NOTED.search(text))
        if self.parts and _COMMENT.match(text):
            # a comment once the command began ends it, as bash does (its backslash is part of the comment): the
            # lines after it are another command
            self.finished, self.ended_on_words = True, False
            return True
        self.ended_on_words = not _COMMENT.match(text)
        self.finished = not CONTINUED_LINE.search(text)
        piece = CONTINUED_LINE.sub(" ", text) if not self.finished else text
        if cut:  # the terminal cut a flag's name at the end of the last line (no backslash there): its rest is here
            self.parts[-1] = self.parts[-1].rstrip() + piece.strip() + " "
        elif not _COMMENT.match(text):
            self.parts.append(piece)
        return True

    def close_at_end(self, open_fence: bool) -> list[Event]:
        """The copy was cut (it ended inside a code block never closed) right after the command's last line: that
        line may be cut inside its last word (`--model-path za`), which is not read."""
        if open_fence and self.finished and self.ended_on_words and len(self.parts) > 1:
            self.parts[-1] = self.parts[-1].rstrip().rpartition(" ")[0]
        return self.close()

    def close(self) -> list[Event]:
        joined = " ".join(part.strip() for part in self.parts)
        data = parse_command(joined)
        if data is None:
            return []
        kind = kinds.LAUNCH_COMMAND if data["kind"] != "export" else kinds.ENV_EXPORT
        data["joined_lines"] = [self.first_line, self.last_line]
        return [command_event(kind, self.source, self.first_line, joined, data)]


# the launchers that take server arguments (grammars/launch_command.lark's MODULE and SGLang's CLI), not every module
# run with -m (`python3 -m sglang.check_env` alone on its line is a whole command)
_TAKES_SERVER_ARGS = re.compile(
    r"sglang\.(?:launch_server|bench_one_batch|bench_offline_throughput|serve|compile_deep_gemm)$|sglang\s+(?:serve|generate)$"
    r"|dynamo\.sglang(?:\.(?:worker|decode_worker))?$|sglang_router\.launch_server$"
)


def _launcher_alone(text: str) -> bool:
    """The launcher on a line of its own, no option after it (`python3 -m sglang.launch_server`, then a flag a line
    with no backslashes: a command written over lines, or one whose backslashes a copy of a rendered page lost)."""
    launcher = LAUNCHER.search(text)
    return (
        launcher is not None
        and not text[launcher.end() :].strip(" `")
        and _TAKES_SERVER_ARGS.search(launcher.group(1)) is not None
    )


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?=\S)")


class WrappedCommandReader(BlockReader):
    """A command hard-wrapped with no backslashes (a terminal, an issue editor, a chat client): a launcher line cut
    where a word must follow (`... --model-path` then the path on the next line, `python3 -m` then
    `sglang.launch_server ...`) goes on over the lines that give that word or start with an option, up to a line
    that is neither; the lines are joined with spaces and read as one command."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = ("sglang.", "sglang serve", " -m")

    def starts(self, text: str) -> bool:
        if CONTINUED_LINE.search(text) or not (wants_more(text) or cut_flag(text) or _launcher_alone(text)):
            return False
        if _LIST_ITEM.match(text):  # a list item's text: "* python3 -m sglang.launch_server" then its flags indented
            text = _LIST_ITEM.sub("", text, count=1)
        return bool(SPLIT_LAUNCHER.search(text) or COMMAND_HEAD.match(text) or behind_prompt(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = self.last_line = lineno
        self.parts = [_LIST_ITEM.sub("", text, count=1).strip()]
        return self

    def feed(self, lineno: int, text: str) -> bool:
        stripped = text.strip()
        if not stripped or PREFIXED.match(text) or len(self.parts) >= _WRAPPED_MAX_LINES:
            return False
        joined = " ".join(self.parts)
        if SPLIT_LAUNCHER.search(joined) and not stripped.startswith("sglang."):
            return False
        if lineno == self.last_line + 1 and flag_cut_between(joined, stripped):  # "--node-r" / "ank 0": a cut name
            self.parts[-1] += _CONTINUED.sub(" ", stripped).strip()
            self.last_line = lineno
            return True
        if stripped.startswith("--") and known_option(stripped.split()[0][2:].split("=")[0]):
            if not flags_only(_CONTINUED.sub(" ", stripped)):
                return False  # a sentence that opens with an option ("--port 30000 is the default, ..."): no flag line
        elif not (wants_more(joined) and gives_the_value(joined, stripped)):
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
        return [command_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, joined, data)]
