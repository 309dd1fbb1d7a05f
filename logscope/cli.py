"""Command line: thin, parses options and calls the library. Exit codes: 0 no error-severity finding,
1 an error-severity finding, 2 usage or unreadable input (a one-line message naming the input)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from logscope import cli_params
from logscope.cli_shared import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    analyze_command,
    emit,
    fail,
    fails,
    guarded,
    warn_read_limits,
    write,
)
from logscope.cli_shared import OUT_OF_MEMORY as _OUT_OF_MEMORY  # noqa: F401 - the line main() writes, read by its test
from logscope.cli_shared import out_of_memory as _out_of_memory
from logscope.core.errors import LogscopeError
from logscope.lifetime import long_running
from logscope.report.formats import COMPARE_FORMATS, RENDERERS, renderer

cli_params.install()  # option values coerced without importing pydantic


# help and usage errors in plain text: typer's rich formatting imported rich and markdown-it on every --help
PLAIN: dict[str, Any] = {"rich_markup_mode": None}
# options that every command printing a document takes, declared once
WIDTH = typer.Option(0, "--width", help="Text width (0: COLUMNS, else the terminal, else 160).")
NO_REDACT = typer.Option(
    False,
    "--no-redact",
    help="Keep secrets, e-mails, home-directory user names, IPs and host names in the output (for local use; never for a post).",
)
NO_CASES = typer.Option(False, "--no-cases", help="Match no known cases (the index of public threads is not read).")
app = typer.Typer(
    **PLAIN,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Diagnose GPU memory at SGLang server startup from logs, nvidia-smi dumps and check_env output.",
)


def _print_version(asked: bool) -> None:
    if asked:
        from logscope import __version__

        print(f"logscope {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print logscope's version and exit."
    ),
) -> None:
    """Diagnose GPU memory at SGLang server startup from logs, nvidia-smi dumps and check_env output."""


rules_app = typer.Typer(**PLAIN, add_completion=False, no_args_is_help=True, help="List, check and test the YAML rules.")
app.add_typer(rules_app, name="rules")
signatures_app = typer.Typer(
    **PLAIN,
    add_completion=False,
    no_args_is_help=True,
    help="List, test and document the failure signatures (rules/signatures/).",
)
app.add_typer(signatures_app, name="signatures")
bot_app = typer.Typer(
    **PLAIN, add_completion=False, no_args_is_help=True, help="The GitHub webhook bot: comments logscope's triage on issues."
)
app.add_typer(bot_app, name="bot")


Format = Enum("Format", {name: name for name in RENDERERS}, type=str)  # type: ignore[misc]


def render(report: dict, fmt: Format, width: int = 0) -> str:  # type: ignore[valid-type]
    return renderer(fmt.value)(report, width)


def _dirs(paths: list[Path] | None) -> list[str]:
    return [str(p) for p in paths or []]


@app.command()
def analyze(
    inputs: list[str] = typer.Argument(..., help="Log files, quoted globs, directories, .gz files, or - for stdin."),
    fmt: Format = typer.Option("text", "--format", "-f", help="Output format."),  # type: ignore[valid-type]
    rules: list[Path] | None = typer.Option(None, "--rules", help="An extra folder of rules/<id>.yaml files."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    width: int = WIDTH,
    model_config: Path | None = typer.Option(
        None, "--model-config", help="The model's config.json (hidden_size, experts) for estimates."
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="A calibration file from `logscope probe`: measured sizes instead "
        "of the built-in estimates where it covers the group size.",
    ),
    no_redact: bool = NO_REDACT,
    no_cases: bool = NO_CASES,
) -> None:
    """Analyze SGLang startup logs (and nvidia-smi / check_env dumps) and report the memory per rank."""
    analyze_command(inputs, fmt.value, _dirs(rules), output, width, model_config, calibration, no_redact, no_cases)


@app.command()
def scan(
    paths: list[str] = typer.Argument(..., help="Folders of jobs, job folders, files or quoted globs."),
    out: str = typer.Option(..., "--out", help="Folder (or object-store URL) for the Parquet tables and the incremental state."),
    engine: str = typer.Option("local", "--engine", help="local (a worker pool on this machine) or ray."),
    address: str | None = typer.Option(None, "--address", help="The Ray cluster's address (default: a local Ray instance)."),
    workers: int = typer.Option(
        0, "--workers", help="Worker processes (local) or CPUs of a local Ray instance; 0: one per core."
    ),
    job_depth: int | None = typer.Option(None, "--job-depth", help="A job is a folder this many levels below each PATH."),
    job_pattern: str | None = typer.Option(None, "--job-pattern", help="A job is a folder whose name matches this glob."),
    since: str | None = typer.Option(
        None, "--since", help="Only jobs with a file modified since: 2026-12-01[T08:00] (UTC) or 12h, 7d."
    ),
    job_timeout: float = typer.Option(300.0, "--job-timeout", help="Seconds one job may take; over it, a row with the error."),
    job_memory: int = typer.Option(
        2048, "--job-memory", help="MiB of address space per worker process (local engine); 0: no bound."
    ),
    max_job_bytes: int = typer.Option(
        4096, "--max-job-bytes", help="MiB of files a job may hold; a larger job is a row with the error."
    ),
    full: bool = typer.Option(False, "--full", help="Analyse every job again (ignore the earlier tables in --out)."),
    no_redact: bool = NO_REDACT,
) -> None:
    """Analyse every job under PATHs into Parquet tables (jobs, phases, findings, cells, ledger): docs/fleet.md.
    Exit 2 when a job could not be analysed (its row says why), else 1 when a job has an error finding, else 0."""
    from logscope.fleet.jobs import Grouping
    from logscope.fleet.scan import ScanOptions, parse_since, run_scan
    from logscope.fleet.worker import Limits

    if engine not in ("local", "ray"):
        fail(f"--engine {engine}: local or ray")
    if job_depth is not None and job_pattern is not None:
        fail("--job-depth and --job-pattern: give one of them")
    long_running()  # a scan owns worker processes and runs for long: the collector and the normal exit
    try:
        options = ScanOptions(
            paths=paths,
            out=out,
            grouping=Grouping(job_depth, job_pattern),
            engine=engine,
            address=address,
            workers=workers,
            limits=Limits(max_job_bytes << 20, job_memory << 20, job_timeout, not no_redact),
            since_ns=parse_since(since) if since else None,
            full=full,
        )
        code = run_scan(options)
    except LogscopeError as exc:
        fail(str(exc))
        return
    raise typer.Exit(code)


@app.command()
def query(
    folder: str = typer.Argument(..., help="The --out folder of `logscope scan`."),
    sql: str = typer.Argument(..., help='SQL over the tables jobs, phases, findings, cells, ledger (quote "group").'),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json."),
    max_memory: float = typer.Option(4.0, "--max-memory", min=1, help="GiB the query may use (its process's address space)."),
    timeout: float = typer.Option(60.0, "--timeout", min=1, help="Seconds the query may take."),
) -> None:
    """SQL (polars) over the tables `logscope scan` wrote, and nothing else (no file, URL or table function), within
    a memory and a time cap: docs/fleet.md has examples."""
    from logscope.fleet.query import FORMATS, QueryLimits, run_query

    if fmt not in FORMATS:
        fail(f"--format {fmt}: one of {', '.join(FORMATS)}")
    try:
        limits = QueryLimits(int(max_memory * (1 << 30)), timeout)
        text = run_query(folder, sql, fmt, limits, terminal=fmt == "table" or sys.stdout.isatty())
    except LogscopeError as exc:
        fail(str(exc))
        return
    sys.stdout.write(text)


@app.command()
def probe(
    world_size: int = typer.Option(1, "--world-size", min=1, help="GPUs to use (0..N-1), one process each."),
    groups: str = typer.Option("tp", "--groups", help="Named groups to create by split (comma-separated), e.g. tp,ep."),
    out: Path = typer.Option(Path("calibration.yaml"), "--out", "-o", help="Where to write the calibration file."),
    stage_timeout: float = typer.Option(120.0, "--stage-timeout", min=5, help="Seconds one stage may take."),
    symm_mib: int = typer.Option(64, "--symm-mib", min=1, help="Symmetric-memory buffer to allocate (MiB)."),
    dumps: Path | None = typer.Option(
        None,
        "--dumps",
        help="Also write nvidia-smi dumps and a real OOM text, taken while the probe holds its memory, into this folder.",
    ),
    nccl_env: str = typer.Option(
        "sglang",
        "--nccl-env",
        help="The NCCL environment to measure under: sglang "
        "(NCCL_CUMEM_ENABLE=0, what SGLang sets), nccl-default (NCCL_CUMEM_ENABLE=1) or "
        "sglang-buffsize-1mib (NCCL_CUMEM_ENABLE=0, NCCL_BUFFSIZE=1 MiB).",
    ),
    env_matrix: bool = typer.Option(
        False,
        "--env-matrix",
        help="Measure under every --nccl-env one after the other and write one calibration whose rows carry their environment.",
    ),
) -> None:
    """Measure each communication mechanism's memory on these GPUs (needs PyTorch with CUDA and nvidia-ml-py)."""
    long_running()  # child processes and minutes of GPU work: the collector and the normal exit (entry.py)
    import shlex

    from logscope.probe.command import calibrate

    command = shlex.join(["logscope", "probe", *sys.argv[2:]])
    try:
        result = calibrate(world_size, groups, stage_timeout, symm_mib, dumps, nccl_env, env_matrix, out, command)
    except LogscopeError as exc:
        fail(str(exc))
        return
    print("\n".join(result.summary))
    raise typer.Exit(EXIT_OK if result.document["mechanisms"] else EXIT_FINDINGS)


@app.command()
def triage(
    issue: str = typer.Argument(
        "-", help="The issue: its Markdown body, or the GitHub REST API's issue (and comments) JSON; - for stdin."
    ),
    fmt: Format = typer.Option(
        "comment",
        "--format",
        "-f",
        help="comment: the Markdown comment to post; json: "  # type: ignore[valid-type]
        "the analysis with the blocks' origins.",
    ),
    keep: str = typer.Option("", "--keep", help="Kinds not to redact, comma-separated: token,email,path,ip,host."),
    rules: list[Path] | None = typer.Option(None, "--rules", help="An extra folder of rules/<id>.yaml files."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    width: int = WIDTH,
    no_redact: bool = NO_REDACT,
    no_cases: bool = NO_CASES,
) -> None:
    """Triage a GitHub issue: find every log, dump and command in it, analyse them, and write one comment."""
    from logscope.triage.run import triage_issue

    try:
        keep_kinds = [k.strip() for k in keep.split(",") if k.strip()]
        document = triage_issue(issue, keep_kinds, no_redact, _dirs(rules), cases=not no_cases)
    except LogscopeError as exc:
        fail(str(exc))
        return
    write(render(document, fmt, width), output)  # triage redacts its document itself (the bot posts it)
    raise typer.Exit(EXIT_FINDINGS if fails(document["findings"]) else EXIT_OK)


@app.command()
def cases(
    query: str | None = typer.Argument(
        None, help="A signature or rule id, a thread (owner/name#N or #N), or words of a message or title; none lists all."
    ),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    index: Path | None = typer.Option(None, "--index", help="Another known-cases index (default: the one shipped)."),
) -> None:
    """List or search the known cases: public threads whose pastes logscope analysed, and how each ended."""
    from logscope.cases.index import bundled_index, read_index
    from logscope.cases.listing import listing

    if fmt not in ("text", "json"):
        fail(f"--format: {fmt!r} is not text or json")
    try:
        known = read_index(index) if index is not None else bundled_index()
    except LogscopeError as exc:
        fail(str(exc))
        return
    lines, records = listing(known, query)
    if fmt == "json":
        import json

        write(
            json.dumps({"schema": "logscope-known-cases/1", "generated": known.generated, "cases": records}, indent=2) + "\n",
            None,
        )
    else:
        write("\n".join(lines) + "\n", None)
    raise typer.Exit(EXIT_OK if records or not query else EXIT_FINDINGS)


CompareFormat = Enum("CompareFormat", {name: name for name in COMPARE_FORMATS}, type=str)  # type: ignore[misc]


@app.command()
def diff(
    a: str = typer.Argument(
        ..., help="Run A: files, quoted globs or directories (comma-separated); run.log#2 picks launch 2 of them."
    ),
    b: str = typer.Argument(..., help="Run B, the same way."),
    fmt: CompareFormat = typer.Option("text", "--format", "-f", help="Output format."),  # type: ignore[valid-type]
    model_config: Path | None = typer.Option(
        None, "--model-config", help="The model's config.json: exact bytes per token instead of those derived from the KV lines."
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    width: int = WIDTH,
    no_redact: bool = NO_REDACT,
) -> None:
    """Compare two launches: what changed (versions, settings, free memory by phase, ledgers, cells), and why
    the KV cache capacity changed, split into budget and bytes per token."""
    from logscope.compare.commands import diff_runs

    try:
        result = diff_runs(a, b, model_config)
    except LogscopeError as exc:
        fail(str(exc))
        return
    warn_read_limits(result.stopped)
    emit(result.document, "diff", fmt.value, width, output, no_redact)
    raise typer.Exit(EXIT_OK)


@app.command()
def plan(
    run: str = typer.Option(..., "--from", help="The real run to start from (files, globs, directory; run.log#N)."),
    tp: int | None = typer.Option(None, "--tp", min=1, help="TP size to project."),
    dp: int | None = typer.Option(None, "--dp", min=1, help="DP size."),
    pp: int | None = typer.Option(None, "--pp", min=1, help="PP size."),
    ep: int | None = typer.Option(None, "--ep", min=1, help="EP size (default: follows --tp when the run had ep = tp)."),
    dp_attention: bool | None = typer.Option(None, "--dp-attention/--no-dp-attention", help="DP attention."),
    moe_a2a_backend: str | None = typer.Option(None, "--moe-a2a-backend", help="e.g. deepep."),
    deepep_mode: str | None = typer.Option(None, "--deepep-mode", help="normal, low_latency or auto."),
    mem_fraction_static: float | None = typer.Option(None, "--mem-fraction-static", min=0.01, max=0.99),
    kv_cache_dtype: str | None = typer.Option(None, "--kv-cache-dtype", help="e.g. fp8_e4m3, bfloat16."),
    page_size: int | None = typer.Option(None, "--page-size", min=1),
    max_total_tokens: int | None = typer.Option(None, "--max-total-tokens", min=1),
    max_running_requests: int | None = typer.Option(None, "--max-running-requests", min=1),
    context_length: int | None = typer.Option(None, "--context-length", min=1),
    model_config: Path | None = typer.Option(None, "--model-config", help="The model's config.json (heads, layers)."),
    fmt: CompareFormat = typer.Option("text", "--format", "-f", help="Output format."),  # type: ignore[valid-type]
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    width: int = WIDTH,
    no_redact: bool = NO_REDACT,
) -> None:
    """Project a setting not yet run from a real run: per rank, the KV budget, KV tokens, max_running_requests
    and the margin left for lazily created buffers. Exit 1 when a rank's margin is negative."""
    from logscope.compare.commands import plan_run
    from logscope.compare.plan import Setting

    setting = Setting(
        tp=tp,
        dp=dp,
        pp=pp,
        ep=ep,
        dp_attention=dp_attention,
        moe_a2a_backend=moe_a2a_backend,
        deepep_mode=deepep_mode,
        mem_fraction_static=mem_fraction_static,
        kv_cache_dtype=kv_cache_dtype,
        page_size=page_size,
        max_total_tokens=max_total_tokens,
        max_running_requests=max_running_requests,
        context_length=context_length,
    )
    try:
        result = plan_run(run, setting, model_config)
    except LogscopeError as exc:
        fail(str(exc))
        return
    warn_read_limits(result.stopped)
    emit(result.document, "plan", fmt.value, width, output, no_redact)
    raise typer.Exit(EXIT_FINDINGS if result.risky else EXIT_OK)


@app.command("run", context_settings={"allow_interspersed_args": False})
def run_cmd(
    command: list[str] = typer.Argument(
        ..., help="The launch command, after --: logscope run -- python -m sglang.launch_server ..."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Folder for launch.log and launch.samples.jsonl (default: ./logscope-run-<time>)."
    ),
    interval: float = typer.Option(
        0.5, "--interval", min=0.05, help="Seconds between NVML samples (besides one at every phase line)."
    ),
    no_analysis: bool = typer.Option(
        False, "--no-analysis", help="Do not print the analysis when the server is ready and at the end."
    ),
    fmt: Format = typer.Option("text", "--format", "-f", help="Format of the analysis printed."),  # type: ignore[valid-type]
    report: Path | None = typer.Option(
        None, "--report", help="Write the analysis to this file (replaced at the end) instead of the terminal."
    ),
) -> None:
    """Run a launch command, pass its output through, save it, and measure GPU memory (NVML) at every phase line."""
    from logscope.measure.run import RunOptions, default_out_dir, run_launch

    options = RunOptions(list(command), out or default_out_dir(), interval, not no_analysis, fmt.value)
    options.report_fd = 1 if os.isatty(1) else 2  # a piped launch's stdout stays the launch's own
    if report is not None:
        try:
            report.open("ab").close()  # said now, not when the server is ready
        except OSError as exc:
            fail(f"--report {report}: cannot be written ({exc.strerror or exc})")
        options.report_path = report
    try:
        result = run_launch(options)
    except LogscopeError as exc:
        fail(str(exc))
        return
    raise typer.Exit(result.exit_code)


@app.command("watch")
def watch_cmd(
    url: str = typer.Argument(..., help="The server's base URL, e.g. http://127.0.0.1:30000"),
    once: bool = typer.Option(False, "--once", help="Read once and print (the default with --format json|markdown)."),
    fmt: str = typer.Option("text", "--format", "-f", help="text (a view that refreshes), json or markdown."),
    interval: float = typer.Option(2.0, "--interval", min=0.2, help="Seconds between reads of the live view."),
    header: list[str] | None = typer.Option(None, "--header", help="An HTTP header, 'Name: value' (e.g. the API key)."),
    timeout: float = typer.Option(5.0, "--timeout", min=0.1, help="Seconds to wait for each endpoint."),
    smi: str | None = typer.Option(None, "--smi", help="An nvidia-smi dump of the server's host (instead of NVML here)."),
    no_nvml: bool = typer.Option(False, "--no-nvml", help="Do not read NVML even when the server is on this host."),
) -> None:
    """Show the live memory ledger of a running SGLang server: its own figures, the device's, the residual."""
    from logscope.measure.watch import Options, read_watch, render_markdown, watch_live

    if fmt not in ("text", "json", "markdown"):
        fail(f"--format {fmt}: one of text, json, markdown")
    headers = []
    for item in header or []:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            fail(f"--header {item!r}: give it as 'Name: value'")
        headers.append((name.strip(), value.strip()))
    options = Options(url, tuple(headers), timeout, not no_nvml, None, smi)
    try:
        if fmt == "text" and not once:
            watch_live(options, interval)
            return
        document = read_watch(options)
    except LogscopeError as exc:
        fail(str(exc))
        return
    if fmt == "json":
        import json

        print(json.dumps(document.to_json(), indent=2, allow_nan=False))  # valid JSON: figures are finite (measure/watch.py)
    elif fmt == "markdown":
        print(render_markdown(document), end="")
    else:
        from rich.console import Console

        from logscope.measure.watch import rich_view

        Console().print(rich_view(document))


@app.command()
def literals() -> None:
    """Print the prefilter's literals, one per line (for `grep -F -f`)."""
    from logscope.pipeline.parse.prefilter import all_literals

    sys.stdout.write("\n".join(all_literals()) + "\n")


def _print_lines(produce: Callable[[], list[str] | str]) -> None:
    """A listing or a generated reference on stdout; a bad rule, signature or case file is one line, exit 2."""
    try:
        out = produce()
    except LogscopeError as exc:
        fail(str(exc))
        return
    sys.stdout.write(out + "\n" if isinstance(out, str) else "".join(line + "\n" for line in out))


def _case_summary(run: Callable[[], tuple[list[str], int]]) -> None:
    """The failed cases, the count line, and exit 1 when one failed (rules test, signatures test)."""
    try:
        failures, total = run()
    except LogscopeError as exc:
        fail(str(exc))
        return
    for failure in failures:
        print(failure)
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    raise typer.Exit(EXIT_FINDINGS if failures else EXIT_OK)


@rules_app.command("list")
def rules_list(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """List the rules: id, severity, title."""
    from logscope.tooling.listing import rule_lines

    _print_lines(lambda: rule_lines(_dirs(rules)))


@rules_app.command("check")
def rules_check(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """Validate every rule file (schema and condition syntax); errors carry file:line:col."""
    from logscope.tooling.listing import rules_checked

    _print_lines(lambda: rules_checked(_dirs(rules)))


@rules_app.command("test")
def rules_test(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """Run every rule's <id>.cases.yaml and report the cases that fail."""
    from logscope.tooling.rule_cases import run_all_cases

    _case_summary(lambda: run_all_cases(_dirs(rules)))


@rules_app.command("docs")
def rules_docs() -> None:
    """Print the rule reference (docs/rules.md) rendered from the rule and case files."""
    from logscope.tooling.rule_docs import render_rules_doc

    _print_lines(render_rules_doc)


@signatures_app.command("list")
def signatures_list() -> None:
    """One line per signature: id, evidence kind, finding, phase, pattern."""
    from logscope.tooling.listing import signature_lines

    _print_lines(signature_lines)


@signatures_app.command("test")
def signatures_test() -> None:
    """Run every rules/signatures/*.cases.yaml case; exit 1 when one fails."""
    from logscope.tooling.signature_cases import run_signature_cases

    _case_summary(run_signature_cases)


@signatures_app.command("docs")
def signatures_docs() -> None:
    """Print the signature reference (docs/signatures.md)."""
    from logscope.tooling.signature_docs import render_signatures_doc

    _print_lines(render_signatures_doc)


# the budget of one analysis, for `serve` and `bot serve` alike (logscope/paste/budget.py)
MAX_PASTE = typer.Option(
    8 << 20, "--max-paste", min=1024, envvar="LOGSCOPE_MAX_PASTE", help="Largest paste page submission (bytes)."
)
BUDGET_SECONDS = typer.Option(
    15.0,
    "--budget-seconds",
    min=1.0,
    envvar="LOGSCOPE_BUDGET_SECONDS",
    help="Seconds one analysis may take (paste page request, bot job): reading stops at a fifth of what is left "
    "once the input is redacted, and the report says where; past the budget the analysis is stopped.",
)
MAX_CONCURRENT = typer.Option(
    2,
    "--max-concurrent",
    min=1,
    envvar="LOGSCOPE_MAX_CONCURRENT",
    help="Paste page analyses at once; one more is answered 503 with Retry-After.",
)


def _budget(max_paste: int, seconds: float, concurrent: int) -> Any:
    from logscope.paste.budget import Budget

    return Budget(max_bytes=max_paste, seconds=seconds, concurrent=concurrent)


@bot_app.command("serve")
def bot_serve(
    host: str = typer.Option("127.0.0.1", "--host", envvar="LOGSCOPE_HOST", help="Address to listen on."),
    port: int = typer.Option(8080, "--port", envvar="LOGSCOPE_PORT", help="Port to listen on."),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        envvar="LOGSCOPE_DRY_RUN",
        help="Post nothing and need no token: triage the text each delivery carries and "
        "write the would-be comment under --dry-run-dir.",
    ),
    dry_run_dir: Path | None = typer.Option(
        None, "--dry-run-dir", envvar="LOGSCOPE_DRY_RUN_DIR", help="Where a dry run writes comments (default: DATA_DIR/dry-run)."
    ),
    data_dir: Path = typer.Option(
        Path("logscope-bot-data"), "--data-dir", envvar="LOGSCOPE_DATA_DIR", help="Where the job queue lives."
    ),
    allow_repo: list[str] = typer.Option(
        [],
        "--allow-repo",
        envvar="LOGSCOPE_ALLOW_REPOS",
        help="Act only for these repositories (owner/name or owner/*; repeat, or space-separated in the variable). Default: any.",
    ),
    label: list[str] = typer.Option(
        [], "--label", envvar="LOGSCOPE_LABELS", help="Act only on issues carrying one of these labels (repeat). Default: any."
    ),
    app_id: str = typer.Option("", "--app-id", envvar="LOGSCOPE_APP_ID", help="GitHub App id (or client id)."),
    app_key: Path | None = typer.Option(
        None, "--app-key", envvar="LOGSCOPE_APP_KEY_FILE", help="The GitHub App's private key (.pem)."
    ),
    mutation_interval: float = typer.Option(
        1.0, "--mutation-interval", min=0.0, help="Seconds between two comment writes (GitHub asks for 1)."
    ),
    retry_wait: float = typer.Option(
        60.0, "--retry-wait", min=0.0, help="Seconds to wait when GitHub fails without saying how long."
    ),
    max_body: int = typer.Option(1 << 20, "--max-body", min=1024, help="Largest webhook body accepted (bytes)."),
    max_paste: int = MAX_PASTE,
    budget_seconds: float = BUDGET_SECONDS,
    max_concurrent: int = MAX_CONCURRENT,
) -> None:
    """Serve POST /webhook (issues, issue_comment), the paste page (GET /), GET /metrics and GET /healthz.
    Secret: LOGSCOPE_WEBHOOK_SECRET; auth: a GitHub App (--app-id and --app-key) or GITHUB_TOKEN; API:
    GITHUB_API_URL (default https://api.github.com); login: LOGSCOPE_BOT_LOGIN, else read from GitHub.
    At start it prints one line on stderr: the URL, the mode (dry run, GitHub App id, or token), the data
    folder and the limits (webhook body, paste size, seconds per analysis, analyses at once)."""
    try:
        from logscope.bot.server import BotOptions, serve
    except ImportError as exc:
        fail(f"the bot needs its extra: from a logscope clone, pip install '.[bot]' ({exc})")
        return
    options = BotOptions(
        host,
        port,
        dry_run,
        dry_run_dir,
        data_dir,
        tuple(allow_repo),
        tuple(label),
        app_id,
        app_key,
        mutation_interval,
        retry_wait,
        max_body,
        _budget(max_paste, budget_seconds, max_concurrent),
    )
    try:
        serve(options)
    except LogscopeError as exc:
        fail(str(exc))


@app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", envvar="LOGSCOPE_HOST", help="Address to listen on."),
    port: int = typer.Option(8080, "--port", envvar="LOGSCOPE_PORT", help="Port to listen on."),
    max_paste: int = MAX_PASTE,
    budget_seconds: float = BUDGET_SECONDS,
    max_concurrent: int = MAX_CONCURRENT,
) -> None:
    """The paste page alone (no bot): GET / is a form, POST / answers with the redacted HTML report.
    At start it prints one line on stderr: the URL and the limits (paste size, seconds per analysis,
    analyses at once, what a report draws)."""
    try:
        from logscope.paste.server import serve as serve_page
    except ImportError as exc:
        fail(f"the paste page needs the bot extra: from a logscope clone, pip install '.[bot]' ({exc})")
        return
    serve_page(host, port, _budget(max_paste, budget_seconds, max_concurrent))


@bot_app.command("status")
def bot_status(data_dir: Path = typer.Option(Path("logscope-bot-data"), "--data-dir", help="The bot's data folder.")) -> None:
    """Jobs by status, and the parked and failing ones with their error."""
    from logscope.bot.queue import JobQueue

    if not (data_dir / "jobs.sqlite3").exists():
        fail(f"{data_dir}: no job queue here")
    queue = JobQueue(data_dir)
    counts = queue.counts()
    print(", ".join(f"{status} {n}" for status, n in sorted(counts.items())) or "no jobs")
    for label, rows in (("parked", queue.parked()), ("failing, will retry", queue.failing())):
        for delivery, repo, issue, attempts, error in rows:
            print(f"{label}: {repo}#{issue} delivery {delivery} after {attempts} attempts: {error}")


def main() -> None:
    if not guarded(lambda: app(standalone_mode=True)):
        _out_of_memory()
        sys.exit(EXIT_USAGE)
