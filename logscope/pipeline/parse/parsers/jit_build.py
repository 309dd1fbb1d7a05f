"""A kernel library's JIT build in progress, as the lines around a build failure name it: FlashInfer 0.2.x logs
"Loading JIT ops: <name>" before torch's cpp_extension builds the module and "Finished loading JIT ops: <name>" after it
(flashinfer-python 0.2.3 jit/core.py load_cuda_ops, through its "%(asctime)s - %(levelname)s - %(message)s" logger
flashinfer.jit); a build under ninja prints "ninja: Entering directory `<dir>'" first (ninja -C <dir>: FlashInfer 0.7.4
jit/cpp_ext.py run_ninja builds in FLASHINFER_JIT_DIR, ~/.cache/flashinfer/<archs>/cached_ops, and its "Ninja build
failed. Ninja output:" message holds that output). A torch cpp_extension or ninja failure then is that library's build."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.core.native_libraries import library_of
from logscope.pipeline.parse.parsers.base import Parsed

FLASHINFER = "FlashInfer"
BEGIN = "begin"
END = "end"
ENTERED = "entered"  # ninja's build directory, printed at the start of the build's output

_LOADING = re.compile(r"\bflashinfer\.jit: (Loading|Finished loading) JIT ops: (\S+)")
_ENTERING = re.compile(r"^\s*ninja: Entering directory [`'\"]([^`'\"]+)[`'\"]")


def fits(text: str) -> bool:
    return "JIT ops: " in text or "ninja: Entering directory" in text


def parse(text: str) -> Parsed | None:
    """{library, module, state} of a line that opens or closes a library's JIT build, or names its build folder."""
    m = _LOADING.search(text)
    if m:
        state = BEGIN if m.group(1) == "Loading" else END
        return Parsed(kinds.JIT_BUILD, {"library": FLASHINFER, "module": m.group(2), "state": state})
    m = _ENTERING.match(text)
    if m:
        library = library_of(m.group(1).rstrip("/") + "/")
        if library is None:
            return None
        return Parsed(kinds.JIT_BUILD, {"library": library, "module": m.group(1), "state": ENTERED})
    return None
