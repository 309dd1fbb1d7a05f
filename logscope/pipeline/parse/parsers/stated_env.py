"""Versions and GPUs a paste states outside check_env: the GitHub issue template's environment block
("- SGLang: 0.5.4.post1", "- PyTorch: 2.8.0+cu129", "- Host driver: 570.133.20", "- GPUs: NVIDIA H20-3e (x4)"),
a pip freeze line ("sglang==0.5.9"), `pip show sglang` (Name / Version), and the value printed by
`print(sglang.__version__)` on the line after it, and the official image's release tag anywhere in a line
(lmsysorg/sglang:v0.5.12-cu130). Each is a stated fact; the event's `stated_by` says which form stated it
(the launch's sglang_version says so)."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.events import Event
from logscope.pipeline.parse.parsers.base import BlockReader, Parsed

_VERSION = r"v?(\d+\.\d+(?:\.\w+)*(?:[+.-][\w.+-]*)?)"
# packages whose version matters for the memory SGLang uses, as pip names them → check_env's key for them
PACKAGES = {
    "sglang": "sglang",
    "sgl-kernel": "sgl-kernel",
    "sgl_kernel": "sgl-kernel",
    "sglang-kernel": "sglang-kernel",
    "torch": "torch",
    "flashinfer-python": "flashinfer-python",
    "flashinfer_python": "flashinfer-python",
    "nvidia-nccl-cu12": "nvidia-nccl-cu12",
    "nvidia-nccl-cu13": "nvidia-nccl-cu13",
    "deep_ep": "deep_ep",
    "deep-ep": "deep_ep",
}
_PACKAGE = "|".join(re.escape(name) for name in sorted(PACKAGES, key=len, reverse=True))
_PIN = re.compile(rf"^\s*(?:[-*+]\s+)?`?({_PACKAGE})(?:\[[\w,-]+\])?=={_VERSION}`?\s*$")

# the issue template's labels (and their usual spellings) → check_env's key for the value
_LABELS = {
    "sglang": "sglang",
    "sglang version": "sglang",
    "pytorch": "torch",
    "pytorch version": "torch",
    "torch": "torch",
    "host driver": "driver",
    "driver": "driver",
    "driver version": "driver",
    "nvidia driver": "driver",
    "nvidia driver version": "driver",
    "cuda": "cuda",
    "cuda version": "cuda",
}
# "- SGLang: 0.5.4.post1", "**PyTorch**: 2.8.0+cu129", "SGLang: v0.5.4 (pip)": a parenthesis after it is a remark
_LABELLED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?([A-Za-z][A-Za-z ]{1,24}?)(?:\*\*)?\s*:\s*(?:\*\*)?`?" + _VERSION + r"`?(?:\s*\([^)]*\))?\s*$"
)
# "GPUs: NVIDIA H20-3e (x4)", "GPU: 8 x NVIDIA H200", "GPUs: 4x H100 80GB HBM3", "GPUs: NVIDIA H200 x 8"
_GPUS = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?GPUs?(?:\*\*)?\s*:\s*(?:\*\*)?"
    r"(?:(\d+)\s*[x×]\s*(\S.*?)|(\S.*?)\s*(?:\(\s*[x×]\s*(\d+)\s*\)|[x×]\s*(\d+)))\s*$"
)
MAX_GPUS = 1024


# the official image's release tags (lmsysorg/sglang:v0.5.12-cu130, v0.4.2.post2-rocm630), not latest / nightly / dev
IMAGE_TAG = re.compile(r"lmsysorg/sglang:v(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?![\w.])")
# how each form states the version (the launch's sglang_version says it)
PIN, FIELD, PIP_SHOW, PRINTED, IMAGE = "pip_pin", "issue_template", "pip_show", "version_print", "image_tag"


def parse_line(text: str) -> Parsed | None:
    """A pip pin, an environment field of the issue template, its GPU field, or an image tag → the values
    check_env would give (its keys, so the launch's versions and GPUs are read as check_env's are)."""
    m = _PIN.match(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {PACKAGES[m.group(1)]: m.group(2)}, "stated_by": PIN})
    m = _LABELLED.match(text)
    if m and m.group(1).strip().lower() in _LABELS:
        return Parsed(kinds.STATED_ENV, {"values": {_LABELS[m.group(1).strip().lower()]: m.group(2)}, "stated_by": FIELD})
    m = IMAGE_TAG.search(text)
    if m:
        return Parsed(kinds.STATED_ENV, {"values": {"sglang": m.group(1)}, "stated_by": IMAGE})
    m = _GPUS.match(text)
    if m:
        count = int(m.group(1) or m.group(4) or m.group(5))
        name = (m.group(2) or m.group(3)).strip().strip("`*")
        if 0 < count <= MAX_GPUS and name:
            indexes = ",".join(str(i) for i in range(count))  # check_env's "GPU 0,1,2,3" key; the count is stated
            return Parsed(kinds.STATED_ENV, {"values": {f"GPU {indexes}": name}, "gpu_count": count, "stated_by": FIELD})
    return None


def fits(text: str) -> bool:
    """The shape of a pin, a labelled version or the GPU field (a line that mentions "sglang:" in prose, an
    image tag say, is no candidate)."""
    m = _LABELLED.match(text)
    return bool(_PIN.match(text) or (m and m.group(1).strip().lower() in _LABELS) or _GPUS.match(text) or IMAGE_TAG.search(text))


_PIP_NAME = re.compile(rf"^\s*Name:\s*({_PACKAGE})\s*$")
_PIP_VERSION = re.compile(rf"^\s*Version:\s*{_VERSION}\s*$")


class _VersionLineReader(BlockReader):
    """A line that names a package, then the next line with text, which states its version."""

    grammar = kinds.STATED_ENV_GRAMMAR
    joiner = " / "
    stated_by = ""

    def package_named(self, text: str) -> str | None:
        raise NotImplementedError

    def version_in(self, text: str) -> str | None:
        raise NotImplementedError

    def open(self, lineno: int, text: str) -> BlockReader:
        package = self.package_named(text)
        assert package is not None
        self.first_line, self.package = lineno, package
        self.version: str | None = None
        self.text = text.strip()
        return self

    def feed(self, lineno: int, text: str) -> bool:
        if self.version is not None:
            return False
        self.version = self.version_in(text)
        if self.version is None:
            return False
        self.text += self.joiner + text.strip()
        return True

    def close(self) -> list[Event]:
        if self.version is None:
            return []
        data: dict[str, Any] = {"values": {self.package: self.version}, "stated_by": self.stated_by}
        return [Event(kinds.STATED_ENV, self.source, self.first_line, self.text, None, None, data, self.grammar)]


class PipShowReader(_VersionLineReader):
    """`pip show sglang`: the Name line, then its Version line."""

    literals = ("Name: ",)
    stated_by = PIP_SHOW

    def starts(self, text: str) -> bool:
        return bool(_PIP_NAME.match(text))

    def package_named(self, text: str) -> str | None:
        m = _PIP_NAME.match(text)
        return PACKAGES[m.group(1)] if m else None

    def version_in(self, text: str) -> str | None:
        m = _PIP_VERSION.match(text)
        return m.group(1) if m else None


# `print(sglang.__version__)`, `python -c "import sglang; print(sglang.__version__)"`, `>>> sglang.__version__`
_ASKS = re.compile(r"\b(sglang|torch|sgl_kernel|flashinfer)\.__version__")
_PRINTED = re.compile(rf"^\s*(?:Out\[\d+\]:\s*)?['\"]?{_VERSION}['\"]?\s*$")
_MODULE_PACKAGE = {"sglang": "sglang", "torch": "torch", "sgl_kernel": "sgl-kernel", "flashinfer": "flashinfer-python"}


class VersionPrintReader(_VersionLineReader):
    """A line that asks a module's __version__ and, on the next line with text, the version it printed."""

    literals = ("__version__",)
    joiner = " → "
    stated_by = PRINTED

    def starts(self, text: str) -> bool:
        return bool(_ASKS.search(text)) and _PRINTED.match(text) is None

    def package_named(self, text: str) -> str | None:
        m = _ASKS.search(text)
        return _MODULE_PACKAGE[m.group(1)] if m else None

    def version_in(self, text: str) -> str | None:
        m = _PRINTED.match(text)
        return m.group(1) if m else None
