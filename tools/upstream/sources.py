"""Released wheels on disk: the cache folder, the versions list, `pip download --no-deps`, and the Python
files of one SGLang wheel read straight from the zip (nothing is unpacked)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERSIONS_FILE = HERE / "versions.txt"


def cache_dir() -> Path:
    """Wheels live outside the repo (they are large and never committed)."""
    return Path(os.environ.get("LOGSCOPE_UPSTREAM_CACHE", "~/.cache/logscope-upstream")).expanduser()


def sglang_versions() -> list[str]:
    """The catalogued releases, oldest first (one a line in versions.txt; # starts a comment)."""
    lines = (line.split("#", 1)[0].strip() for line in VERSIONS_FILE.read_text().splitlines())
    return [line for line in lines if line]


def download(package: str, version: str | None) -> Path:
    """The wheel of package==version in the cache, fetched with pip when it is not there yet."""
    folder = cache_dir() / package / (version or "latest")
    wheels = sorted(folder.glob("*.whl"))
    if wheels:
        return wheels[0]
    folder.mkdir(parents=True, exist_ok=True)
    spec = f"{package}=={version}" if version else package
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", spec, "-d", str(folder)], check=True
    )
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        raise SystemExit(f"pip download {spec}: no wheel in {folder}")
    return wheels[0]


def python_files(wheel: Path, top: str = "sglang/") -> Iterator[tuple[str, str]]:
    """(path inside the wheel, source text) of every .py file under `top`."""
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.startswith(top) and name.endswith(".py"):
                yield name, zf.read(name).decode("utf-8", errors="replace")


def module_of(path: str) -> str:
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
