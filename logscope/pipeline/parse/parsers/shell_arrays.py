"""A launch whose arguments a bash array holds: `SERVER_ARGS=( --model-path x --tp 8 )`, then
`sglang serve "${SERVER_ARGS[@]}"` (a script's way to keep one flag a line). Read as bash reads it: the array's
words, each one word, stand where `"${NAME[@]}"` expands them (bash 5.2 manual, "Arrays": "${name[@]} expands each
element of name to a separate word"), and the command is read as any launch command. An array that no launch
expands gives nothing; one cut open (its ")" never came) hands the lines under its first back to the other readers.

An array assigned inside a branch of an `if` (bash 5.2 manual, "Conditional Constructs": `if test-commands; then
consequent-commands; fi`) and expanded by a launch outside that `if` may never have been assigned: the text does not
show which branch ran, so no launch is read with it. Where the `if` ends is read from the indentation scripts give
their branches (a convention, not bash's grammar): an assignment indented deeper than the branch's head
(`if ...; then`) is inside the branch, a launch at the head's indentation or less is outside it."""

from __future__ import annotations

import re
import shlex

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.model import TEXT_KEEP
from logscope.pipeline.parse.parsers.base import CONTINUED_LINE, FAILURE_WORDS, BlockReader
from logscope.pipeline.parse.parsers.command_text import parse_command

# "NAME=(", "NAME+=(", "declare -a NAME=(", "local -a NAME=(" with the first words after it or on the lines under it
_ASSIGN = re.compile(r"^\s*(?:(?:declare|local|readonly|typeset)\s+-[A-Za-z]+\s+)?([A-Za-z_]\w*)(\+?)=\(")
_EXPANSION = re.compile(r"(\"?)\$\{([A-Za-z_]\w*)\[@\]\}\1")
_MAX_LINES = 64  # an array left open (its ")" cut off) stops taking lines here
# a record of its own under an array left open: a log line, a traceback, a fence, a blank line, an error: the array
# was cut above it
_RECORD = re.compile(r'^\s*(?:\[\d{4}-\d{2}-\d{2} |\[?\d{2}:\d{2}:\d{2}|Traceback \(|File "|```|$)|' + FAILURE_WORDS)
# the lines an array's body takes under its first: indented, or an option, a quoted word, a variable, a comment, the ")"
_BODY_LINE = re.compile(r"^(?:\s|-|[\"'$#)])")
# a line that prints the words rather than running them
_PRINTS = re.compile(r"^\s*(?:echo|printf)\b")
# the head of an if's (or elif's) branch as scripts write it: "if [ -n "$X" ]; then", "elif ...; then"
_BRANCH_HEAD = re.compile(r"^\s*(?:if|elif)\s.*; then\s*(?:#.*)?$")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


# one token of an array's body as bash reads it: blanks, a comment (a "#" that starts a word), the closing ")", or a
# word: plain characters, escapes, quoted strings and $(...) substitutions (one level of parentheses inside) run together
_TOKEN = re.compile(
    r"""\s+|#[^\n]*|\)|(?:[^\s"'\\$)]|\\.|"(?:[^"\\]|\\.)*"|'[^']*'|\$\((?:[^()]|\([^()]*\))*\)|\$)+|.""", re.DOTALL
)


def _words(body: str) -> tuple[list[str], bool]:
    """The shell words of an array's body up to its closing `)`, and whether the `)` was found."""
    words: list[str] = []
    for m in _TOKEN.finditer(body):
        token = m.group(0)
        if token == ")":
            return words, True
        if not token.isspace() and not token.startswith("#"):
            words.append(_unquoted(token))
    return words, False


def _unquoted(word: str) -> str:
    """A word with its quotes removed, as bash passes it on; a word with a substitution is kept as written."""
    if "$(" in word:
        return word
    try:
        split = shlex.split(word)
    except ValueError:
        return word
    return split[0] if len(split) == 1 else word


class ShellArrayReader(BlockReader):
    """A bash array of a launch's words (kept for the rest of the source), and the launch line that expands it with
    `"${NAME[@]}"` (continued over lines with trailing backslashes), read with the array's words in their place."""

    grammar = kinds.LAUNCH_COMMAND_GRAMMAR
    literals = ("=(", "[@]}", "; then")

    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.arrays: dict[str, list[str]] = {}
        # arrays assigned twice (the branches of an if or a case): the text does not show which assignment ran
        self.ambiguous: set[str] = set()
        self.branch: int | None = None  # the indentation of the if branch's head the lines are in
        self.in_branch: dict[str, int] = {}  # an array assigned inside a branch → the indentation of its head
        self.head = False  # the open block is an if branch's head

    def starts(self, text: str) -> bool:
        if _BRANCH_HEAD.match(text) or _ASSIGN.match(text):
            return True
        names = [m.group(2) for m in _EXPANSION.finditer(text)]
        known = bool(names) and all(self._assigned(name, _indent(text)) for name in names)
        return known and not _PRINTS.match(text) and parse_command(text) is not None

    def _assigned(self, name: str, indent: int) -> bool:
        """The array holds its words where a line at this indentation expands it: assigned once, and not inside a
        branch the line is outside of."""
        head = self.in_branch.get(name)
        return name in self.arrays and name not in self.ambiguous and (head is None or indent > head)

    def open(self, lineno: int, text: str) -> BlockReader:
        """An array's first line, a launch line that expands one, or an if branch's head: a block of its one line that
        gives nothing, read for where the branch begins (a head another reader takes first is not seen)."""
        self.first_line = self.last_line = lineno
        self.head = bool(_BRANCH_HEAD.match(text))
        if self.head:
            self.branch = _indent(text)
        assign = _ASSIGN.match(text)
        self.name = assign.group(1) if assign else None
        self.append = bool(assign and assign.group(2))
        self.lines = [text[assign.end() :] if assign else text]
        self.numbers = [lineno]
        self.finished = self._ended()
        if assign and self.branch is not None:
            if _indent(text) > self.branch:
                self.in_branch[assign.group(1)] = self.branch
            else:  # at the head's indentation or less: past the if's fi
                self.branch = None
        return self

    def _ended(self) -> bool:
        if self.head:
            return True
        if self.name is not None:
            return _words("\n".join(self.lines))[1]
        return not CONTINUED_LINE.search(self.lines[-1])

    def feed(self, lineno: int, text: str) -> bool:
        if self.finished or len(self.lines) >= _MAX_LINES:
            return False
        if self.name is not None and (_RECORD.search(text) or not _BODY_LINE.match(text)):
            return False
        self.lines.append(text)
        self.numbers.append(lineno)
        self.last_line = lineno
        self.finished = self._ended()
        return True

    def handed_back(self) -> list[tuple[int, str]]:
        """An array cut open: the lines under its first were taken as its words only because no ")" came first (an
        indented command, a flag list): they go back to the other readers."""
        if self.name is None or _words("\n".join(self.lines))[1]:
            return []
        return list(zip(self.numbers[1:], self.lines[1:]))

    def close(self) -> list[Event]:
        if self.name is not None:
            words, closed = _words("\n".join(self.lines))
            # cut open (its words not all there), or assigned again (which assignment ran is not shown): no launch
            # is read with it
            if not closed or (not self.append and self.name in self.arrays):
                self.ambiguous.add(self.name)
            self.arrays[self.name] = [*self.arrays.get(self.name, []), *words] if self.append else words
            return []
        if self.head:
            return []
        command = " ".join(CONTINUED_LINE.sub(" ", line).strip() for line in self.lines)
        expanded = _EXPANSION.sub(lambda m: shlex.join(self.arrays[m.group(2)]), command)
        data = parse_command(expanded)
        if data is None:
            return []
        data["joined_lines"] = [self.first_line, self.last_line]
        kind = kinds.LAUNCH_COMMAND if data["kind"] != "export" else kinds.ENV_EXPORT
        return [Event(kind, self.source, self.first_line, command[:TEXT_KEEP], None, None, data, self.grammar)]
