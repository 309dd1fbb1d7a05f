"""The README's "How to add ..." recipes, followed literally on a copy of the tree: each step edits the file the
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
    for name in ("logscope", "grammars", "rules", "tests", "fixtures"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _logscope(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, "-m", "logscope", *args], cwd=tree, env=env, capture_output=True,
                          timeout=300)


@pytest.fixture(scope="module")
def tree_with_a_new_phase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = _copy_tree(tmp_path_factory.mktemp("recipe"))
    # 1. logscope/kinds.py: the kind's constant, and its row in CATALOGUE (role, rule, literal, a sample line)
    kinds_py = tree / "logscope" / "kinds.py"
    _edit(kinds_py, "CATALOGUE: tuple[Kind, ...] = (\n", 'MADE_UP_PHASE: Final = "made_up_phase"\n\n\n', before=True)
    _edit(kinds_py, "CATALOGUE: tuple[Kind, ...] = (\n",
          '    Kind(MADE_UP_PHASE, PHASE, rules=("made_up_phase",), literals=("Made-up phase reached",),\n'
          '         samples=("[2026-05-07 13:38:41 TP0] Made-up phase reached. avail mem=120.50 GB",)),\n')
    # 2. grammars/sglang.lark: the rule, named after the kind id, and its name in ?message
    lark = tree / "grammars" / "sglang.lark"
    _edit(lark, "?message: ", "made_up_phase | ")
    _edit(lark, "// ---------------------------------------------------------------- generic pieces\n",
          'made_up_phase: "Made-up phase reached." "avail mem=" NUM2 "GB"\n\n', before=True)
    # 3. logscope/parsers/sglang_line.py: the transformer method, returning the kind's constant and its numbers
    _edit(tree / "logscope" / "parsers" / "sglang_line.py", "    # ---- phases\n",
          "    def made_up_phase(self, items: list[Token]) -> tuple:\n"
          '        return kinds.MADE_UP_PHASE, {"avail_gib": _f(items[0])}\n\n')
    # 4. logscope/phases.py: its row (order, the stage after it, a timeline column)
    _edit(tree / "logscope" / "phases.py", "    Phase(kinds.KV_CACHE_ALLOCATED,",
          '    Phase(kinds.MADE_UP_PHASE, 3, after="memory_pool", column=Column("made up")),\n', before=True)
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
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_kinds.py",
                             "tests/test_phase_table.py", "-k", "not classifier_emits"],
                            cwd=tree_with_a_new_phase, env=env, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stdout.decode()[-3000:]
    assert "made_up_phase" in (tree_with_a_new_phase / "logscope" / "kinds.py").read_text()


def test_without_the_recipe_the_line_is_not_read():
    result = subprocess.run([sys.executable, "-m", "logscope", "analyze", "-", "--format", "json"], input=LOG.encode(),
                            cwd=ROOT, capture_output=True, timeout=300)
    (rank,) = json.loads(result.stdout)["launches"][0]["ranks"]
    assert all(p["phase"] != "made_up_phase" for p in rank["phases"])
