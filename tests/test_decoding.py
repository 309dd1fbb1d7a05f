"""Encodings, line ends, stdin and pipes, as a user meets them (logscope run as a subprocess), and the line cap
and the decompression cap on small inputs (the caps lowered in-process)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import pty
import shutil
import subprocess
import sys
import threading

import pytest

from logscope.core import limits
from logscope.core.errors import InputError
from logscope.core.limits import ReadNotes, cut_long_lines, expanded
from logscope.pipeline.ingest.decoding import decode_text, sniff_encoding
from tests.helpers import ROOT

CMD = [sys.executable, "-m", "logscope"]
LOG = (
    "[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=11.87 GB\n"
    "[2025-10-16 09:06:23 TP6] Memory pool end. avail mem=12.50 GB\n"
)


def analyze(*args: str, stdin: bytes | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, "analyze", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120, **kwargs)


def free_memory(proc: subprocess.CompletedProcess) -> dict[str, float]:
    assert proc.returncode in (0, 1), proc.stderr.decode()
    report = json.loads(proc.stdout)
    return {r["rank"]: r["phases"][0]["avail_gib"] for r in report["launches"][0]["ranks"]}


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("encoded", "label"),
    [
        (("\ufeff" + LOG).encode("utf-16-le"), "utf-16-le (byte-order mark)"),  # what PowerShell 5's `>` writes
        (LOG.encode("utf-16-be"), "utf-16-be (no byte-order mark)"),
        (LOG.encode("utf-16-le"), "utf-16-le (no byte-order mark)"),
        (LOG.encode("utf-32"), "utf-32-le (byte-order mark)"),
        (("\ufeff" + LOG).encode("utf-32-be"), "utf-32-be (byte-order mark)"),
        (LOG.replace("\n", "\r\n").encode("utf-8-sig"), "utf-8 (byte-order mark)"),
    ],
    ids=["utf16le-bom", "utf16be", "utf16le", "utf32le-bom", "utf32be-bom", "utf8-bom"],
)
def test_encodings_are_read_and_named(encoded, label):
    proc = analyze("-", "-f", "json", stdin=encoded)
    assert free_memory(proc) == {"TP5": 11.87, "TP6": 12.5}
    assert json.loads(proc.stdout)["inputs"][0]["encoding"] == label


def test_windows_line_ends_in_utf16_and_bare_cr_files(tmp_path):
    crlf = tmp_path / "powershell.log"
    crlf.write_bytes(("\ufeff" + LOG.replace("\n", "\r\n")).encode("utf-16-le"))
    assert free_memory(analyze(str(crlf), "-f", "json")) == {"TP5": 11.87, "TP6": 12.5}
    mac = tmp_path / "mac.log"
    mac.write_bytes(LOG.replace("\n", "\r").encode())
    report = json.loads(analyze(str(mac), "-f", "json").stdout)
    assert report["inputs"][0]["lines"] == 2  # each CR a line end: line numbers as an editor shows them
    assert [r["phases"][0]["line"] for r in report["launches"][0]["ranks"]] == [1, 2]


def test_stray_bytes_become_replacement_characters_not_errors():
    latin1 = b"[2025-10-16 09:06:21 TP5] caf\xe9 na\xefve r\xe9sum\xe9 \x81\xfe\n" + LOG.encode()
    assert free_memory(analyze("-", "-f", "json", stdin=latin1)) == {"TP5": 11.87, "TP6": 12.5}


def test_sniffing_takes_no_utf8_text_for_utf16():
    assert sniff_encoding(b"a\x00b\x00 short").name == "utf-8"  # too short to tell
    assert sniff_encoding(LOG.encode()).name == "utf-8"
    assert sniff_encoding(("x" * 40).encode("utf-16-le")).name == "utf-16-le"


def test_stdin_named_twice_closed_or_a_terminal():
    assert "-: stdin is named more than once" in one_line_error(analyze("-", "-", stdin=LOG.encode()))
    closed = subprocess.run(
        [*CMD, "analyze", "-"], capture_output=True, cwd=ROOT, timeout=120, stdin=None, preexec_fn=lambda: os.close(0)
    )
    assert "-: stdin is closed" in one_line_error(closed)
    controller, terminal = pty.openpty()
    try:
        on_tty = subprocess.run([*CMD, "analyze", "-"], stdin=terminal, capture_output=True, cwd=ROOT, timeout=120)
    finally:
        os.close(controller)
        os.close(terminal)
    assert "-: stdin is a terminal with nothing piped in" in one_line_error(on_tty)
    triage = subprocess.run([*CMD, "triage", "-"], capture_output=True, cwd=ROOT, timeout=120, preexec_fn=lambda: os.close(0))
    assert "-: stdin is closed" in one_line_error(triage)
    fixture = str(ROOT / "fixtures/synthetic/full-startup-tp2-with-smi.log")
    both = subprocess.run([*CMD, "diff", "-", f"{fixture},-"], capture_output=True, cwd=ROOT, timeout=120, input=b"")
    assert "-: stdin is named for both runs" in one_line_error(both)


def test_a_named_pipe_and_a_process_substitution_are_read_like_files(tmp_path):
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(LOG))
    writer.start()
    try:
        assert free_memory(analyze(str(fifo), "-f", "json")) == {"TP5": 11.87, "TP6": 12.5}
    finally:
        writer.join()
    if shutil.which("bash") is None:
        pytest.skip("no bash for <(...)")
    log = tmp_path / "x.log"
    log.write_text(LOG)
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m logscope analyze -f json <(cat "{log}")'],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert free_memory(done) == {"TP5": 11.87, "TP6": 12.5}


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_compressed_inputs_concatenated_members_and_the_cap(compress, tmp_path, monkeypatch):
    data = compress(LOG.encode()) + compress(LOG.replace("TP5", "TP7").encode())
    notes = ReadNotes()
    assert b"".join(expanded("x", iter([data[:7], data[7:]]), 16, notes)) == (LOG + LOG.replace("TP5", "TP7")).encode()
    assert notes.stopped is None
    capped = ReadNotes()
    out = b"".join(expanded("x", iter([data]), 16, capped, cap=100))
    assert out == (LOG + LOG)[:100].encode() and capped.stopped.startswith("stopped after 100 bytes")
    path = tmp_path / "run.log.z"
    path.write_bytes(data[:-12])
    with pytest.raises(InputError, match="corrupt or truncated compressed data"):
        b"".join(expanded(str(path), iter([data[:-12]]), 16, ReadNotes()))


@pytest.mark.parametrize("read", [1, 3, 7, 64, 1000])
def test_the_line_cap_cuts_long_lines_whatever_the_reads(read):
    lines = [b"short", b"x" * 25, b"y" * 10, b"z" * 11, b"", b"w" * 40, b"end"]
    data = b"\n".join(lines)
    notes = ReadNotes()
    out = b"".join(cut_long_lines(iter([data[i : i + read] for i in range(0, len(data), read)]), notes, cap=10))
    assert out.split(b"\n") == [line[:10] for line in lines]
    assert notes.cut_lines == 3


def test_a_whole_issue_is_decoded_by_the_same_rules():
    assert decode_text("issue.md", ("\ufeff# title\r\nbody").encode("utf-16-le")) == "# title\r\nbody"
    with pytest.raises(InputError, match="issue.md: binary data, not a text issue: an ELF executable"):
        decode_text("issue.md", b"\x7fELF" + bytes(range(32)) * 50)
    assert limits.ISSUE_CAP == 32 << 20


def test_a_capped_input_is_said_in_the_verdict_and_on_stderr_by_analyze_and_diff(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from logscope.cli import app

    log = (ROOT / "fixtures/synthetic/full-startup-tp2-with-smi.log").read_bytes()
    capped = tmp_path / "run.log.gz"
    capped.write_bytes(gzip.compress(log + b"[2025-10-16 09:06:22 TP0] more lines\n" * 1000))
    monkeypatch.setattr(limits, "DECOMPRESSED_CAP", len(log) + 100)
    runner = CliRunner()
    done = runner.invoke(app, ["analyze", str(capped), "-f", "markdown"])
    warning = f"logscope: warning: {capped}: stopped after {len(log) + 100} bytes of decompressed data"
    assert done.exit_code == 0 and done.stderr.startswith(warning), done.stderr
    verdict = next(line for line in done.stdout.split("\n") if line.startswith("**Verdict:**"))
    assert f"; read limits: {capped} stopped after {len(log) + 100} bytes" in verdict
    other = tmp_path / "b.log"
    other.write_bytes(log)
    done = runner.invoke(app, ["diff", str(capped), str(other)])
    assert done.exit_code == 0 and done.stderr.startswith(warning), done.stderr


def test_stdin_without_a_descriptor_is_read_in_process():
    from typer.testing import CliRunner

    from logscope.cli import app

    done = CliRunner().invoke(app, ["analyze", "-", "-f", "json"], input=LOG.encode())
    assert done.exit_code == 0, done.output
    assert {r["rank"] for r in json.loads(done.stdout)["launches"][0]["ranks"]} == {"TP5", "TP6"}
