"""The user cache folder (compiled grammars, parsed rules), keyed by content hashes so a stale entry is never
used. A folder that cannot be created or written (read-only home, sandbox) only costs the work it would have
saved."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def cache_dir() -> Path | None:
    base = os.environ.get("LOGSCOPE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "logscope"
    )
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        return None
    return Path(base) if os.access(base, os.W_OK) else None


def load(name: str) -> Any | None:
    """The object stored under `name` (its key is part of the name), or None."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(folder / name, "rb") as handle:
            return pickle.load(handle)  # noqa: S301 - the user's own cache folder, like lark's grammar cache
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return None


def store(name: str, value: Any) -> None:
    """Write atomically (a concurrent reader sees the old entry or the whole new one)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    write_atomically(folder / name, data)


def write_atomically(path: Path, data: bytes) -> None:
    """A concurrent reader sees the old file or the whole new one; a folder that cannot be written: nothing."""
    with contextlib.suppress(OSError):
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def content_key(files: list[Path], code: tuple[str, ...], salt: str = "") -> str | None:
    """A hash of the files' names and bytes and of the code that reads them; None if a file cannot be read
    (the uncached load then reports it)."""
    digest = hashlib.sha256(salt.encode())
    chunk = bytearray(_CHUNK)
    try:
        for module in code:
            _hash_file(digest, Path(module), chunk)
        for path in files:
            digest.update(f"{path}\0{path.stat().st_size}\0".encode())
            _hash_file(digest, path, chunk)
    except OSError:
        return None
    return digest.hexdigest()[:24]


def stamp_key(files: list[Path], code: tuple[str, ...]) -> str | None:
    """A key of the data files' sizes and modification times (not their bytes: a large catalogue costs more to hash
    than to read) and of the code that reads them, hashed; None if a file cannot be read."""
    try:
        stamps = "-".join(f"{st.st_size}-{st.st_mtime_ns}" for st in (path.stat() for path in files))
    except OSError:
        return None
    code_key = content_key([], code)
    return None if code_key is None else f"{stamps}-{code_key}"


_CHUNK = 1 << 18


def _hash_file(digest: Any, path: Path, chunk: bytearray) -> None:
    """The file's bytes into the digest through one reused buffer: reading the 4 MB catalogue whole, and joining
    it to its name, made fresh pages the kernel had to fault in (about 20 ms of a paste here; the digest is the
    same)."""
    view = memoryview(chunk)
    with open(path, "rb", buffering=0) as handle:
        while size := handle.readinto(chunk):
            digest.update(view[:size])


def cached(kind: str, key: str | None, build: Callable[[], T], valid: Callable[[Any], bool]) -> T:
    """build(), or what an earlier build() with the same key stored (when `valid` accepts it)."""
    name = f"{kind}-{key}.pickle"
    if key is not None:
        value = load(name)
        if value is not None and valid(value):
            return value  # type: ignore[no-any-return]
    value = build()
    if key is not None:
        store(name, value)
    return value
