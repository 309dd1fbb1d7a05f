"""A memo of a function of one text that keeps short texts only: a frame or a message line repeats in a crash loop and
is worth keeping; a whole traceback (an event's full_text, up to tens of KiB) is read anew, so that a long crash loop
of distinct tracebacks cannot fill a worker's memory with them (review14a item 11: 4096 keys of a 32 KiB traceback
each held 128 MiB)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import Any, Generic, TypeVar

# the longest text kept: 97% of the frames and message lines library_of and library_raise read in the mined corpus's
# built pastes (a third of them sampled: 178 of 191 and 129 of 140 under 257 characters, 3 and 4 over 512, none
# over 1024); 4096 keys of it hold at most 2 MiB
MEMO_TEXT = 512
T = TypeVar("T")


class ShortTextMemo(Generic[T]):
    """The function, memoised (lru_cache of maxsize) for texts up to MEMO_TEXT characters; `memo` is that cache."""

    def __init__(self, function: Callable[[str], T], maxsize: int) -> None:
        self.function = function
        self.memo = lru_cache(maxsize=maxsize)(function)
        update_wrapper(self, function)

    def __call__(self, text: str) -> T:
        return self.memo(text) if len(text) <= MEMO_TEXT else self.function(text)


def short_text_memo(maxsize: int) -> Callable[[Callable[[str], T]], ShortTextMemo[T]]:
    return lambda function: ShortTextMemo(function, maxsize)


# answers an OwnedMemo keeps before it starts over
OWNED_MEMO = 4096


class OwnedMemo(Generic[T]):
    """Answers once per (owner, evidence): the owner (a signature set, a catalogue's table) is kept beside its answer, so
    an id reused by a new owner, or another table, never hits; at OWNED_MEMO answers the memo starts over."""

    def __init__(self) -> None:
        self._answers: dict[tuple[Any, ...], tuple[object, T]] = {}

    def __len__(self) -> int:
        return len(self._answers)

    def answer(self, owner: object, evidence: tuple[Any, ...], compute: Callable[[], T]) -> T:
        key = (id(owner), *evidence)
        hit = self._answers.get(key)
        if hit is not None and hit[0] is owner:
            return hit[1]
        found = compute()
        if len(self._answers) >= OWNED_MEMO:
            self._answers.clear()
        self._answers[key] = (owner, found)
        return found
