"""`logscope analyze` on a plain argument list, without typer.

Importing typer (and click) and building the command tree cost a 2 KB paste about a tenth of its time. The
argument lists a paste and most runs give (`analyze -`, `analyze rank*.log -f json -o out.json --width 100`) are
read here, by the same options as cli.py's `analyze`, and run by the same body (cli_shared.analyze_command). Any
other list goes to typer (cli.py): another command, `--help`, an option this table does not hold, a combined short
option (`-fjson`), a repeated single option, a value that starts with `-` or that typer would read otherwise
(a format not spelled as listed, a width not in plain digits). tests/test_cli_fast.py compares this table with
the typer command's options and both readings of a set of lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# analyze's options: name (and short name) -> (the keyword it sets, what it takes); cli.py declares them for typer
VALUE, FLAG, REPEATED = "value", "flag", "repeated"
OPTIONS: dict[str, tuple[str, str]] = {
    "--format": ("fmt", VALUE),
    "-f": ("fmt", VALUE),
    "--rules": ("rules", REPEATED),
    "--output": ("output", VALUE),
    "-o": ("output", VALUE),
    "--width": ("width", VALUE),
    "--model-config": ("model_config", VALUE),
    "--calibration": ("calibration", VALUE),
    "--no-redact": ("no_redact", FLAG),
    "--no-cases": ("no_cases", FLAG),
}


@dataclass
class AnalyzeArgs:
    inputs: list[str] = field(default_factory=list)
    fmt: str = "text"
    rules: list[str] = field(default_factory=list)
    output: Path | None = None
    width: int = 0
    model_config: Path | None = None
    calibration: Path | None = None
    no_redact: bool = False
    no_cases: bool = False


def plain_analyze(argv: list[str]) -> AnalyzeArgs | None:
    """The options of `analyze` as typer would read them, or None: typer reads this list."""
    if not argv or argv[0] != "analyze":
        return None
    args = AnalyzeArgs()
    seen: set[str] = set()
    rest = argv[1:]
    i = 0
    while i < len(rest):
        token = rest[i]
        i += 1
        if token == "--":
            args.inputs.extend(rest[i:])
            break
        if token == "-" or not token.startswith("-"):
            args.inputs.append(token)
            continue
        name, has_value, value = token.partition("=")
        known = OPTIONS.get(name)
        if known is None or (has_value and (known[1] == FLAG or name.startswith("-") and not name.startswith("--"))):
            return None
        key, takes = known
        if key in seen and takes != REPEATED:
            return None
        seen.add(key)
        if takes == FLAG:
            setattr(args, key, True)
            continue
        if not has_value:
            if i == len(rest):
                return None
            value = rest[i]
            i += 1
        if not _set(args, key, value):
            return None
    return args if args.inputs else None


def _set(args: AnalyzeArgs, key: str, value: str) -> bool:
    if not value or value.startswith("-"):
        return False
    if key == "fmt":
        from logscope.report.formats import RENDERERS

        args.fmt = value
        return value in RENDERERS
    if key == "width":
        if not (value.isascii() and value.isdigit()):
            return False
        args.width = int(value)
    elif key == "rules":
        args.rules.append(str(Path(value)))
    else:
        setattr(args, key, Path(value))
    return True


def command(argv: list[str]) -> Callable[[], None] | None:
    """The command to run for this argument list without typer, or None."""
    args = plain_analyze(argv)
    if args is None:
        return None
    return lambda: main(args)


def main(args: AnalyzeArgs) -> None:
    from logscope.cli_shared import EXIT_USAGE, analyze_command, guarded, out_of_memory

    def run() -> None:
        analyze_command(
            args.inputs,
            args.fmt,
            args.rules,
            args.output,
            args.width,
            args.model_config,
            args.calibration,
            args.no_redact,
            args.no_cases,
        )

    if not guarded(run):
        out_of_memory()
        raise SystemExit(EXIT_USAGE)
