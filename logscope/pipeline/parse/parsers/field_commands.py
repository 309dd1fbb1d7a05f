"""A launch command given as the value of a field: a compose file's or a Kubernetes manifest's `command:` / `args:` /
`entrypoint:`, a JSON spec's, a Dockerfile's exec form, a script's list of words."""

from __future__ import annotations

import ast
import re
import shlex

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.lazy import lazy_module
from logscope.core.server_flags import known_option
from logscope.pipeline.parse.parsers.base import BlockReader
from logscope.pipeline.parse.parsers.command_shapes import LAUNCHER
from logscope.pipeline.parse.parsers.command_text import parse_command
from logscope.pipeline.parse.parsers.multiline_commands import command_event

# a field of a compose file, a Kubernetes manifest or a JSON spec: "command: sglang serve --tp 4",
# 'command: ["python3", "-m", "sglang.launch_server"]', '"cmd": "python3 -m sglang.launch_server ...",', "- args:"
_FIELD = re.compile(r"""^(\s*)(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*:(?:\s+(.*?))?\s*,?\s*$""")
_ITEM = re.compile(r"^(\s*)-\s+(.*?)\s*$")
# bash reporting a job of a script ("%s: line %d: " then the job's status and command): a script name, no field
_SHELL_JOB_REPORT = re.compile(r"line \d+: ")
# the first word of a launcher given as a list: the interpreter or SGLang's own command
# (or a shell whose -c script is the command: Kubernetes' `command: [bash, -c]` with the script in `args:`; or the
# interpreter's -m, Kubernetes' `args:` after `command: ["python3"]`)
_STARTS_A_LAUNCHER = re.compile(r"^(?:\S*/)?(?:python3?(?:\.\d+)?|sglang|(?:ba|z|da)?sh)$|^-m$")
# the fields that carry on a launcher's words: compose's `entrypoint:` then `command:`, Kubernetes' `command:` then `args:`
# SGLang's CLI program alone, or with its `serve` command, as an `entrypoint:` (compose's `["sglang"]`)
_SGLANG_CLI = re.compile(r"sglang(?: serve)?")
_ARGS_FIELDS = frozenset({"args", "command"})
# the field whose words run before a field's own, when the two are written the other way round (a mapping's keys
# have no order: compose's `command:` over its `entrypoint:`, Kubernetes' `args:` over its `command:`)
_RUNS_BEFORE = {"command": "entrypoint", "args": "command"}
# read only when a field's value is a flow list or a quoted string, which few pastes hold
yaml = lazy_module("yaml")


def _value_words(value: str) -> list[str] | None:
    """The words of a field's value: a flow list's items, a quoted string's shell words, or a plain value's shell
    words (None when the value is not one of these: a block scalar's `|`, a mapping). A value in a Markdown code span
    ("- Launch: `python3 -m sglang.launch_server ... --tp 2`") is the span's text."""
    if len(value) > 2 and value[0] == "`" and value[-1] == "`" and "`" not in value[1:-1]:
        value = value[1:-1]
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
_FOLDED = re.compile(r"^>[-+]?\d?$")
# a Dockerfile's exec form, CMD ["python3", "-m", "sglang.launch_server", ...], and a list of a script's words
# given to a name (cmd = ["python3", "-m", "sglang.launch_server", ...], a subprocess call's argument list)
_DOCKER_EXEC = re.compile(r"^\s*(CMD|ENTRYPOINT|[A-Za-z_]\w*(?=\s*=))\s*=?\s*(\[.*\])\s*$")
# a Python list of a launch's argv opened at a line's end and going on over the lines under it (a launcher script's
# `cmd = [` then `"python3", "-m", "sglang.launch_server",` ... `]`): its items are Python expressions; a string or a
# number is the word, any other expression (a variable, `str(tp)`, an f-string) a word the paste does not show
_PY_LIST_OPEN = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\+?=\s*\[([^\]]*)$")
# the first item of a Python list that launches SGLang: an interpreter, SGLang's CLI, or an expression the paste does
# not show the value of (`sys.executable`)
_PY_LAUNCHER = re.compile(r"^(?:\S*/)?(?:python|sglang)|^\$UNSHOWN$")
# a Python list of more item lines than this is no launcher's argv (a data list, a generated file): its reading stops
_PY_LINES_MAX = 128
_UNSHOWN = "$UNSHOWN"  # a word whose value the paste does not show (read as a shell expansion: no value)


def _python_items(text: str) -> list[str] | None:
    """The words of a line of a Python list's items ("--tp", str(tp),), or None when the line is no such line."""
    body = text.strip().rstrip(",")
    if not body:
        return []
    try:
        tree = ast.parse(f"[{body}]", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # CPython's parser raises RecursionError (MemoryError on some builds) on a deep expression ("-" * 5000 + "1",
        # "~" * 3000 + "x"), ValueError on a NUL: no line of a launcher's argv
        return None
    if not isinstance(tree.body, ast.List):
        return None
    return [
        str(item.value) if isinstance(item, ast.Constant) and isinstance(item.value, str | int | float) else _UNSHOWN
        for item in tree.body.elts
    ]


# a flow list opened on its field's line with its first items and closed on a later line (Kubernetes' `command:
# ["python3", "-m", "sglang.launch_server",` then `"--tp", "2"]`; a Dockerfile's exec form continued by backslashes)
_OPEN_FLOW = re.compile(r"^\s*(CMD|ENTRYPOINT)\s+(\[[^\]]*)$")


def _open_items(value: str) -> list[str] | None:
    """The quoted items of a flow list's first line when the list stays open after them (`["python3", "-m",`), else
    None."""
    body = _without_continuation(value.strip())
    if not body.startswith("[") or "]" in body or len(body) < 2:
        return None
    return _value_words(f"[{body[1:].rstrip().rstrip(',')}]")


def _without_continuation(item: str) -> str:
    """The line without a shell continuation's backslash at its end (and the blanks around it). No regex: a leading
    blank run tried at every blank of a long run between items was quadratic (review14a item 14)."""
    stripped = item.rstrip()
    return stripped[:-1].rstrip() if stripped.endswith("\\") else item


# a list of flags with no launcher (Kubernetes' `args:` under an image whose entrypoint launches SGLang): read when
# at least this many are options of a released ServerArgs, as a command's flags pasted without it are
_FLAGS_MIN = 3


def _flags_only(words: list[str], least: int = _FLAGS_MIN) -> bool:
    """Words that open with an option and whose options are all a released ServerArgs' (at least `least` of them)."""
    options = [w for w in words if w.startswith("--")]
    known = [w for w in options if known_option(w[2:].split("=", 1)[0].replace("-", "_"))]
    return bool(words) and words[0].startswith("--") and len(known) >= least and len(known) == len(options)


def _has_launcher(words: list[str]) -> bool:
    pairs = zip(words, words[1:])
    return any((a == "-m" and b.startswith("sglang.")) or f"{a.rsplit('/', 1)[-1]} {b}" == "sglang serve" for a, b in pairs)


def _script(words: list[str]) -> str | None:
    """An item that is a whole launch command by itself: a shell's -c script (`[bash, -c, "python3 -m ..."]`), the
    one string of an `args:` list."""
    return next((word for word in words if " " in word.strip() and LAUNCHER.search(word)), None)


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
        "= [",  # a Python list opened at the line's end (a launcher script's `cmd = [`)
    )

    def starts(self, text: str) -> bool:
        opened = _PY_LIST_OPEN.match(text)
        if opened is not None:
            first = _python_items(opened.group(2))
            return first is not None and (not first or first[0].rsplit("/", 1)[-1].startswith("python"))
        m = _FIELD.match(text)
        if m is not None and m.group(3) and _SHELL_JOB_REPORT.match(m.group(3)):
            return False
        if m is None:
            exec_form = _DOCKER_EXEC.match(text)
            words = _value_words(exec_form.group(2)) if exec_form else None
            if words is None and (opened_exec := _OPEN_FLOW.match(text)) is not None:
                first_words = _open_items(opened_exec.group(2))
                return first_words is not None and bool(first_words) and _STARTS_A_LAUNCHER.match(first_words[0]) is not None
            return words is not None and _launches(words)
        if m.group(3) and m.group(3) != "[" and (first := _open_items(m.group(3))):
            # a flow list that goes on under its field's line: the launcher's words or flags open it
            return _STARTS_A_LAUNCHER.match(first[0]) is not None or (m.group(2) in _ARGS_FIELDS and first[0].startswith("--"))
        if not m.group(3) or _BLOCK_SCALAR.match(m.group(3)):  # "command:" with its words in the lines under it
            return m.group(2) in ("command", "entrypoint", "args")
        if m.group(3) == "[":  # a JSON / JavaScript array of any field, one quoted item a line: read if they are flags
            return True
        words = _value_words(m.group(3))
        # (fewer flags than a list of flags alone needs are read when the launcher's field comes under them: compose's
        # `command: ["--model-path", "x", "--tp", "2"]` over its `entrypoint:`, Kubernetes' `args: [...]` over its
        # `command:`; close() reads nothing without it)
        if words is None:
            return False
        if _launches(words) or (m.group(2) in _ARGS_FIELDS and _flags_only(words, least=1)):
            return True
        # SGLang's CLI split between the two fields: compose's `entrypoint: ["sglang"]` with `command: ["serve", ...]`
        # (either written first)
        if m.group(2) == "entrypoint":
            return _SGLANG_CLI.fullmatch(" ".join(w.rsplit("/", 1)[-1] for w in words)) is not None
        return m.group(2) == "command" and words[:1] == ["serve"] and _flags_only(words[1:], least=1)

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line, self.text = lineno, text.strip()
        self.sibling_taken = False
        self.after: list[str] = []  # the field's own words when its sibling, written under it, runs before them
        self.taken: list[tuple[int, str]] = []  # the lines under the first: handed back when no launch is read
        self.give_back = False
        self.flow = self.listed = False  # an open flow list; the field's value was one (its name says nothing)
        self.folded: tuple[int, list[str]] | None = None  # an item's folded scalar (`- >`): its indent, its lines
        self.python = False  # a Python list's items (_PY_LIST_OPEN), read as Python expressions
        self.words: list[str] | None
        opened = _PY_LIST_OPEN.match(text)
        if opened is not None:
            self.indent, self.field, self.under, self.sibling_taken = 0, opened.group(1), False, True
            self.flow = self.listed = self.python = True
            self.words = _python_items(opened.group(2)) or []
            return self
        m = _FIELD.match(text)
        opened_flow = _OPEN_FLOW.match(text) if m is None else None
        if m is None and opened_flow is not None and _DOCKER_EXEC.match(text) is None:
            self.indent, self.field, self.under, self.sibling_taken = 0, opened_flow.group(1), False, True
            self.flow = self.listed = True
            self.words = _open_items(opened_flow.group(2)) or []
            return self
        if m is not None and m.group(3) and m.group(3) != "[" and (first := _open_items(m.group(3))):
            self.indent, self.field, self.under = len(m.group(1)), m.group(2), False
            self.flow = self.listed = True
            self.words = first
            return self
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
        took = self._feed(lineno, text)
        if took:
            self.taken.append((lineno, text))
        return took

    def _feed(self, lineno: int, text: str) -> bool:
        if not text.strip():
            return False
        if self.flow:
            return self._flow_item(text.strip())
        indent = len(text) - len(text.lstrip())
        if self.folded is not None:
            if indent > self.folded[0]:
                self.folded[1].append(text.strip())
                return True
            self._end_folded()
        item = _ITEM.match(text)
        if self.under and item is not None and indent >= self.indent and _FOLDED.match(item.group(2)):
            # a list item given as a folded scalar (`args:` then `- >` and the command's lines under it): YAML joins
            # its lines with blanks into one string, the item's one word (YAML 1.2.2, 8.1.3 "Folded Style")
            self.folded = (indent, [])
            return True
        if self.under and item is not None and indent >= self.indent:
            words = _value_words(item.group(2))
            first = not self.words and (self.field not in _ARGS_FIELDS or not (words or [""])[0].startswith("--"))
            if words is not None and len(words) > 1 and _script([_item_text(item.group(2))]):
                words = [_item_text(item.group(2))]  # the shell's script, or the list's one string: a whole command
            elif words is None or len(words) != 1 or (first and not _STARTS_A_LAUNCHER.match(words[0])):
                return False  # a list of something else ("- /bin/app", "- --config"): no line of it is read
            assert self.words is not None
            self.words.append(words[0])
            return True
        field = _FIELD.match(text)
        if field is not None and not text.lstrip().startswith("-") and indent <= self.indent:
            before = _RUNS_BEFORE.get(self.field) == field.group(2) and not _has_launcher(self.words or [])
            if indent < self.indent or self.sibling_taken or self.words is None:
                return False
            if field.group(2) not in _ARGS_FIELDS and not before:
                return False
            self.sibling_taken = True
            if before:  # the launcher's field under the flags' own: its words run first
                self.after, self.words = self.words, []
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
        if self.python:
            closing = item.rstrip().endswith(("]", "])", "]]"))
            words = _python_items(item.rstrip().rstrip(")").rstrip().removesuffix("]") if closing else item)
            if words is None or self.words is None:
                return False
            if not self.words and words and not _PY_LAUNCHER.match(words[0]):
                return False  # a list opened empty whose first item is no interpreter: a list of something else
            if len(self.taken) >= _PY_LINES_MAX:
                # longer than a launcher's argv is: no command's list (every line goes back to the other readers)
                self.words, self.give_back = None, True
                return False
            self.words += words
            self.flow = not closing
            return True
        item = _without_continuation(item)  # a Dockerfile's exec form continued with backslashes
        closing = item.endswith("]") and item[:1] in ('"', "'")  # the last items, then the list's close
        if closing:
            item = item[:-1].rstrip()
        words = _value_words(item.rstrip(",")) if item[:1] in ('"', "'") else None
        if words is None and item[:1] in ('"', "'"):  # several items a line, a flag and its value: "--tp", "2",
            words = _value_words(f"[{item.rstrip(',')}]")
        if words is None or self.words is None:
            return False
        self.flow = not closing
        if not any("{{" in word for word in words):
            self.words += words
        return True

    def _end_folded(self) -> None:
        """The folded scalar item's lines, joined as YAML folds them, are one word of the list."""
        if self.folded is not None and self.folded[1] and self.words is not None:
            self.words.append(" ".join(self.folded[1]))
        self.folded = None

    def handed_back(self) -> list[tuple[int, str]]:
        """A `command:` list of flags alone that no launcher's field came to (compose's `entrypoint:`): its lines go
        back to the other readers."""
        return self.taken if self.give_back else []

    def close(self) -> list[Event]:
        self._end_folded()
        if self.words is not None and self.after:
            self.words += self.after
        if not self.words:
            return []
        script = None if _has_launcher(self.words) else _script(self.words)
        if script is not None:
            data = parse_command(script)
            if data is None:
                return []
            data["field"] = self.field
            return [command_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, script, data)]
        launched = _has_launcher(self.words)
        if not launched and self.python:
            self.give_back = True  # a list of something else, or of flags alone (a program's own arguments)
            return []
        if not launched and not ((self.field == "args" or self.listed) and _flags_only(self.words)):
            # compose's `command:` holds the image's arguments: flags alone are a launch only with a launcher's
            # `entrypoint:` (a list of flags of another engine's image shares many of SGLang's names)
            self.give_back = self.field == "command"
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
            return [command_event(kinds.LAUNCH_COMMAND, self.source, self.first_line, joined, data)]
        data.update(source=kinds.LAUNCH_COMMAND, launcher=None)  # the flags of a launch whose launcher is not shown
        return [command_event(kinds.LAUNCH_FLAGS, self.source, self.first_line, joined, data)]
