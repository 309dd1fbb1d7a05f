"""`rocm-smi --showtopotype` (and the same table inside `--showtopo`): the link type between each pair of AMD GPUs, as
SGLang's check_env prints it under "AMD Topology:" on ROCm (sglang 0.5.23 check_env.py get_topology runs
`rocm-smi --showtopotype`).

The released tool's shape (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py, SMI 1.4.1, showTypeTopology): a spacer
line `printLogSpacer(' Link Type between two GPUs ')` (the title centred in "=" to the log's width: 80 or 90 columns
by release), a header of "GPU%d" cells, then a row per GPU, "GPU%d" and one cell a GPU: "0" on the diagonal, "PCIE"
or "XGMI" (rsmi_topo_get_link_type's type 1 and 2), "XXXX" for another type. The other matrices of --showtopo
(weight, hops) hold numbers and are not links: only the link type table is read."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import BlockReader

# (the spacer of the 80-column releases fills a terminal's line: a paste may join the header row to it, after its "=")
_SPACER = re.compile(r"^\s*=+\s*Link Type between two GPUs\s*=+(?P<rest>.*)$")
_HEADER = re.compile(r"^\s*GPU0(?:\s+GPU\d+)*\s*$")
# (the cells as runs of non-blanks: a lazy `.*?` before `\s*$` rescanned a row's blank run at each character, quadratic,
# review14a item 15)
_ROW = re.compile(r"^\s*GPU(\d+)\s+(\S+(?:\s+\S+)*?)\s*$")
_KINDS = frozenset({"PCIE", "XGMI"})  # "0": the diagonal; "XXXX": a type the tool does not name
_CELLS = _KINDS | {"0", "XXXX"}


def _link_row(text: str) -> tuple[int, list[str]] | None:
    """A row of the table: its GPU's number and its cells, all of them link types; None for any other line."""
    m = _ROW.match(text)
    cells = m.group(2).split() if m else []
    return (int(m.group(1)), cells) if m is not None and all(c in _CELLS for c in cells) else None


def link_types(lines: list[str]) -> dict[str, Any] | None:
    """The topology event's data ({"links": [[a, b, kind]], ...}, a < b, each pair once) of the link type table among
    the lines (the spacer, the header, the rows; other lines are passed over), or None where it holds no link."""
    columns: list[int] | None = None
    links: list[list[Any]] = []
    seen: set[tuple[int, int]] = set()
    titled = False
    for text in lines:
        spacer = _SPACER.match(text)
        if spacer:
            titled, columns = True, None
            if not _HEADER.match(spacer.group("rest")):
                continue
            text = spacer.group("rest")
        if not titled:
            continue
        if columns is None:
            if _HEADER.match(text):
                columns = [int(cell[3:]) for cell in text.split()]
            continue
        found = _link_row(text)
        if found is None or len(found[1]) > len(columns):
            titled, columns = False, None  # the table ended (the log's footer, the next table's spacer)
            continue
        row, cells = found
        for column, kind in zip(columns, cells):
            pair = (min(row, column), max(row, column))
            if column != row and kind in _KINDS and pair not in seen:
                seen.add(pair)
                links.append([pair[0], pair[1], kind])
    if not links:
        return None
    return {"links": links, "p2p": [], "nics": [], "affinity": {}}


class RocmTopoReader(BlockReader):
    """The link type table of rocm-smi pasted on its own: its spacer line, the header, the rows."""

    grammar = kinds.NVIDIA_TOPO_GRAMMAR  # the topology matrices' block grammar (nvidia-smi topo -m's too)
    literals = ("Link Type between two GPUs",)

    def starts(self, text: str) -> bool:
        spacer = _SPACER.match(text)
        return spacer is not None and (not spacer.group("rest").strip() or _HEADER.match(spacer.group("rest")) is not None)

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.lines = [text]
        spacer = _SPACER.match(text)
        self.header = spacer is not None and _HEADER.match(spacer.group("rest")) is not None
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if not self.header:
            self.header = _HEADER.match(text) is not None
        elif _link_row(text) is None:
            return False  # a line of "GPU<n>" and other words ("GPU0 hangs at startup") is no row: the table ended
        if not self.header:
            return False
        self.lines.append(text)
        return True

    def close(self) -> list[Event]:
        data = link_types(self.lines)
        if data is None:
            return []
        return [Event(kinds.TOPOLOGY, self.source, self.first_line, "rocm-smi --showtopotype", None, None, data, self.grammar)]
