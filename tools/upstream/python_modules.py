"""Which library a Python frame or an exception's module belongs to: the top-level Python packages of the released
wheels of SGLang and of the libraries whose Python code runs inside it, read from the wheels' file lists.

A traceback names a package by its import path (`.../site-packages/flashinfer/jit/core.py`,
`triton.runtime.errors.PTXASError`); this table maps each top-level package a wheel installs to the library a
verdict names. A package a wheel installs for another library (DeepGEMM's `deep_gemm` inside sgl-kernel's wheel)
goes to the library whose name it spells; every other one to the wheel's own library.
"""

from __future__ import annotations

import os
import re
import subprocess
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
    # the meta package SGLang imports from (`from nixl._api import nixl_agent`): it installs `nixl` and `nixl_ep`
    ("NIXL", "nixl"),
)
# libraries that publish no wheel: (library, the environment variable naming a git dir of its source, as
# tools/upstream/libraries.py reads it); their top-level packages are read from the newest release tag's tree
GIT_SOURCES: tuple[tuple[str, str], ...] = (("DeepEP", "LOGSCOPE_DEEPEP_GIT"),)
# libraries a wheel above carries under their own package name (the native table's names, catalog/libraries.json)
EMBEDDED = ("DeepGEMM", "FlashMLA")


def _normal(name: str) -> str:
    return re.sub(r"[-_]", "", name.lower())


def top_packages(wheel: Path) -> list[str]:
    """The wheel's top-level Python packages (a folder with __init__.py), not its data or metadata folders."""
    with zipfile.ZipFile(wheel) as zf:
        tops = {n.split("/", 1)[0] for n in zf.namelist() if n.count("/") == 1 and n.endswith("/__init__.py")}
    return sorted(t for t in tops if not t.startswith((".", "_")))


def git_top_packages(git_dir: str) -> tuple[str, list[str]]:
    """(the tag read, its top-level Python packages: a folder of the tree's root with an __init__.py)."""
    git = ["git", f"--git-dir={git_dir}"]
    tags = subprocess.run([*git, "tag", "--sort=-v:refname"], capture_output=True, text=True, check=True).stdout.split()
    tag = next((t for t in tags if re.match(r"^v\d", t)), "HEAD")
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", tag], capture_output=True, text=True, check=True).stdout
    tops = {n.split("/", 1)[0] for n in names.split() if n.count("/") == 1 and n.endswith("/__init__.py")}
    return tag, sorted(t for t in tops if not t.startswith((".", "_")))


def _wheel(package: str) -> Path:
    if package == "sglang":
        return sources.download(package, sources.sglang_versions()[-1])
    return sources.download(package, None)


def extract() -> dict[str, Any]:
    modules: dict[str, str] = {}
    read: dict[str, str] = {}
    for library, package in WHEELS:
        wheel = _wheel(package)
        read[library] = f"{read[library]}, {wheel.name}" if library in read else wheel.name
        for top in top_packages(wheel):
            owner = next((name for name in EMBEDDED if _normal(name) == _normal(top)), library)
            modules.setdefault(top, owner)
    for library, env in GIT_SOURCES:
        git_dir = os.environ.get(env)
        if not git_dir:
            raise SystemExit(f"{library} publishes no wheel: set {env} to a git directory of its source")
        tag, tops = git_top_packages(git_dir)
        read[library] = f"git source at tag {tag}"
        for top in tops:
            modules.setdefault(top, library)
    return {"wheels": read, "modules": dict(sorted(modules.items()))}


def write(path: Path) -> None:
    about = (
        "Top-level Python package -> the library a verdict names, read from the released wheels' file lists by "
        "tools/upstream/python_modules.py (python -m tools.upstream modules). Generated: never edit by hand."
    )
    write_generated(path, about, extract())
