"""Which of many literals a text holds, by their heads: each literal of HEAD characters or more is filed under its
first HEAD characters, a text is looked up at each of its positions, and only the literals filed there are tested
with `in` (the shorter ones are tested all). The answer is the positions of the held literals, ascending, exactly
those `[i for i, lit in enumerate(literals) if lit in text]` gives: the tables' loops keep their order (first / most
specific wins) and test ~1 literal a line instead of thousands (a log of many ERROR records spent most of its CPU time
in those `in` loops: review15a item 7)."""

from __future__ import annotations

from collections.abc import Sequence

HEAD = 8
# a text longer than this many characters per literal is looked up by the `in` loop (measured on library_raises'
# 953 anchors and random-word lines: at 2 characters a literal the index took 0.32 ms, the loop 0.78 ms; at 34 the
# loop 6.3 ms, the index 173 ms before review15c item 1's fix)
LONG_TEXT = 4


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
        """The positions (ascending) of the literals `text` holds. Each head's literals are tested once a text (`literal
        in text` does not depend on where the head was seen: a head repeated along a long line cost its literals again
        at each occurrence, review15c item 1), and a text long beside the table is run through the `in` loop itself (the
        per-position lookups cost more than the loop there, review15c item 12)."""
        literals = self.literals
        if len(text) > LONG_TEXT * len(literals):
            return [at for at, literal in enumerate(literals) if literal in text]
        heads, head = self.heads, self.head
        found = {at for at in self.short if literals[at] in text}
        seen: set[str] = set()
        for start in range(len(text) - head + 1):
            key = text[start : start + head]
            if key in heads and key not in seen:
                seen.add(key)
                found.update(at for at in heads[key] if literals[at] in text)
        return sorted(found)
