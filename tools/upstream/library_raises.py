"""The messages a library's own Python code raises (`raise RuntimeError(f"...")`), per library: a message a paste
shows inside another one (SGLang's `Capture cuda graph failed: {e}` around it) or without its frames is that
library's when it is one of these.

Read from the newest released wheel of FlashInfer (its JIT and its target-architecture check), of sgl-kernel and of
NIXL (its Python agent) with the catalogue's extractor (messages.py, kind `raise`), the f-string fields kept as `{}`;
and torch.compile's graph-break types from Dynamo's own registry (torch 2.8.0-2.12.0, DYNAMO_RELEASES).
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
DYNAMO_REGISTRY = "torch/_dynamo/graph_break_registry.json"
DYNAMO_RELEASES = ("2.8.0", "2.9.1", "2.10.0", "2.12.0")
_FIELD = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[a-zA-Z]")


def _as_template(message: messages.Message) -> str | None:
    """The message with every field as `{}` (literal braces of a plain string doubled), or None when too short."""
    if message.style == "plain":
        text, literal = message.template.replace("{", "{{").replace("}", "}}"), message.template
    else:
        text, literal = _FIELD.sub("{}", message.template), _FIELD.sub("", message.template)
    return text if len(literal.strip()) >= MIN_LITERAL else None


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
                template = _as_template(message) if message.kind == "raise" else None
                if template is None or message.template.strip() in sglang:
                    continue
                rows.setdefault(template, {"template": template, "library": library, "exception": message.level,
                                           "where": f"{path}:{message.line}"})  # fmt: skip
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
        "The messages FlashInfer's, sgl-kernel's and NIXL's Python code raises (f-string fields as {}) and torch.compile's "
        "graph-break types (torch._dynamo's graph_break_registry.json), with the library, "
        "the exception class and where the newest wheel raises it, read by tools/upstream/library_raises.py "
        "(python -m tools.upstream raises). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
