"""The CLI as a user runs it (subprocess): exit codes, one-line errors, stdin, gzip, determinism."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

CMD = [sys.executable, "-m", "logscope"]


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120)


def test_analyze_text_report_on_a_real_log():
    proc = run("analyze", "fixtures/real/h-001-sglang-11716.log", "--width", "200")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    # the paste ends in a line its copy cut ("... This can take up to several mi"): no claim that the log stopped there
    assert "Launch 1" in out and "137.34" in out and "no startup problem found" in out


def test_error_finding_exits_1_and_json_names_it():
    proc = run("analyze", "fixtures/real/f-010-sglang-8974.log", "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["schema"] == "logscope/1"
    assert [f["rule"] for f in report["findings"]] == ["nccl-error"]


def test_stdin_paste_of_an_issue_body():
    body = (
        b"### Describe the bug\n\n<details><summary>log</summary>\n\n```\n"
        b"[2025-10-16 09:06:10 TP0] Load weight begin. avail mem=137.34 GB\r\n"
        b"[2025-10-16 09:06:10 TP1] Load weight begin. avail mem=100.00 GB\r\n```\n</details>\n"
    )
    proc = run("analyze", "-", "--format", "json", stdin=body)
    report = json.loads(proc.stdout)
    ranks = report["launches"][0]["ranks"]
    assert [r["phases"][0]["avail_gib"] for r in ranks] == [137.34, 100.0]
    # one line of each rank is no log whose end can be read (rules/startup-incomplete.yaml): no startup-incomplete
    assert [f["rule"] for f in report["findings"]] == ["memory-imbalance"]


def test_gzip_directory_and_glob_inputs(tmp_path):
    text = (ROOT / "fixtures/real/h-019-sglang-17392.log").read_bytes()
    (tmp_path / "rank0.log.gz").write_bytes(gzip.compress(text))
    for arg in (str(tmp_path), str(tmp_path / "*.gz")):
        proc = run("analyze", arg, "--format", "json")
        report = json.loads(proc.stdout)
        assert len(report["launches"][0]["ranks"]) == 4, arg


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["analyze", "no/such/file.log"], "no/such/file.log: no such file or directory"),
        (["analyze", "no/such/*.log"], "no/such/*.log: no file matches this pattern"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    proc = run(*args)
    assert proc.returncode == 2
    err = proc.stderr.decode().strip()
    assert needle in err and "\n" not in err and "Traceback" not in err


def test_corrupt_gzip_and_empty_directory(tmp_path):
    bad = tmp_path / "x.log.gz"
    bad.write_bytes(gzip.compress(b"hello\n" * 1000)[:40])
    proc = run("analyze", str(bad))
    assert proc.returncode == 2 and "corrupt or truncated" in proc.stderr.decode()
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run("analyze", str(empty))
    assert proc.returncode == 2 and "directory holds no file" in proc.stderr.decode()


def test_same_input_gives_byte_identical_json():
    first = run("analyze", "fixtures/real/h-025-sglang-17392.log", "-f", "json").stdout
    second = run("analyze", "fixtures/real/h-025-sglang-17392.log", "-f", "json").stdout
    assert first == second


def test_markdown_has_findings_table_and_gantt():
    proc = run("analyze", "fixtures/real/h-016-sglang-40558.log", "-f", "markdown")
    out = proc.stdout.decode()
    assert "## logscope report" in out and "| rank |" in out and "```mermaid" in out


def test_literals_and_rules_commands():
    assert "Load weight end" in run("literals").stdout.decode()
    proc = run("rules", "test")
    assert proc.returncode == 0 and " 0 failed" in proc.stdout.decode()
    assert "memory-imbalance" in run("rules", "list").stdout.decode()


def test_model_config_feeds_the_deepep_estimate(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(
        "[2025-11-04 05:20:00] server_args=ServerArgs(model_path='/m/custom-moe', tp_size=8, ep_size=8, "
        "moe_a2a_backend='deepep', deepep_mode='low_latency')\n"
        "[2025-11-04 05:27:13 TP0] Load weight end. type=CustomMoeForCausalLM, avail mem=75.11 GB\n"
    )
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"architectures": ["CustomMoeForCausalLM"], "hidden_size": 6144, "num_experts": 256}))
    report = json.loads(run("analyze", str(log), "--model-config", str(config), "-f", "json").stdout)
    cell = next(c for c in report["launches"][0]["ranks"][0]["cells"] if c["mechanism"] == "deepep_low_latency")
    assert cell["gib"] == round(deepep_bytes(128, 6144, 256) / 2**30, 3)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run("analyze", str(log), "--model-config", str(bad))
    assert proc.returncode == 2 and "not a JSON model config" in proc.stderr.decode()


def deepep_bytes(tokens: int, hidden: int, experts: int) -> int:
    from logscope.memory_model.deepep import low_latency_bytes as deepep_low_latency_bytes

    return deepep_low_latency_bytes(tokens, hidden, experts)


def test_gzip_on_stdin_is_streamed():
    text = (ROOT / "fixtures/real/h-019-sglang-17392.log").read_bytes()
    report = json.loads(run("analyze", "-", "-f", "json", stdin=gzip.compress(text)).stdout)
    assert len(report["launches"][0]["ranks"]) == 4
    proc = run("analyze", "-", stdin=gzip.compress(text)[:50])
    assert proc.returncode == 2 and "<stdin>: corrupt or truncated compressed data" in proc.stderr.decode()


def test_help_imports_no_parser_renderer_or_polars():
    """`--help` imports neither polars nor lark nor a renderer (they load when a command needs them)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "logscope", "--help"], capture_output=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0
    imported = {
        line.split("|")[-1].strip().split(".")[0] for line in done.stderr.decode().splitlines() if line.startswith("import time:")
    }
    assert not imported & {"polars", "lark", "yaml"}, imported & {"polars", "lark", "yaml"}


def test_the_test_run_says_when_the_browser_tests_are_skipped(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "LOGSCOPE_CHROMIUM": str(tmp_path / "no-chromium")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_html.py"],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    out = done.stdout.decode()
    assert done.returncode == 0, out  # each browser test skipped (tests/test_browser_banner.py checks the count)
    assert re.search(r"browser tests SKIPPED \((\d{2,}) not run\): the HTML pages were NOT tested", out), out
    assert f"why: no Chromium binary at {tmp_path / 'no-chromium'}" in out and "apt-get install chromium" in out


def test_version_prints_the_package_version():
    from logscope import __version__

    proc = subprocess.run([sys.executable, "-m", "logscope", "--version"], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and proc.stdout.decode() == f"logscope {__version__}\n"
