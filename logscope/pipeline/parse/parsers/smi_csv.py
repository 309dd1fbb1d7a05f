"""nvidia-smi CSV (--query-gpu / --query-compute-apps, with or without a header) and gpustat rows."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import BlockReader, csv_row

_CSV_FIELDS = {
    "index": "index",
    "name": "name",
    "pci.bus_id": "bus_id",
    "memory.total": "memory_total_mib",
    "memory.used": "memory_used_mib",
    "memory.free": "memory_free_mib",
    "memory.reserved": "driver_reserved_mib",
    "temperature.gpu": "temperature_c",
    "utilization.gpu": "util_pct",
    "power.draw": "power_w",
    "power.limit": "power_cap_w",
    "driver_version": "driver_version",
    "uuid": "uuid",
    "pid": "pid",
    "process_name": "name",
    "used_gpu_memory": "used_mib",
    "used_memory": "used_mib",
    "gpu_bus_id": "gpu_bus_id",
    "gpu_uuid": "gpu_uuid",
}


# a header row starts with a field nvidia-smi knows, its unit in brackets or not: "index, name, ..." or
# "memory.used [MiB], ..."; the reader's literals come from the same table, so the prefilter keeps every header
_CSV_HEADER = re.compile(r"^\s*(?:" + "|".join(re.escape(f) for f in _CSV_FIELDS) + r")(?: \[[^\]]*\])?,")


# or a header row whose first field logscope does not read ("timestamp, name, pci.bus_id, ..."): every cell a query
# field's name (lower case, dotted), its unit in brackets or not, one of them a field logscope reads
_QUERY_FIELD = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*(?: \[[^\]]*\])?$")


_ID_FIELDS = ("index", "uuid", "pid", "pci.bus_id", "gpu_bus_id", "gpu_uuid")


def is_csv_header(text: str) -> bool:
    """A header row of nvidia-smi's CSV: every cell a query field's name, one of them a field logscope reads, and a
    dotted name or a unit among them, or two read fields one of them an id ("index, name"); not "name, version"."""
    cells = [c.strip() for c in text.split(",")]
    if len(cells) < 2 or not all(_QUERY_FIELD.match(c) for c in cells):
        return False
    fields = [c.split(" [")[0] for c in cells]
    known = [f for f in fields if f in _CSV_FIELDS]
    if not known:
        return False
    return any("." in c or "[" in c for c in cells) or (len(known) > 1 and any(f in _ID_FIELDS for f in known))


def header_columns(text: str) -> list[str]:
    """The columns of a CSV header row ("index, name, memory.total [MiB]"), as logscope names them."""
    return [_CSV_FIELDS.get(c.strip().split(" [")[0].split(" ")[0], c.strip()) for c in text.split(",")]


def gpu_csv_row(text: str, columns: list[str]) -> dict[str, Any] | None:
    """A data row against its columns; a row whose index is no number (a header read as data) is none."""
    row = csv_row(text, columns)
    if row is None or not isinstance(row.get("index", 0), int):
        return None
    return row


# the driver a --query-gpu CSV names in its driver_version column (nvidia-smi --help-query-gpu: "driver_version": "The
# version of the installed NVIDIA display driver"): one release for every row (one host's driver), as printed (the
# cell's text: "535.40" stays "535.40"), a release of three digits first (R418 .. R610); rows naming different
# drivers (several hosts) state none
_DRIVER_CELL = re.compile(r"^\d{3}\.\d+(?:\.\d+)?$")


def driver_versions(events: list[Event], columns: list[str] | None, source: str) -> list[Event]:
    """The smi_versions event of the rows' driver_version column, or none."""
    if not columns or "driver_version" not in columns:
        return []
    at = columns.index("driver_version")
    rows = [ev for ev in events if ev.kind == kinds.SMI_GPU]
    cells = {ev.text.split(",")[at].strip() for ev in rows if len(ev.text.split(",")) == len(columns)}
    if len(cells) != 1:
        return []
    driver = cells.pop()
    if not _DRIVER_CELL.match(driver):
        return []
    first = rows[0]
    return [Event(kinds.SMI_VERSIONS, source, first.line, first.text, None, None, {"driver": driver}, kinds.NVIDIA_SMI_GRAMMAR)]


class SmiCsvReader(BlockReader):
    """CSV with a header row (any column order; units in the header or in the values)."""

    grammar = kinds.NVIDIA_SMI_GRAMMAR
    literals = tuple(f"{name}{after}" for name in _CSV_FIELDS for after in (",", " ["))

    def starts(self, text: str) -> bool:
        return is_csv_header(text)

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.columns = header_columns(text)
        self.apps = "pid" in self.columns
        return self

    def feed(self, lineno: int, text: str) -> bool:
        row = None if text.lstrip().startswith("[") else gpu_csv_row(text, self.columns)
        if row is None:
            return False
        if not self.apps and "index" not in self.columns:
            row["index"] = len(self.events)  # --query-gpu lists every GPU in index order, one a row
        kind = kinds.SMI_PROCESS if self.apps else kinds.SMI_GPU
        self.events.append(Event(kind, self.source, lineno, text.strip()[:300], None, None, row, kinds.NVIDIA_SMI_GRAMMAR))
        return True

    def close(self) -> list[Event]:
        return [*driver_versions(self.events, self.columns, self.source), *self.events]


_GPU_NAMES = ("NVIDIA", "Tesla", "Quadro", "GeForce", "AMD", "Instinct")
_GPU_NAME = re.compile(r"^(" + "|".join(_GPU_NAMES) + r")\b")
_PICKED = re.compile(r"\s(?:-i|--id)(?:\s|=)")
# (options may stand before the query: "nvidia-smi -i 3 --query-gpu=...")
_QUERY = re.compile(
    r"nvidia-smi(?:\s+-[\w-]+(?:[\s=]+[\w,]+)?)*?\s+--query-(gpu|compute-apps)=([\w.,]+)\s+--format=csv(,\s*)?(noheader)?"
)


# what a --query-gpu CSV cell holds: an index, a bus or device id, a UUID, a number with its unit, a version, a state
_CSV_VALUE = re.compile(
    r"^(?:\d+|[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d|0x[0-9A-Fa-f]{8}|GPU-[0-9a-fA-F-]+|MIG-[0-9a-fA-F-]+"
    r"|-?\d+(?:\.\d+)?(?: ?(?:MiB|W|%|MHz|C|GiB))?|\d+\.\d+(?:\.\d+)*|\[?N/A\]?|\[Not Supported\]|P\d+"
    r"|Enabled|Disabled|Default|Exclusive_Process|Prohibited|Active|Not Active|Yes|No|On|Off)$"
)


class SmiHeaderlessReader(BlockReader):
    """CSV after its command line, or without a header: columns from a pasted `nvidia-smi --query-gpu=...
    --format=csv[,noheader]` command when there is one (the header row under a `--format=csv` command names
    them, units included), else by shape (a GPU name, a bus id, a device id, a UUID)."""

    grammar = kinds.NVIDIA_SMI_GRAMMAR
    literals = ("--query-", *_GPU_NAMES)

    def starts(self, text: str) -> bool:
        return bool(_QUERY.search(text)) or self._shape_row(text) is not None

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        m = _QUERY.search(text)
        self.columns = [_CSV_FIELDS.get(c, c) for c in m.group(2).split(",")] if m else None
        self.apps = bool(m and m.group(1) == "compute-apps")
        self.header_expected = bool(m and not m.group(4))  # --format=csv prints its header row first
        # no index column: the rows are the GPUs in index order, unless the command picked GPUs (-i / --id)
        self.ordinal = bool(m and not _PICKED.search(text))
        if m is None:
            self.feed(lineno, text)
        return self

    def _shape_row(self, text: str) -> dict[str, Any] | None:
        cells = [c.strip() for c in text.split(",")]
        if len(cells) < 2 or not any(_GPU_NAME.match(c) for c in cells):
            return None
        if not all(_GPU_NAME.match(c) or _CSV_VALUE.match(c) for c in cells):
            return None  # a cell nvidia-smi never prints ("CUDA 12.9", "8x GPUs/node"): a sentence or a table row
        row: dict[str, Any] = {}
        for cell in cells:
            if _GPU_NAME.match(cell):
                row["name"] = cell
            elif re.match(r"^[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$", cell):
                row["bus_id"] = cell
            elif re.match(r"^0x[0-9A-Fa-f]{8}$", cell):
                row["pci_device_id"] = cell
            elif cell.startswith("GPU-"):
                row["uuid"] = cell
            elif cell.isdigit() and "index" not in row:
                row["index"] = int(cell)
        return row

    def feed(self, lineno: int, text: str) -> bool:
        if text.lstrip().startswith("["):
            return False
        if self.columns is None:
            row = self._shape_row(text)
            if row is None:
                return False
            row.setdefault("index", 0)
            self.events.append(Event(kinds.SMI_GPU, self.source, lineno, text.strip(), None, None, row, kinds.NVIDIA_SMI_GRAMMAR))
            return True
        if self.header_expected:
            self.header_expected = False
            if is_csv_header(text):
                self.columns = header_columns(text)
                return True
        row = gpu_csv_row(text, self.columns)
        if row is None:
            return False
        if not self.apps and self.ordinal and "index" not in self.columns:
            row["index"] = len(self.events)
        kind = kinds.SMI_PROCESS if self.apps else kinds.SMI_GPU
        self.events.append(Event(kind, self.source, lineno, text.strip(), None, None, row, kinds.NVIDIA_SMI_GRAMMAR))
        return True

    def close(self) -> list[Event]:
        return [*driver_versions(self.events, self.columns, self.source), *self.events]


_UNLABELLED_ROW = re.compile(r"^\s*(?:(\d+)\s*,\s*)?(\d+(?:\.\d+)?\s*MiB(?:\s*,\s*\d+(?:\.\d+)?\s*MiB)*)\s*$")


class SmiUnlabelledReader(BlockReader):
    """`nvidia-smi --query-gpu=index,memory.X,memory.Y --format=csv,noheader` rows pasted without the command:
    "0, 89846 MiB, 7522 MiB". Which memory field each value is, only the command said: the values are kept in
    order as `unlabelled_mib`, never guessed into total, used or free."""

    grammar = kinds.NVIDIA_SMI_GRAMMAR
    literals = ("MiB",)

    def starts(self, text: str) -> bool:
        return bool(_UNLABELLED_ROW.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.events: list[Event] = []
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        m = _UNLABELLED_ROW.match(text)
        if m is None:
            return False
        values = [float(v.strip().removesuffix("MiB")) for v in m.group(2).split(",")]
        row = {
            "index": int(m.group(1)) if m.group(1) is not None else len(self.events),
            "unlabelled_mib": [int(v) if v.is_integer() else v for v in values],
        }
        self.events.append(Event(kinds.SMI_GPU, self.source, lineno, text.strip(), None, None, row, kinds.NVIDIA_SMI_GRAMMAR))
        return True

    def close(self) -> list[Event]:
        return self.events


# gpustat: "[0] NVIDIA H100 80GB HBM3 | 35°C,   0 % | 75000 / 81559 MB | alice(74000M) bob:python/1234(500M)"
# (its "MB" are MiB: gpustat divides nvml's bytes by 1024 * 1024); the header names the driver
_GPUSTAT_ROW = re.compile(
    r"^\s*\[(\d+)\]\s+(.+?)\s*\|\s*(-?\d+)\s*[°']?C,\s*(?:(\d+)\s*%,\s*)?(\d+)\s*%"
    r"(?:,\s*\d+\s*/\s*\d+\s*W)?\s*\|\s*(\d+)\s*/\s*(\d+)\s*MB\s*\|?(.*)$"
)


# gpustat's process_repr (gpustat 1.1.1 core.py): [user][:command][/pid](NNNNM); the user alone by default, the
# command alone with -c, both with -cu; "--" or "?" where gpustat could not read a field
_GPUSTAT_PROCESS = re.compile(r"^(?P<head>[^\s()]*?)(?:/(?P<pid>\d+|--|\?))?\((?P<mib>\d+|\?)M\)$")
_USER_COMMAND = re.compile(r"^(?P<user>[^:]+):(?!:)(?P<cmd>.+)$")  # "root:sglang::scheduler_TP0": the first single colon
_UNKNOWN = ("", "--", "?")


def _gpustat_process(word: str) -> dict[str, Any] | None:
    m = _GPUSTAT_PROCESS.match(word)
    if m is None:
        return None
    entry: dict[str, Any] = {}
    if m.group("mib") != "?":
        entry["used_mib"] = int(m.group("mib"))
    if m.group("pid") not in (None, *_UNKNOWN):
        entry["pid"] = int(m.group("pid"))
    head = m.group("head")
    both = _USER_COMMAND.match(head)
    user, command = (both.group("user"), both.group("cmd")) if both else (head, None)
    if command not in (None, *_UNKNOWN):
        entry["name"] = command
    elif both is None and user not in _UNKNOWN:
        entry["user_or_command"] = user  # one field: the user (gpustat's default), or the command under -c
    return entry


def parse_gpustat_row(text: str) -> dict[str, Any] | None:
    m = _GPUSTAT_ROW.match(text)
    if m is None:
        return None
    row: dict[str, Any] = {
        "index": int(m.group(1)),
        "name": m.group(2).strip(),
        "temperature_c": int(m.group(3)),
        "util_pct": int(m.group(5)),
        "memory_used_mib": int(m.group(6)),
        "memory_total_mib": int(m.group(7)),
        "processes": [],
    }
    for word in m.group(8).split():
        entry = _gpustat_process(word)
        if entry is not None:
            row["processes"].append(entry)
    return row
