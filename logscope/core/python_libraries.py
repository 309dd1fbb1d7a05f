"""Which package a Python frame or an exception's module belongs to, and the library a verdict names for it, from
catalog/python_modules.json (the top-level packages of the released wheels, tools/upstream/python_modules.py).

A frame's package is the folder after `site-packages/` or `dist-packages/` (any install prefix); outside an
installed tree (an editable checkout, `/sgl-workspace/sglang/python/sglang/...`) only a package of the table that
stands in the path is known. The standard library is nobody's: its frames are the tools a library called."""

from __future__ import annotations

import json
import re
import sys
from functools import cache

from logscope.core.resources import data_dir

CATALOG_FILE = "python_modules.json"
SGLANG = "SGLang"

_INSTALLED = re.compile(r"(?:site|dist)-packages/([A-Za-z_]\w*)(?:/|\.py\b)")
_COMPONENT = re.compile(r"(?<![\w.-])([A-Za-z_]\w*)/")
# a project checked out in the src layout (the Python Packaging User Guide's "src layout vs flat layout": the import
# package under src/), run from its checkout: ".../dynamo/components/src/dynamo/vllm/handler.py" is package dynamo
_SRC_LAYOUT = re.compile(r"(?:^|/)src/([A-Za-z_]\w*)/[\w./-]*\.py\b")
# CPython's own library: lib/python3.X/<module> outside site-packages, or a frozen module
_STDLIB = re.compile(r"(?:^|/)lib/python3(?:\.\d+)?/(?!(?:site|dist)-packages/)|^<frozen ")


# the compiled extension modules a library's build installs at the top level of site-packages, beside its package
# (DeepEP's deep_ep_cpp: catalog/extension_modules.json, tools/upstream/extension_modules.py)
EXTENSIONS_FILE = "extension_modules.json"
# an extension module's file as CPython's import system names it (Python/dynload_shlib.c: `<name>.cpython-<tag>.so`,
# the stable ABI's `<name>.abi3.so`)
EXTENSION_FILE = re.compile(r"(?<![\w.-])([A-Za-z_]\w*)\.(?:cpython-[\w-]+|abi3)\.so\b")


@cache
def _modules() -> dict[str, str]:
    path = data_dir("catalog") / CATALOG_FILE
    table: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))["modules"]
    extensions = json.loads((data_dir("catalog") / EXTENSIONS_FILE).read_text(encoding="utf-8"))["modules"]
    return {**extensions, **table}


def extension_library(text: str) -> str | None:
    """The library of the table whose top-level extension module file the text names (`deep_ep_cpp.cpython-312-...so`)."""
    return next((_modules()[m] for m in EXTENSION_FILE.findall(text) if m in _modules()), None)


def module_library(module: str) -> str | None:
    """The library of the table that a dotted module or class path names (`triton.runtime.errors.PTXASError`)."""
    return _modules().get(module.split(".", 1)[0])


def is_stdlib_module(module: str) -> bool:
    top = module.split(".", 1)[0]
    return top in sys.stdlib_module_names or top == "builtins"


def is_stdlib_frame(frame: str) -> bool:
    return bool(_STDLIB.search(frame))


def frame_package(frame: str) -> str | None:
    """The top-level package a frame's file belongs to: the one installed under site-/dist-packages, else the
    innermost package of the table in its path, else the package a src-layout checkout holds; None for the standard
    library and for files of no known package (a user's script)."""
    path = frame.split(":", 1)[0] if not frame.startswith("<") else frame
    if is_stdlib_frame(path):
        return None
    installed = _INSTALLED.findall(path)
    if installed:
        return installed[-1]
    extension = [m for m in EXTENSION_FILE.findall(path) if m in _modules()]
    if extension:  # a library's extension module beside its package (site-packages/deep_ep_cpp.cpython-312-...so)
        return extension[-1]
    known = [name for name in _COMPONENT.findall(path) if name in _modules()]
    if known:
        return known[-1]
    checkout = _SRC_LAYOUT.findall(path)
    return checkout[-1] if checkout else None


def package_library(package: str) -> str | None:
    """The library of the table a package belongs to (None for any other package)."""
    return _modules().get(package)


def library_names() -> dict[str, set[str]]:
    """Each library of the table with the names it goes by: its verdict name and its top-level modules."""
    names: dict[str, set[str]] = {}
    for module, library in _modules().items():
        names.setdefault(library, {library}).add(module)
    return names
