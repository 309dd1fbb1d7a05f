"""Measure logscope on the held-out pastes (fixtures/heldout/, written before the code they measure).

A paste counts as right when its expected finding id is among the findings (the mechanism), the finding's
message says serving/runtime exactly when `serving` is true (the phase), the named text is in the
output (`mentions`) or in the verdict itself (`message_mentions`), no finding named in `not_finding`
is given (a false finding), the finding names `rank`, and the exit is non-zero where asked. Run: python bench/heldout.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "heldout"


def judge(name: str, want: dict) -> tuple[bool, str]:
    run = subprocess.run(
        [sys.executable, "-m", "logscope", "analyze", "--format", "json", str(FOLDER / name)],
        capture_output=True,
        text=True,
        check=False,
        cwd=FOLDER.parent.parent,
    )
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        return False, f"no JSON (exit {run.returncode}): {run.stderr.strip()[:120]}"
    findings = report.get("findings", [])
    ids = [f["rule"] for f in findings]
    wanted = want.get("finding_any") or ([want["finding"]] if "finding" in want else [])
    hit = [f for f in findings if f["rule"] in wanted]
    if wanted and not hit:
        return False, f"findings {ids}"
    if "serving" in want and hit:
        says = any(("serving" in f["message"].lower() or "runtime" in f["message"].lower()) for f in hit)
        if says != want["serving"]:
            return False, f"serving={says} in {hit[0]['message'][:100]!r}"
    if "mentions" in want and want["mentions"] not in run.stdout:
        return False, f"does not mention {want['mentions']!r}"
    if "not_mentions" in want and want["not_mentions"] in run.stdout:
        return False, f"mentions {want['not_mentions']!r}"
    if "message_mentions" in want and not any(want["message_mentions"] in f["message"] + f["hint"] for f in hit):
        return False, f"the verdict does not quote {want['message_mentions']!r}: {hit[0]['message'][:120]!r}"
    if "rank" in want and not any(want["rank"] in f["ranks"] for f in hit):
        return False, f"ranks {hit[0]['ranks']}, not {want['rank']!r}"
    if wrong := [i for i in want.get("not_finding", []) if i in ids]:
        return False, f"false finding(s) {wrong} among {ids}"
    if want.get("exit_nonzero") and run.returncode == 0:
        return False, f"exit 0 with findings {ids}"
    return True, f"{ids}"


def main() -> int:
    expect = yaml.safe_load((FOLDER / "expect.yaml").read_text())
    right = 0
    for name, want in expect.items():
        ok, why = judge(name, want)
        right += ok
        print(f"{'ok  ' if ok else 'MISS'} {name}: {why}")
    print(f"{right}/{len(expect)} held-out pastes named the right mechanism and phase")
    return 0


if __name__ == "__main__":
    sys.exit(main())
