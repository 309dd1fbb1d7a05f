"""A launch-like program for `logscope run`'s tests: the root starts a "scheduler" child (so the launched tree
has two levels) that records in a state file the device memory it holds (tests/fake_nvml.py reports it) and
then prints SGLang 0.5.23's phase lines (the wordings of fixtures/upstream/sglang-0.5.23-tp2.log).

usage: launch_like.py STATE MODE  (MODE: ready | fail | junk | wait)"""

import json
import os
import subprocess
import sys
import time

# the scheduler's device memory (MiB) after each line, and the line: CUDA context 500 + NCCL 100 outside the
# allocator, then 10 GiB of weights, 2 x 10 GiB of KV cache, 1 GiB of graphs (card 139.80 GiB, others 1000 MiB)
STEPS = (
    (0, "[2026-10-20 09:00:01 TP0] Init parallel begin."),
    (600, "[2026-10-20 09:00:02 TP0] Init parallel ends. elapsed=2.31 s"),
    (600, "[2026-10-20 09:00:03 TP0] Memory baseline taken. mem usage=0.00 GB"),
    (600, "[2026-10-20 09:00:04 TP0] Load weight begin. avail mem=138.24 GB"),
    (
        600 + 10240,
        "[2026-10-20 09:00:05 TP0] Load weight end. elapsed=37.00 s, type=Qwen3ForCausalLM, "
        "avail mem=128.24 GB, mem usage=10.00 GB.",
    ),
    (
        600 + 30720,
        "[2026-10-20 09:00:06 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 400000, "
        "K size: 10.00 GB, V size: 10.00 GB",
    ),
    (600 + 30720, "[2026-10-20 09:00:07 TP0] Memory pool end. avail mem=108.24 GB"),
    (
        600 + 30720,
        "[2026-10-20 09:00:08 TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, "
        "avail mem=108.24 GB",
    ),
    (
        600 + 31744,
        "[2026-10-20 09:00:09 TP0] Capture target decode CUDA graph end. bs=[1, 2, 4], elapsed=18.00 s, "
        "mem usage=1.00 GB, avail mem=107.24 GB.",
    ),
    (
        600 + 31744,
        "[2026-10-20 09:00:10 TP0] max_total_num_tokens=400000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        "max_running_requests=4096, context_len=40960, available_gpu_mem=107.24 GB",
    ),
)
PAUSE_S = 0.15
READY = "[2026-10-20 09:00:11] The server is fired up and ready to roll!"


def scheduler(state: str, mode: str) -> int:
    out = sys.stdout.buffer
    for mib, line in STEPS:
        with open(state, "a") as handle:
            handle.write(json.dumps({"pid": os.getpid(), "mib": mib}) + "\n")
        out.write(line.encode() + b"\n")
        out.flush()
        print(f"stderr after {line[26:45]}", file=sys.stderr, flush=True)
        time.sleep(PAUSE_S)  # a real phase lasts seconds: the sample at the line is taken before the next one
    if mode == "junk":
        out.write(b"binary \x00\xff\xfe\x1b[31m junk \r\n")
        out.write(b"x" * (3 << 20) + b" a 3 MiB line\n")
        out.write(b"no newline at the end")
        out.flush()
        return 0
    if mode == "fail":
        print("RuntimeError: CUDA error: an illegal memory access was encountered", file=sys.stderr, flush=True)
        return 3
    out.write(READY.encode() + b"\n")
    out.flush()
    if mode == "wait":
        print("waiting for a signal", flush=True)
        time.sleep(60)
    return 0


def main() -> int:
    state, mode = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        return scheduler(state, mode)
    return subprocess.call([sys.executable, __file__, state, mode, "scheduler"])


if __name__ == "__main__":
    sys.exit(main())
