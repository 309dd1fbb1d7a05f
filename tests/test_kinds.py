"""The kind catalogue (logscope/core/kinds.py) is the one table of event kinds: every sglang.lark message rule has a
row, every row's sample lines pass the prefilter and parse as that kind, the derived sets are the catalogue's,
and no module outside the catalogue spells a kind or phase id as a string."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from logscope.core import kinds, phases
from logscope.core.events import FAILURE_KINDS
from logscope.core.model import Coverage
from logscope.core.resources import data_dir
from logscope.pipeline.ingest.ingest import Source
from logscope.pipeline.parse import prefilter
from logscope.pipeline.parse.classify import SourceClassifier
from logscope.pipeline.parse.parsers.registry import LINE_GRAMMARS
from logscope.report.json import NOTE_KINDS

ROOT = Path(__file__).resolve().parent.parent
GRAMMARS = {grammar.name: grammar for grammar in LINE_GRAMMARS}
SAMPLES = [(kind.id, sample) for kind in kinds.CATALOGUE for sample in kind.samples]


def _message_rules() -> set[str]:
    """The rules `?message` of grammars/sglang.lark lists: each emits an event kind."""
    text = (data_dir("grammars") / "sglang.lark").read_text()
    block = re.search(r"^\?message:(.*?)^\s*$", text, re.M | re.S)
    assert block is not None
    return set(re.findall(r"[a-z_][a-z0-9_]*", block.group(1)))


def test_every_sglang_message_rule_has_a_row_and_every_row_rule_exists():
    listed = {rule for kind in kinds.CATALOGUE for rule in kind.rules}
    assert sorted(_message_rules() - listed) == []
    assert sorted(listed - _message_rules()) == []


def test_rows_are_well_formed():
    ids = [kind.id for kind in kinds.CATALOGUE]
    assert len(ids) == len(set(ids))
    for kind in kinds.CATALOGUE:
        assert kind.role in kinds.ROLES, kind.id
        if kind.grammar == kinds.BLOCK:
            assert not kind.literals and not kind.samples, kind.id
        elif kind.id == kinds.MEMORY_LINE:  # reads nothing by design: its lines are counted as unrecognised
            assert kind.grammar in GRAMMARS and not kind.samples and not kind.rules
        else:
            assert kind.grammar in GRAMMARS and kind.samples, kind.id
        if kind.rules:
            assert kind.grammar in (kinds.SGLANG, kinds.EXCEPTION_GRAMMAR, kinds.TORCH_OOM_GRAMMAR), kind.id


@pytest.mark.parametrize(("kind", "sample"), SAMPLES)
def test_each_sample_passes_the_prefilter_and_parses_as_its_kind(kind, sample):
    row = kinds.by_id()[kind]
    assert row.grammar in prefilter.grammars_for(sample)
    grammar = GRAMMARS[row.grammar]
    assert grammar.fits(sample)
    parsed = grammar.parse(sample)
    assert parsed is not None and parsed.kind == kind


@pytest.mark.parametrize(("kind", "sample"), [(k, s) for k, s in SAMPLES if kinds.by_id()[k].grammar == kinds.SGLANG])
def test_the_classifier_emits_each_sglang_sample_as_its_kind(kind, sample):
    events = SourceClassifier(Source(name="one.log", path=None, data=sample.encode()), Coverage()).run()
    assert [e.kind for e in events] == [kind]


def test_the_registry_literals_are_the_catalogue_literals():
    for name, grammar in GRAMMARS.items():
        assert grammar.literals == kinds.line_literals(name)
    assert set(prefilter.LINE_LITERALS[kinds.SGLANG]) == {
        lit for kind in kinds.CATALOGUE if kind.grammar == kinds.SGLANG for lit in kind.literals
    }


# a kind read by one rule whose name another rule already has (`nccl_error` is the body of an exception line)
_RULE_NAMED_APART = {"symm_failed"}


def test_a_rule_that_reads_one_kind_is_named_after_it():
    readers: dict[str, set[str]] = {}
    for kind in kinds.CATALOGUE:
        for rule in kind.rules:
            readers.setdefault(rule, set()).add(kind.id)
    single = {kind.rules[0]: kind.id for kind in kinds.CATALOGUE if len(kind.rules) == 1 and readers[kind.rules[0]] == {kind.id}}
    assert {rule: kind for rule, kind in single.items() if rule != kind} == {r: single[r] for r in _RULE_NAMED_APART}
    # a kind with several wordings has one rule per wording, and the first is named after the kind where it can be
    assert kinds.by_id()[kinds.INIT_DISTRIBUTED_END].rules[0] == kinds.INIT_DISTRIBUTED_END


def test_derived_sets_come_from_the_catalogue():
    assert kinds.of_role(kinds.PHASE) == {phase.id for phase in phases.PHASES}
    assert kinds.of_role(kinds.FAILURE) == FAILURE_KINDS and kinds.OOM in FAILURE_KINDS
    assert kinds.of_role(kinds.NOTE) == NOTE_KINDS and kinds.KV_DTYPE in NOTE_KINDS


# Strings spelled like a kind that mean something else where they stand: a signature's `on:` evidence kind
# (exception, frame), a communication cell's name, a server argument.
_OTHER_MEANING = {
    ("logscope/pipeline/parse/signatures/loader.py", kinds.EXCEPTION),
    ("logscope/pipeline/parse/signatures/loader.py", kinds.FRAME),
    ("logscope/pipeline/parse/signatures/match.py", kinds.EXCEPTION),
    ("logscope/pipeline/parse/signatures/match.py", kinds.FRAME),
    ("logscope/pipeline/sizing/cells.py", kinds.STAGING_BUFFER),
    ("logscope/pipeline/assemble/launch_facts.py", kinds.ATTENTION_BACKEND),
    ("logscope/tooling/wording_coverage.py", kinds.CAPTURE_BS),  # a format placeholder of SGLang's source
    ("logscope/tooling/wording_coverage.py", kinds.EXCEPTION),  # a signature's `on: exception`
}


def _spelled_ids(source: str, rel: str, ids: set[str]) -> list[str]:
    """String constants equal to a kind id, less dict keys, subscripts and .get()/.pop() keys (data fields)."""
    tree = ast.parse(source)
    keys: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            keys.add(id(node.slice))
        elif isinstance(node, ast.Dict):
            keys.update(id(k) for k in node.keys if k is not None)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
        ):
            keys.add(id(node.args[0]))
    return [
        f"{rel}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in ids
        and id(node) not in keys
        and (rel, node.value) not in _OTHER_MEANING
    ]


def test_kind_and_phase_ids_are_spelled_only_in_the_catalogue():
    ids = {kind.id for kind in kinds.CATALOGUE}
    modules = sorted(p for p in (ROOT / "logscope").rglob("*.py") if p.name != "kinds.py")
    hits = [hit for path in modules for hit in _spelled_ids(path.read_text(), path.relative_to(ROOT).as_posix(), ids)]
    assert hits == []


def test_the_scan_finds_a_spelled_kind():
    source = 'def f(ev):\n    return ev.kind == "server_ready" and ev.data["oom"]\n'
    assert _spelled_ids(source, "logscope/m.py", {kinds.SERVER_READY, kinds.OOM}) == ["logscope/m.py:2: 'server_ready'"]


def _grammar_names() -> set[str]:
    names = {value for name, value in vars(kinds).items() if name.endswith("_GRAMMAR") and isinstance(value, str)}
    return names | {kinds.SGLANG}


# Strings spelled like a grammar name that mean something else where they stand: SGLang the package (its version
# key, its NCCL environment, its processes), a check_env block's origin.
_GRAMMAR_OTHER_MEANING = {
    ("logscope/cli.py", kinds.SGLANG),  # --nccl-env sglang: the environment SGLang sets
    ("logscope/compare/diff.py", kinds.SGLANG),  # the version's name
    ("logscope/pipeline/assemble/launch_facts.py", kinds.SGLANG),  # the version's name
    ("logscope/pipeline/ledger/smi_join.py", kinds.SGLANG),  # a process name holding "sglang"
    ("logscope/pipeline/parse/parsers/stated_env.py", kinds.SGLANG),  # the package and version name
}


def test_grammar_names_are_spelled_only_in_the_catalogue():
    names = _grammar_names()
    assert {kinds.NVIDIA_SMI_GRAMMAR, kinds.TORCH_OOM_GRAMMAR, kinds.SGLANG} <= names
    modules = sorted(p for p in (ROOT / "logscope").rglob("*.py") if p.name != "kinds.py")
    hits = []
    for path in modules:
        rel = path.relative_to(ROOT).as_posix()
        spelled = _spelled_ids(path.read_text(), rel, names)
        hits += [hit for hit in spelled if (rel, hit.rsplit("'", 2)[1]) not in _GRAMMAR_OTHER_MEANING]
    assert hits == []
