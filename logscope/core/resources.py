"""Locate the data folders (grammars/, rules/, catalog/) in a source checkout or an installed wheel, and the
tables inside the package (logscope/data)."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # the logscope package (this module is logscope/core/resources.py)
PACKAGE_DATA = _PKG / "data"  # tables shipped as package files (cell constants, calibrations)


def data_dir(name: str) -> Path:
    """Installed wheels carry the folders under logscope/_data; a checkout has them at the top."""
    installed = _PKG / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PKG.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"logscope data folder {name!r} not found (looked in {installed} and {checkout})")


def rules_dir() -> Path:
    return data_dir("rules")
