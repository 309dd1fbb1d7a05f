"""Which library a Python frame or an exception's module belongs to: the top-level Python packages of the released
wheels of SGLang and of the libraries whose Python code runs inside it, read from the wheels' file lists.

A traceback names a package by its import path (`.../site-packages/flashinfer/jit/core.py`,
`triton.runtime.errors.PTXASError`); this table maps each top-level package a wheel installs to the library a
verdict names. A package a wheel installs for another library (DeepGEMM's `deep_gemm` inside sgl-kernel's wheel)
goes to the library whose name it spells; every other one to the wheel's own library.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.write import write_generated

# (library as a verdict names it, the wheel on the package index); versions: the newest in the cache
WHEELS: tuple[tuple[str, str], ...] = (
    ("SGLang", "sglang"),
    ("FlashInfer", "flashinfer-python"),
    ("sgl-kernel", "sgl-kernel"),
    ("Triton", "triton"),
    ("Mooncake", "mooncake-transfer-engine"),
    ("NIXL", "nixl-cu12"),
)
# libraries a wheel above carries under their own package name (the native table's names, catalog/libraries.json)
EMBEDDED = ("DeepGEMM", "FlashMLA")


def _normal(name: str) -> str:
    return re.sub(r"[-_]", "", name.lower())


def top_packages(wheel: Path) -> list[str]:
    """The wheel's top-level Python packages (a folder with __init__.py), not its data or metadata folders."""
    with zipfile.ZipFile(wheel) as zf:
        tops = {n.split("/", 1)[0] for n in zf.namelist() if n.count("/") == 1 and n.endswith("/__init__.py")}
    return sorted(t for t in tops if not t.startswith((".", "_")))


def _wheel(package: str) -> Path:
    if package == "sglang":
        return sources.download(package, sources.sglang_versions()[-1])
    return sources.download(package, None)


def extract() -> dict[str, Any]:
    modules: dict[str, str] = {}
    read: dict[str, str] = {}
    for library, package in WHEELS:
        wheel = _wheel(package)
        read[library] = wheel.name
        for top in top_packages(wheel):
            owner = next((name for name in EMBEDDED if _normal(name) == _normal(top)), library)
            modules.setdefault(top, owner)
    return {"wheels": read, "modules": dict(sorted(modules.items()))}


def write(path: Path) -> None:
    about = (
        "Top-level Python package -> the library a verdict names, read from the released wheels' file lists by "
        "tools/upstream/python_modules.py (python -m tools.upstream modules). Generated: never edit by hand."
    )
    write_generated(path, about, extract())
