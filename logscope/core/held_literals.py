"""Which of many literals a text holds, by their heads: each literal of HEAD characters or more is filed under its
first HEAD characters, a text is looked up at each of its positions, and only the literals filed there are tested
with `in` (the shorter ones are tested all). The answer is the positions of the held literals, ascending, exactly
those `[i for i, lit in enumerate(literals) if lit in text]` gives: the tables' loops keep their order (first / most
specific wins) and test ~1 literal a line instead of thousands (a log of many ERROR records spent most of its CPU time
in those `in` loops: review15a item 7)."""

from __future__ import annotations

from collections.abc import Sequence

HEAD = 8


class HeldLiterals:
    def __init__(self, literals: Sequence[str], head: int = HEAD) -> None:
        self.literals = tuple(literals)
        self.head = head
        self.heads: dict[str, list[int]] = {}
        short: list[int] = []
        for at, literal in enumerate(self.literals):
            if len(literal) >= head:
                self.heads.setdefault(literal[:head], []).append(at)
            else:
                short.append(at)
        self.short = tuple(short)

    def held(self, text: str) -> list[int]:
        """The positions (ascending) of the literals `text` holds."""
        literals, heads, head = self.literals, self.heads, self.head
        found = {at for at in self.short if literals[at] in text}
        for start in range(len(text) - head + 1):
            ats = heads.get(text[start : start + head])
            if ats:
                found.update(at for at in ats if literals[at] in text)
        return sorted(found)
