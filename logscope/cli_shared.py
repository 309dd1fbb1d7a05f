"""What the commands do around their library call, without typer: the exit codes, a bad input's one line, a
document out in its format, the `analyze` command's body and the last guard. cli.py (typer) and cli_fast.py
(`analyze` on a plain argument list, without importing typer) both run them."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NoReturn

from logscope.report.formats import renderer

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

# warnings that still exit 1: an input that holds a failure logscope could not name never exits 0
_FAILING_WARNINGS = frozenset({"unrecognized-failure"})
OUT_OF_MEMORY = b"logscope: error: out of memory (give it less input at once, or more memory)\n"


def fails(findings: list[dict]) -> bool:
    return any(f["severity"] == "error" or f["rule"] in _FAILING_WARNINGS for f in findings)


def fail(message: str) -> NoReturn:
    from logscope.core.printable import terminal_safe

    print(f"logscope: error: {terminal_safe(message)}", file=sys.stderr)  # a path or a server's text, escaped
    raise SystemExit(EXIT_USAGE)


def emit(document: dict, kind: str, fmt: str, width: int, output: Path | None, no_redact: bool) -> None:
    """A command's document, redacted (logscope/core/redact.py says why here), in its format, to stdout or a file."""
    from logscope.core.printable import map_strings, terminal_safe
    from logscope.core.redact import KINDS, redact_document

    document = redact_document(document, KINDS if no_redact else ())
    if fmt == "text" or (output is None and sys.stdout.isatty()):  # text from inputs never drives the terminal
        document = map_strings(document, terminal_safe)
    write(renderer(fmt, kind)(document, width), output)


def warn_read_limits(inputs: Iterable[tuple[str, str | None]]) -> None:
    """An input that was not read to its end (path, why) is said on stderr too, not only in the report."""
    from logscope.core.printable import terminal_safe

    for path, stopped in inputs:
        if stopped:
            print(terminal_safe(f"logscope: warning: {path}: {stopped}"), file=sys.stderr)


def write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")


def analyze_command(
    inputs: list[str],
    fmt: str,
    rules_dirs: list[str],
    output: Path | None,
    width: int,
    model_config: Path | None,
    calibration: Path | None,
    no_redact: bool,
    no_cases: bool,
) -> NoReturn:
    """`logscope analyze` once its options are read: the report out, and the exit code."""
    from logscope.core.errors import LogscopeError
    from logscope.pipeline.analyze import analyze_inputs

    try:
        report = analyze_inputs(inputs, rules_dirs, model_config, calibration, cases=not no_cases)
    except LogscopeError as exc:
        fail(str(exc))
    warn_read_limits((i["path"], i.get("stopped")) for i in report["inputs"])
    emit(report, "report", fmt, width, output, no_redact)
    raise SystemExit(EXIT_FINDINGS if fails(report["findings"]) else EXIT_OK)


def guarded(run: Callable[[], object]) -> bool:
    """run() behind the last guard: an interrupt exits 130, a closed pipe 0, any other exception one line and 2,
    never a traceback. False when it ran out of memory: the caller then writes OUT_OF_MEMORY (after this returns,
    so that the frames which held the memory are gone) and exits 2."""
    try:
        run()
        return True
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except MemoryError:
        pass  # nothing allocated here: leaving the block frees the frames that held the memory
    except Exception as exc:  # noqa: BLE001 - a last guard: one line, never a traceback
        print(f"logscope: internal error: {type(exc).__name__}: {exc} (please report this with the input)", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    return False


def out_of_memory() -> None:
    os.write(2, OUT_OF_MEMORY)  # a line made in advance, written without a buffer
