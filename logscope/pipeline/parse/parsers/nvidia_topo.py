"""`nvidia-smi topo -m` / `topo -p2p` matrices (stand-alone or inside check_env) → topology events."""

from __future__ import annotations

import re
from typing import Any

from lark import Token
from lark.exceptions import LarkError

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.grammar_loader import parse
from logscope.pipeline.parse.parsers.base import BlockReader

_HEADER = re.compile(r"^\s*GPU0(\s+(GPU|NIC|mlx\d_(?:bond_)?)\d+)*\s*(CPU Affinity.*)?$")
_P2P_STATES = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"}


def _parse(text: str) -> Any:
    try:
        return parse(kinds.NVIDIA_TOPO_GRAMMAR, text.strip())
    except LarkError:
        return None


_LINK_KINDS = re.compile(r"^(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|OK|CNS|GNS|TNS|NS|DR|U)$")
_ROW_HEAD = re.compile(r"^\s*((?:GPU|NIC|mlx\d_(?:bond_)?)\d+)\s")
_NIC_LEGEND = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")


def _int_or_none(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _row(text: str) -> tuple[str, list[str], list[str]] | None:
    """(device, link cells, affinity tails) of a matrix row; a row damaged by the paste (two cells run
    together) is read up to the damage."""
    tree = _parse(text)
    if tree is not None and tree.children[0].data == "row":
        toks = [t for t in tree.children[0].children if isinstance(t, Token)]
        return str(toks[0]), [str(t) for t in toks[1:] if t.type == "LINK"], [str(t) for t in toks[1:] if t.type == "TAIL"]
    m = _ROW_HEAD.match(text)
    if m is None:
        return None
    cells = []
    for word in text.split()[1:]:
        if not _LINK_KINDS.match(word):
            break
        cells.append(word)
    return (m.group(1), cells, []) if cells else None


def _is_header(text: str) -> bool:
    tree = _parse(text)
    return tree is not None and tree.children[0].data == "header"


def _columns_of_rows(lines: list[str]) -> list[str | None]:
    """The columns of a matrix pasted without its header row: each row's X is where its own column stands (the
    matrix is square over its devices). Columns no row names stay unnamed (their cells are not read), except NICs
    the legend lists when they are exactly the unnamed columns after the GPUs."""
    rows = [row for text in lines if (row := _row(text)) is not None]
    if not rows:
        return []
    columns: list[str | None] = [None] * max(len(cells) for _, cells, _ in rows)
    for device, cells, _ in rows:
        if "X" in cells:
            columns[cells.index("X")] = device
    # nvidia-smi lists the GPUs first, in index order (GPU0 .. GPUn-1, then the NICs): where every GPU row's X stands
    # in the column of its own index, the columns up to the highest GPU row are GPU0 .. GPUn, whether or not the copy
    # holds their rows (a copy that starts at GPU5's row still shows GPU5's links to GPU0-4)
    gpus = [int(device[3:]) for device, _, _ in rows if device.startswith("GPU")]
    diagonal = all(device == f"GPU{cells.index('X')}" for device, cells, _ in rows if device.startswith("GPU") and "X" in cells)
    top = max(gpus, default=-1)
    if gpus and diagonal and top < len(columns) and all(c in (None, f"GPU{i}") for i, c in enumerate(columns[: top + 1])):
        for i in range(top + 1):
            columns[i] = f"GPU{i}"
    legend = [m.group(1) for text in lines if (m := _NIC_LEGEND.match(text))]
    unnamed = [i for i, column in enumerate(columns) if column is None]
    named_gpus = [i for i, column in enumerate(columns) if column and column.startswith("GPU")]
    if legend and len(legend) == len(unnamed) and (not named_gpus or unnamed[0] > named_gpus[-1]):
        for i, nic in zip(unnamed, legend):
            columns[i] = nic
    return columns


def parse_topology(lines: list[str]) -> dict[str, Any] | None:
    """Links between GPUs ([a, b, kind] with a < b), P2P status, GPU-NIC links with the NIC legend, and each
    GPU's CPU affinity, NUMA node and GPU NUMA ID (ints; None where the matrix says N/A)."""
    lines = _unwrapped(lines)
    columns: list[str | None] = [] if any(_is_header(text) for text in lines) else _columns_of_rows(lines)
    links: list[list[Any]] = []
    p2p: list[list[Any]] = []
    seen: set[tuple[int, int, bool]] = set()  # (a, b, a P2P status) pairs already given
    affinity: dict[str, dict[str, Any]] = {}
    nics: list[dict[str, Any]] = []
    legend: dict[str, str] = {}
    for text in lines:
        named = _NIC_LEGEND.match(text)
        if named:
            legend[named.group(1)] = named.group(2)
            continue
        tree = _parse(text)
        if tree is not None and tree.children[0].data == "header":
            columns = [str(t) for t in tree.children[0].children if isinstance(t, Token) and t.type == "DEVICE"]
            continue
        row = _row(text) if columns else None
        if row is None:
            continue
        device, cells, tails = row
        for column, kind in zip(columns, cells):
            if kind == "X" or column == device or column is None:
                continue
            if device.startswith("GPU") and column.startswith("GPU"):
                # each pair once, from the first row that shows it (the lower GPU's, or the higher's where a copy
                # starts below the lower GPU's row)
                a, b = sorted((int(device[3:]), int(column[3:])))
                table = p2p if kind in _P2P_STATES else links
                if (a, b, table is p2p) not in seen:
                    seen.add((a, b, table is p2p))
                    table.append([a, b, kind])
            elif device.startswith("GPU") and column.startswith(("NIC", "mlx")):
                nics.append({"gpu": int(device[3:]), "nic": column, "link": kind})
        if device.startswith("GPU") and tails:
            entry: dict[str, Any] = {"cpu": tails[0]}
            if len(tails) > 1:
                entry["numa"] = _int_or_none(tails[1])
            if len(tails) > 2:
                entry["gpu_numa_id"] = _int_or_none(tails[2])
            affinity[device] = entry
    for nic in nics:
        if nic["nic"] in legend:
            nic["device"] = legend[nic["nic"]]
    if not links and not p2p and not affinity and not nics:
        return None
    return {"links": links, "p2p": p2p, "nics": nics, "affinity": affinity}


def _cut_short(before: list[str], text: str) -> bool:
    """Whether a matrix row has fewer cells than the complete rows of its kind above it (GPU or NIC rows), or, with
    none above, fewer link cells than the header has columns."""
    row = _row(text)
    if row is None:
        return False
    kind = row[0].rstrip("0123456789_")
    widths = [len(t.split()) for t in before if (other := _row(t)) is not None and other[0].rstrip("0123456789_") == kind]
    if widths:
        return len(text.split()) < max(widths)
    header = next((t for t in before if _is_header(t)), None)
    return header is not None and len(row[1]) < len(_HEADER_DEVICE.findall(header))


_HEADER_DEVICE = re.compile(r"\b(?:GPU|NIC|mlx\d_(?:bond_)?)\d+\b")


# a row of the matrix pasted without the header row above it, the first ("GPU0     X      NV18    NV18 ...") or any
# later one a copy starts at ("GPU5    NV18    NV18    NV18    NV18    NV18     X      NV18 ..."): its X stands after
# as many link cells as its GPU's index (the diagonal), and a link cell follows it or the row ends at X
_LINK = r"(?:NV\d+|PIX|PXB|PHB|NODE|SYS|OK|CNS|GNS|TNS|NS|DR|U)"
_ANY_ROW = re.compile(r"^\s*GPU(\d+)((?:\s+" + _LINK + r")*)\s+X(\s+" + _LINK + r"(?!\S))?")


def _row_starts_matrix(text: str) -> bool:
    m = _ANY_ROW.match(text)
    if m is None:
        return False
    index = int(m.group(1))
    return len(m.group(2).split()) == index and (index > 0 or m.group(3) is not None)


# the matrix rewritten as a Markdown table ("| GPU0 | X | NV12 | 0-63 | 0 |", its header row's first cell empty, a rule
# row "|------|------|" under it): read as the matrix with its pipes taken out
_MARKDOWN_ROW = re.compile(r"^\s*\|(?:[^|]*\|){2,}\s*$")
_MARKDOWN_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def _unpiped(text: str) -> str:
    return text.replace("|", " ") if _MARKDOWN_ROW.match(text) else text


# a matrix wider than the terminal it was copied from, its lines wrapped: the rest of the header row ("        GPU8
# GPU9 ... NIC1", "        CPU Affinity    NUMA Affinity   GPU NUMA ID") or of a device's row (more link cells, or its
# affinity cells "        0-47    0               N/A") on an indented line of its own, under the line it continues
_HEADER_REST = re.compile(
    r"^\s+(?!GPU0\b)(?:(?:GPU|NIC|mlx\d_(?:bond_)?)\d+\s+)*"
    r"(?:(?:GPU(?!0\b)|NIC|mlx\d_(?:bond_)?)\d+|CPU Affinity(?:\s+NUMA Affinity)?(?:\s+GPU NUMA ID)?)\s*$"
)
_ROW_REST = re.compile(r"^\s+(?:" + _LINK + r"|X)(?:\s+(?:" + _LINK + r"|X))*(?:\s+[\d,-]+(?:\s+(?:\d+|N/A))*)?\s*$")
_TAIL_REST = re.compile(r"^\s+\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*(?:\s+(?:\d+|N/A)){1,2}\s*$")


def _wrapped_rest(previous: str, text: str) -> bool:
    """Whether `text` continues `previous` (a header row or a device's row cut by the terminal's width)."""
    if _HEADER.match(previous) or (previous[:1].isspace() and _is_header(previous)):
        return bool(_HEADER_REST.match(text)) and "Affinity" not in previous
    if _ROW_HEAD.match(previous) and not previous.rstrip().endswith("N/A"):
        return bool(_ROW_REST.match(text) or _TAIL_REST.match(text))
    return False


def _unwrapped(lines: list[str]) -> list[str]:
    """The matrix's lines with each wrapped rest joined to the line it continues (check_env's topology value is
    read from its lines as pasted)."""
    out: list[str] = []
    for text in lines:
        if out and _wrapped_rest(out[-1], text):
            out[-1] = out[-1].rstrip() + "\t" + text.strip()
        else:
            out.append(text)
    return out


def without_cut_cell(lines: list[str], *, only_a_cut_start: bool = False) -> list[str]:
    """A matrix the copy ended in: a last row with fewer cells than the rows of its kind above it (or, the first row,
    than the header's columns) was cut, and its last cell may be cut too ("NV1" of "NV18"): it is dropped, or, with
    `only_a_cut_start`, only when it is the start of a longer cell the rows above hold ("NV1" of "NV18", "NO" of
    "NODE"; a whole cell, "NV18" or "NODE", is read)."""
    texts = [text for text in lines if text.strip()]
    if not texts or not _cut_short(texts[:-1], texts[-1]):
        return lines
    last = max(i for i, text in enumerate(lines) if text.strip())
    head, cell = lines[last].rstrip().rsplit(None, 1)
    if only_a_cut_start:
        cells = {word for text in texts[:-1] if (row := _row(text)) is not None for word in row[1]}
        if not any(other != cell and other.startswith(cell) for other in cells):
            return lines
    return [*lines[:last], head.rstrip(), *lines[last + 1 :]]


class TopoReader(BlockReader):
    """`nvidia-smi topo -m`: the header row and the rows under it, or the rows alone (pasted without the header)."""

    grammar = kinds.NVIDIA_TOPO_GRAMMAR
    literals = ("GPU0", " X ", " X\t", "\tX\t")  # the header or first row; any row's diagonal cell

    def starts(self, text: str) -> bool:
        text = _unpiped(text)
        return bool(_HEADER.match(text) or _row_starts_matrix(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.lines = [_unpiped(text)]
        self.results: list[dict[str, Any]] = []
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if _MARKDOWN_RULE.match(text):
            return True
        text = _unpiped(text)
        stripped = text.strip()
        if self.lines and _wrapped_rest(self.lines[-1], text):
            self.lines[-1] = self.lines[-1].rstrip() + "\t" + stripped
            return True
        if _HEADER.match(text):
            self._flush()
            self.lines = [text]
            return True
        if (
            _parse(text) is not None
            or _ROW_HEAD.match(text)
            or stripped in ("Legend:", "")
            or stripped.startswith(("NIC Legend", "NIC"))
        ):
            self.lines.append(text)
            return True
        return False

    def close_at_end(self, open_fence: bool) -> list[Event]:
        """The copy ended inside the matrix: a last row with fewer cells than the rows of its kind above it (or, the
        first row, than the header's columns) was cut, and its last cell may be cut too ("NV1" of "NV18"): it is
        not read."""
        self.lines = without_cut_cell(self.lines)
        return self.close()

    def _flush(self) -> None:
        result = parse_topology(self.lines)
        if result is not None:
            self.results.append(result)

    def close(self) -> list[Event]:
        self._flush()
        return [
            Event(kinds.TOPOLOGY, self.source, self.first_line, "nvidia-smi topo -m", None, None, r, kinds.NVIDIA_TOPO_GRAMMAR)
            for r in self.results
        ]
