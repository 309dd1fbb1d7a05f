"""Which lines of a launch's output may be phase lines, told by the project's prefilter literals of the phase
kinds alone (logscope/core/kinds.py): a byte test per line, no grammar. `logscope run` samples NVML at such a
line at once; the analysis afterwards reads the log with the grammars and joins each sample to the phase
reading of its line, so a line that only holds a literal (and is no phase line) joins nothing. Reading the
grammar here would cost the pass-through: loading it held the interpreter for up to 200 ms."""

from __future__ import annotations

import re
from functools import cached_property

from logscope.core import kinds, phases

LONGEST = 4096  # phase lines are short: a longer line is never a candidate


class PhaseLines:
    @cached_property
    def literals(self) -> tuple[tuple[bytes, str], ...]:
        """(literal, the first phase kind in startup order whose literal it is)."""
        out: dict[bytes, str] = {}
        for kind in kinds.CATALOGUE:
            if kind.grammar == kinds.SGLANG and phases.is_phase(kind.id):
                for literal in kind.literals:
                    out.setdefault(literal.encode(), kind.id)
        return tuple(out.items())

    @cached_property
    def pattern(self) -> re.Pattern[bytes]:
        """Any of the literals: the lines of a read worth a look are found in one search of the whole read."""
        return re.compile(b"|".join(re.escape(literal) for literal, _ in self.literals))

    def candidate(self, line: bytes) -> str | None:
        """The phase kind whose literal a complete output line (without its newline) holds, or None."""
        if len(line) > LONGEST:
            return None
        return next((kind for literal, kind in self.literals if literal in line), None)
