"""Whatever is pasted: a report or a one-line error (exit 2), never a traceback. CLI run as a subprocess."""

from __future__ import annotations

import builtins
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from logscope.core.errors import InputError
from logscope.pipeline.ingest.ingest import expand_inputs
from tests.helpers import ROOT, analyze_text

CMD = [sys.executable, "-m", "logscope"]


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], input=stdin, capture_output=True, cwd=ROOT, timeout=300)


def assert_report(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode in (0, 1), proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def assert_one_line_error(proc: subprocess.CompletedProcess, needle: str) -> None:
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2 and needle in err and "\n" not in err and "Traceback" not in err, err


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\xfe\xfa invalid utf-8 \xc3\x28\n[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n",
        b"\r\r\r\n\r\n",
        b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\x00\x00\n",
        b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n" + b"\x00" * 50000,
    ],
    ids=["empty", "invalid-utf8", "cr-only", "nul-after-line", "nul-padded-tail"],
)
def test_odd_bytes_on_stdin_give_a_report(payload):
    assert_report(run("analyze", "-", "-f", "json", stdin=payload))


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"\x00" * 1000, "only zero bytes in its first 1000 bytes"),
        (bytes(range(256)) * 80, "10% of the characters in its first 20480 bytes are control characters"),
        (b"\x7fELF\x02\x01\x01" + bytes(range(32)) * 100, "an ELF executable"),
    ],
    ids=["nul-bytes", "every-byte", "elf"],
)
def test_binary_input_is_refused_in_one_line(payload, why):
    assert_one_line_error(run("analyze", "-", stdin=payload), f"<stdin>: binary data, not a text log: {why}")


def test_a_10_mb_line_and_crlf_file(tmp_path):
    path = tmp_path / "big.log"
    line = b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\r\n"
    path.write_bytes(line + b"x" * (10 << 20) + b"\r\n" + line.replace(b"TP5", b"TP6"))
    report = assert_report(run("analyze", str(path), "-f", "json"))
    ranks = {r["rank"]: r["phases"][0]["line"] for r in report["launches"][0]["ranks"]}
    assert ranks == {"TP5": 1, "TP6": 3}


def test_gzip_that_is_not_gzip_is_read_as_text(tmp_path):
    path = tmp_path / "plain.log.gz"
    path.write_bytes(b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n")
    assert assert_report(run("analyze", str(path), "-f", "json"))["launches"][0]["ranks"][0]["rank"] == "TP5"


def test_truncated_gzip_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "cut.log.gz"
    path.write_bytes(gzip.compress(b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n" * 5000)[:300])
    assert_one_line_error(run("analyze", str(path)), f"{path}: corrupt or truncated compressed data")


def test_directory_with_only_hidden_files(tmp_path):
    (tmp_path / ".hidden").write_text("x")
    assert_one_line_error(run("analyze", str(tmp_path)), "directory holds no file to read")


def test_a_device_is_not_a_regular_file():
    assert_one_line_error(run("analyze", "/dev/null"), "/dev/null: not a regular file or a pipe")


# Root reads files whatever their mode (and CI runs as root): the CLI then runs in a process that first warms
# every import and cache on a readable paste, then gives up root for `nobody` before reading the file.
_AS_NOBODY = """
import contextlib, io, os, sys
from logscope.cli import main

unreadable, readable = sys.argv[1:3]


def cli(*args):
    sys.argv = ["logscope", *args]
    try:
        main()
    except SystemExit as done:
        return done.code


with contextlib.redirect_stdout(io.StringIO()):  # the same command on a readable file imports what it needs
    cli("analyze", readable)
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
sys.exit(cli("analyze", unreadable))
"""


def _analyze_as_nobody(folder: Path, unreadable: Path) -> subprocess.CompletedProcess:
    readable = folder / "readable.log"
    readable.write_text("[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=139.00 GB\n")
    return subprocess.run(
        [sys.executable, "-c", _AS_NOBODY, str(unreadable), str(readable)], capture_output=True, cwd=ROOT, timeout=120
    )


def test_unreadable_file():
    folder = Path(tempfile.mkdtemp(prefix="logscope-unreadable-"))  # in /tmp, which `nobody` can reach
    try:
        folder.chmod(0o711)
        path = folder / "secret.log"
        path.write_text("x")
        path.chmod(0)
        proc = _analyze_as_nobody(folder, path)
    finally:
        shutil.rmtree(folder)
    assert_one_line_error(proc, f"{path}: permission denied")


def test_unreadable_file_in_process(tmp_path, monkeypatch):
    path = tmp_path / "secret.log"
    path.write_text("x")
    real_open = builtins.open

    def denying_open(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denying_open)
    monkeypatch.setattr(os, "access", lambda *_a, **_k: True)
    sources = expand_inputs([str(path)])
    with pytest.raises(InputError, match="secret.log: cannot read: Permission denied"):
        list(sources[0].chunks(("x",)))


def test_bad_option_is_a_usage_error():
    proc = run("analyze", "--format", "yaml", "x.log")
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr


def test_truncated_multi_rank_log_keeps_every_complete_phase():
    text = (ROOT / "fixtures/real/h-025-sglang-17392.log").read_text()
    lines = text.split("\n")
    full = analyze_text(text)
    full_phases = {
        (r["rank"], p["phase"], p.get("bs"), p.get("avail_gib")) for r in full["launches"][0]["ranks"] for p in r["phases"]
    }
    for cut in range(1, len(lines)):
        report = analyze_text("\n".join(lines[:cut]))
        ranks = [r["rank"] for launch in report["launches"] for r in launch["ranks"]]
        assert len(ranks) == len(set(ranks))  # no rank merged or invented twice
        phases = {
            (r["rank"], p["phase"], p.get("bs"), p.get("avail_gib"))
            for launch in report["launches"]
            for r in launch["ranks"]
            for p in r["phases"]
        }
        assert phases <= full_phases


def test_interleaving_ranks_in_another_order_gives_the_same_timeline():
    text = (ROOT / "fixtures/real/h-019-sglang-17392.log").read_text()
    tagged = [line for line in text.split("\n") if line.startswith("[")]

    def timeline(report: dict) -> dict:
        return {r["rank"]: [(p["phase"], p.get("avail_gib")) for p in r["phases"]] for r in report["launches"][0]["ranks"]}

    by_rank = sorted(tagged, key=lambda line: line.split("]")[0].split()[-1])
    assert timeline(analyze_text("\n".join(by_rank))) == timeline(analyze_text("\n".join(tagged)))


@pytest.mark.parametrize("magic", [b"x\xda", b"x\x01", b"\x28\xb5\x2f\xfd"], ids=["zlib", "zlib-low", "zstd"])
def test_text_that_starts_like_a_compressed_stream(magic):
    # found by bench/fuzz.py: polars sniffed these bytes as a compressed buffer and failed
    payload = magic + b"\x99garbage\n[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n"
    report = assert_report(run("analyze", "-", "-f", "json", stdin=payload))
    assert report["launches"][0]["ranks"][0]["phases"][0]["line"] == 2


def test_a_job_folder_with_bad_entries_is_analysed_and_names_them(tmp_path):
    """`analyze DIR` reads a folder as `scan` does: a core dump, a dangling link, a symlink loop and a FIFO are
    each named in the coverage and the verdict, and the log beside them is analysed (exit 1: its NCCL error)."""
    job = tmp_path / "job-200"
    job.mkdir()
    shutil.copy(ROOT / "fixtures" / "real" / "f-010-sglang-8974.log", job / "rank0.log")
    (job / "core.1234").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(32)) * 100)
    (job / "dangling").symlink_to(job / "gone")
    (job / "loop1").symlink_to("loop2")
    (job / "loop2").symlink_to("loop1")
    os.mkfifo(job / "pipe")
    proc = run("analyze", str(job), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert [i["path"] for i in report["inputs"]] == [str(job / "rank0.log")]
    assert report["coverage"]["left_out"] == [
        f"{job}/dangling: no such file or directory",
        f"{job}/loop1: symlink loop",
        f"{job}/loop2: symlink loop",
        f"{job}/pipe: not a regular file (a pipe, socket or device is not read from a folder)",
        f"{job}/core.1234: binary data, not a text log: an ELF executable",
    ]
    assert {f["rule"] for f in report["findings"]} >= {"nccl-error"}
    text = run("analyze", str(job), "--width", "300").stdout.decode()
    assert f"left out: {job}/dangling: no such file or directory" in text.splitlines()[0]


def test_an_unreadable_folder_is_permission_denied():
    folder = Path(tempfile.mkdtemp(prefix="logscope-unreadable-dir-"))  # in /tmp, which `nobody` can reach
    try:
        folder.chmod(0o711)
        locked = folder / "locked"
        (locked / "inner").mkdir(parents=True)
        (locked / "inner" / "rank0.log").write_text("x")
        locked.chmod(0)
        proc = _analyze_as_nobody(folder, locked)
    finally:
        (folder / "locked").chmod(0o700)
        shutil.rmtree(folder)
    assert_one_line_error(proc, f"{locked}: permission denied")
