"""python -m tools.cases build --corpus DIR [--corpus DIR ...] [--out logscope/data/known_cases.json]
                              [--outcomes tools/cases/outcomes.yaml] [--held-out ../shared/corpus/held-out-issues.txt]

A developer tool, run by hand: re-run it after the mined corpus grows, then commit the index (package data)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tools.cases.build import build_index
from tools.cases.corpus import read_held_out
from tools.cases.outcome import read_supplement


def _split_ref(ref: str) -> tuple[str, int]:
    repo, number = ref.split("#", 1)
    return repo, int(number)


ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "logscope" / "data" / "known_cases.json"
DEFAULT_OUTCOMES = Path(__file__).resolve().parent / "outcomes.yaml"
DEFAULT_HELD_OUT = ROOT.parent / "shared" / "corpus" / "held-out-issues.txt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cases")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="analyse the mined pastes and write the known-cases index")
    build.add_argument("--corpus", action="append", type=Path, required=True, help="a folder of <id>.txt + <id>.yaml")
    build.add_argument("--out", type=Path, default=DEFAULT_OUT)
    build.add_argument(
        "--outcomes", type=Path, default=DEFAULT_OUTCOMES, help="outcomes stated beside the pastes (tools/cases/outcomes.yaml)"
    )
    build.add_argument("--held-out", type=Path, default=DEFAULT_HELD_OUT, help="threads never to index (repo#number a line)")
    args = parser.parse_args(argv)
    for folder in args.corpus:
        if not folder.is_dir():
            print(f"{folder}: not a folder", file=sys.stderr)
            return 2
    if not args.held_out.is_file():
        print(f"{args.held_out}: the held-out list is needed (no index is built without it)", file=sys.stderr)
        return 2
    held_out = read_held_out(args.held_out)
    supplement = read_supplement(args.outcomes)
    refused = [thread for thread in supplement if held_out.holds(*_split_ref(thread))]
    if refused:
        print(f"{args.outcomes}: held-out threads listed: {', '.join(refused)}", file=sys.stderr)
        return 2
    index, report = build_index([f.resolve() for f in args.corpus], held_out, supplement=supplement)
    args.out.write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{args.out}: {report.cases} cases from {report.threads} threads; {len(report.without_failure)} threads "
        f"without a failure finding; {len(report.held_out_refused)} held-out pastes refused unread"
        + (f" ({', '.join(report.held_out_refused)})" if report.held_out_refused else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
