"""Find the lines of raw bytes that hold one of a set of literals, without decoding the other lines.

One multi-literal pass over the raw bytes (Hyperscan when it is installed: every literal at once with SIMD,
about 0.45 CPU-s per GiB here; Python's `re` over bytes otherwise) finds where a literal occurs; a small buffer
(a paste) is searched one literal at a time with `bytes.find` instead, where compiling a database or an
alternation would cost more than the search. Each hit's line is then cut out at its newlines, decoded the way
a line is decoded (lossy UTF-8, trailing CR and everything after a 0x1f unit separator dropped) and tested
for the same literals on its text, so the candidates are exactly the lines whose decoded text holds a literal.
Line numbers come from counting the newlines between hits (`newlines`), never from splitting the buffer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from logscope.core import user_cache
from logscope.core.limits import READ_CAP, READ_GAP

NEWLINE = 0x0A
# below this many bytes the `find` loops (about 0.06 CPU-s per MiB for the prefilter's literals) cost less than
# importing Hyperscan and compiling its database (about 0.02 s)
NATIVE_MIN_BYTES = 1 << 17

Buffer = bytes | bytearray
# the compiled Hyperscan search per literal set, once per process (None: Hyperscan missing or refused): a process
# that analyses many inputs (a scan worker, the paste page's children) compiles it once, and once it is
# compiled the find loops no longer pay for small buffers
_NATIVE: dict[tuple[str, ...], Callable[[Buffer, int, int], list[int]] | None] = {}
# (line index within the scanned bytes, offset of the line's first byte, the line's text)
Candidate = tuple[int, int, str]


# `newlines` counts a long stretch block by block: `bytes.count` of one byte is a plain C loop (about 0.33 CPU-s per
# GiB here, whatever the lines' length), while the length lost by `replace(b"\n", b"")` (memchr, then memcpy of each
# line) costs about 0.14 CPU-s per GiB for 150-byte lines and more than `count` below about 32 bytes a line
_COUNT_BLOCK = 32 << 10
_SPARSE_LINE_BYTES = 48  # a block whose lines are longer than this on average: the next block is counted by replace


# a stretch that is this share of its buffer at least, of long lines, is counted by one `replace` of the whole buffer
# less `count` of the rest: each block's slice is a copy (a read's 512 KiB of 150-byte lines: 9.7 ms per 64 MiB by one
# replace, 15.1 ms block by block, 22.7 ms by `count`, CPU time, 2026-12-07); the rest, counted the slow way, costs less
# than the copies saved above 0.86 of the buffer
_WHOLE_SHARE = 0.9
# the first, middle and last blocks of such a stretch that are looked at (by `count`) before it is counted whole: 32 KiB
# blocks made the three samples 96 KiB of a 512 KiB read, counted the slow way, a third of the whole count's cost on a
# serving log (0.31 against 0.21 CPU-s a GiB with 4 KiB samples, speed16, 2026-12-07)
_SAMPLE_BLOCK = 4 << 10


def _sparse_samples(buf: Buffer, start: int, end: int) -> bool:
    """Whether the first, middle and last blocks of buf[start:end] all hold long lines: a read that opens with one
    long record (a JSON line, a flattened traceback) and goes on with blank or short lines is not counted whole (by
    the first block alone it was: ~9x the block-wise cost, review15a item 2)"""
    middle = start + (end - start - _SAMPLE_BLOCK) // 2
    for at in (start, middle, end - _SAMPLE_BLOCK):
        if buf.count(b"\n", at, at + _SAMPLE_BLOCK) * _SPARSE_LINE_BYTES >= _SAMPLE_BLOCK:
            return False
    return True


def newlines(buf: Buffer, start: int, end: int) -> int:
    """How many newlines buf[start:end] holds. A block of long lines has the next counted by `replace`; a block
    of short lines that `replace` met sends the next ones back to `count`, for twice as many blocks each time, so
    lines that switch length every block cost at most a few blocks counted the slow way. A stretch of long lines
    that is most of its buffer (a read of a log with few candidates) is counted by one `replace` of the buffer when
    its first, middle and last blocks all hold long lines."""
    if end - start <= _COUNT_BLOCK:
        return buf.count(b"\n", start, end)
    if end - start >= _WHOLE_SHARE * len(buf) and _sparse_samples(buf, start, end):
        return len(buf) - len(buf.replace(b"\n", b"")) - buf.count(b"\n", 0, start) - buf.count(b"\n", end)
    total = 0
    sparse = False
    wait = 0  # blocks still counted by `count` after `replace` met short lines
    backoff = 1
    for at in range(start, end, _COUNT_BLOCK):
        stop = min(at + _COUNT_BLOCK, end)
        if sparse and not wait:
            block = buf[at:stop]
            found = len(block) - len(block.replace(b"\n", b""))
            if found * _SPARSE_LINE_BYTES >= stop - at:
                backoff *= 2
                wait = backoff
        else:
            found = buf.count(b"\n", at, stop)
            wait = max(0, wait - 1)
        sparse = found * _SPARSE_LINE_BYTES < stop - at
        total += found
    return total


# where a line flattened from several (a JSON record's traceback) breaks: a literal "\\n" escape, a real CR, a JSON
# array's '", "'. The head and tail of a long line are cut at such a break within their first / last _ALIGN_WINDOW
# bytes, so neither begins or ends with a fragment of a piece (a tail that began inside a frame line was read as a
# traceback cut before its exception line and lost it: review12a item 24); with none there the byte cut stays
_BREAKS = (b"\\n", b"\r", b'", "')
_ALIGN_WINDOW = 4 << 10
_BREAK = re.compile(rb"\\n|\r|\", \"")
_CONTINUED = re.compile(rb"\s{4}")


def _aligned_tail(tail: bytes | bytearray) -> bytes | bytearray:
    """The tail from its first break on, the break kept: the gap stands alone as a piece of its own"""
    found = sorted(m.start() for m in _BREAK.finditer(tail, 0, _ALIGN_WINDOW))
    # a piece that opens a record's line rather than continues one: a traceback's frame, not its indented source line
    opening = [i for i in found if not _CONTINUED.match(tail, i + (2 if tail.startswith(b"\\n", i) else 1))]
    return tail[(opening or found)[0] :] if found else tail


def _aligned_head(head: bytes | bytearray) -> bytes | bytearray:
    start = max(0, len(head) - _ALIGN_WINDOW)
    found = [i + len(b) for b in _BREAKS if (i := head.rfind(b, start)) >= 0]
    return head[: max(found)] if found else head


def decode_line(raw: bytes | bytearray) -> str:
    """One physical line's bytes (without its newline) → its text: a line longer than 2 x READ_CAP is given as its first
    and last READ_CAP bytes joined by READ_GAP (limits.py says why; a character cut there decodes as U+FFFD)."""
    if len(raw) > 2 * READ_CAP:
        raw = _aligned_head(raw[:READ_CAP]) + READ_GAP.encode() + _aligned_tail(raw[-READ_CAP:])
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    unit = raw.find(b"\x1f")
    if unit >= 0:
        raw = raw[:unit]
    return raw.decode("utf-8", errors="replace")


@dataclass
class LiteralScan:
    """The prefilter's literals, for the raw-bytes pass and for the exact test of a line's text."""

    literals: tuple[str, ...]
    encoded: tuple[bytes, ...] = field(init=False)
    _bytes_rx: re.Pattern[bytes] | None = field(default=None, init=False)
    _native: Callable[[Buffer, int, int], list[int]] | None = field(default=None, init=False)  # once loaded
    _natives_seen: int = field(default=0, init=False)  # len(_NATIVE) when it was last looked at

    def __post_init__(self) -> None:
        self.encoded = tuple(lit.encode() for lit in self.literals)

    def holds(self, text: str) -> bool:
        """The exact test of a line's text: through the native search once this process has loaded it (a large
        input's pass did), since the `in` tests cost ~1 ms a text whatever its length (a line of minified JSON asks
        for each of its strings); a paste's few lines load nothing. (UTF-8 keeps substrings: a literal is in the
        text exactly when its bytes are in the text's bytes.)"""
        if self._native is None and self._natives_seen != len(_NATIVE):  # loaded since (by another scan of the same
            self._natives_seen = len(_NATIVE)  # literals): looked up once, not a hash of ~670 literals a text
            self._native = _NATIVE.get(self.literals)
        native = self._native
        if native is not None:
            raw = text.encode("utf-8", "surrogatepass")
            return bool(native(raw, 0, len(raw)))
        return any(lit in text for lit in self.literals)

    def hits(self, buf: Buffer, start: int, end: int) -> list[int]:
        """Offsets inside buf[start:end] of bytes that belong to a literal occurrence, ascending."""
        native = self._native  # once loaded, not looked up again: hashing ~1,100 literals each read cost about 12 us
        if native is None:
            if end - start < NATIVE_MIN_BYTES and self.literals not in _NATIVE:
                return _finds(buf, start, end, self.encoded)
            native = self.native()
        if native is not None:
            return native(buf, start, end)
        if self._bytes_rx is None:
            self._bytes_rx = re.compile(b"|".join(re.escape(lit) for lit in self.encoded))
        return [m.start() for m in self._bytes_rx.finditer(buf, start, end)]  # type: ignore[call-overload]

    def native(self) -> Callable[[Buffer, int, int], list[int]] | None:
        if self.literals not in _NATIVE:
            _NATIVE[self.literals] = _hyperscan_search(self.literals)
        self._native = _NATIVE[self.literals]
        return self._native

    def candidates(self, buf: Buffer, start: int, end: int) -> tuple[int, list[Candidate]]:
        """buf[start:end] holds complete lines (it ends after a newline or at the end of the input) →
        (how many lines it holds, the lines whose text holds a literal)."""
        found: list[Candidate] = []
        line_index = 0
        counted_to = start
        skip_to = start  # hits before this lie in a line already looked at
        for hit in self.hits(buf, start, end):
            if hit < skip_to:
                continue
            line_start = buf.rfind(b"\n", start, hit) + 1 or start
            line_end = buf.find(b"\n", hit, end)
            if line_end < 0:
                line_end = end
            line_index += newlines(buf, counted_to, line_start)
            counted_to = line_start
            text = decode_line(buf[line_start:line_end])
            if self.holds(text):
                found.append((line_index, line_start, text))
            elif line_end - line_start > 2 * READ_CAP:
                # its literal lay in the middle the readers are not given: handed on as the gap alone, so it is
                # counted (ReadNotes.elided_lines) and the report says a line was read only in part, at no reader's cost
                found.append((line_index, line_start, READ_GAP))
            skip_to = line_end + 1
        lines = line_index + newlines(buf, counted_to, end)
        if end > start and buf[end - 1] != NEWLINE:
            lines += 1  # the input's last line has no newline
        return lines, found


def _finds(buf: Buffer, start: int, end: int, literals: tuple[bytes, ...]) -> list[int]:
    """Where each literal starts inside buf[start:end], ascending: one `find` loop per literal."""
    found: list[int] = []
    for lit in literals:
        at = buf.find(lit, start, end)
        while at >= 0:
            found.append(at)
            at = buf.find(lit, at + 1, end)
    found.sort()
    return found


def _hyperscan_search(literals: tuple[str, ...]) -> Callable[[Buffer, int, int], list[int]] | None:
    try:
        import hyperscan
    except ImportError:  # an optional speed-up: the `re` pass finds the same lines
        return None
    name = _database_name(hyperscan, literals)
    database = _stored_database(hyperscan, name) or _compiled_database(hyperscan, literals, name)
    if database is None:
        return None

    def search(buf: Buffer, start: int, end: int) -> list[int]:
        found: list[int] = []

        def on_match(_id: int, _from: int, to: int, _flags: int, _context: object) -> None:
            found.append(start + to - 1)  # the match's last byte: inside its line

        database.scan(memoryview(buf)[start:end], match_event_handler=on_match)
        found.sort()  # matches come in end order per literal; several literals can interleave
        return found

    return search


# A compiled database is kept in the user cache, serialized: compiling the prefilter's ~670 literals costs about
# 60 ms, and each worker of a large file paid it before its first range (loading the stored one: under 1 ms).
# Its name holds a hash of the literals, the Hyperscan version and the machine (a database is built for one platform).
_DATABASE_KIND = "hyperscan-db"


def _database_name(hyperscan: Any, literals: tuple[str, ...]) -> str:
    """The cache entry's name."""
    digest = hashlib.sha256(f"{hyperscan.__version__}\0{platform.machine()}\0".encode())
    for literal in literals:
        digest.update(literal.encode() + b"\0")
    return f"{_DATABASE_KIND}-{digest.hexdigest()[:24]}.pickle"


def _stored_database(hyperscan: Any, name: str) -> Any | None:
    stored = user_cache.load(name)
    if not isinstance(stored, bytes):
        return None
    try:
        database = hyperscan.loadb(stored, hyperscan.HS_MODE_BLOCK)
        database.scratch = hyperscan.Scratch(database)
    except hyperscan.HyperscanError:  # damaged, or built for another CPU: compiled afresh
        return None
    return database


def group_search(groups: tuple[tuple[str, tuple[str, ...]], ...]) -> Callable[[str], tuple[str, ...]] | None:
    """The names of the groups (in their order) one of whose literals a text holds, by one Hyperscan pass over the
    text, each literal's id its group's index; None without Hyperscan. (UTF-8 keeps substrings: a literal is in a
    text exactly when its bytes are in the text's bytes, as `holds` says.)"""
    if groups not in _GROUPS:
        _GROUPS[groups] = _hyperscan_groups(groups)
    return _GROUPS[groups]


_GROUPS: dict[tuple[tuple[str, tuple[str, ...]], ...], Callable[[str], tuple[str, ...]] | None] = {}


def _hyperscan_groups(groups: tuple[tuple[str, tuple[str, ...]], ...]) -> Callable[[str], tuple[str, ...]] | None:
    try:
        import hyperscan
    except ImportError:
        return None
    literals = tuple(lit for _, lits in groups for lit in lits)
    ids = [index for index, (_, lits) in enumerate(groups) for _ in lits]
    # the name hashes what the ids map: the id scheme, then each (group, literal) pair of the table in its order (the
    # same literals cut into other groups, or the groups named or ordered otherwise, are another database)
    name = _database_name(hyperscan, (_GROUP_IDS, *(f"{group}\0{lit}" for group, lits in groups for lit in lits)))
    stored = _stored_database(hyperscan, name)
    if stored is not None and not _maps_groups(stored, groups):
        stored = None  # a file of another scheme or table under this name: never trusted, compiled afresh
    database = stored or _compiled_database(hyperscan, literals, name, ids)
    if database is None:
        return None
    names = [group for group, _ in groups]

    def search(text: str) -> tuple[str, ...]:
        found: set[int] = set()

        def on_match(index: int, _from: int, _to: int, _flags: int, _context: object) -> None:
            found.add(index)

        database.scan(text.encode("utf-8", "surrogatepass"), match_event_handler=on_match)
        return tuple(names[index] for index in sorted(found))

    return search


# the group database's id scheme, hashed into its cache name: a change of what an id means changes this tag
_GROUP_IDS = "\0groups-v2: a literal's id is its group's index in the table"


def _maps_groups(database: Any, groups: tuple[tuple[str, tuple[str, ...]], ...]) -> bool:
    """Whether a stored group database maps the table: each literal, scanned alone, reports its own group and no id
    outside the table (checked once on load, ~1 ms; review15a item 1: a file of another id scheme under the name
    crashed `grammars_for` with IndexError or named wrong grammars)"""
    found: set[int] = set()

    def on_match(got: int, _from: int, _to: int, _flags: int, _context: object) -> None:
        found.add(got)

    for index, (_, lits) in enumerate(groups):
        for lit in lits:
            found.clear()
            database.scan(lit.encode("utf-8", "surrogatepass"), match_event_handler=on_match)
            if index not in found or max(found) >= len(groups):
                return False
    return True


def _compiled_database(hyperscan: Any, literals: tuple[str, ...], name: str, ids: list[int] | None = None) -> Any | None:
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    expressions = [re.escape(lit.encode()) for lit in literals]
    try:
        database.compile(
            expressions=expressions,
            ids=list(range(len(expressions))) if ids is None else ids,
            elements=len(expressions),
            flags=[0] * len(expressions),
        )
    except hyperscan.HyperscanError:  # a CPU it does not support
        return None
    with contextlib.suppress(hyperscan.HyperscanError):
        user_cache.store(name, hyperscan.dumpb(database))
    return database


@dataclass(frozen=True)
class AnchoredPattern:
    """A pattern over one line's bytes whose every match holds one of `anchors`. It is searched by finding the
    next anchor (`bytes.find`, a memchr-speed scan) and matching the pattern on that anchor's line only: `re`'s own
    search of a pattern without a literal prefix costs about 20 ms per MiB, 20 s over a GiB with no match."""

    regex: re.Pattern[bytes]
    anchors: tuple[bytes, ...]
    # a search gives the first `keep` matching lines at most, and stops once `enough` says their texts so far are
    # enough (None: the first line is); each read searched so, an input's reads together give its own first lines
    keep: int = 1
    enough: Callable[[list[str]], bool] | None = None

    def settled(self, texts: list[str]) -> bool:
        """Whether the matching lines found so far (their texts, in order) are all a search gives."""
        return len(texts) >= self.keep or (bool(texts) and (self.enough is None or self.enough(texts)))

    def add(self, found: list[tuple[int, str]], more: list[tuple[int, str]]) -> bool:
        """The lines found by a later search (of the bytes after them) added to `found`, as far as a search of both
        would give them; whether `found` is then settled (a later search adds nothing)."""
        for line in more:
            if self.settled([text for _, text in found]):
                return True
            found.append(line)
        return self.settled([text for _, text in found])


def first_line_matching(pattern: AnchoredPattern, buf: Buffer, start: int, end: int) -> tuple[int, str] | None:
    """(index, text) of the first line of buf[start:end] (complete lines) that `pattern` matches, or None: a
    search over the raw bytes, so the lines before it never become strings."""
    found = matching_line(pattern, buf, start, end)
    if found is None:
        return None
    line_start, line_end = found
    return newlines(buf, start, line_start), decode_line(bytes(buf[line_start:line_end]))


def lines_matching(pattern: AnchoredPattern, buf: Buffer, start: int, end: int) -> list[tuple[int, str]]:
    """(index, text) of the lines of buf[start:end] (complete lines) that `pattern` matches, from the first, as many
    as it keeps (AnchoredPattern.settled)."""
    found: list[tuple[int, str]] = []
    at = counted_to = start
    index = 0
    # each search in doubling windows: the next serving lines sit close to the first, and a whole-buffer search of
    # every absent anchor (next_at) cost more than it saved (review11: 0.04 against 0.01 CPU-s a GiB)
    while not pattern.settled([text for _, text in found]):
        hit = matching_line(pattern, buf, at, end)
        if hit is None:
            break
        line_start, line_end = hit
        index += newlines(buf, counted_to, line_start)
        counted_to = line_start
        found.append((index, decode_line(bytes(buf[line_start:line_end]))))
        at = line_end + 1
    return found


def matching_line(
    pattern: AnchoredPattern, buf: Buffer, start: int, end: int, next_at: dict[bytes, AnchorSeen] | None = None
) -> tuple[int, int] | None:
    """(start, end) offsets of the first line of buf[start:end] that `pattern` matches, or None. `next_at`, kept by
    a caller that searches the same buf[:end] again from later starts, remembers how far each anchor was searched
    and where it was found, so an anchor absent from the buffer is not searched for again at every start: a crash
    loop's thousands of startup parts cost one pass, not one per part. The anchors are searched in windows that
    double from _ANCHOR_WINDOW for a single search: an anchor absent from a long buffer (most of them, in most logs) is
    not searched to its end when another anchor's line near the start matches."""
    at = start
    known = {} if next_at is None else next_at
    # a caller that searches again from later starts (next_at) gets whole-range searches once it has searched: each
    # absent anchor is then searched once per buffer, however many parts it holds (windows cost a crash loop's 10,000
    # parts about 20%). Its first search is in windows too: a range worker's startup scan begins with one at each
    # range's start, where a serving log's first line ends it, and whole-range searches of its absent anchors there
    # cost 0.095 CPU-s a GiB against 0.015 (bench log, 2026-12-07); the windows' ends are kept in `next_at`, so the
    # searches after it go on from there
    window = _ANCHOR_WINDOW if not known else max(1, end - start)
    scan_from = at
    while scan_from < end:
        limit = min(end, scan_from + window)
        hits = [
            found
            for anchor in pattern.anchors
            if 0 <= (found := _next_anchor(buf, anchor, scan_from, min(end, limit + len(anchor) - 1), known)) < limit
        ]
        if not hits:
            scan_from, window = limit, window * 2
            continue
        hit = min(hits)
        line_start = max(buf.rfind(b"\n", at, hit) + 1, at)
        line_end = buf.find(b"\n", hit, end)
        if line_end < 0:
            line_end = end
        found_here = pattern.regex.search(buf, line_start, line_end)  # type: ignore[call-overload]
        if found_here:
            return line_start, line_end
        at = scan_from = line_end + 1
    return None


# (where the search began, where the anchor was found or -1, where the search ended)
AnchorSeen = tuple[int, int, int]
_ANCHOR_WINDOW = 1 << 16


def _next_anchor(buf: Buffer, anchor: bytes, at: int, until: int, known: dict[bytes, AnchorSeen]) -> int:
    """The anchor's first start in buf[at:until], or -1; a position at or past `until` when an earlier search that
    covered buf[at:until] found it later (the caller takes only those before its window's end)."""
    seen = known.get(anchor)
    if seen is not None:
        began, found, ended = seen
        if began <= at and found >= at:
            return found
        if began <= at <= ended and found < 0:
            if ended >= until:
                return -1
            # absent up to `ended`: only the rest is searched, so a buffer is searched once for an absent anchor
            found = buf.find(anchor, max(at, ended - len(anchor) + 1), until)
            known[anchor] = (began, found, until)
            return found
    found = buf.find(anchor, at, until)
    known[anchor] = (at, found, until)
    return found


class ChunkLines(Sequence[str]):
    """A chunk's physical lines, decoded one by one when read: a scan that looks at a few of them (the lines
    of a given width, and their neighbours) does not decode the thousands it skips."""

    def __init__(self, raws: list[bytes], plain: bool) -> None:
        self.raws = raws
        self.plain = plain  # ASCII without a 0x1f unit separator: a line's width is its byte length less a CR
        self.texts: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.raws)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.raws)))]
        if index < 0:
            index += len(self.raws)
        text = self.texts.get(index)
        if text is None:
            text = self.texts[index] = decode_line(self.raws[index])
        return text

    def of_width(self, widths: frozenset[int]) -> list[int]:
        """Indices of the lines (the last one excepted) whose text is as long as one of `widths`."""
        last = len(self.raws) - 1
        if not self.plain:
            return [i for i in range(last) if len(self[i]) in widths]
        near = widths | {w + 1 for w in widths}  # a line ending in CR is one byte longer than its text
        return [i for i, size in enumerate(map(len, self.raws[:last])) if size in near and len(self[i]) in widths]


# a startup part of a chunk: (index of its first line, index of the first line after it; None: it goes on past the
# chunk's end)
Part = tuple[int, int | None]


@dataclass(frozen=True, slots=True)
class StartupScan:
    """The lines of an input's startup parts that ingest hands over besides the literal ones: each line where
    `prefixed` matches (a log prefix). A part runs from the input's start, or from a literal line that `begins`
    matches (a new launch later in the input), to the first line that `ends` matches (the running server's first
    line). At most `cap` lines per chunk, and per file (StartupRoom): a file of prefixed lines that never ends its
    startup costs no more."""

    prefixed: re.Pattern[bytes]
    ends: AnchoredPattern
    begins: re.Pattern[str]
    cap: int

    def parts(
        self, buf: Buffer, start: int, end: int, found: list[Candidate], starting: bool, cap: int
    ) -> tuple[list[Candidate], list[Part], bool]:
        """buf[start:end] holds complete lines and `found` its literal lines; `starting`: a startup part goes on at
        its start → (the prefixed lines of its startup parts, at most `cap`; the parts; whether the cap cut the
        last one: no part follows it). Only the lines after a part's start are searched for its end, and only the
        literal lines for a new launch, so the runtime between parts is never read line by line."""
        begins = [(index, offset) for index, offset, text in found if self.begins.search(text)]
        lines: list[Candidate] = []
        parts: list[Part] = []
        next_at: dict[bytes, AnchorSeen] = {}
        at, at_index, k = start, 0, 0
        while True:
            if not starting:
                while k < len(begins) and begins[k][1] < at:
                    k += 1
                if k == len(begins):
                    return lines, parts, False
                at_index, at = begins[k]
            ended = matching_line(self.ends, buf, at, end, next_at)
            stop = end if ended is None else ended[0]
            more, capped_at = self._prefixed(buf, at, stop, at_index, cap - len(lines))
            lines += more
            if capped_at is not None:
                parts.append((at_index, capped_at))
                return lines, parts, True
            if ended is None:
                parts.append((at_index, None))
                return lines, parts, False
            stop_index = at_index + newlines(buf, at, stop)
            parts.append((at_index, stop_index))
            at, at_index, starting = stop, stop_index, False

    def _prefixed(self, buf: Buffer, start: int, stop: int, first: int, cap: int) -> tuple[list[Candidate], int | None]:
        """The lines of buf[start:stop] (line `first` starts at `start`) where `prefixed` matches, at most `cap`,
        and the index of the first one the cap left out (None: none was)."""
        found: list[Candidate] = []
        line_index = first
        counted_to = skip_to = start
        for hit in self.prefixed.finditer(buf, start, stop):  # type: ignore[call-overload]
            if hit.start() < skip_to:
                continue
            line_start = max(buf.rfind(b"\n", start, hit.start()) + 1, start)
            line_end = buf.find(b"\n", hit.start(), stop)
            if line_end < 0:
                line_end = stop
            line_index += newlines(buf, counted_to, line_start)
            counted_to = line_start
            if len(found) >= cap:
                return found, line_index
            found.append((line_index, line_start, decode_line(buf[line_start:line_end])))
            skip_to = line_end + 1
        return found, None


def with_startup_lines(found: list[Candidate], startup: list[Candidate]) -> list[Candidate]:
    """The literal lines and the startup parts' prefixed lines, once each, in line order."""
    if not startup:
        return found
    have = {offset for _, offset, _ in found}
    return sorted(found + [c for c in startup if c[1] not in have])


def settle_parts(
    scan: StartupScan, starting: bool, found: list[Candidate], startup: list[Candidate], parts: list[Part]
) -> tuple[list[Candidate], list[Part]]:
    """A range worker reads its range as if a startup part went on at its start. Where the input was not starting
    there, that first part is cut to the first new launch inside it (or dropped), and its lines with it."""
    if starting or not parts or parts[0][0] != 0 or any(i == 0 and scan.begins.search(t) for i, _, t in found[:1]):
        return startup, parts
    first_end = parts[0][1]
    launch = next((i for i, _, t in found if (first_end is None or i < first_end) and scan.begins.search(t)), None)
    keep_from = launch if launch is not None else (first_end if first_end is not None else -1)
    kept = [c for c in startup if keep_from >= 0 and c[0] >= keep_from]
    return kept, ([(launch, first_end)] if launch is not None else []) + parts[1:]


class StartupRoom:
    """The cap on a file's startup parts, held per file: each chunk is scanned with the whole cap (a range's worker
    does not know what the ranges before it took), then the file keeps its parts up to its first prefixed line past
    the cap, that part cut there and none after it, so what a file hands over does not depend on where it was cut."""

    def __init__(self, cap: int) -> None:
        self.room = cap
        self.full = False

    def keep(self, startup: list[Candidate], parts: list[Part], capped: bool) -> tuple[list[Candidate], list[Part], bool]:
        """A chunk's startup lines, parts and whether the cap cut its last part, within what the file has room for."""
        if self.full:
            return [], [], False
        if len(startup) > self.room:
            cut_at = startup[self.room][0]
            startup = startup[: self.room]
            parts = [(first, cut_at if after is None or after > cut_at else after) for first, after in parts if first <= cut_at]
            capped = True
        self.room -= len(startup)
        self.full = capped
        return startup, parts, capped


WINDOW_BYTES = 1 << 16  # how much of a file a chunk reads back at once for the lines after a candidate (grows as needed)


@dataclass(slots=True)
class LineChunk:
    """A run of numbered physical lines: how many, which hold a literal (index and text), and any other line on
    request (the classifier asks for the lines after a candidate while a block or a wrapped line is open; it
    walks them forward, so each is found from the last one returned or from the nearest candidate)."""

    first: int  # 1-based number of the chunk's first line in its input
    size: int
    candidates: list[int]
    texts: list[str]
    offsets: list[int]  # where each candidate's line starts
    start: int  # offset of the chunk's first line
    end: int  # offset just past the chunk's last line
    path: str | None  # the file read back for other lines; None: `window` holds the whole chunk
    window: Buffer
    window_start: int
    cursor: tuple[int, int]  # (line index, offset) of the last line returned, or of the chunk's start
    # the first lines the scan's `first_of` pattern matches, if asked (as many as it keeps: AnchoredPattern.settled)
    matches: list[tuple[int, str]] = field(default_factory=list)
    # the chunk's startup parts (StartupScan), the last one cut by the cap when startup_capped
    startup_parts: list[Part] = field(default_factory=list)
    startup_capped: bool = False

    @property
    def first_match(self) -> tuple[int, str] | None:
        return self.matches[0] if self.matches else None

    @classmethod
    def in_memory(cls, first: int, size: int, found: list[Candidate], data: Buffer) -> LineChunk:
        return cls(
            first, size, [c[0] for c in found], [c[2] for c in found], [c[1] for c in found], 0, len(data), None, data, 0, (0, 0)
        )

    @classmethod
    def in_file(cls, first: int, size: int, found: list[Candidate], path: str, start: int, end: int) -> LineChunk:
        return cls(
            first,
            size,
            [c[0] for c in found],
            [c[2] for c in found],
            [c[1] for c in found],
            start,
            end,
            path,
            b"",
            start,
            (0, start),
        )

    def line(self, index: int) -> str:
        """The text of the chunk's line `index` (0-based)."""
        line_index, offset = self.cursor
        k = bisect_right(self.candidates, index) - 1
        if k >= 0 and (line_index > index or self.candidates[k] > line_index):
            line_index, offset = self.candidates[k], self.offsets[k]
        elif line_index > index:
            line_index, offset = 0, self.start
        while line_index < index:
            offset = self._newline(offset) + 1
            line_index += 1
        end = self._newline(offset)
        self.cursor = (index, offset)
        return decode_line(self._bytes(offset, end))

    def all_bytes(self) -> bytes:
        """The whole chunk (read back from the file for a range scanned by a worker)."""
        return bytes(self._bytes(self.start, self.end))

    def all_lines(self) -> ChunkLines:
        """Every physical line of the chunk, as `line` gives them, each decoded when first read (for the scans
        that need each line's width)."""
        data = self.all_bytes()
        return ChunkLines(data.split(b"\n")[: self.size], data.isascii() and b"\x1f" not in data)

    def _newline(self, offset: int) -> int:
        """Offset of the newline that ends the line starting at `offset` (the chunk's end for an unfinished line)."""
        size = WINDOW_BYTES
        while True:
            rel = offset - self.window_start
            if 0 <= rel <= len(self.window):
                found = self.window.find(b"\n", rel)
                if found >= 0:
                    return self.window_start + found
                if self.window_start + len(self.window) >= self.end or self.path is None:
                    return self.end
                size = max(size, 2 * (len(self.window) - rel))
            if not self._load(offset, size):
                return self.end

    def _bytes(self, start: int, end: int) -> Buffer:
        rel = start - self.window_start
        if rel < 0 or end - self.window_start > len(self.window):
            self._load(start, end - start)
            rel = 0
        return self.window[rel : rel + end - start]

    def _load(self, offset: int, size: int) -> bool:
        assert self.path is not None
        with open(self.path, "rb") as handle:
            self.window = os.pread(handle.fileno(), max(0, min(size, self.end - offset)), offset)
        self.window_start = offset
        return bool(self.window)
