"""One catalogued message template (catalog/sglang.json: an f-string, a printf format or plain text) as a search
pattern over a printed line: its literal text exact, each placeholder a named field, found anywhere in the line
(after any prefix, inside a sentence). The upstream catalogue (core/upstream.py) indexes the templates; this module
only turns one template into its pattern and reads a match's fields back as typed values."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_PRINTF = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d+)?([sdifrxgeEu])")
# a number as Python prints one: an int, a float, an exponent, and nan / inf
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)"
# a placeholder at the end of a template, inside a sentence: one word-like value, without the sentence's punctuation
_TRAILING = r"[^\s]{0,200}[^\s.,;:!?'\"]"
_CHOICE = re.compile(r"""^\s*(['"])(.*?)\1\s+if\s+.+\s+else\s+(['"])(.*?)\3\s*$""")
# the key printed before a value: two words where they start a clause ("K size: ", ". avail mem="), else one
_KEY_BEFORE = re.compile(r"(?:^|[,.;(\[]\s*)([A-Za-z_#][\w#]*(?: [A-Za-z_]\w*)?)\s*[=:]\s*$|([A-Za-z_#][\w#]*)\s*[=:]\s*$")
_UNIT_AFTER = re.compile(r"\s*(GB|GiB|MB|MiB|KB|KiB|TB|TiB|bytes|ms|s)\b")
_CHAIN = re.compile(r"[A-Za-z_][\w.]*")
_NOT_NAMES = {"self", "len", "int", "float", "str", "round", "max", "min", "sum", "repr", "type", "list", "tuple"}
_NOT_NAMES |= {"dict", "set", "sorted", "bool", "abs", "getattr", "math", "torch", "os", "None", "True", "False"}


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    numeric: bool  # its format spec prints a number
    unit: str | None  # the unit the template prints after it (" GB", " s"), as printed


@dataclass(frozen=True, slots=True)
class Pattern:
    """A template's search pattern: `regex` finds it anywhere in a line; group i+1 is fields[i]; `trailing` when its
    last piece is a placeholder (a value that runs to the line's end when the template starts the message)."""

    regex: re.Pattern[str]
    fields: tuple[Field, ...]
    trailing: bool
    steps: tuple[tuple[str, bool], ...]  # its regex pieces in order, True for a field's (one word each): cut_regex's

    def cut_regex(self, fields: int) -> re.Pattern[str]:
        """The template cut after its first `fields` fields where the writer put an ellipsis ("x=1, y=2, ... means"):
        its pieces up to that field, then the ellipsis."""
        return _cut(self.steps, fields)


_ELLIPSIS = r"\s*,?\s*(?:\.\.\.|\u2026)"


@lru_cache(maxsize=256)
def _cut(steps: tuple[tuple[str, bool], ...], fields: int) -> re.Pattern[str]:
    out: list[str] = []
    for piece, is_field in steps:
        out.append(piece)
        if is_field:
            fields -= 1
            if not fields:
                break
    return re.compile("".join(out) + _ELLIPSIS)


def pieces(template: str, style: str) -> list[str | tuple[str, str, str]]:
    """The template's literal text and its placeholders ((expression, conversion, format spec)), in order."""
    if style in ("f", "format") and "{" in template:
        return _fstring_pieces(template)
    if "%" in template and (style == "%" or _PRINTF.search(template.replace("%%", ""))):
        out: list[str | tuple[str, str, str]] = []
        pos = 0
        for m in _PRINTF.finditer(template):
            if m.group(0) == "%%":
                continue
            out.append(template[pos : m.start()].replace("%%", "%"))
            out.append(("", "", m.group(0)[1:]))
            pos = m.end()
        out.append(template[pos:].replace("%%", "%"))
        return out
    return [template]


def _fstring_pieces(template: str) -> list[str | tuple[str, str, str]]:
    out: list[str | tuple[str, str, str]] = []
    text: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c in "{}" and template[i : i + 2] in ("{{", "}}"):
            text.append(c)
            i += 2
            continue
        if c != "{":
            text.append(c)
            i += 1
            continue
        end = next((k + 1 for k, ch, depth in _outside_quotes(template, i + 1) if depth == 0 and ch in "}])"), n)
        out.append("".join(text))
        text = []
        out.append(_split_field(template[i + 1 : end - 1]))
        i = end
    out.append("".join(text))
    return out


def _outside_quotes(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) of each character of `text` from `start` that stands outside a
    quoted string (the quotes themselves left out): the one scan of a field's brackets and quotes."""
    depth, quote = 0, ""
    for k in range(start, len(text)):
        ch = text[k]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            yield k, ch, depth
            if ch in "{[(":
                depth += 1
            elif ch in "}])":
                depth -= 1


def _split_field(body: str) -> tuple[str, str, str]:
    """{expr!conv:spec} → (expr, conv, spec), at the top level only (a slice or a dict literal keeps its colon)."""
    for k, ch, depth in _outside_quotes(body):
        if depth == 0 and ch == "!" and body[k + 1 : k + 2] in ("r", "s", "a") and body[k + 2 : k + 3] in ("", ":"):
            return body[:k], body[k + 1], body[k + 3 :]
        elif depth == 0 and ch == ":" and body[k + 1 : k + 2] != "=":
            return body[:k], "", body[k + 1 :]
    return body, "", ""


def _numeric(spec: str) -> bool:
    return bool(spec) and spec[-1] in "dfieEgGn%x"


def _name(expr: str, before: str, index: int) -> str:
    """A field's name: the key the template prints before it ("swa_size=", "K size: "), else the expression's
    last attribute (`self.max_total_num_tokens`), else arg<i>."""
    key = _KEY_BEFORE.search(before)
    if key:
        name = re.sub(r"[^a-z0-9]+", "_", (key.group(1) or key.group(2)).lower()).strip("_")
        if name and not name[0].isdigit():
            return name
    for chain in _CHAIN.findall(expr.replace("()", "")):
        last = chain.rstrip(".").rsplit(".", 1)[-1]
        if chain.split(".", 1)[0] in _NOT_NAMES and "." not in chain:
            continue
        if last and not keyword.iskeyword(last) and last not in _NOT_NAMES:
            return last.lower()
    return f"arg{index}"


def _literal(text: str) -> str:
    """A literal piece: exact, each run of whitespace any run of whitespace."""
    return r"\s+".join(re.escape(word) for word in re.split(r"\s+", text)) if text.strip() else (r"\s+" if text else "")


def compile_pattern(template: str, style: str) -> Pattern | None:
    """The search pattern of one line of a template, or None when it is nothing but placeholders."""
    parts = pieces(template.strip(), style)
    regex: list[str] = []
    steps: list[tuple[str, bool]] = []
    fields: list[Field] = []
    names: dict[str, int] = {}
    last_field = -1
    for k, piece in enumerate(parts):
        if isinstance(piece, str):
            regex.append(_literal(piece))
            steps.append((regex[-1], False))
            continue
        expr, _conv, spec = piece
        choice = _CHOICE.match(expr)
        if choice:  # {'available_cpu_mem' if cpu else 'available_gpu_mem'}: a choice of literal text
            regex.append("(?:" + _literal(choice.group(2)) + "|" + _literal(choice.group(4)) + ")")
            steps.append((regex[-1], False))
            continue
        before = "".join(p if isinstance(p, str) else "" for p in parts[:k])
        after = parts[k + 1] if k + 1 < len(parts) and isinstance(parts[k + 1], str) else ""
        self_doc = expr.rstrip().endswith("=") and not expr.rstrip().endswith("==")
        if self_doc:  # {available_size=} prints "available_size=760"
            expr = expr.rstrip()[:-1]
            regex.append(_literal(expr.strip() + "="))
            steps.append((regex[-1], False))
            before += expr.strip() + "="
        name = _name(expr, before, len(fields))
        names[name] = names.get(name, 0) + 1
        if names[name] > 1:
            name = f"{name}_{names[name]}"
        unit = _UNIT_AFTER.match(str(after))
        numeric = _numeric(spec)
        fields.append(Field(name, numeric, unit.group(1) if unit else None))
        at_end = k == len(parts) - 1 or (k == len(parts) - 2 and not str(parts[-1]).strip())
        if numeric:
            body = f"(?:{_NUMBER})" + ("%" if spec.endswith("%") else "")
        elif at_end:
            body = _TRAILING
        elif k == 1 and not str(parts[0]).strip():  # a placeholder starts the template: one word, not the prefix too
            body = r"[^\s\[\]]{1,200}"
        elif str(after).startswith("]"):  # "[{name}] started": inside its brackets (never a log prefix's bracket)
            body = r"[^\[\]]*?"
        elif after:  # up to the first place the next literal text stands: never across it, so a line repeating a
            # wording's pieces costs a search linear time per start, not a backtracking over every split
            body = f"(?:(?!{_literal(str(after))}).)*?"
        else:
            body = ".*?"
        regex.append(f"({body})")
        steps.append((regex[-1] if numeric else r"([^\s,]+)", True))
        last_field = k
    literal_text = "".join(p for p in parts if isinstance(p, str))
    if not literal_text.strip():
        return None
    head = template.strip()[:1]
    tail = template.strip()[-1:]
    source = ("(?<!\\w)" if head.isalnum() or head == "_" else "") + "".join(regex)
    steps.insert(0, ("(?<!\\w)" if head.isalnum() or head == "_" else "", False))
    if isinstance(parts[-1], str) and parts[-1].strip() and (tail.isalnum() or tail == "_"):
        source += "(?!\\w)"
    trailing = last_field >= 0 and last_field >= len(parts) - 2 and not str(parts[-1]).strip()
    return Pattern(re.compile(source), tuple(fields), trailing and not fields[-1].numeric, tuple(steps))


def typed(value: str) -> Any:
    """A printed value as the value it prints: an int, a float, a bool, None, else the text."""
    text = value.strip()
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if re.fullmatch(r"[-+]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+)", text):
        return float(text)
    return {"True": True, "False": False, "None": None}.get(text, text)
