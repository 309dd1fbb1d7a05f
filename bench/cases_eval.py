"""Leave-one-out on the known-cases index (issue 46): the threads the index knows to be the same failure are the pairs:
one marked a duplicate of the other, both fixed by the same pull request, or joined through such links (two duplicates
of one third thread, a duplicate of a thread whose fixing pull request also fixed a third). For each thread of a pair,
its own case is taken out of the index, its failures are matched against the rest as a new paste's would be, and the
pair counts when its partner is among the top 3 of any of its failures. Any offered case whose signature (or, with no
signature, rule) differs from the failure's is counted too (it must be 0).

The weaker kind of pair, an issue and the pull request that fixed it when both are indexed (the pull request's own
text pastes the failure), is measured the same way and reported apart: it never enters the figures of the pairs.

Run by hand: python bench/cases_eval.py [--index logscope/data/known_cases.json] [--verbose]
Prints the number of pairs and queries, top-1 and top-3 rates, and wrong-signature offers, for all the pairs, apart
for the pairs whose threads are both in the mined corpus's `built` split (the sha1 rule), and for the issue and
fixing pull request pairs."""

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


Pair = tuple[KnownCase, KnownCase, str]


def _linked(index: CaseIndex) -> dict[str, str]:
    """Each indexed thread -> the root of its group: threads joined by a duplicate link (either side stating it) or by
    a fixing pull request they both name. A pull request is a node of its own, apart from its thread: a thread fixed
    by an indexed pull request is not joined to that pull request's case (that is the weaker kind of pair)."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(a: str, b: str) -> None:
        parent[root(a)] = root(b)

    for case in index.cases:
        root("thread " + case.ref)
        if case.outcome.duplicate_of:
            join("thread " + case.ref, "thread " + case.outcome.duplicate_of)
        for pull in case.outcome.fixed_by:
            join("thread " + case.ref, "fix " + pull)
    return {case.ref: root("thread " + case.ref) for case in index.cases}


def pairs_of(index: CaseIndex) -> list[Pair]:
    """(a, b, why) for each unordered pair of indexed threads that the index says are the same failure: "duplicate"
    (one names the other), "same fix" (both name one pull request), "linked" (joined through other links)."""
    group = _linked(index)
    out = []
    for a, b in combinations(index.cases, 2):
        if group[a.ref] != group[b.ref]:
            continue
        if a.outcome.duplicate_of == b.ref or b.outcome.duplicate_of == a.ref:
            out.append((a, b, "duplicate"))
        elif set(a.outcome.fixed_by) & set(b.outcome.fixed_by):
            out.append((a, b, "same fix"))
        else:
            out.append((a, b, "linked"))
    return out


def fix_pairs_of(index: CaseIndex) -> list[Pair]:
    """(issue, pull request, "fixed by") for each indexed thread whose outcome names an indexed pull request that fixed
    it: the weaker kind of pair, kept out of pairs_of."""
    by_ref = {case.ref: case for case in index.cases}
    return [
        (case, by_ref[pull], "fixed by")
        for case in index.cases
        for pull in case.outcome.fixed_by
        if pull in by_ref and pull != case.ref
    ]


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


def _measure(index: CaseIndex, chosen: list[Pair], verbose: bool = False) -> dict[str, float]:
    """The figures of the chosen pairs; with `verbose`, one line per query of a pair whose threads are both built."""
    queries = top1 = top3 = wrong = 0
    for a, b, why in chosen:
        for case, partner in ((a, b), (b, a)):
            rank, bad = query(index, case, partner)
            queries += 1
            top1 += rank == 1
            top3 += rank is not None
            wrong += bad
            if verbose and _built((a, b, why)):
                print(f"  {case.ref} -> {partner.ref} ({why}): {'rank ' + str(rank) if rank else 'not in the top 3'}")
    return {"pairs": len(chosen), "queries": queries, "top1": top1, "top3": top3, "wrong_signature": wrong}


def _built(pair: Pair) -> bool:
    return split_of(pair[0].ref) == split_of(pair[1].ref) == "built"


def evaluate(index: CaseIndex, verbose: bool = False) -> dict[str, dict[str, float]]:
    """The figures of all the pairs, of the built ones, and of the issue and fixing pull request pairs (apart);
    with `verbose`, one line per query of the built ones."""
    pairs = pairs_of(index)
    return {
        "all": _measure(index, pairs),
        "built": _measure(index, [p for p in pairs if _built(p)], verbose),
        "issue and fixing pull request": _measure(index, fix_pairs_of(index), verbose),
    }


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
