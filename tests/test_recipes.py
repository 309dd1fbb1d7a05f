"""CONTRIBUTING.md's "How to add ..." recipes, followed literally on a copy of the tree: each step edits the file the
recipe names, and the result is checked through the CLI (and the catalogue tests run on the copy)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LOG = """\
[2026-05-07 13:38:01 TP0] Init torch distributed begin.
[2026-05-07 13:38:02 TP0] Init torch distributed ends. mem usage=0.53 GB
[2026-05-07 13:38:03 TP0] Load weight begin. avail mem=139.22 GB
[2026-05-07 13:38:40 TP0] Load weight end. type=LlamaForCausalLM, avail mem=124.10 GB, mem usage=15.12 GB.
[2026-05-07 13:38:41 TP0] Made-up phase reached. avail mem=120.50 GB
[2026-05-07 13:38:42 TP0] KV Cache is allocated. #tokens: 500000, K size: 40.00 GB, V size: 40.00 GB
[2026-05-07 13:38:42 TP0] Memory pool end. avail mem=40.40 GB
"""


def _edit(path: Path, anchor: str, text: str, before: bool = False) -> None:
    """Insert `text` after (or before) the one place `anchor` stands in `path`."""
    source = path.read_text()
    assert source.count(anchor) == 1, f"{path.name}: the recipe's anchor {anchor!r} is not unique"
    path.write_text(source.replace(anchor, text + anchor if before else anchor + text))


def _copy_tree(tmp: Path) -> Path:
    tree = tmp / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("logscope", "grammars", "rules", "catalog", "tests", "fixtures"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _logscope(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, "-m", "logscope", *args], cwd=tree, env=env, capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def tree_with_a_new_phase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = _copy_tree(tmp_path_factory.mktemp("recipe"))
    # 1. logscope/core/kinds.py: the kind's constant, and its row in CATALOGUE (role, rule, literal, a sample line)
    kinds_py = tree / "logscope" / "core" / "kinds.py"
    _edit(kinds_py, "CATALOGUE: tuple[Kind, ...] = (\n", 'MADE_UP_PHASE: Final = "made_up_phase"\n\n\n', before=True)
    _edit(
        kinds_py,
        "CATALOGUE: tuple[Kind, ...] = (\n",
        '    Kind(MADE_UP_PHASE, PHASE, rules=("made_up_phase",), literals=("Made-up phase reached",),\n'
        '         samples=("[2026-05-07 13:38:41 TP0] Made-up phase reached. avail mem=120.50 GB",)),\n',
    )
    # 2. grammars/sglang.lark: the rule, named after the kind id, and its name in ?message
    lark = tree / "grammars" / "sglang.lark"
    _edit(lark, "?message: ", "made_up_phase | ")
    _edit(
        lark,
        "// ---------------------------------------------------------------- generic pieces\n",
        'made_up_phase: "Made-up phase reached." "avail mem=" NUM2 "GB"\n\n',
        before=True,
    )
    # 3. logscope/pipeline/parse/parsers/sglang_line.py: the transformer method, returning the kind's constant and its numbers
    _edit(
        tree / "logscope" / "pipeline" / "parse" / "parsers" / "sglang_line.py",
        "    # ---- phases\n",
        "    def made_up_phase(self, items: list[Token]) -> tuple:\n"
        '        return kinds.MADE_UP_PHASE, {"avail_gib": _f(items[0])}\n\n',
    )
    # 4. logscope/core/phases.py: its row where SGLang prints it (its place is its order), the stage after it, a
    # timeline column
    _edit(
        tree / "logscope" / "core" / "phases.py",
        "    Phase(kinds.KV_CACHE_ALLOCATED,",
        '    Phase(kinds.MADE_UP_PHASE, after="memory_pool", column=Column("made up")),\n',
        before=True,
    )
    (tree / "paste.log").write_text(LOG)
    return tree


def test_a_phase_added_by_the_recipe_shows_in_analyze(tree_with_a_new_phase: Path):
    result = _logscope(tree_with_a_new_phase, "analyze", "paste.log", "--format", "json")
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    (rank,) = json.loads(result.stdout)["launches"][0]["ranks"]
    made_up = [p for p in rank["phases"] if p["phase"] == "made_up_phase"]
    assert [(p["avail_gib"], p["line"]) for p in made_up] == [(120.5, 5)]
    text = _logscope(tree_with_a_new_phase, "analyze", "paste.log", "--width", "200").stdout.decode()
    assert "made up" in text and "120.50" in text.split("made up", 1)[1]
    assert "Made-up phase reached" in _logscope(tree_with_a_new_phase, "literals").stdout.decode()


def test_the_catalogue_tests_pass_on_the_tree_with_the_new_phase(tree_with_a_new_phase: Path):
    env = {**os.environ, "PYTHONPATH": str(tree_with_a_new_phase)}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_kinds.py",
            "tests/test_phase_table.py",
            "-k",
            "not classifier_emits",
        ],
        cwd=tree_with_a_new_phase,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout.decode()[-3000:]
    assert "made_up_phase" in (tree_with_a_new_phase / "logscope" / "core" / "kinds.py").read_text()


def test_without_the_recipe_the_line_is_not_read():
    result = subprocess.run(
        [sys.executable, "-m", "logscope", "analyze", "-", "--format", "json"],
        input=LOG.encode(),
        cwd=ROOT,
        capture_output=True,
        timeout=300,
    )
    (rank,) = json.loads(result.stdout)["launches"][0]["ranks"]
    assert all(p["phase"] != "made_up_phase" for p in rank["phases"])


@pytest.fixture(scope="module")
def tree_with_a_rule_a_signature_and_a_format(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = _copy_tree(tmp_path_factory.mktemp("recipes"))
    rules = tree / "rules"
    # a rule: rules/<id>.yaml and rules/<id>.cases.yaml
    (rules / "kv-dtype-stated.yaml").write_text(
        "id: kv-dtype-stated\n"
        "title: The log states the KV cache dtype\n"
        "severity: info\n"
        "let:\n"
        '  stated: where(events, it.kind == "kv_dtype")\n'
        "  lines: count(stated)\n"
        "when: lines > 0\n"
        "evidence: stated\n"
        'message: "The KV cache dtype is stated on {lines} line(s)."\n'
        "hint: Nothing to do.\n"
        "why: A recipe test.\n"
        "references: []\n",
        encoding="utf-8",
    )
    (rules / "kv-dtype-stated.cases.yaml").write_text(
        "rule: kv-dtype-stated\n"
        "cases:\n"
        "  - name: fires_on_the_dtype_line\n"
        '    log: "[2026-05-07 13:39:14 TP0] Using KV cache dtype: torch.bfloat16"\n'
        "    expect:\n"
        "      - severity: info\n"
        '        message_contains: ["stated on 1 line(s)"]\n'
        "  - name: quiet_without_it\n"
        '    log: "[2026-05-07 13:39:14 TP0] Load weight begin. avail mem=139.22 GB"\n'
        "    expect: []\n",
        encoding="utf-8",
    )
    # a failure signature: a list item in rules/signatures/<mechanism>.yaml and a case naming it
    with (rules / "signatures" / "nccl.yaml").open("a", encoding="utf-8") as f:
        f.write(
            '  - id: nccl-made-up-error\n    on: line\n    pattern: "ncclMadeUpError: {error:text}"\n'
            '    source: "a made-up NCCL error string (the recipe test)"\n'
        )
    with (rules / "signatures" / "nccl.cases.yaml").open("a", encoding="utf-8") as f:
        f.write(
            '  - name: nccl-made-up-error\n    log: "ncclMadeUpError: the proxy thread stopped"\n'
            "    finding: nccl-error\n    signature: nccl-made-up-error\n"
        )
    # an output format: a module in logscope/report/ and one line in DOCUMENTS (report/formats.py)
    (tree / "logscope" / "report" / "phases_csv.py").write_text(
        '"""One CSV row per phase reading (the recipe test\'s format)."""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any\n\n\n"
        "def render_phases_csv(document: dict[str, Any], width: int = 0) -> str:\n"
        '    rows = ["launch,rank,phase,avail_gib"]\n'
        '    for launch in document["launches"]:\n'
        '        for rank in launch["ranks"]:\n'
        '            rows += [f\'{launch["id"]},{rank["rank"]},{p["phase"]},{p.get("avail_gib", "")}\' '
        'for p in rank["phases"]]\n'
        '    return "\\n".join(rows) + "\\n"\n',
        encoding="utf-8",
    )
    _edit(
        tree / "logscope" / "report" / "formats.py",
        '    "comment": "logscope.report.comment:render_comment",\n',
        '    "phases_csv": "logscope.report.phases_csv:render_phases_csv",\n',
    )
    (tree / "paste.log").write_text(
        LOG.replace("Made-up phase reached. avail mem=120.50 GB", "ncclMadeUpError: the proxy thread stopped")
    )
    return tree


def test_a_rule_added_by_the_recipe_is_checked_tested_and_fires(tree_with_a_rule_a_signature_and_a_format: Path):
    tree = tree_with_a_rule_a_signature_and_a_format
    for command in (("rules", "check"), ("rules", "test")):
        result = _logscope(tree, *command)
        assert result.returncode == 0, (command, result.stdout.decode()[-2000:], result.stderr.decode()[-2000:])
    assert "kv-dtype-stated" in _logscope(tree, "rules", "list").stdout.decode()


def test_a_signature_added_by_the_recipe_names_the_mechanism(tree_with_a_rule_a_signature_and_a_format: Path):
    tree = tree_with_a_rule_a_signature_and_a_format
    result = _logscope(tree, "signatures", "test")
    assert result.returncode == 0, result.stdout.decode()[-2000:]
    report = json.loads(_logscope(tree, "analyze", "paste.log", "--format", "json").stdout)
    (finding,) = [f for f in report["findings"] if f["rule"] == "nccl-error"]
    assert finding["signature"] == "nccl-made-up-error"


def test_a_format_added_by_the_recipe_is_a_cli_choice(tree_with_a_rule_a_signature_and_a_format: Path):
    result = _logscope(tree_with_a_rule_a_signature_and_a_format, "analyze", "paste.log", "--format", "phases_csv")
    assert result.returncode == 1, result.stderr.decode()[-2000:]  # the paste holds a failure
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "launch,rank,phase,avail_gib"
    assert "1,TP0,load_weight_begin,139.22" in lines and "1,TP0,memory_pool_end,40.4" in lines


def _pytest(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, timeout=600)


def test_a_format_added_by_the_recipe_passes_the_golden_tests_once_they_are_regenerated(
    tree_with_a_rule_a_signature_and_a_format: Path,
):
    tree = tree_with_a_rule_a_signature_and_a_format
    pinned = ("tests/test_goldens.py", "-k", "phases_csv or every_document or manifest")
    before = _pytest(tree, *pinned)
    assert before.returncode != 0 and "missing golden" in before.stdout.decode(), before.stdout.decode()[-2000:]
    update = _pytest(tree, "tests/test_goldens.py", "--update-goldens", "-k", "phases_csv")
    assert update.returncode == 0, update.stdout.decode()[-2000:]
    after = _pytest(tree, *pinned)
    assert after.returncode == 0, after.stdout.decode()[-2000:]
    written = sorted(p.name for p in (tree / "fixtures" / "golden").rglob("*.phases_csv"))
    assert written and all(name.endswith(".log.phases_csv") for name in written)
