"""Which lines of a launch's output are phase lines, told cheaply: a byte test for the phase kinds' literals
(the catalogue's, logscope/core/kinds.py), and only then the SGLang grammar that `logscope analyze` uses."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from logscope.core import kinds, phases

LONGEST = 4096  # phase lines are short: a longer line is never parsed here


@dataclass(frozen=True, slots=True)
class PhaseLine:
    phase: str  # the phase id (logscope/core/phases.py)
    text: str


class PhaseLines:
    @cached_property
    def literals(self) -> tuple[bytes, ...]:
        return tuple(
            dict.fromkeys(
                literal.encode()
                for kind in kinds.CATALOGUE
                if kind.grammar == kinds.SGLANG and phases.is_phase(kind.id)
                for literal in kind.literals
            )
        )

    def candidate(self, line: bytes) -> bool:
        """The cheap test, on the pass-through's thread: short, and holds a phase literal."""
        return len(line) <= LONGEST and any(literal in line for literal in self.literals)

    def warm(self) -> None:
        """Loads the grammar now (a second or so), so that the first phase line is read at once."""
        self.read(b"[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=1.00 GB")

    def read(self, line: bytes) -> PhaseLine | None:
        """The phase a complete output line (without its newline) prints, or None."""
        if not self.candidate(line):
            return None
        from logscope.pipeline.ingest.ingest import clean  # the grammar's imports only once a candidate is seen
        from logscope.pipeline.parse.parsers import sglang_line

        for text in clean(line.decode("utf-8", "replace")):
            result = sglang_line.parse_line(text)
            if result is None:
                continue
            kind = sglang_line.KINDS.get(result[1], result[1])
            if phases.is_phase(kind):
                return PhaseLine(kind, text)
        return None
