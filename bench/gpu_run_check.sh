#!/usr/bin/env bash
# The GPU acceptance check of `logscope run` (one GPU; run from the repo root):
#   bash bench/gpu_run_check.sh [--python PYTHON] [--out DIR]
# wraps bench/gpu_run_check.py (a launch-like program: 0.5.23 phase lines, real torch allocations, an NCCL
# communicator at world size 1) in `python -m logscope run`, then compares the memory outside the allocator that
# logscope measured at each phase with what the program knows (within 5%): a table and PASS / FAIL.
# Needs torch with CUDA, and the pure-python deps (lark, rich, typer, pyyaml, click, nvidia-ml-py) importable.
set -euo pipefail
PYTHON=python3
OUT=$(mktemp -d /tmp/logscope-gpu-run-check.XXXXXX)
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PYTHON=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: $0 [--python PYTHON] [--out DIR]" >&2; exit 2 ;;
  esac
done
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$(pwd)
echo "== environment"
"$PYTHON" - <<'PY'
import importlib, importlib.metadata, platform, sys
print("python", sys.version.split()[0], platform.machine())
for name in ("torch", "pynvml", "lark", "rich", "typer", "yaml", "click"):
    try:
        importlib.import_module(name)
    except Exception as exc:
        print(f"{name} MISSING ({exc})")
        continue
    try:
        print(name, importlib.metadata.version({"pynvml": "nvidia-ml-py", "yaml": "pyyaml"}.get(name, name)))
    except Exception:
        print(name, "present (no package metadata)")
try:
    import torch
except ImportError:
    sys.exit("FAIL: torch is not importable with this python (give another with --python)")
print("cuda", torch.version.cuda, "available", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
if not torch.cuda.is_available():
    sys.exit("FAIL: no CUDA device")
version = torch.cuda.nccl.version()
print("nccl", ".".join(map(str, version)) if isinstance(version, tuple) else version)
PY
echo "== logscope run"
set +e
"$PYTHON" -m logscope run --no-analysis --out "$OUT/run" -- "$PYTHON" bench/gpu_run_check.py launch --known "$OUT/known.json"
code=$?
set -e
echo "logscope run exit code: $code"
[ "$code" -eq 0 ] || { echo "FAIL: the launch did not end cleanly"; exit 1; }
"$PYTHON" -m logscope analyze "$OUT/run/launch.log" --format json > "$OUT/analysis.json" || true
"$PYTHON" -m logscope analyze "$OUT/run/launch.log" --format text --width 160 || true
echo "== samples: $OUT/run/launch.samples.jsonl ($(wc -l < "$OUT/run/launch.samples.jsonl") lines); known: $(cat "$OUT/known.json" | tr -d '\n' | cut -c1-300)"
echo "== comparison"
"$PYTHON" bench/gpu_run_check.py compare --known "$OUT/known.json" --document "$OUT/analysis.json"
