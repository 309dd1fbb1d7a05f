"""fixtures/upstream/sglang-<version>-tp2.log: a TP=2 startup log per catalogued release, written from the
format strings that release prints (catalog/sglang.json), with one consistent set of numbers. The test
(tests/test_upstream_fixtures.py) reads each with logscope: every phase, the eager init reading, the version.

Each phase picks the newest wording of its kind that the release prints in the main model runner (not a
speculative or elastic variant); a placeholder gets the value named by the text before it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from logscope.core import upstream
from tools.upstream.write import ROOT

OUT = ROOT / "fixtures" / "upstream"
_FSTRING = re.compile(r"\{([^{}:!]*(?:\{[^{}]*\}[^{}:!]*)*)(![rsa])?(?::([^{}]*))?\}")
_PRINTF = re.compile(r"%([-+ #0]*\d*)(\.\d+)?([sdifr])")

# (phase, module prefixes, the template must start with one of these, and hold all of these)
PHASES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "init_distributed_begin",
        ("sglang.srt.model_executor", "sglang.srt.distributed"),
        ("Init torch distributed begin", "Init parallel begin", "Init nccl begin"),
        (),
    ),
    (
        "init_distributed_end",
        ("sglang.srt.model_executor", "sglang.srt.distributed"),
        ("Init torch distributed ends", "Init parallel ends", "Memory baseline taken"),
        (),
    ),
    ("load_weight_begin", ("sglang.srt.model_executor",), ("Load weight begin",), ("avail mem",)),
    ("load_weight_end", ("sglang.srt.model_executor",), ("Load weight end",), ("avail mem",)),
    ("kv_cache_allocated", ("sglang.srt.mem_cache",), ("KV Cache is allocated", "{cache_name}"), ("K size",)),
    ("memory_pool_end", ("sglang.srt.model_executor", "sglang.srt.mem_cache"), ("Memory pool end",), ()),
    (
        "capture_begin",
        ("sglang.srt.model_executor",),
        ("Capture cuda graph begin", "Capture {capture_name}", "Capture {'cpu graph'", "Capture {graph_backend"),
        ("begin.",),
    ),
    (
        "capture_end",
        ("sglang.srt.model_executor",),
        ("Capture cuda graph end", "Capture {capture_name}", "Capture {'cpu graph'", "Capture {graph_backend"),
        ("end.",),
    ),
    ("scheduler_summary", ("sglang.srt.managers",), ("max_total_num_tokens=",), ()),
    ("server_ready", ("sglang.srt",), ("The server is fired up and ready to roll",), ()),
)
# the value a placeholder takes, by the text just before it
VALUES = (
    ("Init torch distributed ends. mem usage=", "1.53"),
    # 0.5.21+ measures the baseline after every group is built (bootstrap.py measure_pre_model_load_memory): ~0
    ("Memory baseline taken. mem usage=", "0.00"),
    ("Load weight begin. avail mem=", "137.70"),
    ("Memory pool end. avail mem=", "14.80"),
    ("#tokens: ", "1500000"),
    ("K size: ", "45.78"),
    ("V size: ", "45.78"),
    ("KV size: ", "91.56"),
    ("dtype: ", "torch.bfloat16"),
    ("dtype=", "torch.bfloat16"),
    ("type=", "Qwen3ForCausalLM"),
    ("bs=", "[1, 2, 4, 8, 16, 24, 32]"),
    ("backend=", "full"),
    ("num_tokens_per_req=", "1"),
    ("max_total_num_tokens=", "1500000"),
    ("chunked_prefill_size=", "8192"),
    ("max_prefill_tokens=", "16384"),
    ("max_running_requests=", "4096"),
    ("context_len=", "40960"),
    ("available_gpu_mem=", "13.10"),
    ("Time elapsed: ", "18.00"),
)
# values that depend on the phase: (phase, key before the placeholder, value)
PHASE_VALUES = {
    ("load_weight_end", "avail mem="): "106.90",
    ("load_weight_end", "mem usage="): "30.80",
    ("load_weight_end", "elapsed="): "37.00",
    ("capture_begin", "avail mem="): "14.60",
    ("capture_end", "avail mem="): "13.20",
    ("capture_end", "mem usage="): "1.40",
    ("capture_end", "elapsed="): "18.00",
    ("init_distributed_end", "elapsed="): "2.31",
}


def _pick(version: str, phase: str) -> list[dict[str, Any]]:
    _, modules, heads, needs = next(p for p in PHASES if p[0] == phase)
    found = []
    for row in upstream.catalog()["messages"]:
        if (
            row["kind"] == "log"
            and row["level"] == "info"
            and row["module"].startswith(modules)
            and "speculative" not in row["module"]
            and "eagle" not in row["module"]
            and row["template"].startswith(heads)
            and all(n in row["template"] for n in needs)
            and version in upstream.present_in(row)
        ):
            found.append(row)
    return found


def _value(phase: str, before: str, spec: str) -> str:
    for (p, key), value in PHASE_VALUES.items():
        if p == phase and before.endswith(key):
            return value
    for key, value in VALUES:
        if before.endswith(key):
            return value
    if before.endswith(("CUDA graph ", "Capture ")):
        return "target decode" if before.endswith("Capture ") else "CUDA graph"
    return "1.00" if spec and "f" in spec else "1"


def render(row: dict[str, Any], phase: str) -> str:
    template = row["template"]
    if row["style"] == "%":
        return _PRINTF.sub(lambda m: _value(phase, template[: m.start()], (m.group(2) or "") + m.group(3)), template)
    out: list[str] = []
    pos = 0
    for m in _FSTRING.finditer(template):
        before = "".join(out) + template[pos : m.start()]  # the text as printed so far
        if m.group(1).startswith("quant_str"):
            value = ""
        elif m.group(1).startswith("'VA upper bound'"):
            value = "is allocated"
        elif m.group(1) == "cache_name":
            value = "KV Cache"
        elif m.group(1).startswith("graph_backend"):
            value = "CUDA graph" if "capture_name" in template else "cuda graph"
        elif m.group(1) == "capture_name":
            value = "target decode"
        elif cuda_branch := re.fullmatch(r"\s*'[^']*' if .+ else '([^']*)'\s*", m.group(1)):  # the CUDA branch
            value = cuda_branch.group(1)
        else:
            value = _value(phase, before, m.group(3) or "")
        out.append(template[pos : m.start()] + value)
        pos = m.end()
    return "".join(out) + template[pos:]


def log_for(version: str) -> str:
    lines = ["[2026-10-20 09:00:00] server_args=ServerArgs(model_path='/models/Qwen3-32B', tp_size=2, mem_fraction_static=0.88)"]
    clock = 1
    for phase, *_ in PHASES:
        rows = sorted(_pick(version, phase), key=lambda r: r["line"])
        if phase.startswith("capture"):
            rows = [r for r in rows if "prefill" not in r["function"]] or rows
        newer = [r for r in rows if r["template"].startswith(("Init parallel ends", "Memory baseline"))]
        if phase == "init_distributed_end" and newer:
            rows = [
                next(r for r in newer if r["template"].startswith(head))
                for head in ("Init parallel ends", "Memory baseline")
                if any(r["template"].startswith(head) for r in newer)
            ]
        else:
            rows = rows[:1]
        for row in rows:
            text = render(row, phase).strip()
            tags = ("",) if phase == "server_ready" else (" TP0", " TP1")
            if phase == "scheduler_summary":
                tags = (" TP0",)
            for tag in tags:
                lines.append(f"[2026-10-20 09:{clock // 60:02d}:{clock % 60:02d}{tag}] {text}")
            clock += 1
    return "\n".join(lines) + "\n"


def write_all() -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    for version in upstream.versions():
        path = OUT / f"sglang-{version}-tp2.log"
        path.write_text(log_for(version), encoding="utf-8")
        written.append(path)
    return written
