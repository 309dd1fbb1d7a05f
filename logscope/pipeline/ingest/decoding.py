"""The bytes of one input → UTF-8 text for the line splitter, or a refusal when they are no text.

The encoding is read from a byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE); without one, UTF-16 is
recognised by its zero bytes (PowerShell 5's `>` writes UTF-16 LE with a mark, `Out-File -Encoding
unicode` and some Windows tools without one); anything else is read as UTF-8, stray bytes becoming U+FFFD
(never fatal). A file whose lines end in a bare CR (classic Mac) has them made LF. Binary data is judged on
its first SNIFF_BYTES: known formats by their magic number, the rest by the share of bytes that text does
not hold.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain

from logscope.core.errors import InputError

SNIFF_BYTES = 1 << 16
# above this share of control characters (other than tab, line ends, form feed, backspace and ESC) the head
# of an input is binary: text in any encoding holds almost none (bytes that are no UTF-8, as Latin-1 or GBK
# text has, only become U+FFFD), random bytes about 10%, executables far more
BINARY_SHARE = 0.02
BINARY_MIN = 8  # control characters a head needs at least before it is called binary

# longest first: the UTF-32 LE mark starts with the UTF-16 LE one
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)
# what binary data is, by its magic number, to name it in the refusal
_MAGIC = (
    (b"\x7fELF", "an ELF executable"),
    (b"MZ\x90\x00", "a Windows executable"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (unpack it first)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (unpack it first)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data (decompress it first: zstd -d)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x93NUMPY", "a NumPy array"),
)
_CONTROL = re.compile(r"[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]")  # tab, LF, VT, FF, CR, BS, ESC are text


@dataclass(frozen=True, slots=True)
class Encoding:
    name: str  # a Python codec name
    mark: int  # bytes of byte-order mark to skip
    mark_found: bool

    @property
    def label(self) -> str:
        """What the document says: the codec, and whether a byte-order mark said so."""
        return self.name + (" (byte-order mark)" if self.mark_found else " (no byte-order mark)")


UTF8 = Encoding("utf-8", 0, False)


def sniff_encoding(head: bytes) -> Encoding:
    for mark, name in _BOMS:
        if head.startswith(mark):
            return Encoding(name, len(mark), True)
    return _utf16_without_mark(head) or UTF8


def _utf16_without_mark(head: bytes) -> Encoding | None:
    """UTF-16 of mostly ASCII text: nearly every other byte is zero, and only those. Needs 16 code units, so a
    short UTF-8 text with a few NULs is never taken for it."""
    sample = head[:4096]
    units = len(sample) // 2
    if units < 16:
        return None
    even_zero = sample[0 : units * 2 : 2].count(0)
    odd_zero = sample[1 : units * 2 : 2].count(0)
    if odd_zero >= 0.9 * units and even_zero <= 0.05 * units:
        return Encoding("utf-16-le", 0, False)
    if even_zero >= 0.9 * units and odd_zero <= 0.05 * units:
        return Encoding("utf-16-be", 0, False)
    return None


def binary_reason(head: bytes) -> str | None:
    """Why the first bytes of an input (after decompression, decoded to UTF-8) are no text, or None. The
    share of control characters decides; a known magic number only names what the data is."""
    sample = head[:SNIFF_BYTES]
    # NUL runs are left out of the share: a log whose tail a crash filled with zeros is still a log
    text = sample.replace(b"\x00", b"")
    if not text:
        return f"only zero bytes in its first {len(sample)} bytes" if sample else None
    decoded = text.decode("utf-8", errors="replace")
    bad = len(_CONTROL.findall(decoded))
    share = bad / len(decoded)
    if bad < BINARY_MIN or share <= BINARY_SHARE:
        return None
    what = next((what for magic, what in _MAGIC if sample.startswith(magic)), None)
    return what or f"{share:.0%} of the characters in its first {len(sample)} bytes are control characters"


def decode_stream(name: str, reads: Iterator[bytes], refuse_binary: bool = True) -> tuple[Encoding, Iterator[bytes]]:
    """An input's (decompressed) reads → its encoding and the reads as UTF-8. Reads its first SNIFF_BYTES now
    to judge them; binary data is a one-line input error naming the input."""
    head: list[bytes] = []
    held = 0
    for data in reads:
        head.append(data)
        held += len(data)
        if held >= SNIFF_BYTES:
            break
    first = b"".join(head)
    encoding = sniff_encoding(first)
    sample = first[encoding.mark : encoding.mark + SNIFF_BYTES]
    if encoding.name != "utf-8":
        sample = sample.decode(encoding.name, errors="replace").encode("utf-8", errors="replace")
    reason = binary_reason(sample) if refuse_binary else None
    if reason is not None:
        raise InputError(f"{name}: binary data, not a text log: {reason}")
    return encoding, utf8_reads(chain(head, reads), encoding, has_bare_cr(sample))


def utf8_reads(reads: Iterator[bytes], encoding: Encoding, bare_cr: bool) -> Iterator[bytes]:
    """The reads re-encoded to UTF-8 (mark removed), bare CR line ends made LF."""
    first = True
    decoder = codecs.getincrementaldecoder(encoding.name)(errors="replace") if encoding.name != "utf-8" else None
    for data in reads:
        if first and encoding.mark:
            data = data[encoding.mark :]
        first = False
        if decoder is not None:
            data = decoder.decode(data).encode("utf-8", errors="replace")
        if bare_cr:
            data = data.replace(b"\r", b"\n")
        if data:
            yield data
    if decoder is not None:
        tail = decoder.decode(b"", final=True).encode("utf-8", errors="replace")
        if tail:
            yield tail


def has_bare_cr(head: bytes) -> bool:
    """Line ends of a classic Mac file: CRs and not one LF in the head (a tqdm log holds both)."""
    return b"\r" in head and b"\n" not in head


def decode_text(name: str, data: bytes) -> str:
    """A whole input held in memory (an issue for triage) → text, by the same rules; binary is refused."""
    encoding = sniff_encoding(data)
    text = data[encoding.mark :].decode(encoding.name, errors="replace")
    reason = binary_reason(text[:SNIFF_BYTES].encode("utf-8", errors="replace"))
    if reason is not None:
        raise InputError(f"{name}: binary data, not a text issue: {reason}")
    return text.replace("\r", "\n") if has_bare_cr(text[:SNIFF_BYTES].encode()) else text
