"""The long fuzz run (by hand): random bytes, cut and mutated real pastes, every prefix of every recognised
line. Prints the examples run and every failure; exit 1 on any failure.

    python bench/fuzz.py --examples 5000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from logscope.core.errors import InputError  # noqa: E402
from logscope.pipeline.analyze import analyze_sources  # noqa: E402
from logscope.pipeline.ingest.ingest import Source  # noqa: E402
from logscope.pipeline.parse.parsers.sglang_line import parse_line  # noqa: E402

ALPHABET = "0123456789.[]:=, GBTPDEe\r\n\x1b|\x00\x1f█"


def analyze(data: bytes) -> dict | None:
    try:
        return analyze_sources([Source(name="fuzz.log", path=None, data=data)])
    except InputError as exc:  # the one-line error the CLI prints with exit code 2
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.log: ")
        return None


def numbers(data: dict) -> set:
    return {v for v in data.values() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def main() -> None:
    args = argparse.ArgumentParser()
    args.add_argument("--examples", type=int, default=5000, help="random inputs and mutations per kind")
    args.add_argument("--seed", type=int, default=2026)
    opts = args.parse_args()
    rng = random.Random(opts.seed)
    corpus = [
        p.read_text(errors="replace") for p in sorted((ROOT / "fixtures" / "real").iterdir()) if p.suffix in (".log", ".txt")
    ]
    failures: list[str] = []
    counts = {"random bytes": 0, "cut+mutated pastes": 0, "line prefixes": 0}
    started = time.perf_counter()
    for _ in range(opts.examples):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(4000)))
        counts["random bytes"] += 1
        try:
            analyze(data)
        except Exception:  # noqa: BLE001 - collecting every failure is the point
            failures.append(f"random bytes {data[:80]!r}: {traceback.format_exc(limit=2)}")
    for _ in range(opts.examples):
        text = rng.choice(corpus)
        cut = list(text[: rng.randrange(len(text) + 1)])
        for i in rng.sample(range(len(cut)), k=int(len(cut) * rng.choice((0.01, 0.05, 0.2)))) if cut else []:
            cut[i] = rng.choice(ALPHABET)
        counts["cut+mutated pastes"] += 1
        try:
            analyze("".join(cut).encode())
        except Exception:  # noqa: BLE001
            failures.append(f"mutated paste: {traceback.format_exc(limit=2)}")
    for text in corpus:
        for line in text.split("\n"):
            full = parse_line(line)
            if full is None:
                continue
            allowed = numbers(full[2])
            for end in range(1, len(line)):
                counts["line prefixes"] += 1
                part = parse_line(line[:end])
                if part is not None and not numbers(part[2]) <= allowed:
                    failures.append(f"prefix read a wrong number: {line[:end]!r} -> {part[2]}")
    elapsed = time.perf_counter() - started
    print(", ".join(f"{k}: {v}" for k, v in counts.items()) + f"; {len(failures)} failures in {elapsed:.0f} s")
    for failure in failures[:20]:
        print(failure)
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
