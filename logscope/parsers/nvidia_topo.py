"""`nvidia-smi topo -m` / `topo -p2p` matrices (stand-alone or inside check_env) → topology events."""

from __future__ import annotations

import re
from typing import Any

from lark import Token
from lark.exceptions import LarkError

from logscope.events import Event
from logscope.grammar_loader import parser
from logscope.parsers.base import BlockReader

_HEADER = re.compile(r"^\s*GPU0(\s+(GPU|NIC)\d+)*\s*(CPU Affinity.*)?$")
_P2P_STATES = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"}


def _parse(text: str) -> Any:
    try:
        return parser("nvidia_topo").parse(text.strip())
    except LarkError:
        return None


def parse_topology(lines: list[str]) -> dict[str, Any] | None:
    """Links between GPUs ([a, b, kind] with a < b), P2P status, CPU/NUMA affinity per GPU."""
    columns: list[str] = []
    links: list[list[Any]] = []
    p2p: list[list[Any]] = []
    affinity: dict[str, dict[str, str]] = {}
    nics: list[list[Any]] = []
    for text in lines:
        tree = _parse(text)
        if tree is None:
            continue
        node = tree.children[0]
        toks = [t for t in node.children if isinstance(t, Token)]
        if node.data == "header":
            columns = [str(t) for t in toks if t.type == "DEVICE"]
            continue
        if node.data != "row" or not columns:
            continue
        device = str(toks[0])
        cells = [str(t) for t in toks[1:] if t.type == "LINK"]
        tails = [str(t) for t in toks[1:] if t.type == "TAIL"]
        for column, kind in zip(columns, cells):
            if kind == "X" or column == device:
                continue
            if device.startswith("GPU") and column.startswith("GPU"):
                a, b = int(device[3:]), int(column[3:])
                if a < b:
                    (p2p if kind in _P2P_STATES else links).append([a, b, kind])
            elif device.startswith("GPU") and column.startswith(("NIC", "mlx5_")):
                nics.append([int(device[3:]), column, kind])
        if device.startswith("GPU") and tails:
            affinity[device] = {"cpu": tails[0], **({"numa": tails[1]} if len(tails) > 1 else {})}
    if not links and not p2p and not affinity:
        return None
    return {"links": links, "p2p": p2p, "nic_links": nics, "affinity": affinity}


class TopoReader(BlockReader):
    grammar = "nvidia_topo"
    literals = ("GPU0",)

    def starts(self, text: str) -> bool:
        return bool(_HEADER.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.lines = [text]
        self.results: list[dict[str, Any]] = []
        return self

    def feed(self, lineno: int, text: str) -> bool:
        stripped = text.strip()
        if _HEADER.match(text):
            self._flush()
            self.lines = [text]
            return True
        if _parse(text) is not None or stripped in ("Legend:", "") or stripped.startswith(("NIC Legend", "NIC")):
            self.lines.append(text)
            return True
        return False

    def _flush(self) -> None:
        result = parse_topology(self.lines)
        if result is not None:
            self.results.append(result)

    def close(self) -> list[Event]:
        self._flush()
        return [Event("topology", self.source, self.first_line, "nvidia-smi topo -m", None, None, r, "nvidia_topo")
                for r in self.results]
