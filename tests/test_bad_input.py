"""Whatever is pasted: a report or a one-line error (exit 2), never a traceback. CLI run as a subprocess."""

from __future__ import annotations

import builtins
import gzip
import json
import os
import subprocess
import sys

import pytest

from logscope.errors import InputError
from logscope.ingest import expand_inputs
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
        b"\x00" * 1000,
        b"\xff\xfe\xfa invalid utf-8 \xc3\x28\n[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n",
        b"\r\r\r\n\r\n",
        os.urandom(20000),
        b"[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\x00\x00\n",
    ],
    ids=["empty", "nul-bytes", "invalid-utf8", "cr-only", "random", "nul-after-line"],
)
def test_odd_bytes_on_stdin_give_a_report(payload):
    assert_report(run("analyze", "-", "-f", "json", stdin=payload))


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


def test_a_fifo_or_device_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert_one_line_error(run("analyze", str(fifo)), "not a regular file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode; see the in-process test")
def test_unreadable_file_as_a_user(tmp_path):
    path = tmp_path / "secret.log"
    path.write_text("x")
    path.chmod(0)
    assert_one_line_error(run("analyze", str(path)), "permission denied")


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
    full_phases = {(r["rank"], p["phase"], p.get("bs"), p.get("avail_gib"))
                   for r in full["launches"][0]["ranks"] for p in r["phases"]}
    for cut in range(1, len(lines)):
        report = analyze_text("\n".join(lines[:cut]))
        ranks = [r["rank"] for launch in report["launches"] for r in launch["ranks"]]
        assert len(ranks) == len(set(ranks))  # no rank merged or invented twice
        phases = {(r["rank"], p["phase"], p.get("bs"), p.get("avail_gib"))
                  for launch in report["launches"] for r in launch["ranks"] for p in r["phases"]}
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
