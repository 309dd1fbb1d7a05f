"""nvidia-smi dumps: the default table, `-q` (whole or -d MEMORY) and CSV from --query-gpu /
--query-compute-apps. Data lines go through grammars/nvidia_smi.lark; table furniture (rules, column
headers, empty cells) is recognised here. Each reader emits smi_gpu / smi_process / smi_versions events."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from lark import Token, Transformer
from lark.exceptions import LarkError

from logscope.core import kinds
from logscope.core.events import Event
from logscope.core.grammar_loader import parse
from logscope.pipeline.parse.parsers.base import BlockReader

_FURNITURE = re.compile(
    r"^[\s|+=\-]*$|^\|\s*(GPU\s+Name|Fan\s+Temp|GPU\s+GI|Processes:|No running processes|ID\s+ID|"
    r"MIG devices|\s*Usage\s*\||.*MIG M\.|\s*\|)|^\|[\s|]*(\S+[\s|]*)?\|\s*$"
)
_BUS_ID = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d")
_DRIVER_LABEL = re.compile(r"\b(?:Driver|KMD) Version:")
# a table copied from a terminal or a mail narrower than its rows (nvidia-smi's are 89 columns since R510): each row
# broken at the width, its end on the next line ("| NVIDIA-SMI 535.154.05   Driver Version: 535.154.05   CUDA" then
# "Version: 12.2     |"; "| N/A   30C  P0  57W / 400W |  70123MiB / 81559MiB |      0%" then "     Default |"):
# a line that opens with no border and holds the row's closing border alone
_WRAPPED_TAIL = re.compile(r"^[^|+\s][^|]*\|$")
_Q_START = re.compile(r"^=+NVSMI LOG=+$")
_Q_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s*$")
_MIB = re.compile(r"^(\d+(?:\.\d+)?)\s*(MiB)?$")
_MIG_REST = re.compile(r"^\s*(\d+)\s+(\d+|N/A)?\s*\|")
_MIG_BAR1 = re.compile(r"^\|\s*\|\s*(\d+)MiB\s*/\s*(\d+)MiB\s*\|")
_UNIT = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(?:W|MHz|C|%)$")
_Q_TOP_FIELDS = {
    "Performance State": "perf_state",
    "Product Architecture": "architecture",
    "GPU UUID": "uuid",
    "Persistence Mode": "persistence",
    "Compute Mode": "compute_mode",
    "VBIOS Version": "vbios",
}
_Q_POWER = {
    "Average Power Draw": "power_w",
    "Power Draw": "power_w",
    "Instantaneous Power Draw": "power_instant_w",
    "Current Power Limit": "power_cap_w",
    "Power Limit": "power_cap_w",
    "Default Power Limit": "power_default_cap_w",
}


def _unit_value(text: str) -> float | int | None:
    m = _UNIT.match(text.strip())
    if not m:
        return None
    return float(m.group(1)) if "." in m.group(1) else int(m.group(1))


@dataclass(frozen=True, slots=True)
class SmiLine:
    """One line of an nvidia-smi dump as the grammar read it: its rule and its values by name."""

    rule: str  # header | gpu_row | usage_row | process_row | mig_row | q_line
    values: dict[str, Any]


def _named(items: list[Token]) -> dict[str, list[str]]:
    """The tokens of a rule by terminal name, in order."""
    out: dict[str, list[str]] = {}
    for token in items:
        out.setdefault(token.type, []).append(str(token))
    return out


class _SmiTransformer(Transformer):
    """Each line rule → SmiLine with named values (terminals are told apart by type, not by position)."""

    def header(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        values = {"driver": named["VERSION"][1]}
        if named.get("CUDA_VER"):
            values["cuda_driver_api"] = named["CUDA_VER"][0]
        return SmiLine("header", values)

    def gpu_row(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        return SmiLine(
            "gpu_row",
            {
                "index": int(named["IDS"][0]),
                "name": named["GPU_NAME"][0].strip(),
                "persistence": named["ONOFF"][0],
                "bus_id": named["BUS_ID"][0],
                "display_active": named["DISP"][0],
                **({"ecc": named["CELL"][0].strip()} if named.get("CELL") else {}),
            },
        )

    def usage_row(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        values: dict[str, Any] = {
            "fan_pct": _num(named["FAN"][0]),
            "temperature_c": _num(named["TEMP"][0]),
            "perf_state": named["PERF"][0],
            "power_w": _num(named["POWER"][0]),
            "power_cap_w": _num(named["POWER"][1]),
            "memory_used_mib": int(named["MIB"][0][:-3]),
            "memory_total_mib": int(named["MIB"][1][:-3]),
            "util_pct": _num(named["PCT"][0]),
        }
        if named.get("CELL"):
            values["compute_mode"] = named["CELL"][0].strip().split()[-1]
        return SmiLine("usage_row", values)

    def process_row(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        return SmiLine(
            "process_row",
            {
                "gpu": int(named["IDS"][0]),
                "pid": int(named["IDS"][-1]),
                "type": named["PTYPE"][0],
                "name": named["PNAME"][0],
                "used_mib": int(named["MIB"][0][:-3]),
            },
        )

    def mig_row(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        ids = [int(t) if t.isdigit() else None for t in named["IDS"]]
        values: dict[str, Any] = {
            "gpu": ids[0],
            "gi": ids[1],
            "ci": ids[2],
            "mig_dev": ids[3],
            "memory_used_mib": int(named["MIB"][0][:-3]),
            "memory_total_mib": int(named["MIB"][1][:-3]),
        }
        rest = _MIG_REST.match(named.get("MIG_REST", [""])[0])
        if rest:  # "28      0 |  2   0    1    0    0 |": SM count, volatile uncorrected ECC, then the engines
            values["sm"] = int(rest.group(1))
            if rest.group(2) not in (None, "N/A"):
                values["ecc_uncorrected"] = int(rest.group(2))
        return SmiLine("mig_row", values)

    def q_line(self, items: list[Token]) -> SmiLine:
        named = _named(items)
        return SmiLine("q_line", {"key": named["Q_KEY"][0].strip(), "value": named.get("Q_VALUE", [""])[0].strip()})

    def start(self, items: list[SmiLine]) -> SmiLine:
        return items[0]


_TRANSFORMER = _SmiTransformer()


def read_smi_line(text: str) -> SmiLine | None:
    """One dump line through grammars/nvidia_smi.lark, or None when it is none of its line kinds."""
    try:
        return _TRANSFORMER.transform(parse(kinds.NVIDIA_SMI_GRAMMAR, text.strip()))
    except LarkError:
        return None


# a table re-flowed by the paste: its lines joined into one, each row still between its own pipes ("| 0  NVIDIA A100 On |
# 00000000:07:00.0 Off | 0 | | N/A 30C P0 61W / 400W | 4MiB / 81920MiB | 0% Default |"); read when the line holds a
# bus id or a memory cell, so a table's furniture alone costs no parse
_JOINED_HINT = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d|\d+MiB\s*/|NVIDIA-SMI")
_JOINED_MIN_PIPES = 7
_ROW_PIPES = 4  # the most pipes one row of the table holds (a GPU's two rows: "| ... | ... | ... |")
_TABLE_ROWS = ("header", "gpu_row", "usage_row", "process_row", "mig_row")


def _joined_rows(text: str) -> list[str]:
    """The rows of a line that joined several, in order: from each pipe, the longest stretch to a later pipe (of
    one row's at most) that reads as one row; stretches that read as none (rules, column headers, empty cells) are passed over."""
    if text.count("|") < _JOINED_MIN_PIPES or not _JOINED_HINT.search(text):
        return []
    pipes = [i for i, c in enumerate(text) if c == "|"]
    rows: list[str] = []
    k = 0
    while k < len(pipes) - 1:
        for end in range(min(len(pipes) - 1, k + _ROW_PIPES - 1), k, -1):
            piece = text[pipes[k] : pipes[end] + 1]
            line = read_smi_line(piece)
            if line is not None and line.rule in _TABLE_ROWS:
                rows.append(piece)
                k = end + 1
                break
        else:
            k += 1
    return rows if len(rows) > 1 else []


class SmiTableReader(BlockReader):
    grammar = kinds.NVIDIA_SMI_GRAMMAR
    # (a copy that starts at a GPU's first row, the header left out: its bus id, "00000000:63:00.0")
    literals: ClassVar[tuple[str, ...]] = ("NVIDIA-SMI", "MIG devices", "0000:", ":00.0")

    def starts(self, text: str) -> bool:
        # the header names the driver "Driver Version" (R418 .. R595) or "KMD Version" (R610 and later)
        if "NVIDIA-SMI" in text and _DRIVER_LABEL.search(text) is not None:
            return True
        stripped = text.strip()
        if stripped.startswith("| MIG devices"):
            return True
        if not stripped.startswith("|") or _BUS_ID.search(stripped) is None:
            return False
        line = read_smi_line(stripped)
        return line is not None and line.rule == "gpu_row"

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.first_line = lineno
        self.pending_gpu: dict[str, Any] | None = None
        self.held: tuple[int, str] | None = None  # a row whose wrapped tail may come on the next line
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        stripped = text.strip()
        if self.held is not None and _WRAPPED_TAIL.match(stripped):  # the row's end, wrapped onto a line of its own
            joined = f"{self.held[1]} {stripped}"
            if read_smi_line(joined) is not None or _FURNITURE.match(joined):
                held_line, self.held = self.held[0], None
                self._read(held_line, joined)
                return True
        self._release()
        if not stripped.startswith(("|", "+")) and "NVIDIA-SMI" not in stripped:
            return False
        if stripped.startswith("|"):
            self.held = (lineno, stripped)
            return True
        return self._read(lineno, stripped)

    def _read(self, lineno: int, stripped: str) -> bool:
        line = read_smi_line(stripped)
        if line is None:
            joined = _joined_rows(stripped)
            for row in joined:
                self._take(lineno, row, read_smi_line(row))
            if not joined:
                self._mig_bar1(stripped)
            return bool(_FURNITURE.match(stripped)) or stripped.startswith(("|", "+")) or bool(joined)
        self._take(lineno, stripped, line)
        return True

    def _take(self, lineno: int, stripped: str, line: SmiLine | None) -> None:
        if line is None:
            return
        if line.rule == "header":
            self._emit(kinds.SMI_VERSIONS, lineno, stripped, dict(line.values))
        elif line.rule == "gpu_row":
            self._flush_pending()  # the GPU above had no usage row it could be read from ("Not Supported" memory)
            self.pending_gpu = {**line.values, "line": lineno}
        elif line.rule == "usage_row" and self.pending_gpu is not None:
            gpu = self.pending_gpu
            gpu.update(line.values)
            self._emit(kinds.SMI_GPU, gpu.pop("line"), stripped, gpu)
            self.pending_gpu = None
        elif line.rule in ("mig_row", "process_row"):
            self._emit(kinds.SMI_MIG if line.rule == "mig_row" else kinds.SMI_PROCESS, lineno, stripped, dict(line.values))

    def _mig_bar1(self, stripped: str) -> bool:
        """The MIG row's second line holds its BAR1 usage: "|   |   4MiB / 32767MiB |   |   |"."""
        m = _MIG_BAR1.match(stripped)
        last = self.events[-1] if self.events else None
        if m is None or last is None or last.kind != kinds.SMI_MIG or "bar1_used_mib" in last.data:
            return False
        last.data.update(bar1_used_mib=int(m.group(1)), bar1_total_mib=int(m.group(2)))
        return True

    def _emit(self, kind: str, line: int, text: str, data: dict[str, Any]) -> None:
        self.events.append(Event(kind, self.source, line, text[:300], None, None, data, kinds.NVIDIA_SMI_GRAMMAR))

    def _flush_pending(self) -> None:
        """A GPU whose first row was read and its second not (the table cut there, or its memory cell "Not
        Supported" on a card without dedicated memory): its index and name, no memory."""
        if self.pending_gpu is not None:
            gpu = self.pending_gpu
            self._emit(kinds.SMI_GPU, gpu.pop("line"), f"GPU {gpu['index']} {gpu['name']}", gpu)
            self.pending_gpu = None

    def close(self) -> list[Event]:
        self._release()
        self._flush_pending()
        return self.events

    def _release(self) -> None:
        """Read the row held for a wrapped tail that did not come."""
        if self.held is not None:
            held, self.held = self.held, None
            self._read(*held)


# nvitop draws nvidia-smi's table with box characters; read as ASCII the rows are nvidia-smi's
_BOX = str.maketrans({"│": "|", "═": "=", "─": "-", **{c: "+" for c in "╒╕╘╛╞╡╪╤╧├┤┼┬┴┌┐└┘"}})
# nvitop's process rows: "│   0   12345 C    alice 70000MiB  0   100.0  5.0  1:00:00  python -m sglang... │"
_NVITOP_PROCESS = re.compile(
    r"^\|\s*(\d+)\s+(\d+)\s+(C\+G|C|G)\s+(\S+)\s+(\d+(?:\.\d+)?)(KiB|MiB|GiB)\s+"
    r"(?:\S+\s+){4}(.*?)\s*\|?\s*$"
)
_TO_MIB = {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024}


class NvitopReader(SmiTableReader):
    """nvitop's snapshot: nvidia-smi's table in box characters, a process table of its own."""

    literals = ("NVITOP",)

    def starts(self, text: str) -> bool:
        return "NVITOP" in text and "Driver Version" in text

    def feed(self, lineno: int, text: str) -> bool:
        ascii_text = text.translate(_BOX)
        m = _NVITOP_PROCESS.match(ascii_text.strip())
        if m is not None or ascii_text.strip().startswith("|") and ("GPU-MEM" in ascii_text or "Processes:" in ascii_text):
            self._release()  # the row held for a wrapped tail is read before this line's own
        if m is not None:
            used = float(m.group(5)) * _TO_MIB[m.group(6)]
            self._emit(
                kinds.SMI_PROCESS,
                lineno,
                ascii_text.strip(),
                {
                    "gpu": int(m.group(1)),
                    "pid": int(m.group(2)),
                    "type": m.group(3),
                    "user": m.group(4),
                    "name": m.group(7),
                    "used_mib": round(used),
                },
            )
            return True
        if ascii_text.strip().startswith("|") and ("GPU-MEM" in ascii_text or "Processes:" in ascii_text):
            return True
        return super().feed(lineno, ascii_text)


class SmiQueryReader(BlockReader):
    """`nvidia-smi -q`: sections by indentation; FB memory, processes and the driver/CUDA versions."""

    grammar = kinds.NVIDIA_SMI_GRAMMAR
    # a copy may start at a GPU's own section ("GPU 00000000:18:00.0" at the margin), the dump's head left out
    literals = ("NVSMI LOG", "GPU 0000")

    def starts(self, text: str) -> bool:
        return bool(_Q_START.match(text.strip()) or (_Q_GPU.match(text) and not text[0].isspace()))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.versions: dict[str, str] = {}
        self.dump: dict[str, Any] = {}  # the dump's top-level facts, given to each GPU it lists
        self.gpu: dict[str, Any] | None = None
        self.section: list[tuple[int, str]] = []
        self.process: dict[str, Any] | None = None
        self.gpu_count = 0
        self.first_line = lineno
        if _Q_GPU.match(text):
            self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if text.lstrip().startswith("[") or not text.strip():
            return False
        m = _Q_GPU.match(text.strip())
        if m and not text.startswith(" "):
            self._finish_gpu()
            self.gpu = {"index": self.gpu_count, "bus_id": m.group(1), "line": lineno, "processes": [], **self.dump}
            self.gpu_count += 1
            self.section = []
            return True
        indent = len(text) - len(text.lstrip())
        if indent == 0 and self.gpu is not None:  # a GPU's section is indented under it: a line at the margin ends it
            return False
        line = read_smi_line(text)
        if line is None or line.rule != "q_line":
            if ":" in text:
                return False
            while self.section and self.section[-1][0] >= indent:
                self.section.pop()
            self.section.append((indent, text.strip()))
            return True
        key, value = line.values["key"], line.values["value"]
        while self.section and self.section[-1][0] >= indent:
            self.section.pop()
        where = self.section[-1][1] if self.section else ""
        if self.gpu is not None and self._detail(tuple(name for _, name in self.section), key, value):
            return True
        self._assign(where, key, value, lineno)
        return True

    def _detail(self, path: tuple[str, ...], key: str, value: str) -> bool:
        """The per-GPU fields people quote from -q: state, power, clocks, temperatures, ECC, retired pages,
        remapped rows, active throttle reasons. True when the line was one of them."""
        gpu = self.gpu
        assert gpu is not None
        section = path[-1] if path else ""
        top = path[0] if path else ""
        unit = _unit_value(value)
        if not path and key in _Q_TOP_FIELDS:
            gpu[_Q_TOP_FIELDS[key]] = value
        elif section in ("GPU Power Readings", "Power Readings") and key in _Q_POWER and unit is not None:
            gpu.setdefault(_Q_POWER[key], unit)
        elif section in ("Clocks", "Max Clocks") and unit is not None:
            prefix = "clock" if section == "Clocks" else "max_clock"
            gpu[f"{prefix}_{key.lower().replace(' ', '_')}_mhz"] = unit
        elif section == "Temperature" and key in ("GPU Current Temp", "Memory Current Temp") and unit is not None:
            gpu["temperature_c" if key.startswith("GPU") else "memory_temperature_c"] = unit
        elif section == "Utilization" and key in ("GPU", "Memory") and unit is not None:
            gpu["util_pct" if key == "GPU" else "memory_util_pct"] = unit
        elif section == "ECC Mode" and key == "Current":
            gpu["ecc_mode"] = value
        elif top == "ECC Errors" and section in ("Volatile", "Aggregate") and value.isdigit():
            gpu.setdefault("ecc_errors", {}).setdefault(section.lower(), {})[key] = int(value)
        elif section in ("Retired Pages", "Remapped Rows") and top == section:
            field = "retired_pages" if section == "Retired Pages" else "remapped_rows"
            gpu.setdefault(field, {})[key] = int(value) if value.isdigit() else value
        elif section in ("Clocks Event Reasons", "Clocks Throttle Reasons") or (
            len(path) > 1 and path[-2] in ("Clocks Event Reasons", "Clocks Throttle Reasons")
        ):
            active = gpu.setdefault("throttle_reasons_active", [])
            if value == "Active":
                active.append(key)
        else:
            return False
        return True

    def _assign(self, where: str, key: str, value: str, lineno: int) -> None:
        if self.gpu is None:
            if key in ("Driver Version", "KMD Version"):  # the table's header renamed both in R610
                self.versions["driver"] = value
            elif key in ("CUDA Version", "CUDA UMD Version"):
                self.versions["cuda_driver_api"] = value
            elif key == "Timestamp":
                self.dump["dump_timestamp"] = value
            elif key == "Attached GPUs" and value.isdigit():
                self.dump["attached_gpus"] = int(value)
            return
        gpu = self.gpu
        mib = _MIB.match(value.replace(" ", " "))
        amount = float(mib.group(1)) if mib and mib.group(2) else None
        if where == "FB Memory Usage" and amount is not None:
            field = {
                "Total": "memory_total_mib",
                "Reserved": "driver_reserved_mib",
                "Used": "memory_used_mib",
                "Free": "memory_free_mib",
            }.get(key)
            if field:
                gpu[field] = int(amount)
        elif where == "BAR1 Memory Usage" and amount is not None:
            gpu[f"bar1_{key.lower()}_mib"] = int(amount)
        elif key == "Product Name":
            gpu["name"] = value
        elif key == "Minor Number" and value.isdigit():
            gpu["index"] = int(value)
        elif key == "Process ID" and value.isdigit():
            self.process = {"pid": int(value)}
            gpu["processes"].append(self.process)
        elif self.process is not None and key in ("Type", "Name", "Used GPU Memory", "Process Name"):
            if key == "Used GPU Memory" and amount is not None:
                self.process["used_mib"] = int(amount)
            elif key in ("Name", "Process Name"):
                self.process["name"] = value
            elif key == "Type":
                self.process["type"] = value

    def _finish_gpu(self) -> None:
        if self.gpu is not None:
            line = self.gpu.pop("line")
            self.events.append(
                Event(
                    kinds.SMI_GPU, self.source, line, f"GPU {self.gpu['bus_id']}", None, None, self.gpu, kinds.NVIDIA_SMI_GRAMMAR
                )
            )
            self.gpu = None
            self.process = None

    def close(self) -> list[Event]:
        self._finish_gpu()
        if self.versions:
            self.events.insert(
                0,
                Event(
                    kinds.SMI_VERSIONS,
                    self.source,
                    self.first_line,
                    "NVSMI LOG",
                    None,
                    None,
                    self.versions,
                    kinds.NVIDIA_SMI_GRAMMAR,
                ),
            )
        return self.events


def _num(text: str) -> float | int | None:
    m = re.match(r"^(\d+(?:\.\d+)?)", text)
    if not m:
        return None
    return float(m.group(1)) if "." in m.group(1) else int(m.group(1))


# `nvidia-smi -q -x`: the -q dump as XML, one element a line ("<product_name>NVIDIA H100 80GB HBM3</product_name>"),
# each GPU a <gpu id="00000000:18:00.0"> element; its FB memory in <fb_memory_usage> (total, reserved, used, free)
_XML_LEAF = re.compile(r"^\s*<(\w+)>([^<]*)</\1>\s*$")
_XML_OPEN = re.compile(r"^\s*<(\w+)(?:\s+id=\"([^\"]*)\")?[^/>]*>\s*$")
_XML_CLOSE = re.compile(r"^\s*</(\w+)>\s*$")
_XML_FB = {"total": "memory_total_mib", "reserved": "driver_reserved_mib", "used": "memory_used_mib", "free": "memory_free_mib"}


class SmiXmlReader(BlockReader):
    """`nvidia-smi -q -x`: each <gpu> element's name, bus id, FB memory and processes; the driver and CUDA versions."""

    grammar = kinds.NVIDIA_SMI_GRAMMAR
    literals = ("<nvidia_smi_log>",)

    def starts(self, text: str) -> bool:
        return text.strip() == "<nvidia_smi_log>"

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.versions: dict[str, str] = {}
        self.path: list[str] = []
        self.gpu: dict[str, Any] | None = None
        self.gpu_line = lineno
        self.first_line = lineno
        return self

    def feed(self, lineno: int, text: str) -> bool:
        leaf = _XML_LEAF.match(text)
        if leaf is not None:
            self._leaf(leaf.group(1), leaf.group(2).strip())
            return True
        opened = _XML_OPEN.match(text)
        if opened is not None:
            self.path.append(opened.group(1))
            if opened.group(1) == "gpu":
                self._finish_gpu()
                self.gpu = {"index": len(self.events), "bus_id": opened.group(2), "processes": []}
                self.gpu_line = lineno
            elif opened.group(1) == "process_info" and self.gpu is not None:
                self.gpu["processes"].append({})
            return True
        closed = _XML_CLOSE.match(text)
        if closed is None:
            return bool(text.strip()) and text.strip() in ("None", "N/A")  # an element's text on a line of its own
        while self.path and self.path.pop() != closed.group(1):
            pass
        if closed.group(1) == "gpu":
            self._finish_gpu()
        return closed.group(1) != "nvidia_smi_log"

    def _leaf(self, name: str, value: str) -> None:
        if self.gpu is None:
            if name == "driver_version":
                self.versions["driver"] = value
            elif name == "cuda_version":
                self.versions["cuda_driver_api"] = value
            return
        section = self.path[-1] if self.path else ""
        mib = _MIB.match(value)
        amount = int(float(mib.group(1))) if mib and mib.group(2) else None
        if section == "gpu" and name == "product_name":
            self.gpu["name"] = value
        elif section == "fb_memory_usage" and name in _XML_FB and amount is not None:
            self.gpu[_XML_FB[name]] = amount
        elif section == "process_info" and self.gpu["processes"]:
            process = self.gpu["processes"][-1]
            if name == "pid" and value.isdigit():
                process["pid"] = int(value)
            elif name == "process_name":
                process["name"] = value
            elif name == "type":
                process["type"] = value
            elif name == "used_memory" and amount is not None:
                process["used_mib"] = amount

    def _finish_gpu(self) -> None:
        if self.gpu is not None:
            gpu, self.gpu = self.gpu, None
            gpu["processes"] = [p for p in gpu["processes"] if "pid" in p]
            text = f"GPU {gpu['bus_id']}"
            self.events.append(Event(kinds.SMI_GPU, self.source, self.gpu_line, text, None, None, gpu, kinds.NVIDIA_SMI_GRAMMAR))

    def close(self) -> list[Event]:
        self._finish_gpu()
        if self.versions:
            versions = Event(
                kinds.SMI_VERSIONS,
                self.source,
                self.first_line,
                "nvidia_smi_log",
                None,
                None,
                self.versions,
                kinds.NVIDIA_SMI_GRAMMAR,
            )
            return [versions, *self.events]
        return self.events
