"""A C printf format as a released native library prints it (NCCL's WARN formats, NVSHMEM's error checks), made into a
regular expression of the text it prints: the one reading of printf conversions for the native catalogues."""

from __future__ import annotations

import re

# a printf conversion: flags, width, precision, length modifier, conversion (%% is a literal percent sign)
CONVERSION = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|ll|[hlzjtL])*([diouxXfFeEgGcsp%])")
_TYPED = {"s": ".*?", "p": r"(?:0x)?[0-9a-fA-F]+|\(nil\)", "x": "[0-9a-fA-F]+", "X": "[0-9a-fA-F]+", "c": "."}
_NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def printf_regex(fmt: str, typed: bool = True) -> str:
    """The regular expression (unanchored) of what `fmt` prints: each conversion as the text its type prints
    (`typed`), or as any text."""
    parts, end = [], 0
    for m in CONVERSION.finditer(fmt):
        parts.append(re.escape(fmt[end : m.start()]))
        conversion = m.group(1)
        if conversion == "%":
            parts.append("%")
        else:
            parts.append("(?:" + _TYPED.get(conversion, _NUMBER) + ")" if typed else ".*?")
        end = m.end()
    parts.append(re.escape(fmt[end:]))
    return "".join(parts)
