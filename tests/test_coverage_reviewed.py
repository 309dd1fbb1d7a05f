"""Every phase and error line of the real pastes is recognised; the few candidate lines that are not
(all cut by the paste) are listed, with the reason, in fixtures/real/unrecognized.reviewed.tsv."""

from __future__ import annotations

from tests.helpers import REAL, analyze_paths, corpus_inputs, dump_inputs, rel


def test_unrecognised_candidate_lines_are_the_reviewed_ones():
    reviewed = []
    for row in (REAL / "unrecognized.reviewed.tsv").read_text().splitlines():
        if row and not row.startswith("#"):
            where, grammar, _why, text = row.split("\t", 3)
            reviewed.append((where, grammar, text))
    found = []
    for path in corpus_inputs() + dump_inputs():
        for item in analyze_paths(rel(path))["coverage"]["unrecognized"]:
            found.append((f"{path.name}:{item['line']}", item["grammar"], item["text"]))
    assert found == reviewed, "review the new unrecognised lines and update unrecognized.reviewed.tsv"
