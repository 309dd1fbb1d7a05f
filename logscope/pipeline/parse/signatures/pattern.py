"""The signature pattern language: literal text, `*` gaps and typed `{name:type}` captures.

Matching never backtracks over more than one segment (the text between two gaps), and each segment is
tried at each occurrence of its leading literal only, so a match costs O(len(text) x len(segment)) at
worst: no pattern can be written that takes super-linear time on a long line (unlike a regex).

    Setup Custom allreduce failed with {error:text}. To silence
    *memory allocation failed with OOM on device {device:int} while trying to allocate {bytes:int} bytes
    ^Failed: Cuda error {file:word}:{line:int} '{error:text}'

`^` anchors the first segment at the start of the text; otherwise a pattern may match anywhere. A final `$`
anchors the match at the end of the text (trailing blanks aside): `^Killed$` is a line of that word alone.
`\\*`, `\\{` and `\\^` are the literal characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from logscope.core.errors import RuleError

# capture type → (regex anchored at the position, converter); none of these backtracks
_TYPES: dict[str, tuple[re.Pattern[str], Any]] = {
    "int": (re.compile(r"-?\d+"), int),
    "num": (re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"), float),
    "hex": (re.compile(r"0x[0-9a-fA-F]+"), str),
    "word": (re.compile(r"[^\s,;:()\[\]'\"]+"), str),
    "size": (re.compile(r"\d+(?:\.\d+)? ?(?:bytes|[KMGTP]i?B)\b"), str),
    # a file's path or name with an extension ("out/a.cuda.o", "batch_prefill.cuda.o"): a word holding a / or a .
    "path": (re.compile(r"[^\s,;:()\[\]'\"/.]*[/.][^\s,;:()\[\]'\"]+"), str),
}
_LAZY = ("text",)  # runs to the next literal of its segment, or to the end of the text
_TOKEN = re.compile(r"\\[*{^]|\*|\{([a-z_][a-z0-9_]*)(?::([a-z]+))?\}|[^\\*{]+|\\|\{")


@dataclass(frozen=True)
class Piece:
    literal: str | None = None
    name: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class Pattern:
    source: str
    anchored: bool
    segments: tuple[tuple[Piece, ...], ...]
    nocase: bool = False
    ended: bool = False  # a final `$`: nothing but blanks may follow the match

    def literals(self) -> list[str]:
        return [p.literal for segment in self.segments for p in segment if p.literal]

    def longest_literal(self) -> str:
        return max(self.literals(), key=len)

    @cached_property
    def required(self) -> str:
        """A literal every match holds (the longest; "" when the pattern has none), as the haystack holds it: a text
        without it is no match, found by one `in` (most candidates of a failure line fail here: a log of many ERROR
        records called the matcher 1.3 million times a MB)."""
        return max(self.literals(), key=len, default="")

    def opens(self, text: str, at: int) -> bool:
        """Whether the text at `at` opens with the pattern's first segment (its first literal without the blanks
        before it): what a line that begins with the pattern's wording holds there, tried as match() tries a segment."""
        segment = self.segments[0]
        first = segment[0].literal
        if first is not None and first != first.lstrip():
            segment = (Piece(literal=first.lstrip()), *segment[1:])
        haystack = text.lower() if self.nocase else text
        return _match_segment(segment, haystack, text, at, {}) is not None

    def match(self, text: str, accept: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
        """The captures of the first match in `text` that ends the line where the pattern says `$` and that `accept`
        takes (a signature's `unless`), else None: a rejected occurrence does not hide a later one."""
        haystack = text.lower() if self.nocase else text
        if self.required not in haystack:
            return None
        begin = 0
        while (found := self._match_from(text, haystack, begin)) is not None:
            values, first, end = found
            if not (self.ended and text[end:].strip()) and (accept is None or accept(values)):
                return values
            if self.anchored:
                return None
            begin = first + 1
        return None

    def _match_from(self, text: str, haystack: str, begin: int) -> tuple[dict[str, Any], int, int] | None:
        """The captures, where the first segment matched and where the match ends, searching from `begin`."""
        pos = begin
        first = begin
        values: dict[str, Any] = {}
        for index, segment in enumerate(self.segments):
            literal = segment[0].literal
            if index == 0 and self.anchored:
                end = _match_segment(segment, haystack, text, 0, values)
                if end is None:
                    return None
                pos = end
                continue
            assert literal is not None
            start = haystack.find(literal, pos)
            while start >= 0:
                trial: dict[str, Any] = {}
                end = _match_segment(segment, haystack, text, start, trial)
                if end is not None:
                    values.update(trial)
                    first = start if index == 0 else first
                    pos = end
                    break
                start = haystack.find(literal, start + 1)
            else:
                return None
        return values, first, pos


def _match_segment(segment: tuple[Piece, ...], haystack: str, text: str, pos: int, values: dict[str, Any]) -> int | None:
    for i, piece in enumerate(segment):
        if piece.literal is not None:
            if not haystack.startswith(piece.literal, pos):
                return None
            pos += len(piece.literal)
            continue
        if piece.kind in _LAZY:
            following = segment[i + 1].literal if i + 1 < len(segment) else None
            end = len(haystack) if following is None else haystack.find(following, pos)
            if end < 0 or end == pos:
                return None
            values[piece.name or ""] = text[pos:end].strip()
            pos = end
            continue
        regex, convert = _TYPES[piece.kind or "word"]
        m = regex.match(text, pos)
        if m is None:
            return None
        try:
            values[piece.name or ""] = convert(m.group(0))
        except ValueError:
            return None
        pos = m.end()
    return pos


def compile_pattern(source: str, where: str, nocase: bool = False) -> Pattern:
    """Parse a pattern; errors name `where` (file:line:col) and what is wrong."""
    if not isinstance(source, str) or not source.strip():
        raise RuleError(f"{where}: pattern: expected a non-empty string")
    if len(source) > 500:
        raise RuleError(f"{where}: pattern: longer than 500 characters")
    anchored = source.startswith("^")
    body = source[1:] if anchored else source
    ended = body.endswith("$") and not body.endswith("\\$")
    body = body[:-1] if ended else body
    segments: list[list[Piece]] = [[]]
    for m in _TOKEN.finditer(body):
        token = m.group(0)
        if token == "*":
            segments.append([])
        elif token.startswith("\\") and len(token) == 2:
            _add_literal(segments[-1], token[1])
        elif m.group(1):
            kind = m.group(2) or "word"
            if kind not in _TYPES and kind not in _LAZY:
                raise RuleError(f"{where}: pattern: unknown capture type {kind!r} (known: {', '.join([*_TYPES, *_LAZY])})")
            segments[-1].append(Piece(name=m.group(1), kind=kind))
        elif token == "{":
            raise RuleError(f"{where}: pattern: '{{' starts a capture {{name}} or {{name:type}}; write \\{{ for the character")
        else:
            _add_literal(segments[-1], token.lower() if nocase else token)
    segments = [s for s in segments if s]
    if not segments:
        raise RuleError(f"{where}: pattern: no literal text")
    for index, segment in enumerate(segments):
        if segment[0].literal is None and not (index == 0 and anchored):
            raise RuleError(
                f"{where}: pattern: a capture must follow literal text, not a gap or the start "
                f"(add the words before it, or anchor with ^)"
            )
        for a, b in zip(segment, segment[1:]):
            if a.literal is None and b.literal is None:
                raise RuleError(f"{where}: pattern: two captures in a row ({{{a.name}}}{{{b.name}}}) need text between them")
    pattern = Pattern(source=source, anchored=anchored, segments=tuple(tuple(s) for s in segments), nocase=nocase, ended=ended)
    if len(pattern.longest_literal().strip()) < 4:
        raise RuleError(f"{where}: pattern: needs a literal of at least 4 characters (it selects candidate lines)")
    return pattern


def _add_literal(segment: list[Piece], text: str) -> None:
    if segment and segment[-1].literal is not None:
        segment[-1] = Piece(literal=segment[-1].literal + text)
    else:
        segment.append(Piece(literal=text))
