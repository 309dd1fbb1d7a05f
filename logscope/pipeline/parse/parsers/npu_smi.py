"""Huawei Ascend `npu-smi info` tables: each NPU as a GPU record (index, name, health, power, temperature, bus
id, AICore use, memory used / total: the HBM pair where the card prints one, else Memory-Usage) and each
process row as a process on its NPU. Table lines go through grammars/npu_smi.lark; rules and column headers
are furniture. npu-smi prints MB; its figures are binary (65536 MB = 64 GiB of HBM), kept as printed in the
_mib fields."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from lark import Token, Transformer, Tree
from lark.exceptions import LarkError

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.grammar_loader import parse
from logscope.pipeline.parse.parsers.base import BlockReader

GRAMMAR = "npu_smi"
# rules, column headers and the empty-process line: recognised, nothing to read
_FURNITURE = re.compile(r"^[+=\-\s]*$|^\|\s*(NPU\s+Name|Chip\s|NPU\s+Chip|No running processes)|^[+=\-|\s]*$")


def _number(token: Token) -> float | int | None:
    text = str(token)
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        return None
    return float(text) if "." in text else int(text)


class _NpuLine(Transformer):
    def pair(self, items: list[Token]) -> tuple[int, int]:
        return int(items[0]), int(items[1])

    def header(self, items: list[Token]) -> tuple[str, dict[str, Any]]:
        return "header", {"npu_smi": str(items[0]), "npu_driver": str(items[1])}

    def npu_row(self, items: list[Any]) -> tuple[str, dict[str, Any]]:
        index, name, health, power, temperature, hugepages = items
        data: dict[str, Any] = {"index": int(index), "name": str(name), "device": "npu", "health": str(health)}
        for key, token in (("power_w", power), ("temperature_c", temperature)):
            value = _number(token)
            if value is not None:
                data[key] = value
        data["hugepages_used"], data["hugepages_total"] = hugepages
        return "npu_row", data

    def usage_row(self, items: list[Any]) -> tuple[str, dict[str, Any]]:
        chip, bus_id, aicore, *pairs = items
        data: dict[str, Any] = {"chip": int(chip), "bus_id": str(bus_id)}
        value = _number(aicore)
        if value is not None:
            data["aicore_pct"] = value
        used, total = pairs[-1]  # HBM-Usage where printed, else Memory-Usage
        data["memory_used_mib"], data["memory_total_mib"] = used, total
        data["memory_kind"] = "HBM" if len(pairs) > 1 else "memory"
        return "usage_row", data

    def process_row(self, items: list[Token]) -> tuple[str, dict[str, Any]]:
        npu, chip, pid, name, used = items
        data = {"gpu": int(npu), "chip": int(chip), "pid": int(pid), "name": str(name).strip(), "used_mib": int(used)}
        return "process_row", data

    def start(self, items: list[Any]) -> tuple[str, dict[str, Any]]:
        return items[0]  # type: ignore[no-any-return]


_TRANSFORMER = _NpuLine()


def read_npu_line(text: str) -> tuple[str, dict[str, Any]] | None:
    """One table line through grammars/npu_smi.lark, or None when it is none of its line kinds."""
    try:
        result = _TRANSFORMER.transform(parse(GRAMMAR, text.strip()))
    except LarkError:
        return None
    return None if isinstance(result, Tree) else result


class NpuSmiReader(BlockReader):
    grammar = GRAMMAR
    literals: ClassVar[tuple[str, ...]] = ("npu-smi",)

    def starts(self, text: str) -> bool:
        return read_npu_line(text) is not None and "Version:" in text

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.pending: dict[str, Any] | None = None
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        stripped = text.strip()
        if not stripped.startswith(("|", "+")):
            return False
        line = read_npu_line(stripped)
        if line is None:
            return bool(_FURNITURE.match(stripped))
        rule, data = line
        if rule == "header":
            self._emit(kinds.SMI_VERSIONS, lineno, stripped, data)
        elif rule == "npu_row":
            self._flush()
            self.pending = {**data, "line": lineno}
        elif rule == "usage_row" and self.pending is not None:
            self.pending.update(data)
            self._flush()
        elif rule == "process_row":
            self._emit(kinds.SMI_PROCESS, lineno, stripped, data)
        return True

    def _flush(self) -> None:
        if self.pending is not None:
            gpu = self.pending
            line = gpu.pop("line")
            self._emit(kinds.SMI_GPU, line, f"NPU {gpu['index']} {gpu['name']}", gpu)
            self.pending = None

    def _emit(self, kind: str, line: int, text: str, data: dict[str, Any]) -> None:
        self.events.append(Event(kind, self.source, line, text[:300], None, None, data, GRAMMAR))

    def close(self) -> list[Event]:
        self._flush()  # a table cut after an NPU's first row still names the NPU
        return self.events
