"""Leave-one-out on the known-cases index (issue 46): the threads the index knows to be the same failure (one marked
a duplicate of the other, or both fixed by the same pull request) are the pairs. For each thread of a pair, its own
case is taken out of the index, its failures are matched against the rest as a new paste's would be, and the pair
counts when its partner is among the top 3 of any of its failures. Any offered case whose signature (or, with no
signature, rule) differs from the failure's is counted too (it must be 0).

Run by hand: python bench/cases_eval.py [--index logscope/data/known_cases.json] [--verbose]
Prints the number of pairs and queries, top-1 and top-3 rates, and wrong-signature offers, for all the pairs and
apart for the pairs whose threads are both in the mined corpus's `built` split (the sha1 rule)."""

from __future__ import annotations

import argparse
import hashlib
import sys
from itertools import combinations
from pathlib import Path

from logscope.cases.index import INDEX_PATH, CaseIndex, KnownCase, read_index
from logscope.cases.match import TOP, LogContext, nearest


def split_of(ref: str) -> str:
    return "heldback" if int(hashlib.sha1(ref.encode()).hexdigest(), 16) % 3 == 0 else "built"


def pairs_of(index: CaseIndex) -> list[tuple[KnownCase, KnownCase, str]]:
    """(a, b, why) for each unordered pair of indexed threads that the index says are the same failure."""
    out = []
    for a, b in combinations(index.cases, 2):
        if a.outcome.duplicate_of == b.ref or b.outcome.duplicate_of == a.ref:
            out.append((a, b, "duplicate"))
        elif set(a.outcome.fixed_by) & set(b.outcome.fixed_by):
            out.append((a, b, "same fix"))
    return out


def _context(case: KnownCase) -> LogContext:
    """What the case's own paste states, as a new paste's analysis would give it."""
    return LogContext(case.releases[0] if case.releases else None, None, case.hardware)


def query(index: CaseIndex, case: KnownCase, partner: KnownCase) -> tuple[int | None, int]:
    """(best rank of the partner among the top 3 of any of the case's failures, or None; wrong-class offers)."""
    best, wrong = None, 0
    for key in case.keys:
        found = nearest(key, index, _context(case), TOP, exclude=case.ref)
        wrong += sum(1 for m in found if m.key.match_class != key.match_class)
        for rank, match in enumerate(found, 1):
            if match.case.ref == partner.ref and (best is None or rank < best):
                best = rank
    return best, wrong


def evaluate(index: CaseIndex, verbose: bool = False) -> dict[str, dict[str, float]]:
    pairs = pairs_of(index)
    results: dict[str, dict[str, float]] = {}
    for part in ("all", "built"):
        chosen = [p for p in pairs if part == "all" or split_of(p[0].ref) == split_of(p[1].ref) == "built"]
        queries = top1 = top3 = wrong = 0
        for a, b, why in chosen:
            for case, partner in ((a, b), (b, a)):
                rank, bad = query(index, case, partner)
                queries += 1
                top1 += rank == 1
                top3 += rank is not None
                wrong += bad
                if verbose and part == "built":
                    print(f"  {case.ref} -> {partner.ref} ({why}): {'rank ' + str(rank) if rank else 'not in the top 3'}")
        results[part] = {"pairs": len(chosen), "queries": queries, "top1": top1, "top3": top3, "wrong_signature": wrong}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/cases_eval.py")
    parser.add_argument("--index", type=Path, default=INDEX_PATH)
    parser.add_argument("--verbose", action="store_true", help="one line per query of the built pairs")
    args = parser.parse_args(argv)
    index = read_index(args.index)
    print(f"index: {args.index} generated {index.generated}, {len(index.cases)} cases")
    for part, r in evaluate(index, args.verbose).items():
        q = r["queries"] or 1
        print(
            f"{part}: {r['pairs']} pairs, {r['queries']} queries; partner in the top 3: {r['top3']} "
            f"({r['top3'] / q:.0%}), first: {r['top1']} ({r['top1'] / q:.0%}); wrong-signature cases offered: "
            f"{r['wrong_signature']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
