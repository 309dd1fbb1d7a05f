"""Bounds on what one input may cost: compressed inputs streamed with a cap on the bytes they expand to,
lines longer than LINE_CAP cut (the cut counted), so memory stays flat whatever the input (a gzip bomb, a
500 MB line without a newline). What was cut or where reading stopped is kept in ReadNotes, which the
document lists with the input.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from logscope.core.errors import InputError

LINE_CAP = 1 << 20  # bytes of one physical line that are read; the rest of it is skipped and the cut counted
# bytes of one physical line the readers are given (its head: where a record's level, source and message are). Every
# reader tests a line against hundreds of literals and patterns, so its cost is that many passes over the line: a
# 100 KB line (minified JSON, a garbled capture) cost ~0.2 s, 1,000 of them minutes. No pasted or logged record of
# the corpus is near this long (the mined pastes' lines are at most 1.3 KB, the fixtures' 3 KB).
READ_CAP = 16 << 10
# a longer line is given as its head and its tail (READ_CAP bytes each) joined by READ_GAP: a record flattened onto one
# line (a JSON log's traceback with literal \n) ends in its exception line, which its head alone would lose
# The gap says so in the text, so a quoted line shows it, and the lines given so are counted (ReadNotes.elided_lines)
READ_GAP = " \u2026[middle not read]\u2026 "
READ_TEXT_CAP = 2 * READ_CAP + len(READ_GAP.encode())  # bytes of a line's text a reader is given at most
DECOMPRESSED_CAP = 1 << 30  # bytes a compressed input may expand to; reading stops there (the report says so)
ISSUE_CAP = 32 << 20  # bytes of an issue thread triage reads whole (it splits it into blocks)
_MiB = 1 << 20


@dataclass(slots=True)
class ReadNotes:
    """How an input was read, when it was not simply read whole: listed with the input in the document."""

    encoding: str | None = None  # set when not UTF-8 without a mark
    cut_lines: int = 0  # lines longer than LINE_CAP, cut there
    elided_lines: int = 0  # lines longer than 2 x READ_CAP the readers were given as their head and tail (READ_GAP)
    stopped: str | None = None  # why reading stopped before the end
    # the input's last line has no newline: its writer stopped mid-line (a process killed while it wrote its log) or a
    # copy ended there; a copy whose cut line still ends in a newline was cut by whoever copied it
    unterminated: bool = False


def size(count: int) -> str:
    if count < _MiB:
        return f"{count} bytes"
    return f"{count >> 30} GiB" if count % (1 << 30) == 0 else f"{count / _MiB:.0f} MiB"


def _decompressor(head: bytes) -> Callable[[], object] | None:
    """A factory of decompressors for the format the first bytes name (gzip, bzip2, xz), or None."""
    if head.startswith(b"\x1f\x8b"):
        return lambda: zlib.decompressobj(16 + zlib.MAX_WBITS)
    # "BZh" and the block size, then a block's magic (pi) or the end-of-stream one (sqrt(pi)) of an empty stream
    if head[:3] == b"BZh" and head[3:4].isdigit() and (len(head) < 10 or head[4:10] in (b"1AY&SY", b"\x17rE8P\x90")):
        return bz2.BZ2Decompressor
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMADecompressor
    return None


def is_compressed(head: bytes) -> bool:
    """Whether the first bytes name a compression format that `expanded` decompresses (gzip, bzip2, xz)."""
    return _decompressor(head) is not None


def expanded(name: str, raw: Iterator[bytes], block: int, notes: ReadNotes, cap: int | None = None) -> Iterator[bytes]:
    """The input's bytes, decompressed when they start like gzip, bzip2 or xz (concatenated members too), in
    pieces of at most `block` bytes; a compressed input stops after `cap` bytes of output (notes.stopped)."""
    cap = DECOMPRESSED_CAP if cap is None else cap  # read when called: a test lowers it
    first = next(raw, b"")
    make = _decompressor(first)
    if make is None:
        if first:
            yield first
        yield from raw
        return
    try:
        yield from _decompressed(make, first, raw, block, notes, cap)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise InputError(f"{name}: corrupt or truncated compressed data ({exc})") from None


def _decompressed(
    make: Callable[[], object], pending: bytes, raw: Iterator[bytes], block: int, notes: ReadNotes, cap: int
) -> Iterator[bytes]:
    out = 0
    decompressor: object = make()
    while True:
        if out >= cap:
            notes.stopped = (
                f"stopped after {size(cap)} of decompressed data (the cap on compressed inputs); the "
                f"report covers that part (to read it all, decompress it and pipe it in)"
            )
            return
        # zlib keeps unread input in unconsumed_tail; bz2 and lzma keep it inside and say needs_input, so new
        # input is given only when they ask for it (else the compressed input would pile up inside them)
        if not pending and getattr(decompressor, "needs_input", True):
            pending = next(raw, b"")
            if not pending:
                break
        data = decompressor.decompress(pending, min(block, cap - out))  # type: ignore[attr-defined]
        pending = getattr(decompressor, "unconsumed_tail", b"")
        if data:
            out += len(data)
            yield data
        if decompressor.eof:  # type: ignore[attr-defined]
            pending = decompressor.unused_data.lstrip(b"\x00")  # type: ignore[attr-defined]
            while not pending:  # zero padding, or the end; another member may follow in the next read
                more = next(raw, None)
                if more is None:
                    return
                pending = more.lstrip(b"\x00")
            decompressor = make()
    if hasattr(decompressor, "flush"):  # zlib: the output still inside it (the end of a match)
        data = decompressor.flush()
        if data:
            yield data[: cap - out]
    if not decompressor.eof:  # type: ignore[attr-defined]
        raise EOFError("the stream ends before its end marker")


def cut_long_lines(reads: Iterator[bytes], notes: ReadNotes, cap: int = LINE_CAP) -> Iterator[bytes]:
    """The reads cut at their last newline (the unfinished line is carried into the next read), each line
    longer than `cap` bytes cut to its first `cap` bytes (the rest skipped, never held)."""
    tail = b""  # the unfinished last line of the previous read (a UTF-8 sequence may straddle reads)
    skipping = False  # inside the rest of a line already cut
    for data in reads:
        if skipping:
            newline = data.find(b"\n")
            if newline < 0:
                continue
            data = data[newline + 1 :]
            skipping = False
        last_newline = data.rfind(b"\n")
        if last_newline < 0:
            tail += data[: cap + 1 - len(tail)] if len(tail) <= cap else b""
            if len(tail) > cap:
                notes.cut_lines += 1
                yield tail[:cap] + b"\n"
                tail, skipping = b"", True
            continue
        complete = tail + data[: last_newline + 1] if tail else data[: last_newline + 1]
        tail = data[last_newline + 1 :]
        yield _cut_inside(complete, notes, cap) if len(complete) > cap else complete
        if len(tail) > cap:
            notes.cut_lines += 1
            yield tail[:cap] + b"\n"
            tail, skipping = b"", True
    if tail:
        yield tail


def _cut_inside(data: bytes, notes: ReadNotes, cap: int) -> bytes:
    """Complete lines with each longer than `cap` cut. Jumps to the last newline of each window of `cap`
    bytes: a few finds per read, whatever the number of lines."""
    pieces: list[bytes] = []
    start = 0  # start of the piece being kept
    pos = 0  # a line start
    end = len(data)
    while end - pos > cap:
        newline = data.rfind(b"\n", pos, pos + cap + 1)
        if newline >= 0:
            pos = newline + 1
            continue
        # the line at pos runs past cap: keep its first cap bytes, skip to its end
        line_end = data.find(b"\n", pos + cap)
        pieces.append(data[start : pos + cap])
        pieces.append(b"\n")
        notes.cut_lines += 1
        pos = start = line_end + 1
    if not pieces:
        return data
    pieces.append(data[start:])
    return b"".join(pieces)
