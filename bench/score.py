"""Score logscope's findings and facts against the labelled expectations of the development corpus, run by hand.

Three labelled sets, each read in its own schema:
- fixtures/real/*.expect.yaml (next to a .txt/.log paste): `findings.must` ("rule:severity"), and the facts
  `phases` (launch, rank, phase, model, field, value), `config`, `lower_bounds`, `versions`, `gpus` (one row a
  GPU), `links`, `p2p`. The lists are complete: a fact of these kinds that the report holds and the file
  does not is a false fact.
- fixtures/pastes/*.expect.yaml: `findings` (rule ids, complete) and `values` ([path in the logscope/1
  document, value]). A value is a fact; the report holding that path with another value is a false fact,
  the path missing is a miss.
- fixtures/mined/*.yaml (beside a .txt): real pastes mined from public issues, labelled before logscope ran on them;
  scored per class (phase lines, pools, versions, commands, dumps, failures by library) and split (`built`,
  `heldback`) by bench/mined.py, with `--mined` (schema and rules: fixtures/mined/README.md).
- fixtures/heldout/expect.yaml: the finding (`finding` or any of `finding_any`) each paste must give. Only
  recall is scored there (its total is kept apart): the file does not list every finding a paste may give.

Precision = right / given, recall = right / expected, per file and in total, for findings and for facts.

    python bench/score.py            # per file and the totals
    python bench/score.py --totals   # the totals only
    python bench/score.py --mined    # the mined corpus per class, built and heldback (--why: misses, built only)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from logscope.pipeline.analyze import analyze_sources  # noqa: E402 - after the checkout is on the path
from logscope.pipeline.ingest.ingest import expand_inputs  # noqa: E402
from tests.helpers import gpu_rows  # noqa: E402 - the rows tests/test_fixture_expectations.py compares

_SPEC = importlib.util.spec_from_file_location("mined_bench", ROOT / "bench" / "mined.py")
assert _SPEC is not None and _SPEC.loader is not None
mined = importlib.util.module_from_spec(_SPEC)
sys.modules["mined_bench"] = mined  # its dataclasses look their module up there
_SPEC.loader.exec_module(mined)

_MISSING = object()


@dataclass
class Score:
    """Counts of one kind (findings or facts) for one file or a total."""

    right: int = 0
    given: int = 0
    expected: int = 0
    misses: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.right += other.right
        self.given += other.given
        self.expected += other.expected

    @staticmethod
    def of_sets(given: Iterable[Any], expected: Iterable[Any]) -> Score:
        g = {_key(x) for x in given}
        e = {_key(x) for x in expected}
        return Score(len(g & e), len(g), len(e), sorted(e - g), sorted(g - e))

    def precision(self) -> str:
        return _ratio(self.right, self.given)

    def recall(self) -> str:
        return _ratio(self.right, self.expected)


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:5.1f}%" if b else f"{a}/{b} =     -"


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _analyze(path: Path) -> dict[str, Any]:
    return analyze_sources(expand_inputs([str(path.relative_to(ROOT))]))


def _phase_facts(report: dict[str, Any]) -> list[list[Any]]:
    out = []
    for launch in report["launches"]:
        for rank in launch["ranks"]:
            for phase in rank["phases"]:
                for name in ("avail_gib", "usage_gib", "tokens", "kv_gib", "k_gib", "v_gib", "elapsed_s", "bs"):
                    if name in phase:
                        out.append(["phase", launch["id"], rank["rank"], phase["phase"], phase["model"], name, phase[name]])
    return out


def real_facts(report: dict[str, Any]) -> list[list[Any]]:
    """The facts of the kinds a fixtures/real expectation lists, as logscope gives them."""
    facts = _phase_facts(report)
    for launch in report["launches"]:
        facts += [["config", k, v] for k, v in launch["config"].items()]
        facts += [["lower_bound", k, v["at_least"]] for k, v in launch["config_lower_bounds"].items()]
    versions = report["launches"][0]["versions"] if report["launches"] else report["versions"]
    facts += [["version", k, v] for k, v in versions.items()]
    facts += [["gpu", *row] for row in gpu_rows(report)]
    facts += [["link", *link] for link in report["topology"]["links"]]
    facts += [["p2p", *link] for link in report["topology"].get("p2p", [])]
    return facts


def expected_real_facts(expect: dict[str, Any]) -> list[list[Any]]:
    facts = [["phase", *row] for row in expect["phases"]]
    facts += [["config", k, v] for k, v in expect["config"].items()]
    facts += [["lower_bound", k, v] for k, v in expect.get("lower_bounds", {}).items()]
    facts += [["version", k, v] for k, v in expect["versions"].items()]
    facts += [["gpu", *row] for row in expect["gpus"]]
    facts += [["link", *link] for link in expect["links"]]
    facts += [["p2p", *link] for link in expect["p2p"]]
    return facts


def score_real(path: Path) -> tuple[Score, Score]:
    expect = yaml.safe_load(path.with_name(path.stem + ".expect.yaml").read_text())
    report = _analyze(path)
    findings = Score.of_sets((f"{f['rule']}:{f['severity']}" for f in report["findings"]), expect["findings"]["must"])
    return findings, Score.of_sets(real_facts(report), expected_real_facts(expect))


def _at(document: Any, path: str) -> Any:
    for part in path.split("."):
        try:
            document = document[int(part)] if isinstance(document, list) else document[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return _MISSING
    return document


def score_paste(path: Path) -> tuple[Score, Score]:
    expect = yaml.safe_load(path.with_name(path.stem + ".expect.yaml").read_text())
    report = _analyze(path)
    findings = Score.of_sets({f["rule"] for f in report["findings"]}, expect["findings"])
    facts = Score(expected=len(expect["values"]))
    for where, value in expect["values"]:
        got = _at(report, where)
        if got is _MISSING:
            facts.misses.append(f"{where} (absent; expected {value!r})")
            continue
        facts.given += 1
        if got == value:
            facts.right += 1
        else:
            facts.false.append(f"{where} = {got!r} (expected {value!r})")
    return findings, facts


def score_heldout(folder: Path) -> list[tuple[str, Score]]:
    out = []
    for name, want in yaml.safe_load((folder / "expect.yaml").read_text()).items():
        wanted = want.get("finding_any") or ([want["finding"]] if "finding" in want else [])
        if not wanted:
            continue
        ids = {f["rule"] for f in _analyze(folder / name)["findings"]}
        hit = bool(ids & set(wanted))
        out.append((name, Score(int(hit), int(hit), 1, [] if hit else [f"{'|'.join(wanted)} (gave {sorted(ids)})"])))
    return out


def _line(name: str, findings: Score | None, facts: Score | None) -> str:
    def cells(s: Score | None) -> str:
        return f"{s.precision():>18} {s.recall():>18}" if s else f"{'':>18} {'':>18}"

    return f"{name[:44]:<44} {cells(findings)} {cells(facts)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--totals", action="store_true", help="print the totals only")
    parser.add_argument("--why", action="store_true", help="list each miss and false finding or fact")
    parser.add_argument("--mined", action="store_true", help="score the mined corpus (fixtures/mined) instead")
    parser.add_argument(
        "--ids", type=Path, help="with --mined: score only the pastes whose ids this file lists (one a line), e.g. a new batch"
    )
    args = parser.parse_args(argv)
    if args.mined:
        ids = set(args.ids.read_text(encoding="utf-8").split()) if args.ids else None
        print(mined.run(_analyze, why=args.why, ids=ids))
        return 0
    header = f"{'file':<44} {'findings precision':>18} {'findings recall':>18} {'facts precision':>18} {'facts recall':>18}"
    rows: list[tuple[str, str, Score | None, Score | None]] = []
    real = sorted(p for p in (ROOT / "fixtures" / "real").iterdir() if p.suffix in (".txt", ".log"))
    pastes = sorted(p for p in (ROOT / "fixtures" / "pastes").iterdir() if not p.name.endswith(".expect.yaml"))
    for path in real:
        rows.append(("real", path.name, *score_real(path)))
    for path in pastes:
        rows.append(("pastes", path.name, *score_paste(path)))
    for name, score in score_heldout(ROOT / "fixtures" / "heldout"):
        rows.append(("heldout", name, score, None))
    if not args.totals:
        print(header)
    totals: dict[str, tuple[Score, Score]] = {}
    for group, name, findings, facts in rows:
        if not args.totals:
            print(_line(f"{group}/{name}", findings, facts))
            if args.why:
                for s, what in ((findings, "finding"), (facts, "fact")):
                    for miss in s.misses if s else []:
                        print(f"    missed {what}: {miss}")
                    for false in s.false if s else []:
                        print(f"    false {what}: {false}")
        for key in (group, "total") if group != "heldout" else (group,):
            f_total, x_total = totals.setdefault(key, (Score(), Score()))
            if findings:
                f_total.add(findings)
            if facts:
                x_total.add(facts)
    print(header if args.totals else "")
    for key in ("real", "pastes", "heldout", "total"):
        if key in totals:
            f_total, x_total = totals[key]
            print(_line(f"TOTAL {key}", f_total, x_total if x_total.expected or x_total.given else None))
    print("(total: real + pastes; heldout gives recall only: its file names one finding a paste must give, not all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
