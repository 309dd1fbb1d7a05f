"""The GPUs of PyTorch's collect_env (and vLLM's copy of it, which pads its keys: "GPU models and configuration : "):
torch/utils/collect_env.py (2.9.1) get_gpu_info prints `nvidia-smi -L` with each "(UUID: ...)" taken out, under
"GPU models and configuration: {nvidia_gpu_models}"; a value of several lines starts on the next line
(maybe_start_on_next_line), so one GPU stands on the key's line and more stand one a line under it."""

from __future__ import annotations

import re

from logscope.core import kinds
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import BlockReader

_KEY = re.compile(r"^\s*GPU models and configuration\s*:\s*(?P<value>.*?)\s*$")
# "GPU 0: NVIDIA H200", and nvidia-smi -L's own form with its UUID where a copy kept it
_GPU = re.compile(r"^\s*GPU (?P<index>\d{1,4}): (?P<name>\S.*?)(?:\s*\(UUID: [^)]*\))?\s*$")


class CollectEnvGpuReader(BlockReader):
    """collect_env's "GPU models and configuration" and the `GPU N: name` lines of its value."""

    grammar = kinds.COLLECT_ENV_GRAMMAR
    literals = ("GPU models and configuration",)

    def starts(self, text: str) -> bool:
        return bool(_KEY.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.last_line = lineno
        self.names: dict[int, str] = {}
        m = _KEY.match(text)
        if m:
            self._gpu(lineno, m.group("value"))
        return self

    def _gpu(self, lineno: int, text: str) -> bool:
        m = _GPU.match(text)
        if m is None:
            return False
        self.names.setdefault(int(m.group("index")), m.group("name"))
        self.last_line = lineno
        return True

    def feed(self, lineno: int, text: str) -> bool:
        return self._gpu(lineno, text)

    def close(self) -> list[Event]:
        if not self.names:
            return []
        values = {f"GPU {index}": name for index, name in sorted(self.names.items())}
        data = {"values": values, "last_line": self.last_line}
        return [Event(kinds.CHECK_ENV, self.source, self.first_line, "collect_env GPUs", None, None, data, self.grammar)]


# `nvidia-smi -L` pasted alone: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1a2b...)", one GPU a line, each MIG device an
# indented line under its GPU ("  MIG 3g.40gb     Device  0: (UUID: MIG-...)"); the UUID tells it from prose
_LISTED_GPU = re.compile(r"^\s*GPU (?P<index>\d{1,4}): (?P<name>\S.*?)\s*\(UUID: GPU-[0-9A-Fa-f-]+\)\s*$")
_LISTED_MIG = re.compile(r"^\s+MIG \S+\s+Device\s+\d+: \(UUID: MIG-[0-9A-Fa-f-]+\)\s*$")


class SmiListReader(CollectEnvGpuReader):
    """`nvidia-smi -L`: each GPU's index and name, as collect_env gives them (its GPU list is this command's)."""

    literals = ("(UUID: GPU-",)

    def starts(self, text: str) -> bool:
        return bool(_LISTED_GPU.match(text))

    def open(self, lineno: int, text: str) -> BlockReader:
        self.first_line = lineno
        self.last_line = lineno
        self.names = {}
        self.feed(lineno, text)
        return self

    def feed(self, lineno: int, text: str) -> bool:
        m = _LISTED_GPU.match(text)
        if m is not None:
            self.names.setdefault(int(m.group("index")), m.group("name"))
            self.last_line = lineno
            return True
        return bool(_LISTED_MIG.match(text))
