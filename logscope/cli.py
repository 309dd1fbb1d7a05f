"""Command line: thin, parses options and calls the library. Exit codes: 0 no error-severity finding,
1 an error-severity finding, 2 usage or unreadable input (a one-line message naming the input)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from logscope import cli_params
from logscope.core.errors import InputError, LogscopeError
from logscope.lifetime import long_running
from logscope.report.formats import COMPARE_FORMATS, RENDERERS, renderer

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
cli_params.install()  # option values coerced without importing pydantic

# warnings that still exit 1: an input that holds a failure logscope could not name never exits 0
_FAILING_WARNINGS = frozenset({"unrecognized-failure"})


def _fails(findings: list[dict]) -> bool:
    return any(f["severity"] == "error" or f["rule"] in _FAILING_WARNINGS for f in findings)


# help and usage errors in plain text: typer's rich formatting imported rich and markdown-it on every --help
PLAIN: dict[str, Any] = {"rich_markup_mode": None}
# options that every command printing a document takes, declared once
WIDTH = typer.Option(0, "--width", help="Text width (0: COLUMNS, else the terminal, else 160).")
NO_REDACT = typer.Option(
    False,
    "--no-redact",
    help="Keep secrets, e-mails, home-directory user names, IPs and host names in the output (for local use; never for a post).",
)
app = typer.Typer(
    **PLAIN,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Diagnose GPU memory at SGLang server startup from logs, nvidia-smi dumps and check_env output.",
)
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


def _fail(message: str) -> None:
    print(f"logscope: error: {message}", file=sys.stderr)
    raise typer.Exit(EXIT_USAGE)


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
) -> None:
    """Analyze SGLang startup logs (and nvidia-smi / check_env dumps) and report the memory per rank."""
    from logscope.pipeline.analyze import analyze_sources
    from logscope.pipeline.ingest.ingest import expand_inputs

    try:
        from logscope.pipeline.sizing.calibration import load_calibration

        calib = load_calibration(calibration) if calibration is not None else None
        sources = expand_inputs(inputs)
        report = analyze_sources(sources, [str(r) for r in rules or []], _read_model_config(model_config), calib)
    except LogscopeError as exc:
        _fail(str(exc))
        return
    _warn_read_limits((i["path"], i.get("stopped")) for i in report["inputs"])
    _write(render(_redacted(report, no_redact), fmt, width), output)
    raise typer.Exit(EXIT_FINDINGS if _fails(report["findings"]) else EXIT_OK)


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
        _fail(f"--engine {engine}: local or ray")
    if job_depth is not None and job_pattern is not None:
        _fail("--job-depth and --job-pattern: give one of them")
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
        _fail(str(exc))
        return
    raise typer.Exit(code)


@app.command()
def query(
    folder: str = typer.Argument(..., help="The --out folder of `logscope scan`."),
    sql: str = typer.Argument(..., help='SQL over the tables jobs, phases, findings, cells, ledger (quote "group").'),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json."),
) -> None:
    """SQL (polars) over the tables `logscope scan` wrote: docs/fleet.md has examples."""
    from logscope.fleet.query import FORMATS, run_query

    if fmt not in FORMATS:
        _fail(f"--format {fmt}: one of {', '.join(FORMATS)}")
    try:
        text = run_query(folder, sql, fmt)
    except LogscopeError as exc:
        _fail(str(exc))
        return
    sys.stdout.write(text)


def _redacted(document: dict, no_redact: bool) -> dict:
    """Every command's document passes here on its way to a format (logscope/core/redact.py says why there)."""
    from logscope.core.redact import KINDS, redact_document

    return redact_document(document, KINDS if no_redact else ())


def _warn_read_limits(inputs: Iterable[tuple[str, str | None]]) -> None:
    """An input that was not read to its end (path, why) is said on stderr too, not only in the report."""
    for path, stopped in inputs:
        if stopped:
            print(f"logscope: warning: {path}: {stopped}", file=sys.stderr)


def _read_model_config(path: Path | None) -> dict | None:
    if path is None:
        return None
    import json  # only with --model-config: --help and a plain analysis do not pay for it

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LogscopeError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise LogscopeError(f"{path}: not a JSON model config ({exc})") from None
    if not isinstance(data, dict):
        raise LogscopeError(f"{path}: a model config.json is a JSON object")
    return data


def render(report: dict, fmt: Format, width: int = 0) -> str:  # type: ignore[valid-type]
    return renderer(fmt.value)(report, width)


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

    from logscope.pipeline.sizing.calibration import dump_calibration
    from logscope.probe.launcher import merge_calibrations
    from logscope.probe.launcher import probe as run_probe
    from logscope.probe.stages import NCCL_ENVIRONMENTS

    if nccl_env not in NCCL_ENVIRONMENTS:
        _fail(f"--nccl-env {nccl_env}: expected one of {', '.join(NCCL_ENVIRONMENTS)}")
        return
    command = shlex.join(["logscope", "probe", *sys.argv[2:]])
    names = list(NCCL_ENVIRONMENTS) if env_matrix else [nccl_env]
    try:
        runs = {
            name: run_probe(
                world_size,
                [g for g in groups.split(",") if g],
                stage_timeout,
                symm_mib,
                dumps if index == 0 else None,
                command,
                NCCL_ENVIRONMENTS[name],
            )
            for index, name in enumerate(names)
        }
    except LogscopeError as exc:
        _fail(str(exc))
        return
    document = merge_calibrations(runs) if env_matrix else runs[nccl_env]
    try:
        out.write_text(dump_calibration(document), encoding="utf-8")
    except OSError as exc:
        _fail(f"{out}: cannot write: {exc.strerror or exc}")
    for entry in document["mechanisms"]:
        under = " ".join(
            f"{k}={v}" for k, v in entry.get("environment", {}).items() if k.startswith("NCCL_") and k != "NCCL_NVLS_ENABLE"
        )
        print(
            f"{entry['stage']:26} {entry['group']:8} size {entry['group_size']:<3} {entry['mib']:9.2f} MiB "
            f"({entry['outside_allocator_mib']:.2f} outside the allocator){'  ' + under if under else ''}"
        )
    for entry in document["skipped"]:
        print(f"{entry['stage']:26} not measured: {entry['reason']}")
    print(f"calibration written to {out}")
    raise typer.Exit(EXIT_OK if document["mechanisms"] else EXIT_FINDINGS)


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
) -> None:
    """Triage a GitHub issue: find every log, dump and command in it, analyse them, and write one comment."""
    from logscope.core.redact import KINDS
    from logscope.triage.run import triage_text

    skip = [k.strip() for k in keep.split(",") if k.strip()]
    unknown = sorted(set(skip) - set(KINDS))
    if unknown:
        _fail(f"--keep: unknown kinds {', '.join(unknown)} (known: {', '.join(KINDS)})")
    try:
        text = _read_issue(issue)
        document = triage_text(
            text, "<stdin>" if issue == "-" else issue, KINDS if no_redact else skip, [str(r) for r in rules or []]
        )
    except LogscopeError as exc:
        _fail(str(exc))
        return
    _write(render(document, fmt, width), output)
    raise typer.Exit(EXIT_FINDINGS if _fails(document["findings"]) else EXIT_OK)


def _read_issue(issue: str) -> str:
    """The issue's text, read whole (it is split into blocks) but never more than limits.ISSUE_CAP bytes."""
    from logscope.core.limits import ISSUE_CAP, size
    from logscope.pipeline.ingest.decoding import decode_text
    from logscope.pipeline.ingest.ingest import stdin_stream

    name = "<stdin>" if issue == "-" else issue
    try:
        if issue == "-":
            raw = stdin_stream().read(ISSUE_CAP + 1)
        else:
            with open(issue, "rb") as handle:
                raw = handle.read(ISSUE_CAP + 1)
    except IsADirectoryError:
        raise InputError(f"{issue}: is a directory (triage reads one issue)") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > ISSUE_CAP:
        raise InputError(
            f"{name}: larger than {size(ISSUE_CAP)}; triage reads one issue thread (GitHub caps a body "
            f"or a comment at 65536 characters): give the logs to logscope analyze instead"
        )
    return decode_text(name, raw)


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
    from logscope.compare.diff import diff as build_diff
    from logscope.compare.diff import side
    from logscope.compare.document import diff_document
    from logscope.compare.load import load, split_spec

    if all("-" in split_spec(spec)[0] for spec in (a, b)):
        _fail("-: stdin is named for both runs (it can be read only once)")
    try:
        config = _read_model_config(model_config)
        loaded = [load(spec, config) for spec in (a, b)]
        sides = [side(spec, analysis, launch, config) for spec, (analysis, launch) in zip((a, b), loaded)]
    except LogscopeError as exc:
        _fail(str(exc))
        return
    _warn_read_limits((i.path, i.stopped) for analysis, _launch in loaded for i in analysis.inputs)
    _write(renderer(fmt.value, "diff")(_redacted(diff_document(build_diff(*sides)), no_redact), width), output)
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
    from logscope.compare.document import plan_document
    from logscope.compare.load import load
    from logscope.compare.plan import Setting
    from logscope.compare.plan import plan as build_plan
    from logscope.pipeline.sizing.kv_sizing import kv_sizing

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
        config = _read_model_config(model_config)
        analysis, launch = load(run, config)
        totals = [g["memory_total_mib"] for g in analysis.join.gpus if g.get("memory_total_mib")]
        sizing = analysis.kv_sizing.get(launch.id) or kv_sizing(launch, config)  # the pipeline's KV sizing stage
        result = build_plan(run, launch, sizing, setting, config, min(totals) if totals else None)
    except LogscopeError as exc:
        _fail(str(exc))
        return
    _warn_read_limits((i.path, i.stopped) for i in analysis.inputs)
    _write(renderer(fmt.value, "plan")(_redacted(plan_document(result), no_redact), width), output)
    risky = any(r.margin_gib is not None and r.margin_gib < 0 for r in result.ranks)
    raise typer.Exit(EXIT_FINDINGS if risky else EXIT_OK)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"{output}: cannot write: {exc.strerror or exc}")


@app.command()
def literals() -> None:
    """Print the prefilter's literals, one per line (for `grep -F -f`)."""
    from logscope.pipeline.parse.prefilter import all_literals

    sys.stdout.write("\n".join(all_literals()) + "\n")


def _case_summary(failures: list[str], total: int) -> None:
    """The failed cases, the count line, and exit 1 when one failed (rules test, signatures test)."""
    for failure in failures:
        print(failure)
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    raise typer.Exit(EXIT_FINDINGS if failures else EXIT_OK)


def _print_doc(render: Callable[[], str]) -> None:
    """A generated reference (rules docs, signatures docs) on stdout; a bad rule or case file is one line."""
    try:
        sys.stdout.write(render() + "\n")
    except LogscopeError as exc:
        _fail(str(exc))


@rules_app.command("list")
def rules_list(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """List the rules: id, severity, title."""
    from logscope.pipeline.rule_engine.loader import load_rules

    try:
        for rule in load_rules([str(r) for r in rules or []]):
            print(f"{rule.id:<32} {rule.severity:<8} {rule.title}")
    except LogscopeError as exc:
        _fail(str(exc))


@rules_app.command("check")
def rules_check(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """Validate every rule file (schema and condition syntax); errors carry file:line:col."""
    from logscope.pipeline.rule_engine.loader import load_rules

    try:
        loaded = load_rules([str(r) for r in rules or []])
    except LogscopeError as exc:
        _fail(str(exc))
        return
    print(f"{len(loaded)} rules OK")


@rules_app.command("test")
def rules_test(rules: list[Path] | None = typer.Option(None, "--rules", help="Extra rules folder.")) -> None:
    """Run every rule's <id>.cases.yaml and report the cases that fail."""
    from logscope.tooling.rule_cases import run_all_cases

    try:
        failures, total = run_all_cases([str(r) for r in rules or []])
    except LogscopeError as exc:
        _fail(str(exc))
        return
    _case_summary(failures, total)


@rules_app.command("docs")
def rules_docs() -> None:
    """Print the rule reference (docs/rules.md) rendered from the rule and case files."""
    from logscope.tooling.rule_docs import render_rules_doc

    _print_doc(render_rules_doc)


@signatures_app.command("list")
def signatures_list() -> None:
    """One line per signature: id, evidence kind, finding, phase, pattern."""
    from logscope.pipeline.parse.signatures.loader import load_signatures
    from logscope.pipeline.rule_engine.loader import load_rules

    try:
        signatures = load_signatures(finding_ids={r.id for r in load_rules()} | {"capture-oom"})
    except LogscopeError as exc:
        _fail(str(exc))
    for sig in signatures.signatures:
        sys.stdout.write(f"{sig.id:32} {sig.on:12} {sig.finding or '-':20} {sig.phase or '-':16} {sig.pattern.source}\n")
    sys.stdout.write(f"{len(signatures.signatures)} signatures\n")


@signatures_app.command("test")
def signatures_test() -> None:
    """Run every rules/signatures/*.cases.yaml case; exit 1 when one fails."""
    from logscope.tooling.signature_cases import run_signature_cases

    try:
        failures, total = run_signature_cases()
    except LogscopeError as exc:
        _fail(str(exc))
    _case_summary(failures, total)


@signatures_app.command("docs")
def signatures_docs() -> None:
    """Print the signature reference (docs/signatures.md)."""
    from logscope.tooling.signature_docs import render_signatures_doc

    _print_doc(render_signatures_doc)


def _access_log() -> None:
    """One line per delivery on stderr (logscope.bot.access); uvicorn's own log stays at warnings."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S%z"))
    access = logging.getLogger("logscope.bot.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False


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
    max_paste: int = typer.Option(8 << 20, "--max-paste", min=1024, help="Largest paste page submission (bytes)."),
) -> None:
    """Serve POST /webhook (issues, issue_comment), the paste page (GET /), GET /metrics and GET /healthz.
    Secret: LOGSCOPE_WEBHOOK_SECRET; auth: a GitHub App (--app-id and --app-key) or GITHUB_TOKEN; API:
    GITHUB_API_URL (default https://api.github.com); login: LOGSCOPE_BOT_LOGIN, else read from GitHub."""
    import os
    import sqlite3

    try:
        import uvicorn

        from logscope.bot.app import Settings, create_app
        from logscope.bot.auth import AppAuth, load_private_key
        from logscope.paste.page import routes
    except ImportError as exc:
        _fail(f"the bot needs its extra: from a logscope clone, pip install '.[bot]' ({exc})")
        return
    from logscope.bot.github import GitHub, StaticToken
    from logscope.bot.metrics import Metrics
    from logscope.bot.payload import REPO_NAME
    from logscope.bot.queue import JobQueue
    from logscope.bot.worker import BACKOFF, Worker

    secret = os.environ.get("LOGSCOPE_WEBHOOK_SECRET", "")
    token = os.environ.get("GITHUB_TOKEN", "")
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com")
    login = os.environ.get("LOGSCOPE_BOT_LOGIN", "")
    if not secret:
        _fail("LOGSCOPE_WEBHOOK_SECRET is not set: the bot verifies every delivery with it")
    for pattern in allow_repo:
        if not (REPO_NAME.fullmatch(pattern) or REPO_NAME.fullmatch(pattern.replace("/*", "/x"))):
            _fail(f"--allow-repo {pattern!r}: not owner/name or owner/*")
    if bool(app_id) != bool(app_key):
        _fail("a GitHub App needs both --app-id (LOGSCOPE_APP_ID) and --app-key (LOGSCOPE_APP_KEY_FILE)")
    github = None
    if not dry_run:
        if app_id and app_key:
            try:
                auth = AppAuth(api, app_id, load_private_key(app_key), default_wait=retry_wait)
            except (OSError, ValueError) as exc:
                _fail(f"--app-key: {exc}")
                return
            github = GitHub(api, auth, mutation_interval, retry_wait)
            if not login:
                try:
                    login = f"{auth.slug()}[bot]"
                except Exception as exc:  # noqa: BLE001 - said in one line, as every start-up problem
                    _fail(f"cannot read the app's slug from {api}/app ({exc}); set LOGSCOPE_BOT_LOGIN")
        elif token:
            github = GitHub(api, StaticToken(token), mutation_interval, retry_wait)
            if not login:
                try:
                    login = github.login()
                except Exception as exc:  # noqa: BLE001 - said in one line, as every start-up problem
                    _fail(f"cannot read the token's login from {api}/user ({exc}); set LOGSCOPE_BOT_LOGIN")
        else:
            _fail(
                "no GitHub credentials: set LOGSCOPE_APP_ID and LOGSCOPE_APP_KEY_FILE (a GitHub App) or "
                "GITHUB_TOKEN, or run with --dry-run, which needs neither"
            )
    try:
        queue = JobQueue(data_dir)
    except (OSError, sqlite3.Error) as exc:
        _fail(f"{data_dir}: cannot open the job queue: {exc}")
        return
    backoff = tuple(min(b, retry_wait) for b in BACKOFF) if retry_wait < BACKOFF[0] else BACKOFF
    metrics = Metrics()
    login = login or "logscope[bot]"
    worker = Worker(
        queue,
        github,
        login,
        dry_run_dir=(dry_run_dir or data_dir / "dry-run") if dry_run else None,
        backoff=backoff,
        metrics=metrics,
    )
    settings = Settings(
        secret.encode(),
        login,
        max_body,
        tuple(allow_repo),
        tuple(label),
        needs_installation=bool(app_id) and not dry_run,
        metrics=metrics,
    )
    _access_log()
    long_running()  # a server runs for days: the collector and the normal exit a command goes without (entry.py)
    uvicorn.run(create_app(settings, queue, worker, routes(max_paste)), host=host, port=port, log_level="warning")


@app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", "--host", envvar="LOGSCOPE_HOST", help="Address to listen on."),
    port: int = typer.Option(8080, "--port", envvar="LOGSCOPE_PORT", help="Port to listen on."),
    max_paste: int = typer.Option(8 << 20, "--max-paste", min=1024, help="Largest submission accepted (bytes)."),
) -> None:
    """The paste page alone (no bot): GET / is a form, POST / answers with the redacted HTML report."""
    try:
        import uvicorn
        from starlette.applications import Starlette

        from logscope.paste.page import routes
    except ImportError as exc:
        _fail(f"the paste page needs the bot extra: from a logscope clone, pip install '.[bot]' ({exc})")
        return
    long_running()  # as in bot serve
    uvicorn.run(Starlette(routes=routes(max_paste)), host=host, port=port, log_level="warning")


@bot_app.command("status")
def bot_status(data_dir: Path = typer.Option(Path("logscope-bot-data"), "--data-dir", help="The bot's data folder.")) -> None:
    """Jobs by status, and the parked and failing ones with their error."""
    from logscope.bot.queue import JobQueue

    if not (data_dir / "jobs.sqlite3").exists():
        _fail(f"{data_dir}: no job queue here")
    queue = JobQueue(data_dir)
    counts = queue.counts()
    print(", ".join(f"{status} {n}" for status, n in sorted(counts.items())) or "no jobs")
    for label, rows in (("parked", queue.parked()), ("failing, will retry", queue.failing())):
        for delivery, repo, issue, attempts, error in rows:
            print(f"{label}: {repo}#{issue} delivery {delivery} after {attempts} attempts: {error}")


def main() -> None:
    try:
        app(standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # noqa: BLE001 - a last guard: one line, never a traceback
        print(f"logscope: internal error: {type(exc).__name__}: {exc} (please report this with the input)", file=sys.stderr)
        sys.exit(EXIT_USAGE)
