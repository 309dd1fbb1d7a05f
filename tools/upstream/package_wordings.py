"""The wordings of other Python packages that signatures read, found in those packages' released source.

A signature whose `source` begins `<package> <version>[-<version> | and <version>] <path>.py` (the path inside the
wheel, `torch/distributed/elastic/...`; CPython's as `Lib/<path>.py`) cites a Python package's own wording (a source
that cites a template filled with other values, argparse's `%(prog)s: error:` with SGLang's prog name, uses another
form, `CPython 3.11.7 argparse.py ...`, and is not checked here): every further
path of the same package the source names is searched too (a class in one file, its message in another). Each piece
of the pattern's literal text (split at its captures and gaps, without the blanks and quotes around it; a piece of
punctuation alone is no wording) must be in
one string constant of those files (implicitly joined literals are one; an f-string's text parts count), or be the
name of a class they define, or be `<Class>: <text>` (CPython's traceback line) with both found. Every cited version
is read: the wheels with `pip download --no-deps` (tools/upstream/sources.py), CPython from this interpreter's own
Lib/ when its version is the cited one (otherwise that wording is reported unread).

catalog/package_wordings.json holds, per signature, where each piece was found; tests/test_package_wordings.py
checks that every citing signature is there with the same package, versions and pieces. Wordings of tools that are
not Python packages (systemd, docker, the kernel's OOM killer) cite the tool, its version and its source file in the
signature's `source` instead (CONTRIBUTING.md)."""

from __future__ import annotations

import ast
import platform
import re
import sysconfig
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.upstream import sources
from tools.upstream.write import ROOT, write_generated

# the Python distributions whose wordings signatures cite (CPython: the interpreter's standard library)
PACKAGES = ("torch", "openai", "httpx", "httpcore", "h11", "requests", "aiohttp", "urllib3", "CPython")
_VERSION = r"\d+(?:\.\d+)+(?:\.post\d+)?"
CITED = re.compile(
    rf"^(?P<package>{'|'.join(PACKAGES)}) (?P<versions>{_VERSION}(?:(?:-| and ){_VERSION})?) (?P<path>[\w/]+\.py)\b"
)
SIGNATURE_FOLDERS = ("rules/signatures", "rules/signatures/placing")
# a piece's blanks and quotes around it are the joins of values the source fills in, not its wording
_AROUND = " \t'\""
_CLASS_AND_TEXT = re.compile(r"^(?P<cls>[A-Za-z_]\w*): (?P<text>.+)$")


def cited_signatures() -> Iterator[dict[str, Any]]:
    """Each signature whose source cites a Python package's file: id, package, versions, files and pieces."""
    import yaml

    for folder in SIGNATURE_FOLDERS:
        for path in sorted((ROOT / folder).glob("*.yaml")):
            if path.name.endswith(".cases.yaml"):
                continue
            for sig in yaml.safe_load(path.read_text())["signatures"]:
                found = CITED.match(sig["source"])
                if found is None:
                    continue
                package = found["package"]
                if package == "CPython" and not found["path"].startswith("Lib/"):
                    continue
                yield {
                    "id": sig["id"],
                    "package": package,
                    "versions": re.split(r"-| and ", found["versions"]),
                    "files": _cited_files(package, found["path"], sig["source"]),
                    "pieces": pieces(sig["pattern"]),
                }


def _cited_files(package: str, first: str, source: str) -> list[str]:
    top = "Lib/" if package == "CPython" else first.split("/", 1)[0] + "/"
    named = re.findall(rf"(?<![\w/]){re.escape(top)}[\w/]+\.py\b", source)
    return list(dict.fromkeys([first, *named]))


def pieces(pattern: str) -> list[str]:
    """The pattern's literal text split at its captures and gaps, each without the blanks and quotes around it."""
    text = re.sub(r"\{\w+(?::\w+)?\}|(?<!\\)\*", "\0", pattern.lstrip("^").removesuffix("$"))
    text = text.replace("\\*", "*").replace("\\{", "{").replace("\\^", "^")
    split = (p.strip(_AROUND) for p in text.split("\0"))
    return [p for p in split if len(re.findall(r"\w", p)) >= 2]  # a lone bracket or colon is no wording


def _texts(source: str) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """(each string constant with its line, each class name defined with its line) of a Python file."""
    tree = ast.parse(source)
    strings: list[tuple[str, int]] = []
    classes: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append((node.value, node.lineno))
        elif isinstance(node, ast.ClassDef):
            classes.setdefault(node.name, node.lineno)
    return strings, classes


def find(piece: str, files: dict[str, str]) -> str | None:
    """Where (`file:line`) the files hold the piece, else None."""
    read = {name: _texts(text) for name, text in files.items()}
    for name, (strings, classes) in read.items():
        if piece in classes or piece.removesuffix(":") in classes:  # "<Class>:" opens the exception line
            return f"{name}:{classes[piece.removesuffix(':')]} (class)"
        line = next((at for value, at in strings if piece in value), None)
        if line is not None:
            return f"{name}:{line}"
    split = _CLASS_AND_TEXT.match(piece)
    if split is not None:
        cls, text = find(split["cls"], files), find(split["text"], files)
        if cls is not None and cls.endswith("(class)") and text is not None:
            return f"{cls}; {text}"
    return None


def _files_of(package: str, version: str, paths: list[str]) -> dict[str, str] | None:
    if package == "CPython":
        if platform.python_version() != version:
            return None
        lib = Path(sysconfig.get_paths()["stdlib"])
        return {path: (lib / path.removeprefix("Lib/")).read_text() for path in paths}
    with zipfile.ZipFile(sources.download(package, version)) as zf:
        return {path: zf.read(path).decode("utf-8", errors="replace") for path in paths}


def extract() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for sig in cited_signatures():
        entry: dict[str, Any] = {k: sig[k] for k in ("package", "versions", "files")}
        entry["found"] = {}
        for version in sig["versions"]:
            files = _files_of(sig["package"], version, sig["files"])
            print(f"{sig['id']}: {sig['package']} {version} {'read' if files else 'NOT READ'}", flush=True)
            entry["found"][version] = {p: (find(p, files) if files else None) for p in sig["pieces"]}
        out[sig["id"]] = entry
    return out


def write(path: Path) -> None:
    about = (
        "Where each wording of another Python package that a signature cites (its `source`: package, version, "
        "files) is in that package's released source: per signature and cited version, each literal piece of its "
        "pattern -> file:line (null: not found). Read by tools/upstream/package_wordings.py (python -m tools.upstream "
        "package-wordings) from the wheels (CPython: the interpreter's Lib/). Generated."
    )
    write_generated(path, about, {"signatures": extract()})
