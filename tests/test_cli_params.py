"""Option values coerced without pydantic give what typer's own coercion gives, and a small paste's run
imports neither pydantic nor polars."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path

import pytest
from typer import _coercion
from typer.models import ArgumentInfo, OptionInfo

from logscope.cli_params import _NO_MATCH, coerce

ROOT = Path(__file__).resolve().parent.parent
Fmt = Enum("Fmt", {"text": "text", "json": "json"}, type=str)  # type: ignore[misc]


def _typer(annotation, info, value):
    descriptor = _coercion.resolve_type_descriptor(annotation, info)
    return _coercion.build_runtime_param(descriptor)._coerce_value(value, param=None, ctx=None)


@pytest.mark.parametrize(
    ("annotation", "info", "value"),
    [
        (str, OptionInfo(), "tp,ep"),
        (int, OptionInfo(), "120"),
        (int, OptionInfo(), "-3"),
        (float, OptionInfo(), "0.88"),
        (float, OptionInfo(), "5"),
        (float, OptionInfo(), ".5"),
        (Path, OptionInfo(), "out/report.html"),
        (Path | None, OptionInfo(), "rules"),
        (list[Path], OptionInfo(), ["a", "b"]),
        (list[str], ArgumentInfo(), ["-", "x.log"]),
        (Fmt, OptionInfo(), "json"),
        (int | None, OptionInfo(), "8"),
        # defaults arrive typed
        (int, OptionInfo(), 0),
        (float, OptionInfo(), 120.0),
        (Path, OptionInfo(), Path("x.yaml")),
        (Fmt, OptionInfo(), Fmt.json),
    ],
)
def test_a_plain_value_is_what_typer_gives(annotation, info, value):
    ours = coerce(annotation, info, value)
    assert ours is not _NO_MATCH
    assert ours == _typer(annotation, info, value) and type(ours) is type(_typer(annotation, info, value))


@pytest.mark.parametrize(
    ("annotation", "info", "value"),
    [
        (int, OptionInfo(), "abc"),
        (int, OptionInfo(), "1.5"),
        (int, OptionInfo(min=1), "0"),
        (int, OptionInfo(min=1), "3"),
        (float, OptionInfo(), "1e3"),
        (float, OptionInfo(max=0.99), "0.5"),
        (Fmt, OptionInfo(), "yaml"),
        (Fmt, OptionInfo(), "JSON"),
        (Path, OptionInfo(exists=True), "x"),
        (Path, OptionInfo(resolve_path=True), "x"),
        (float, OptionInfo(), 5),
        (int, OptionInfo(min=1), 1),
    ],
)
def test_anything_else_is_left_to_typer(annotation, info, value):
    assert coerce(annotation, info, value) is _NO_MATCH


def test_a_small_paste_imports_neither_pydantic_nor_polars(tmp_path):
    paste = tmp_path / "paste.log"
    paste.write_bytes((ROOT / "fixtures/real/h-001-sglang-11716.log").read_bytes()[:2048])
    probe = (
        # the command as the entry point runs it, but returning here (the entry point ends the process at once)
        f"import sys\nsys.argv = ['logscope', 'analyze', {str(paste)!r}]\nfrom logscope.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in ('pydantic', 'polars', 'hyperscan') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.rsplit("LOADED", 1)[1].strip() == "[]"


def test_a_small_paste_without_a_failure_imports_neither_the_case_keys_nor_yaml_nor_the_compare_view(tmp_path):
    # the bench's paste ends before any failure: the known cases' keys, PyYAML (a flow list in a shell block) and
    # the diff/plan view are imported only by the inputs and commands that use them
    paste = tmp_path / "paste.log"
    paste.write_bytes((ROOT / "fixtures/real/h-001-sglang-11716.log").read_bytes()[:2048])
    names = ("logscope.cases.key", "logscope.cases.block", "logscope.report.compare_view", "yaml.loader")
    probe = (
        f"import sys\nsys.argv = ['logscope', 'analyze', {str(paste)!r}]\nfrom logscope.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in {names!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.rsplit("LOADED", 1)[1].strip() == "[]"
