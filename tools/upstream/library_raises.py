"""The messages a library's own Python code raises (`raise RuntimeError(f"...")`), per library: a message a paste
shows inside another one (SGLang's `Capture cuda graph failed: {e}` around it) or without its frames is that
library's when it is one of these.

Read from the newest released wheel of FlashInfer (its JIT and its target-architecture check), of sgl-kernel and of
NIXL (its Python agent) with the catalogue's extractor (messages.py, kind `raise`), the f-string fields kept as `{}`;
FlashInfer's C++ errors (CPP_LIBRARIES); and torch.compile's graph-break types from Dynamo's own registry (torch
2.8.0-2.12.0, DYNAMO_RELEASES).
A message with less than MIN_LITERAL characters of literal text names nothing, and one that SGLang's catalogue
(catalog/sglang.json) also holds is left out: its owner is not known from the words alone.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import messages, sources
from tools.upstream.write import CATALOG, write_generated

MIN_LITERAL = 24
# (library as a verdict names it, the wheel on the package index, the modules read: the code a server runs to build
# or load the library's kernels, FlashInfer's JIT and its target-architecture check, sgl-kernel's loader and ops)
LIBRARIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("FlashInfer", "flashinfer-python", ("flashinfer/jit/", "flashinfer/compilation_context.py")),
    ("sgl-kernel", "sgl-kernel", ("sgl_kernel/",)),
    # NIXL's Python agent (nixl_cu12/_api.py), which SGLang's NIXL transfer backend calls (the meta package's
    # nixl/_api.py is a type stub)
    ("NIXL", "nixl-cu12", ("nixl_cu12/",)),
)
# torch.compile's graph breaks: Dynamo's registry of them (torch/_dynamo/graph_break_registry.json, from torch 2.8), each
# break's gb_type, the first line of the torch._dynamo.exc.Unsupported message that unimplemented_v2 raises; SGLang wraps
# it in its own words ("Piecewise CUDA Graph failed with error: Attempted to call function marked as skipped"). The
# releases read, oldest first (the newest registry's key wins): a paste may come from any of them
# FlashInfer's C++ errors (thrown as flashinfer::Error, include/flashinfer/exception.h, or built in a stream first):
# the text of FLASHINFER_ERROR("...") and of every `err_msg << "..." << x << ...;` chain in the sources its wheel ships
# (flashinfer/data/: the headers and csrc it compiles at run time), operands other than literals as `{}`
# A wording that a wheel which compiles the same sources into its own objects also holds names neither library: the
# shared objects of sgl-kernel, which vendors FlashInfer's kernels (the strings of its .so files)
CPP_LIBRARIES: tuple[tuple[str, str, str, str], ...] = (("FlashInfer", "flashinfer-python", "flashinfer/data/", "sgl-kernel"),)
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{8,}")
_CPP_SUFFIXES = (".h", ".cuh", ".cu", ".cpp", ".inl")
_CPP_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CPP_CHAIN = re.compile(r"\b(?:err_msg|error_msg|oss|err|msg|ss)\s*<<\s*([^;]*);")
_CPP_ERROR = re.compile(r"FLASHINFER_ERROR\(\s*(" + _CPP_STRING + r")\s*\)")
DYNAMO_REGISTRY = "torch/_dynamo/graph_break_registry.json"
DYNAMO_RELEASES = ("2.8.0", "2.9.1", "2.10.0", "2.12.0")
_FIELD = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[a-zA-Z]")


def as_template(message: messages.Message) -> str | None:
    """The message with every field as `{}` (literal braces of a plain string doubled), or None when too short."""
    if message.style == "plain":
        text, literal = message.template.replace("{", "{{").replace("}", "}}"), message.template
    else:
        text, literal = _FIELD.sub("{}", message.template), _FIELD.sub("", message.template)
    return text if len(literal.strip()) >= MIN_LITERAL else None


def _cpp_template(operands: list[str]) -> str | None:
    """A C++ message as a template: its string literals as text, every other operand `{}` (runs of them one)."""
    out = []
    for operand in operands:
        operand = operand.strip()
        if re.fullmatch(r"(?:" + _CPP_STRING + r"\s*)+", operand):
            text = "".join(lit[1:-1].replace('\\"', '"').replace("\\\\", "\\") for lit in re.findall(_CPP_STRING, operand))
            out.append(text.replace("{", "{{").replace("}", "}}"))
        else:
            out.append("{}")
    text = re.sub(r"(?:\{\})+", "{}", "".join(out)).strip()
    # a debug print over several lines, or a fragment appended to another message, names no failure of its own
    if "\\n" in text or "\n" in text or not text[:1].isalpha():
        return None
    return text if len(text.replace("{}", "").strip()) >= MIN_LITERAL else None


def _cpp_messages(wheel: Path, top: str) -> list[tuple[str, str]]:
    """(template, file:line) of every C++ error message of the wheel's sources under `top`."""
    found: list[tuple[str, str]] = []
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(n for n in zf.namelist() if n.startswith(top) and n.endswith(_CPP_SUFFIXES)):
            text = zf.read(name).decode("utf-8", errors="replace")
            for m in [*_CPP_CHAIN.finditer(text), *_CPP_ERROR.finditer(text)]:
                operands = m.group(1).split("<<") if m.re is _CPP_CHAIN else [m.group(1)]
                template = _cpp_template(operands)
                if template is not None:
                    found.append((template, f"{name}:{text.count(chr(10), 0, m.start()) + 1}"))
    return found


def _object_strings(wheel: Path) -> str:
    """Every printable run of the wheel's shared objects (as `strings` prints them), one a line."""
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.endswith(".so") or ".so." in n]
        return "\n".join(m.group(0).decode("ascii") for n in names for m in _PRINTABLE.finditer(zf.read(n)))


def _longest_piece(template: str) -> str:
    return max(template.split("{}"), key=len).replace("{{", "{").replace("}}", "}")


def _sglang_templates() -> set[str]:
    return {str(row["template"]).strip() for row in json.loads(CATALOG.read_text())["messages"]}


def extract() -> dict[str, Any]:
    sglang = _sglang_templates()
    wheels: dict[str, str] = {}
    rows: dict[str, dict[str, Any]] = {}
    for library, package, tops in LIBRARIES:
        wheel = sources.download(package, None)
        wheels[library] = wheel.name
        for path, text in (f for top in tops for f in sources.python_files(wheel, top)):
            found, _ = messages.extract(path, text)
            for message in found:
                template = as_template(message) if message.kind == "raise" else None
                if template is None or message.template.strip() in sglang:
                    continue
                rows.setdefault(template, {"template": template, "library": library, "exception": message.level,
                                           "where": f"{path}:{message.line}"})  # fmt: skip
    for library, package, top, vendor in CPP_LIBRARIES:
        wheel = sources.download(package, None)
        shared = _object_strings(sources.download(vendor, None))
        for template, where in _cpp_messages(wheel, top):
            if template.strip() not in sglang and _longest_piece(template) not in shared:
                rows.setdefault(template, {"template": template, "library": library, "exception": "RuntimeError",
                                           "where": where})  # fmt: skip
    for version in DYNAMO_RELEASES:
        wheel = sources.download("torch", version)
        wheels["torch"] = f"{wheels['torch']}, {wheel.name}" if "torch" in wheels else wheel.name
        with zipfile.ZipFile(wheel) as zf:
            registry: dict[str, list[dict[str, Any]]] = json.loads(zf.read(DYNAMO_REGISTRY))
        for code, breaks in registry.items():
            for one in breaks:
                gb_type = str(one["Gb_type"]).strip()
                if len(gb_type) < MIN_LITERAL or gb_type in sglang:
                    continue
                template = gb_type.replace("{", "{{").replace("}", "}}")
                rows[template] = {"template": template, "library": "torch", "exception": "Unsupported",
                                  "where": f"torch {version} {DYNAMO_REGISTRY} {code}"}  # fmt: skip
    return {"wheels": wheels, "raises": sorted(rows.values(), key=lambda r: (r["library"], r["template"]))}


def write(path: Path) -> None:
    about = (
        "The messages FlashInfer's, sgl-kernel's and NIXL's Python code raises (f-string fields as {}), FlashInfer's C++ "
        "errors and torch.compile's "
        "graph-break types (torch._dynamo's graph_break_registry.json), with the library, "
        "the exception class and where the newest wheel raises it, read by tools/upstream/library_raises.py "
        "(python -m tools.upstream raises). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
