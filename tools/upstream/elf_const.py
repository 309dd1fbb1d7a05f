"""The value of a constant a shared library keeps as a symbol (a `const size_t` defined in a .cpp and declared
`extern` in a header, as torch 2.5-2.9 define CUDACachingAllocator's kLargeBuffer), read from the ELF file's
symbol table and the bytes of the section it lies in: nothing is loaded or run."""

from __future__ import annotations

import struct

_SHT_SYMTAB, _SHT_DYNSYM = 2, 11


def _sections(data: bytes) -> list[tuple[int, int, int, int, int, int]]:
    """(type, addr, offset, size, link, entsize) of each section of a 64-bit little-endian ELF file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    found = []
    for i in range(shnum):
        _, kind, _, addr, offset, size, link, _, _, entsize = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        found.append((kind, addr, offset, size, link, entsize))
    return found


def symbol_value(data: bytes, mangled: str) -> int | None:
    """The unsigned little-endian value stored at the symbol `mangled` (its st_size bytes), or None when the file
    has no such symbol with a size."""
    sections = _sections(data)
    for kind, _, offset, size, link, entsize in sections:
        if kind not in (_SHT_SYMTAB, _SHT_DYNSYM) or not entsize:
            continue
        strtab = sections[link][2]
        for at in range(offset, offset + size, entsize):
            name, _, _, shndx, value, length = struct.unpack_from("<IBBHQQ", data, at)
            end = data.index(b"\0", strtab + name)
            if data[strtab + name : end].decode("ascii", "replace") != mangled or not length or shndx >= len(sections):
                continue
            _, addr, base, _, _, _ = sections[shndx]
            start = base + value - addr
            return int.from_bytes(data[start : start + length], "little")
    return None
