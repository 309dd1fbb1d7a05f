"""The wheel carries grammars/, rules/ and the data catalogues: installed into a fresh venv and run from another folder."""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import venv

import pytest
import yaml

from tests.helpers import ROOT


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_runs_from_another_folder(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(dist.glob("sglang_logscope-*.whl"))
    # the Actions example installs the wheel built this way, committed under .github/logscope/
    workflow = yaml.safe_load((ROOT / "examples" / "logscope-triage.yml").read_text(encoding="utf-8"))
    install = next(step["run"] for step in workflow["jobs"]["triage"]["steps"] if step.get("name") == "Install logscope")
    assert fnmatch.fnmatch(wheel.name, install.split()[-1].rsplit("/", 1)[1])
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True, timeout=900)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log = ROOT / "fixtures" / "real" / "f-010-sglang-8974.log"
    proc = subprocess.run(
        [str(env_dir / "bin" / "logscope"), "analyze", str(log), "--format", "json"],
        cwd=elsewhere,
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr.decode()
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == ["nccl-error"]
    # the upstream catalogue ships too (logscope/_data/catalog): the version range comes from it
    newest = ROOT / "fixtures/upstream/sglang-0.5.23-tp2.log"
    upstream = subprocess.run(
        [str(env_dir / "bin" / "logscope"), "analyze", str(newest), "--format", "json"],
        cwd=elsewhere,
        capture_output=True,
        timeout=300,
    )
    assert json.loads(upstream.stdout)["launches"][0]["sglang_version"]["range"] == ["0.5.22", "0.5.23"]
    listing = subprocess.run(
        [str(env_dir / "bin" / "logscope"), "rules", "list"], cwd=elsewhere, capture_output=True, timeout=300
    )
    assert b"capture-oom" in listing.stdout
    compared = subprocess.run(
        [
            str(env_dir / "bin" / "logscope"),
            "diff",
            str(ROOT / "fixtures/compare/llama70b-tp4.log"),
            str(ROOT / "fixtures/compare/llama70b-tp8.log"),
            "--format",
            "json",
        ],
        cwd=elsewhere,
        capture_output=True,
        timeout=300,
    )
    assert compared.returncode == 0, compared.stderr.decode()
    assert json.loads(compared.stdout)["diff"]["kv_tokens"]["change"] == 865993
    cells = subprocess.run(
        [str(env_dir / "bin" / "logscope"), "analyze", str(ROOT / "fixtures/cells/tp2-h200-0.5.23.log"), "--format", "json"],
        cwd=elsewhere,
        capture_output=True,
        timeout=300,
    )
    rank = json.loads(cells.stdout)["launches"][0]["ranks"][0]  # the cell catalogue (logscope/data) ships too
    assert {c["mechanism"]: c["gib"] for c in rank["cells"]}["custom_ar_v2"] == 0.08
