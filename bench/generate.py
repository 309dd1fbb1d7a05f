"""Generate a realistic large SGLang log: startup of 8 ranks, a restart, hours of runtime batch lines,
an occasional traceback, wrapped paste lines and tqdm bars. Usage: python bench/generate.py SIZE_MIB OUT"""

from __future__ import annotations

import random
import sys

RANKS = [f"TP{i}" for i in range(8)]


def startup(day: int, second: int) -> list[str]:
    ts = f"2025-10-{day:02d} 09:{second // 60 % 60:02d}:{second % 60:02d}"
    out = [
        f"[{ts}] server_args=ServerArgs(model_path='/models/DeepSeek-V3', tp_size=8, mem_fraction_static=0.85, "
        f"chunked_prefill_size=8192, cuda_graph_max_bs=160, disable_custom_all_reduce=False)"
    ]
    for r in RANKS:
        out.append(f"[{ts} {r}] Init torch distributed begin.")
    for r in RANKS:
        out.append(f"[{ts} {r}] Init torch distributed ends. elapsed=2.31 s, mem usage=1.96 GB")
        out.append(f"[{ts} {r}] Load weight begin. avail mem=137.34 GB")
    out += [
        f"Loading safetensors checkpoint shards:  {p}% Completed | {p // 10}/10 [00:0{p // 20}<00:05,  2.28it/s]"
        for p in range(0, 101, 10)
    ]
    for r in RANKS:
        out.append(
            f"[{ts} {r}] Load weight end. elapsed=41.20 s, type=DeepseekV3ForCausalLM, avail mem=53.11 GB, mem usage=84.23 GB."
        )
        out.append(f"[{ts} {r}] KV Cache is allocated. #tokens: 524288, KV size: 34.32 GB")
        out.append(f"[{ts} {r}] Memory pool end. avail mem=18.20 GB")
        out.append(f"[{ts} {r}] Capture cuda graph begin. This can take up to several minutes. avail mem=18.01 GB")
    bars = "".join(
        f"Capturing batches (bs={bs} avail_mem={18.0 - i * 0.05:.2f} GB):  {i * 3}%|##  | {i}/35 [00:0{i % 10}<00:30,  1.2it/s]\r"
        for i, bs in enumerate((160, 152, 144, 136, 128))
    )
    out.append(bars)
    for r in RANKS:
        out.append(f"[{ts} {r}] Capture cuda graph end. Time elapsed: 30.12 s. mem usage=1.44 GB. avail mem=16.57 GB.")
    out.append(
        f"[{ts} TP0] max_total_num_tokens=524288, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        f"max_running_requests=4096, context_len=163840, available_gpu_mem=16.57 GB"
    )
    out.append(f"[{ts}] The server is fired up and ready to roll!")
    return out


def runtime(rng: random.Random, second: int) -> str:
    ts = f"2025-10-01 {10 + second // 3600 % 12:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
    kind = rng.random()
    rank = rng.choice(RANKS)
    if kind < 0.6:
        return (
            f"[{ts} {rank}] Decode batch. #running-req: {rng.randint(1, 256)}, #token: {rng.randint(1000, 500000)}, "
            f"token usage: {rng.random():.2f}, cuda graph: True, gen throughput (token/s): {rng.uniform(100, 9000):.2f}, "
            f"#queue-req: {rng.randint(0, 40)}, "
        )
    if kind < 0.9:
        return (
            f"[{ts} {rank}] Prefill batch. #new-seq: {rng.randint(1, 16)}, #new-token: {rng.randint(16, 8192)}, "
            f"#cached-token: {rng.randint(0, 8192)}, token usage: {rng.random():.2f}, #running-req: "
            f"{rng.randint(0, 256)}, #queue-req: {rng.randint(0, 40)}, "
        )
    client = f"10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)}:{rng.randint(1024, 65535)}"
    return f'[{ts}] INFO:     {client} - "POST /generate HTTP/1.1" 200 OK'


TRACEBACK = [
    "[2025-10-01 12:00:00 TP3] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2009, in event_loop_overlap',
    "    self.process_batch_result(batch, result)",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1500, in process_batch_result',
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]


def main() -> None:
    size = int(sys.argv[1]) << 20
    rng = random.Random(1234)
    written = 0
    second = 0
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for launch in range(2):
            block = "\n".join(startup(1 + launch, launch * 7)) + "\n"
            out.write(block)
            written += len(block)
            target = size * (launch + 1) // 2
            while written < target:
                lines = [runtime(rng, second + i) for i in range(2000)]
                second += 2000
                if rng.random() < 0.05:
                    lines += TRACEBACK
                if rng.random() < 0.05:
                    lines.append("[2025-10-01 11:00:00 TP1] Decode batch. #running-req: 12, #token: 4096, token usage: 0.0")
                    lines.append("1, cuda graph: True, gen throughput (token/s): 1234.56, #queue-req: 0, ")
                block = "\n".join(lines) + "\n"
                out.write(block)
                written += len(block)


if __name__ == "__main__":
    main()
