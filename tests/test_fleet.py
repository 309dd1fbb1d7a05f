"""`logscope scan` and `logscope query` (logscope/fleet): the tables read back with polars against `analyze
--format json` for the same job, bad input as rows with their errors, incremental runs, the documented queries,
the Ray engine's rows against the local engine's, and polars kept off the paste path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
import pytest

from logscope.fleet.jobs import Grouping, find_jobs
from logscope.fleet.schema import SCHEMA_VERSION, TABLES
from tests.helpers import ROOT

CMD = [sys.executable, "-m", "logscope"]
REAL = ROOT / "fixtures" / "real"
TP2 = ROOT / "fixtures" / "synthetic" / "full-startup-tp2-with-smi.log"
DOC = (ROOT / "docs" / "fleet.md").read_text()
PHASE_LINE = "[2025-10-01 12:00:03 TP0] Load weight begin. avail mem=137.70 GB\n"


def run(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def tables(out: Path) -> dict[str, pl.DataFrame]:
    return {name: pl.read_parquet(out / f"{name}.parquet") for name in TABLES}


def _job(root: Path, name: str, *files: Path) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for f in files:
        shutil.copy(f, folder / f.name)
    return folder


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """Good jobs and every kind of bad one, scanned once by the CLI (one worker, so that the slow job's worker is
    started again for the jobs after it; a 2 s time limit)."""
    root = tmp_path_factory.mktemp("fleet")
    jobs = root / "jobs"
    _job(jobs, "a-tp2", TP2)
    _job(jobs, "b-oom", REAL / "f-004-sglang-5285.log")
    _job(jobs, "f-nccl", REAL / "f-010-sglang-8974.log", REAL / "h-013-sglang-17985.log")
    mixed = _job(jobs, "d-mixed", REAL / "f-013-sglang-6894.log")
    (mixed / "core.bin").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(32)) * 100)
    (mixed / "loop1").symlink_to("loop2")
    (mixed / "loop2").symlink_to("loop1")
    huge = _job(jobs, "e-huge")
    with open(huge / "rank0.log", "wb") as handle:  # sparse: 10 GiB on paper, nothing on disk
        handle.truncate(10 << 30)
    slow = _job(jobs, "c-slow")
    # distinct lines (a line read again is replayed, not parsed): about 5 s of analysis, over the 2 s limit
    (slow / "rank0.log").write_text("".join(PHASE_LINE.replace("137.70", f"{i / 100:.2f}") for i in range(30000)))
    _job(jobs, "g-after", TP2)
    (jobs / "h-loop").mkdir()
    (jobs / "h-loop" / "again").symlink_to(jobs / "h-loop")
    out = root / "out"
    proc = run("scan", str(jobs), "--out", str(out), "--job-timeout", "2", "--workers", "1")
    return jobs, out, proc


def test_scan_prints_a_line_per_job_verdict_first_and_where_the_tables_went(fleet):
    jobs, out, proc = fleet
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stdout.splitlines()
    by_job = {line.split()[1].rstrip(":"): line.split()[0] for line in lines if line.split() and str(jobs) in line.split()[1]}
    assert by_job == {
        f"{jobs}/a-tp2": "ok",
        f"{jobs}/b-oom": "error",
        f"{jobs}/f-nccl": "error",
        f"{jobs}/d-mixed": "error",
        f"{jobs}/e-huge": "unanalysed",
        f"{jobs}/c-slow": "unanalysed",
        f"{jobs}/g-after": "ok",
        f"{jobs}/h-loop": "unanalysed",
    }
    assert "8 jobs: 3 error, 2 ok, 3 unanalysed" in proc.stdout
    assert "by mechanism (top finding): 1 error memory, 1 error nccl, 1 error pd_transfer" in proc.stdout
    assert "1 worker process started again" in proc.stdout
    assert f"tables: {out}/jobs.parquet, {out}/phases.parquet" in proc.stdout
    assert proc.returncode == 2  # a job could not be analysed


def test_bad_input_becomes_rows_with_their_errors(fleet):
    jobs, out, _ = fleet
    rows = {r["job"].rsplit("/", 1)[1]: r for r in tables(out)["jobs"].iter_rows(named=True)}
    assert rows["e-huge"]["error"] == (
        "10.0 GiB of files, over the scan's cap of 4.0 GiB per job (--max-job-bytes); analyse it alone with `logscope analyze`"
    )
    assert rows["e-huge"]["bytes"] == 10 << 30 and rows["e-huge"]["exit"] == 2
    assert rows["c-slow"]["error"] == "timed out after 2 s (--job-timeout); its worker process was killed"
    assert rows["h-loop"]["error"] == f"{jobs}/h-loop/again: symlink loop or second link to a folder already walked"
    mixed = rows["d-mixed"]
    assert mixed["error"] == (
        f"{jobs}/d-mixed/loop1: symlink loop; {jobs}/d-mixed/loop2: symlink loop; "
        f"{jobs}/d-mixed/core.bin: binary data, not a text log: an ELF executable"
    )
    assert (mixed["verdict"], mixed["top_rule"], mixed["exit"], mixed["files"]) == ("error", "pd-transfer-failed", 2, 1)
    assert rows["g-after"]["verdict"] == "ok" and rows["g-after"]["error"] is None


def _analyze_json(*files: Path) -> dict:
    proc = run("analyze", *map(str, files), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", ["a-tp2", "b-oom", "f-nccl"])
def test_tables_read_back_equal_analyze_json_for_the_same_job(fleet, name):
    jobs, out, _ = fleet
    folder = jobs / name
    doc = _analyze_json(*sorted(folder.iterdir()))
    t = {k: df.filter(pl.col("job") == str(folder)) for k, df in tables(out).items()}
    job = t["jobs"].row(0, named=True)
    launch = doc["launches"][-1]
    assert job["tp_size"] == launch["config"].get("tp_size")
    assert job["ready"] == launch["ready"] and job["launches"] == len(doc["launches"])
    assert job["lines"] == doc["coverage"]["lines"] and job["recognized_lines"] == doc["coverage"]["recognized_lines"]
    tokens = [p["tokens"] for r in launch["ranks"] for p in r["phases"] if p["phase"] == "scheduler_summary"]
    assert job["kv_tokens"] == (min(tokens) if tokens else None)
    phases = [
        (launch["id"], r["rank"], p["phase"], p.get("avail_gib"), p.get("drop_gib"), p.get("line"))
        for launch in doc["launches"]
        for r in launch["ranks"]
        for p in r["phases"]
    ]
    assert t["phases"].select("launch", "rank", "phase", "avail_gib", "drop_gib", "line").rows() == phases
    cells = [
        (launch["id"], r["rank"], c["group"], c["mechanism"], c["gib"], c["kind"], c["timing"])
        for launch in doc["launches"]
        for r in launch["ranks"]
        for c in r["cells"]
    ]
    assert t["cells"].select("launch", "rank", "group", "mechanism", "gib", "kind", "timing").rows() == cells
    ledger = [
        (r["rank"], i["item"], i["gib"], i["kind"]) for launch in doc["launches"] for r in launch["ranks"] for i in r["ledger"]
    ]
    assert t["ledger"].select("rank", "item", "gib", "kind").rows() == ledger
    findings = [(f["rule"], f["severity"], f["message"], f.get("mechanism")) for f in doc["findings"]]
    assert t["findings"].select("rule", "severity", "message", "mechanism").rows() == findings
    if name == "a-tp2":  # the numbers themselves, as the log prints them
        assert (job["tp_size"], job["kv_tokens"], job["gpu_model"], job["verdict"]) == (2, 1500000, "NVIDIA H200", "ok")
        # the ready line has no rank tag: 12:00:01 (TP0's first phase line) to 12:01:05 (the ready line)
        assert (job["ready"], job["startup_s"]) == (True, 64.0)
        assert launch["ready_at"] == {"source": str(folder / TP2.name), "line": 34, "time": "2025-10-01 12:01:05"}
        kv = t["ledger"].filter((pl.col("rank") == "TP0") & (pl.col("item") == "kv_pool"))["gib"].to_list()
        assert kv == [92.1]


def test_every_column_is_documented_with_the_schema_version():
    assert SCHEMA_VERSION in DOC
    for table, columns in TABLES.items():
        section = DOC.split(f"### `{table}`", 1)[1].split("###", 1)[0]
        for column in columns:
            assert f"| `{column.name}` | {column.type} |" in section, (table, column.name)


# the documented examples (docs/fleet.md), each run against the scan above
FAILED_WITH_MECHANISM = (
    "SELECT job, rule, phase, message FROM findings WHERE severity = 'error' AND mechanism = 'memory' ORDER BY job"
)
KV_PER_TP = (
    "SELECT tp_size, count(*) AS jobs, min(kv_tokens) AS min_kv_tokens, max(kv_tokens) AS max_kv_tokens "
    "FROM jobs WHERE kv_tokens IS NOT NULL GROUP BY tp_size ORDER BY tp_size"
)
BIGGEST_RESIDUAL = (
    "SELECT job, launch, rank, gib AS unexplained_gib FROM ledger WHERE item = 'unexplained' "
    "ORDER BY gib DESC, job, rank LIMIT 10"
)

KV_LOST_TO_COMMUNICATION = (
    "SELECT job, comm_eager_gib, comm_eager_kv_tokens FROM jobs ORDER BY comm_eager_kv_tokens DESC NULLS LAST, job LIMIT 10"
)


def test_documented_queries(fleet):
    jobs, out, _ = fleet
    for sql in (FAILED_WITH_MECHANISM, KV_PER_TP, BIGGEST_RESIDUAL, KV_LOST_TO_COMMUNICATION):
        assert sql in DOC
    proc = run("query", str(out), KV_LOST_TO_COMMUNICATION, "--format", "csv")
    lines = proc.stdout.splitlines()
    assert lines[0] == "job,comm_eager_gib,comm_eager_kv_tokens", proc.stderr
    # the synthetic TP2 log: eager cells 0.789 GiB at 91.56 GiB / 1,500,000 tokens = 65,543 B per token
    assert lines[1] == f"{jobs}/a-tp2,0.789,{int(0.789 * 2**30 / (91.56 * 2**30 / 1500000))}" == f"{jobs}/a-tp2,0.789,12925"
    assert lines[-1].endswith(",,"), lines  # the jobs with nothing sized come last, null (never 0)
    proc = run("query", str(out), FAILED_WITH_MECHANISM, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert [(r["job"], r["rule"], r["phase"]) for r in json.loads(proc.stdout)] == [(f"{jobs}/b-oom", "capture-oom", "capture")]
    proc = run("query", str(out), KV_PER_TP, "--format", "csv")
    assert proc.stdout.splitlines() == ["tp_size,jobs,min_kv_tokens,max_kv_tokens", "2,2,1500000,1500000"]
    proc = run("query", str(out), BIGGEST_RESIDUAL)
    assert (
        proc.returncode == 0 and f"{jobs}/a-tp2" in proc.stdout and "0.81" in proc.stdout
    )  # the synthetic TP2 log: unexplained 0.81 GiB per rank, as analyze gives it


def test_query_errors_are_one_line(tmp_path, fleet):
    _, out, _ = fleet
    proc = run("query", str(out), "SELEC 1")
    assert proc.returncode == 2 and proc.stderr.startswith("logscope: error: query: only a query (SELECT")
    proc = run("query", str(out), "SELECT * FROM jobs WHERE")
    assert (
        proc.returncode == 2
        and proc.stderr.startswith("logscope: error: query: sql parser error")
        and "Traceback" not in proc.stderr
    )
    proc = run("query", str(tmp_path), "SELECT 1")
    assert proc.returncode == 2 and "holds no tables of `logscope scan`" in proc.stderr


def test_incremental_scan_reuses_unchanged_jobs_and_since_filters(tmp_path):
    jobs = tmp_path / "jobs"
    _job(jobs, "one", TP2)
    _job(jobs, "two", REAL / "f-004-sglang-5285.log")
    out = tmp_path / "out"
    first = run("scan", str(jobs), "--out", str(out))
    assert first.returncode == 1 and "analysed 2 jobs" in first.stdout, first.stderr
    before = tables(out)
    again = run("scan", str(jobs), "--out", str(out))
    assert again.returncode == 1  # the reused job "two" still has its error finding
    assert "analysed 0 jobs" in again.stdout and "reused 2 unchanged" in again.stdout
    assert (
        f"ok         {jobs}/one: no startup problem found in 34 lines" in again.stdout
        and "(unchanged: rows reused)" in again.stdout
    )
    for name, df in tables(out).items():
        assert df.equals(before[name]), name
    changed = jobs / "two" / "f-004-sglang-5285.log"
    old = time.time() - 30 * 86400
    os.utime(jobs / "one" / TP2.name, (old, old))
    os.utime(changed, None)
    third = run("scan", str(jobs), "--out", str(out))
    assert "analysed 2 jobs" in third.stdout  # one's mtime changed too: both analysed again
    since = run("scan", str(jobs), "--out", str(tmp_path / "recent"), "--since", "7d")
    assert "1 jobs: 1 error" in since.stdout and f"{jobs}/one" not in since.stdout
    none = run("scan", str(jobs), "--out", str(tmp_path / "none"), "--since", "2999-01-01")
    assert none.returncode == 2 and "no job to scan (none changed since --since)" in none.stderr


def test_job_grouping_by_depth_and_pattern(tmp_path):
    for rel in ("week1/job-a/node0/rank0.log", "week1/job-a/node1/rank8.log", "week1/job-b/rank0.log", "week1/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    names = lambda jobs: [(Path(j.name).relative_to(tmp_path).as_posix(), len(j.files)) for j in jobs]  # noqa: E731
    default, _ = find_jobs([str(tmp_path)], Grouping())
    assert names(default) == [("week1", 1), ("week1/job-a/node0", 1), ("week1/job-a/node1", 1), ("week1/job-b", 1)]
    by_depth, _ = find_jobs([str(tmp_path)], Grouping(depth=2))
    assert names(by_depth) == [("week1/job-a", 2), ("week1/job-b", 1)]
    by_pattern, _ = find_jobs([str(tmp_path)], Grouping(pattern="job-*"))
    assert names(by_pattern) == [("week1/job-a", 2), ("week1/job-b", 1)]
    _, missing = find_jobs([str(tmp_path / "nope"), str(tmp_path / "*.gz")], Grouping())
    assert missing == [
        f"{tmp_path}/nope: no such file or directory",
        f"{tmp_path}/*.gz: no such file or directory (no file matches this pattern)",
    ]


# Root reads every file (CI runs as root): the walk and the worker's analysis run in a process that warms every
# import on a readable job, then gives up root for `nobody` (the interpreter's own files may be unreadable to
# `nobody`, so a worker process started after that could not import; the pool itself is tested above).
_AS_NOBODY = """
import json, os, sys
from logscope.fleet.jobs import Grouping, find_jobs
from logscope.fleet.worker import Limits, analyse_job

jobs_folder, readable = sys.argv[1:3]
for job in find_jobs([readable], Grouping())[0]:
    analyse_job(job, Limits())
if os.geteuid() == 0:
    os.setgroups([]); os.setgid(65534); os.setuid(65534)
jobs, _ = find_jobs([jobs_folder], Grouping())
rows = {job.name: analyse_job(job, Limits()) for job in jobs}
print(json.dumps({name: [r.verdict, r.error] for name, r in rows.items()}))
"""


def test_permission_denied_is_a_row():
    folder = Path(tempfile.mkdtemp(prefix="logscope-scan-unreadable-"))  # in /tmp, which `nobody` can reach
    jobs = folder / "jobs"
    try:
        folder.chmod(0o777)
        (jobs / "secret").mkdir(parents=True)
        (jobs / "secret" / "rank0.log").write_text(PHASE_LINE)
        (jobs / "secret" / "rank0.log").chmod(0)
        shutil.copytree(TP2.parent, jobs / "open")
        (jobs / "locked" / "inner").mkdir(parents=True)
        (jobs / "locked").chmod(0)
        for path in (jobs, jobs / "secret", jobs / "open"):
            path.chmod(0o777)
        proc = subprocess.run(
            [sys.executable, "-c", _AS_NOBODY, str(jobs), str(TP2.parent)], capture_output=True, text=True, cwd=ROOT, timeout=300
        )
        assert proc.returncode == 0, proc.stderr
        rows = json.loads(proc.stdout)
    finally:
        (jobs / "locked").chmod(0o700)
        shutil.rmtree(folder)
    assert rows == {
        f"{jobs}/locked": ["unanalysed", f"{jobs}/locked: permission denied"],
        f"{jobs}/open": ["ok", None],
        f"{jobs}/secret": ["unanalysed", f"{jobs}/secret/rank0.log: cannot read: Permission denied"],
    }


_PASTE_IMPORTS = """
import sys
from logscope.cli import main
sys.argv = ["logscope", "analyze", "-", "--format", "json"]
try:
    main()
except SystemExit:
    pass
sys.stderr.write("IMPORTED:" + ",".join(sorted({m.split(".")[0] for m in sys.modules} & {"polars", "pyarrow", "ray"})))
"""


def test_analyze_on_a_paste_never_imports_polars():
    paste = (REAL / "f-004-sglang-5285.log").read_bytes()
    proc = subprocess.run([sys.executable, "-c", _PASTE_IMPORTS], input=paste, capture_output=True, cwd=ROOT, timeout=120)
    assert b'"rule": "capture-oom"' in proc.stdout
    assert proc.stderr.decode().rsplit("IMPORTED:", 1)[1] == ""


def _ray_missing() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return True
    return False


@pytest.mark.skipif(
    _ray_missing() and not os.environ.get("LOGSCOPE_REQUIRE_RAY"),
    reason="RAY NOT INSTALLED: `scan --engine ray` NOT TESTED (pip install -e '.[fleet]'; .ci/run installs it)",
)
def test_ray_engine_rows_equal_the_local_engines(tmp_path):
    jobs = tmp_path / "jobs"
    _job(jobs, "one", TP2)
    _job(jobs, "two", REAL / "f-004-sglang-5285.log")
    _job(jobs, "three", REAL / "f-010-sglang-8974.log", REAL / "h-013-sglang-17985.log")
    (jobs / "three" / "core.bin").write_bytes(b"\x00" * 1000)
    local = run("scan", str(jobs), "--out", str(tmp_path / "local"))
    ray = run("scan", str(jobs), "--out", str(tmp_path / "ray"), "--engine", "ray", "--workers", "2")
    assert ray.returncode == local.returncode == 2, ray.stderr
    assert "engine ray" in ray.stdout
    left, right = tables(tmp_path / "local"), tables(tmp_path / "ray")
    for name in TABLES:
        assert left[name].height > 0 and left[name].equals(right[name]), name


def test_the_memory_bound_applies_to_the_workers(tmp_path):
    """Under a 40 MiB address-space bound a worker cannot analyse a job: the job's row says it ran out of memory
    (or, where the interpreter alone needs more, the scan says in one line that the workers die before their
    first job, instead of starting them again and again). Either way never an analysed job, never a traceback."""
    jobs = tmp_path / "jobs"
    _job(jobs, "one", TP2)
    out = tmp_path / "out"
    proc = run("scan", str(jobs), "--out", str(out), "--job-memory", "40", "--workers", "1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    if proc.stderr:
        assert proc.stderr.strip() == (
            "logscope: error: scan: the worker processes die before their first job (exit status 3); "
            "is --job-memory too low for the pipeline to load?"
        )
    else:
        row = pl.read_parquet(out / "jobs.parquet").row(0, named=True)
        assert (row["verdict"], row["error"]) == (
            "unanalysed",
            "out of memory: the job needed more than the per-job bound of 40 MiB (--job-memory)",
        )


def test_workers_that_cannot_start_end_the_scan_in_one_line(tmp_path):
    """1 MiB of address space: no worker gets as far as its first job; after a few are started again the scan
    stops with one line (exit 2), never a hang on the dead workers' pipes."""
    jobs = tmp_path / "jobs"
    _job(jobs, "one", TP2)
    _job(jobs, "two", TP2)
    proc = run("scan", str(jobs), "--out", str(tmp_path / "out"), "--job-memory", "1", "--workers", "1", timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == (
        "logscope: error: scan: the worker processes die before their first job (exit status 3); "
        "is --job-memory too low for the pipeline to load?"
    )


@pytest.mark.skipif(not _ray_missing(), reason="ray is installed: its absence cannot be shown")
def test_ray_missing_says_how_to_install_it_from_the_clone(tmp_path):
    jobs = tmp_path / "jobs"
    _job(jobs, "one", TP2)
    proc = run("scan", str(jobs), "--out", str(tmp_path / "out"), "--engine", "ray")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "pip install '.[fleet]'" in proc.stderr and "sglang-logscope[fleet]" not in proc.stderr


def test_a_second_worker_starts_only_when_it_pays(monkeypatch):
    """Many small jobs stay on the first worker (a worker's start-up costs more than it would save); long ones
    get another worker while a core is idle, never on a machine whose cores are all taken."""
    from logscope.fleet.engines import local

    def paced(job_s: float) -> local._Pace:
        pace = local._Pace(0.0)
        worker = local._Worker(process=None, conn=None, born=0.0)  # type: ignore[arg-type]
        worker.ready_at = 1.0  # a start-up of 1 s
        for _ in range(4):
            worker.last_start = time.monotonic() - job_s
            pace.job_done(worker)
        return pace

    monkeypatch.setattr(local, "_idle_cores", lambda: 2.0)
    assert not paced(0.005).worth_another(pending=200, workers=1)  # 1 s of work left: not worth a start-up
    assert paced(0.05).worth_another(pending=200, workers=1)  # 10 s left
    assert not paced(0.05).worth_another(pending=200, workers=6)  # 1.7 s left on each of six
    monkeypatch.setattr(local, "_idle_cores", lambda: 0.2)
    assert not paced(0.05).worth_another(pending=200, workers=1)


@pytest.mark.parametrize("paste", ["check-env-padded-200.txt", "check-env-padded-glued.md"])
def test_a_check_env_padded_to_200_columns_gives_the_gpu_model(tmp_path, paste):
    """A check_env whose lines are padded to exactly 200 columns (on their own lines, or glued into one) is read
    line by line: the job's gpu_model is the GPU's name, not 8 lines run together (issue 45 item 2)."""
    from logscope.fleet.schema import column_names
    from logscope.fleet.worker import Limits, analyse_job

    _job(tmp_path / "jobs", "padded", ROOT / "fixtures" / "pastes" / paste)
    [job], _ = find_jobs([str(tmp_path / "jobs")], Grouping())
    [values] = analyse_job(job, Limits()).tables["jobs"]
    row = dict(zip(column_names("jobs"), values))
    assert row["gpu_model"] == "NVIDIA H200"
    assert row["sglang_version"] == "0.5.4.post1"
