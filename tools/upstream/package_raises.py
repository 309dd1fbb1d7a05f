"""The messages the Python packages that a server runs raise (`raise ValueError("Cannot use chat template functions
...")` of transformers): a bare exception line of a builtin class (ValueError, OSError, KeyError) shows no module,
and with no frame under it only its words tell that the package raised it, another Python package's failure
(library `python`).

Read with the catalogue's extractor (messages.py, kind `raise`; fields as `{}`, library_raises.as_template: a message
with less than MIN_LITERAL characters of literal text names nothing) from the released wheels of RELEASES, the
modules a server calls to load a model's configuration, tokenizer and processor and to fetch its files (transformers'
top-level modules, its `models/auto/` and `utils/`; huggingface_hub's whole package). A message that SGLang's own
raises (catalog/sglang_raises.json), its catalogue (catalog/sglang.json) or another library's raises
(catalog/library_raises.json) also hold is left out: SGLang copies code from transformers, and its owner is then not
known from the words alone; and so is one whose longest literal run is CPython's own words (its lazy modules'
`module {} has no attribute {}` repeats the interpreter's) or one of too few words to be the package's alone
(sglang_raises.is_cpython_wording, is_generic_wording).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.upstream import messages, sources
from tools.upstream.library_raises import as_template
from tools.upstream.sglang_raises import cpython_strings, is_cpython_wording, is_generic_wording
from tools.upstream.write import CATALOG, write_generated

# (package as the finding names it, the wheel on the package index, its releases read (a paste may come from any),
# the module folders read)
# FlashInfer's top-level modules (its wrappers' checks: "The batch size should be fixed in cudagraph mode, ..."), beyond its
# JIT that catalog/library_raises.json reads, is a library of the table: its rows name FlashInfer (python_modules.json)
RELEASES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("transformers", "transformers", ("4.57.1", "5.25.0"), ("transformers/",)),
    ("huggingface_hub", "huggingface-hub", ("0.36.0", "2.5.0"), ("huggingface_hub/",)),
    ("flashinfer", "flashinfer-python", ("0.7.4",), ("flashinfer/",)),
)
# transformers' model folders (models/<name>/) hold each model's own code, which SGLang replaces with its own; of
# models/ only the Auto classes' folder is what a server calls
_TRANSFORMERS_MODELS = "transformers/models/"
_TRANSFORMERS_AUTO = "transformers/models/auto/"


# FlashInfer's public wrappers are its top-level modules (flashinfer/decode.py, prefill.py, sampling.py, norm.py, ...,
# what SGLang's attention and sampling backends call); its subpackages hold its kernels' own code generators
_FLASHINFER = "flashinfer/"


def _read(path: str) -> bool:
    if path.startswith(_FLASHINFER):
        return "/" not in path[len(_FLASHINFER) :]
    return not path.startswith(_TRANSFORMERS_MODELS) or path.startswith(_TRANSFORMERS_AUTO)


def _normal(template: str) -> str:
    """A template as compared with another's: its whitespace runs one space, without the sentence's end (SGLang's copy
    of FlashInfer's wrapper raises "... initialization {}" where FlashInfer ends "... initialization {}.")."""
    return " ".join(template.split()).rstrip(".!:; ")


def _claimed() -> set[str]:
    """The templates SGLang's raises and catalogue and the table's libraries' raises hold (as _normal gives them)."""
    folder = CATALOG.parent
    out = {_normal(str(row["template"])) for row in json.loads(CATALOG.read_text())["messages"]}
    for name in ("sglang_raises.json", "library_raises.json"):
        out |= {_normal(str(row["template"])) for row in json.loads((folder / name).read_text())["raises"]}
    return out


def extract() -> dict[str, Any]:
    claimed = _claimed()
    version_of_cpython, cpython = cpython_strings()
    wheels: list[str] = []
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for package, index_name, versions, tops in RELEASES:
        for version in versions:
            wheel = sources.download(index_name, version)
            wheels.append(wheel.name)
            for path, text in (f for top in tops for f in sources.python_files(wheel, top) if _read(f[0])):
                found, _ = messages.extract(path, text)
                for message in found:
                    template = as_template(message) if message.kind == "raise" else None
                    if template is None or _normal(template) in claimed or _normal(message.template) in claimed:
                        continue
                    if is_cpython_wording(template, cpython) or is_generic_wording(template):
                        continue
                    row = rows.setdefault(
                        (template, message.level),
                        {"template": template, "package": package, "exception": message.level,
                         "first": version, "last": version, "where": f"{path}:{message.line}"},
                    )  # fmt: skip
                    row["last"] = version
    table = sorted(rows.values(), key=lambda r: (r["package"], r["template"], r["exception"]))
    return {"wheels": wheels, "cpython": version_of_cpython, "raises": table}


def write(path: Path) -> None:
    about = (
        "The messages transformers', huggingface_hub's and FlashInfer's Python code raises (f-string fields as {}), with "
        "the top-level package, "
        "the exception class, the first and last release read that hold it and where the first one raises it, less "
        "what SGLang's raises and catalogue or another library's raises hold; read by tools/upstream/package_raises.py "
        "(python -m tools.upstream package-raises). Generated: never edit by hand."
    )
    write_generated(path, about, extract(), indent=0)
