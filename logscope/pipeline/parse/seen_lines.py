"""The physical lines a source's grammars recognised, each counted once: a set of line numbers, of which a
streaming source (a crash loop read as it streams) forgets those no later line can reach, keeping their count."""

from __future__ import annotations

_KEEP = 4096  # line numbers held before those under the floor are forgotten


class SeenLines(set[int]):
    """A set of line numbers whose len() also counts the numbers forgotten by forget_below."""

    def __init__(self) -> None:
        super().__init__()
        self.forgotten = 0

    def __len__(self) -> int:
        return self.forgotten + super().__len__()

    def forget_below(self, floor: int) -> None:
        """Counts and drops the numbers under `floor` (no later line is numbered under it), once over _KEEP are held."""
        if super().__len__() <= _KEEP:
            return
        below = [line for line in self if line < floor]
        self.forgotten += len(below)
        self.difference_update(below)
