"""grammars/sglang.lark → (prefix, kind, data) for one logical SGLang log line."""

from __future__ import annotations

import re
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import LarkError, VisitError

from logscope.core import kinds
from logscope.core.events import RankId
from logscope.core.grammar_loader import parse

_TWO_DECIMALS = re.compile(r"-?\d+\.\d\d")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(TiB|GiB|MiB|TB|GB|MB)\b")


def _f(tok: Token) -> float:
    return float(str(tok))


def _graph(words: list[str]) -> tuple[dict[str, str], str]:
    """Capture-line words ("draft extend cuda", "target verify CUDA") → ({"model": the role the line states}
    or {} when it states none, graph kind)."""
    lowered = [w.lower() for w in words]
    model = {"model": "draft"} if "draft" in lowered else {"model": "target"} if "target" in lowered else {}
    if "piecewise" in lowered or "prefill" in lowered:
        graph = "prefill"
    elif "extend" in lowered:
        graph = "draft_extend"
    elif "verify" in lowered:
        graph = "verify"
    else:
        graph = "decode"
    return model, graph


class _ToData(Transformer):
    """Each message rule returns (its event kind, data dict); the catalogue (core/kinds.py) lists the rules of
    each kind, named after it where one rule reads one kind."""

    keep_tail = False  # the line is known whole: a last bare integer that a cut could have shortened is read too

    # ---- prefixes
    def sglang_prefix(self, items: list[Token]) -> dict[str, Any]:
        tags = [str(t) for t in items[1:]]
        return {"time": str(items[0]), "rank": RankId.from_tags(tags) if tags else None}

    def torch_rank_prefix(self, items: list[Token]) -> dict[str, Any]:
        n = int(items[0])
        return {"time": None, "rank": RankId(label=f"rank{n}", dims=(("rank", n),))}

    def custom_prefix(self, items: list[Token]) -> dict[str, Any]:
        pid, tags = int(items[2]), [str(t) for t in items[3:] if t.type == "TAG"]
        rank = RankId.from_tags(tags) if tags else RankId(label=f"pid {pid}", dims=(("pid", pid),))
        return {"time": str(items[0]), "rank": rank, "level": str(items[1])}

    def vllm_prefix(self, items: list[Token]) -> dict[str, Any]:
        return {"time": str(items[1]), "rank": None, "level": str(items[0])}

    def basic_prefix(self, items: list[Token]) -> dict[str, Any]:
        return {"time": None, "rank": None, "level": str(items[0]), "logger": str(items[1])}

    def gpu_prefix(self, items: list[Token]) -> dict[str, Any]:
        # the rank is named as printed (the logscope/1 contract: ranks[].rank): sglang 0.1.x-0.2.x's "[gpu_id=0]", "[gpu=0]"
        n = int(items[-1])
        return {"time": None, "rank": RankId(label=f"{items[0]}{n}", dims=(("gpu", n),))}

    # ---- phases
    def init_distributed_begin(self, _items: list) -> tuple:
        return kinds.INIT_DISTRIBUTED_BEGIN, {}

    def init_distributed_end(self, items: list[Token]) -> tuple:
        nums = [_f(t) for t in items if t.type == "NUM2"]
        data = {"usage_gib": nums[-1]}
        if len(nums) == 2:
            data["elapsed_s"] = nums[0]
        return kinds.INIT_DISTRIBUTED_END, data

    def init_parallel_end(self, items: list[Token]) -> tuple:
        return kinds.INIT_PARALLEL_END, {"elapsed_s": _f(items[0])}

    def memory_baseline(self, items: list[Token]) -> tuple:
        # 0.5.21+ measure_pre_model_load_memory: taken after every group is built, so about 0 (not the eager init
        # reading of older releases; the ledger reads the pre-weights memory from the card and Load weight begin)
        return kinds.INIT_DISTRIBUTED_END, {"usage_gib": _f(items[0]), "reading": kinds.MEMORY_BASELINE}

    def nccl_prewarm(self, items: list[Token]) -> tuple:
        ints = [int(t) for t in items if t.type == "INT"]
        nums = [_f(t) for t in items if t.type == "NUM3"]
        return kinds.NCCL_PREWARM, {"elapsed_s": nums[0], "tp_size": ints[0], "pp_size": ints[1], "ep_size": ints[2]}

    def lm_head_warmup(self, items: list[Token]) -> tuple:
        ints = [int(t) for t in items if t.type == "INT"]
        return kinds.LM_HEAD_WARMUP, {"elapsed_s": _f(items[0]), "tp_size": ints[0], "bytes_per_peer": ints[1]}

    def load_weight_begin(self, items: list[Token]) -> tuple:
        return kinds.LOAD_WEIGHT_BEGIN, {"avail_gib": _f(items[0])}

    def load_kv(self, items: list[Token]) -> tuple[str, str]:
        return str(items[0])[:-1], str(items[1])

    def load_elapsed(self, items: list[Token]) -> tuple[str, float]:
        return "elapsed_s", _f(items[0])

    def load_type(self, items: list[Token]) -> tuple[str, str]:
        return "model_type", str(items[0])

    def load_weight_end(self, items: list) -> tuple:
        data: dict[str, Any] = {}
        nums: list[float] = []
        for item in items:
            if isinstance(item, tuple):
                data[item[0]] = item[1]
            elif item.type == "NUM2":
                nums.append(_f(item))
        data["avail_gib"] = nums[0]
        if len(nums) > 1:
            data["usage_gib"] = nums[1]
        return kinds.LOAD_WEIGHT_END, data

    def kv_sizes_kv(self, items: list[Token]) -> dict:
        k, v = _f(items[0]), _f(items[1])
        return {"k_gib": k, "v_gib": v, "kv_gib": round(k + v, 2)}

    def kv_sizes_mla(self, items: list[Token]) -> dict:
        return {"kv_gib": _f(items[0])}

    def kv_cache_allocated(self, items: list) -> tuple:
        data: dict[str, Any] = {}
        for item in items:
            if isinstance(item, dict):
                data.update(item)
            elif item.type == "POOL_LABEL":
                data["pool_label"] = str(item)
            elif item.type == "DTYPE":
                data["dtype"] = str(item)
            elif item.type == "INT":
                data["tokens"] = int(item)
        return kinds.KV_CACHE_ALLOCATED, data

    def kv_dtype(self, items: list[Token]) -> tuple:
        return kinds.KV_DTYPE, {"dtype": str(items[0])}

    def mamba_size(self, items: list[Token]) -> tuple[str, float]:
        return f"{items[0]}_gib", _f(items[1])

    def mamba_alloc(self, items: list) -> tuple:
        data: dict[str, Any] = {"pool": "mamba", "max_mamba_cache_size": int(items[0])}
        for key, value in items[1:]:
            data[key] = value
        data["pool_gib"] = round(sum(v for k, v in data.items() if k.endswith("_gib")), 2)
        return kinds.OTHER_POOL_ALLOCATED, data

    def swa_pool(self, items: list[Token]) -> tuple:
        data: dict[str, Any] = {"pool": "swa"}
        keys = [t for t in items if t.type == "SWA_KEY"]
        ints = [t for t in items if t.type == "INT"]
        # the line ends with a bare integer that a cut would shorten without trace: keep it apart
        for key, value in zip(keys[:-1], ints[:-1]):
            data[str(key)[:-1]] = int(value)
        data[f"{str(keys[-1])[:-1]}_unverified"] = int(ints[-1])
        return kinds.OTHER_POOL_ALLOCATED, data

    def prof_item(self, items: list[Token]) -> tuple[str, Any, bool]:
        return str(items[0])[:-1], str(items[1]), len(items) > 2

    def _budget(self, items: list) -> dict[str, Any]:
        """key=value items of a budget line: sizes in GB only in SGLang's exact %.2f form; a bare integer
        that ends the line is kept apart (a cut paste shortens it without trace)."""
        data: dict[str, Any] = {}
        fields = [item for item in items if isinstance(item, tuple)]
        for index, (key, value, sized) in enumerate(fields):
            if sized:
                if _TWO_DECIMALS.fullmatch(value):
                    data[f"{key}_gib"] = float(value)
            elif value.lstrip("-").isdigit():
                data[key if index < len(fields) - 1 else f"{key}_unverified"] = int(value)
            elif _TWO_DECIMALS.fullmatch(value) or value.replace(".", "", 1).isdigit():
                data[key] = float(value)
            else:
                data[key] = value
        return data

    def dsv4_memory(self, items: list) -> tuple:
        return kinds.DSV4_MEMORY, self._budget(items[1:])

    def dsv4_pool_sizes(self, items: list) -> tuple:
        return kinds.DSV4_POOL_SIZES, self._budget(items)

    def post_capture_draft_kv(self, items: list[Token]) -> tuple:
        return kinds.POST_CAPTURE_DRAFT_KV, {"dtype": str(items[0]), "tokens": int(items[1]), "kv_gib": _f(items[2])}

    def post_capture_kv(self, items: list[Token]) -> tuple:
        return kinds.POST_CAPTURE_KV, {
            "dtype": str(items[0]),
            "tokens": int(items[1]),
            "kv_gib": _f(items[2]),
            "avail_gib": _f(items[3]),
        }

    def memory_pool_end(self, items: list[Token]) -> tuple:
        return kinds.MEMORY_POOL_END, {"avail_gib": _f(items[0])}

    def kv_reserve(self, items: list[Token]) -> tuple:
        return kinds.KV_RESERVE, {"reserve_gib": _f(items[0]), "purpose": str(items[1])}

    # ---- CUDA graphs
    def graph_kv(self, items: list[Token]) -> tuple[str, str]:
        return str(items[0])[:-1], str(items[1])

    def capture_begin_tail(self, items: list) -> dict:
        data: dict[str, Any] = {}
        for item in items:
            if isinstance(item, tuple):
                key, value = item
                if key in ("bs", "num_tokens") and value.startswith("["):
                    data[key] = _int_list(value)
                elif key == "num_tokens_per_req" and value.isdigit():
                    data[key] = int(value)
                else:
                    data[key] = value
            elif item.type == "NUM2":
                data["avail_gib"] = _f(item)
        return data

    def capture_begin(self, items: list) -> tuple:
        words = [str(t) for t in items if isinstance(t, Token) and t.type == "GRAPH_WORD"]
        model, graph = _graph(words)
        return kinds.CAPTURE_BEGIN, {**model, "graph": graph, **items[-1]}

    def end_usage(self, items: list[Token]) -> tuple[str, float]:
        return "usage_gib", _f(items[0])

    def end_avail(self, items: list[Token]) -> tuple[str, float]:
        return "avail_gib", _f(items[0])

    def end_old(self, items: list) -> dict:
        return {"elapsed_s": _f(items[0]), **dict(items[1:])}

    def end_kv(self, items: list[Token]) -> tuple[str, Any]:
        key, value = str(items[0])[:-1], str(items[1])
        return key, _int_list(value) if key in ("bs", "num_tokens") and value.startswith("[") else value

    def end_new(self, items: list) -> dict:
        lead = [item for item in items if isinstance(item, tuple) and not isinstance(item[1], float)]
        rest = [item for item in items if not (isinstance(item, tuple) and not isinstance(item[1], float))]
        return {**dict(lead), "elapsed_s": _f(rest[0]), **dict(rest[1:])}

    def capture_end(self, items: list) -> tuple:
        words = [str(t) for t in items if isinstance(t, Token) and t.type == "GRAPH_WORD"]
        model, graph = _graph(words)
        return kinds.CAPTURE_END, {**model, "graph": graph, **items[-1]}

    def capture_bs(self, items: list[Token]) -> tuple:
        words = [str(t) for t in items if t.type == "GRAPH_WORD"]
        model, graph = _graph(words)
        return kinds.CAPTURE_BS, {**model, "graph": graph, "bs": _int_list(str(items[-1]))}

    def capture_progress(self, items: list[Token]) -> tuple:
        if len(items) < 3:  # no batch size printed (0.4.x before 0.4.8)
            return kinds.CAPTURE_PROGRESS, {"avail_gib": _f(items[0])}
        key = str(items[0])[:-1]
        return kinds.CAPTURE_PROGRESS, {key: int(items[1]), "avail_gib": _f(items[2])}

    # ---- summary and readiness
    def sched_kv(self, items: list[Token]) -> tuple[str, Any]:
        value = str(items[1])
        return str(items[0])[:-1], int(value) if value.lstrip("-").isdigit() else value

    def scheduler_summary(self, items: list) -> tuple:
        data: dict[str, Any] = {"tokens": int(items[0])}
        fields = [item for item in items[1:] if isinstance(item, tuple)]
        avail = [item for item in items[1:] if isinstance(item, Token) and item.type == "NUM2"]
        if not avail and not self.keep_tail:
            # the older line (0.3.0 .. 0.4.6.post5, catalog/sglang.json: it ends at context_len) ends with a bare
            # integer, which a cut paste shortens without trace: drop it, and refuse a line that holds nothing else
            if not fields:
                raise _CutLine()
            fields = fields[:-1]
        data.update(dict(fields))
        if avail:
            data["avail_gib"] = _f(avail[0])
        return kinds.SCHEDULER_SUMMARY, data

    def server_ready(self, _items: list) -> tuple:
        return kinds.SERVER_READY, {}

    def startup_timings(self, items: list[Token]) -> tuple:
        return kinds.STARTUP_TIMINGS, {"text": str(items[0])}

    # ---- communication
    def nccl_using(self, items: list[Token]) -> tuple:
        return kinds.NCCL_VERSION, {"nccl": str(items[0]), "via": "pynccl"}

    def nccl_native_version(self, items: list[Token]) -> tuple:
        return kinds.NCCL_VERSION, {"nccl": str(items[0]).split("+")[0], "via": "nccl"}

    def ar_item(self, items: list[Token]) -> tuple[str, Any]:
        key, value = str(items[0]), str(items[1])
        if len(items) > 2:
            return f"{key}_mib", float(value)
        if value in ("True", "False"):
            return key, value == "True"
        return key, value

    def ar_config(self, items: list) -> tuple:
        return kinds.AR_CONFIG, dict(items)

    def ar_disabled(self, items: list[Token]) -> tuple:
        return kinds.AR_DISABLED, {"component": str(items[0]), "reason": _ar_reason(str(items[1])), "text": str(items[1])}

    def ar_setup_failed(self, items: list[Token]) -> tuple:
        # SGLang's fallback: it logs the error and goes on with NCCL all-reduce (custom-ar-disabled)
        error = str(items[0]).split(". To silence", 1)[0]
        return kinds.AR_DISABLED, {"component": "Setup Custom allreduce", "reason": f"setup failed with {error}", "error": error}

    def ar_registering(self, items: list[Token]) -> tuple:
        return kinds.AR_REGISTERING, {"addresses": int(items[0])}

    def cuda_failed(self, items: list[Token]) -> tuple:
        text = str(items[0])
        kind = kinds.AR_FAILED if "custom_all_reduce" in text or "all_reduce" in text else kinds.CUDA_ERROR
        return kind, {"error": text}

    # ---- failures
    def imbalance_numbers(self, items: list[Token]) -> dict:
        local = float(items[2])
        data: dict[str, Any] = {"min_key": str(items[0])[:-1], "min_free_gib": float(items[1]), "local_free_gib": local}
        threshold = float(items[3])
        # the last number ends the line; keep it only when it is exactly what SGLang computes (local * 0.9),
        # so a cut repr ("27.4919") is never taken for the value
        if threshold == local * 0.9:  # repr round-trips: the printed value is exactly this
            data["threshold_gib"] = threshold
        return data

    def imbalance(self, items: list) -> tuple:
        return kinds.IMBALANCE, (items[1] if len(items) > 1 else {})

    def current_fraction(self, items: list[Token]) -> dict:
        return {"mem_fraction_static": float(items[1])}

    def not_enough_memory(self, items: list) -> tuple:
        return kinds.NOT_ENOUGH_MEMORY, (items[0] if items else {})

    def no_kv_memory(self, items: list[Token]) -> tuple:
        return kinds.NOT_ENOUGH_MEMORY, {"mem_fraction_static": float(items[0]), "suggested_fraction": float(items[1])}

    def deepgemm_budget(self, items: list[Token]) -> tuple:
        nums = [_f(t) for t in items if t.type == "NUM2"]
        return kinds.DEEPGEMM_BUDGET, {"budget_gib": nums[0], "free_gib": nums[1]}

    def deepgemm_warmup(self, items: list[Token]) -> tuple:
        nums = [_f(t) for t in items if t.type == "NUM2"]
        return kinds.DEEPGEMM_WARMUP, {"required_gib": nums[0], "available_gib": nums[1]}

    def hicache_host(self, items: list[Token]) -> tuple:
        return kinds.HICACHE_HOST, {"host_gb": _f(items[0])}

    def swa_pool_usage(self, items: list[Token]) -> tuple:
        return kinds.SWA_POOL_USAGE, {"gib": _f(items[0]), "swa_tokens": int(items[1]), "full_tokens": int(items[2])}

    def pool_available(self, items: list[Token]) -> tuple:
        head, total, _available_key, available, _evictable_key, evictable = items
        pool = str(head).replace("Available", "").replace("available", "").replace("tokens", "").strip().lower()
        data = {"pool": pool or "kv", "tokens": int(total), "available": int(available), "evictable": int(evictable)}
        return kinds.POOL_AVAILABLE, data

    def kv_va_bound(self, items: list[Token]) -> tuple:
        label = [str(t) for t in items if t.type == "POOL_LABEL"]
        rest = [t for t in items if t.type != "POOL_LABEL"]
        text = str(rest[0]).lstrip(":= ").strip() if rest else ""
        values: dict[str, Any] = {"text": text}
        if label:
            values["pool_label"] = label[0]
        size = _SIZE.search(text)
        if size is not None:
            values["size"], values["unit"] = float(size.group(1)), size.group(2)
        return kinds.KV_VA_BOUND, values

    def attention_backend(self, items: list[Token]) -> tuple:
        return kinds.ATTENTION_BACKEND, {"backend": str(items[1]), "chosen_by": "default"}

    def mla_backend(self, items: list[Token]) -> tuple:
        return kinds.ATTENTION_BACKEND, {"backend": str(items[0]), "chosen_by": "MLA optimization"}

    def platform(self, items: list[Token]) -> tuple:
        return kinds.PLATFORM, {"platform": str(items[0])}

    def symm_prealloc(self, items: list[Token]) -> tuple:
        return kinds.SYMM_PREALLOC, {"gib": float(items[0])}

    def symm_failed(self, items: list[Token]) -> tuple:
        return kinds.NCCL_ERROR, {
            "error": "NCCL symmetric memory allocation failed. " + (str(items[0]) if items else ""),
            "component": "symmetric memory",
        }

    def symm_default(self, items: list[Token]) -> tuple:
        return kinds.SYMM_DEFAULT, {"gib": int(items[0])}

    def tokens_capped(self, items: list[Token]) -> tuple:
        return kinds.TOKENS_CAPPED, {"requested": int(items[0]), "profiled": int(items[1])}

    def staging_buffer(self, items: list[Token]) -> tuple:
        return kinds.STAGING_BUFFER, {"mib": float(items[0]), "device": str(items[1]), "detail": str(items[2])}

    def staging_allocator(self, items: list[Token]) -> tuple:
        return kinds.STAGING_ALLOCATOR, {"mib": float(items[0]), "device": str(items[1])}

    def mooncake_ret(self, items: list[Token]) -> int:
        return int(items[0])

    def mooncake_failed(self, items: list[Any]) -> tuple[str, dict[str, Any]]:
        data: dict[str, Any] = {"backend": "mooncake", "error": ""}
        for item in items[1:]:
            if isinstance(item, int):
                data["ret"] = item
            else:
                data["error"] = str(item)
        return kinds.PD_TRANSFER_FAILED, data

    def nixl_failed(self, items: list[Token]) -> tuple:
        return kinds.PD_TRANSFER_FAILED, {"backend": "nixl", "error": str(items[0])}

    def deepep_capped(self, items: list[Token]) -> tuple:
        return kinds.DEEPEP_CAPPED, {"to": int(items[0]), "from": int(items[1])}

    def deepep_reserve(self, items: list[Token]) -> tuple:
        return kinds.DEEPEP_RESERVE, {"reserve_gib": float(items[0]), "text": str(items[1])}

    def deepep_missing(self, _items: list) -> tuple:
        return kinds.DEEPEP_MISSING, {}

    def process_exception(self, items: list[Token]) -> tuple:
        return kinds.PROCESS_EXCEPTION, {"process": str(items[0]).split(" hit")[0]}

    def sigquit(self, _items: list) -> tuple:
        return kinds.SIGQUIT, {}

    def scheduler_died(self, items: list[Token]) -> tuple:
        return kinds.SCHEDULER_DIED, {"rank": int(items[0]), "exit_code": int(items[1])}

    def init_failed(self, items: list[Token]) -> tuple:
        return kinds.INIT_FAILED, {"text": str(items[0]) if items else ""}

    def nccl_error(self, items: list[Token]) -> tuple:
        return kinds.NCCL_ERROR, {"error": str(items[0])}

    def capture_failed(self, items: list[Token]) -> tuple:
        return kinds.BODY_CAPTURE_FAILED, {"error": str(items[0])}

    def exception_line(self, items: list) -> tuple:
        name = str(items[0])
        body = items[1] if len(items) > 1 else None
        if isinstance(body, tuple):
            kind, data = body
            return kinds.EXCEPTION, {"exception": name, "body_kind": kind, **data}
        message = str(body) if body is not None else ""
        if "out of memory" in message.lower() or "cudaErrorMemoryAllocation" in message:
            # an OOM from CUDA itself (NCCL, custom kernels, cudaMalloc), without the caching allocator's text
            return kinds.OOM, {"exception": name, "message": message, "cuda_error": True}
        return kinds.EXCEPTION, {"exception": name, "body_kind": None, "message": message}

    @v_args(inline=True)
    def start(self, *parts: Any) -> tuple[dict | None, str, dict]:
        prefix = parts[0] if len(parts) == 2 else None
        kind, data = parts[-1]
        return prefix, kind, data


_AR_REASONS = (
    ("spans across nodes", "multi-node"),
    ("unsupported world", "unsupported-world-size"),
    ("PCIe-only", "pcie-only"),
    ("P2P", "no-p2p"),
)


def _ar_reason(text: str) -> str:
    for needle, reason in _AR_REASONS:
        if needle in text:
            return reason
    return "other"


def _int_list(text: str) -> list[int]:
    return [int(x) for x in text.strip("[]").replace(" ", "").split(",") if x.lstrip("-").isdigit()]


class _CutLine(Exception):
    """A line whose only values end it, so a cut paste could have shortened them."""


_TRANSFORMER = _ToData()
_WHOLE_LINE = _ToData()
_WHOLE_LINE.keep_tail = True


def parse_line(text: str, whole: bool = False) -> tuple[dict | None, str, dict] | None:
    """(prefix info, kind, data) or None when the line is not a recognised SGLang line. `whole`: the line is known
    to end where SGLang ended it (the next line of its source begins a record of its own), so its last value is
    read even where a cut could have shortened it."""
    try:
        tree = parse(kinds.SGLANG, text.strip())
    except LarkError:
        return None
    try:
        result = (_WHOLE_LINE if whole else _TRANSFORMER).transform(tree)
    except VisitError:
        return None  # a cut line (_CutLine) or a tree no transformer method expects: unrecognised, never a crash
    if isinstance(result, Tree):  # pragma: no cover - every rule has a transformer method (tested)
        return None
    return result
