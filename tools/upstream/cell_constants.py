"""Extract the constants logscope's communication cells and KV sizing rules use from released SGLang wheels.

    python -m tools.upstream.cell_constants WHEEL [WHEEL ...] -o logscope/data/cell_constants.yaml

Each wheel is read as a zip (nothing is imported or installed); each constant is found in its source file
(a line located by a pattern, its value computed from the Python expression with `ast`, never eval) and
written with its file:line, per version. A constant a release does not have is written as null with the
reason, so the cells can say "this version has no such rule". The output is a generated file: do not edit it.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path
from typing import Any, cast

import yaml

from tools.upstream.elf_const import symbol_value
from tools.upstream.nccl_constants import nccl_sources

KB, MB = 1024, 1024 * 1024
_NAMES = {"KB": KB, "MB": MB, "True": True, "False": False, "None": None}
_JIT_COMMON = "sglang/jit_kernel/include/sgl_kernel/distributed/common.cuh"
_V2_CONFIGS = "sglang/srt/distributed/device_communicators/configs/custom_all_reduce_v2.py"
_V2 = "sglang/srt/distributed/device_communicators/custom_all_reduce_v2.py"
_V1 = "sglang/srt/distributed/device_communicators/custom_all_reduce.py"
_ENVIRON = "sglang/srt/environ.py"
_PARALLEL = "sglang/srt/distributed/parallel_state.py"
_ENGINE = "sglang/srt/entrypoints/engine.py"
_MEMORY_HOOK = ("sglang/srt/arg_groups/memory_hook.py", "sglang/srt/server_args.py")
_DEEPSEEK = "sglang/srt/models/deepseek_v2.py"
_REQS = ("sglang/srt/model_executor/pool_configurator.py", "sglang/srt/model_executor/model_runner.py")
_EXEC_FIELDS = ("sglang/srt/arg_groups/fields/exec_.py", "sglang/srt/server_args.py")


class Missing(Exception):
    pass


def arith(node: ast.AST) -> Any:
    """The value of a constant arithmetic expression (numbers, KB/MB, + - * / //, unary minus)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -arith(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = arith(node.left), arith(node.right)
        ops = {
            ast.Add: lambda: left + right,
            ast.Sub: lambda: left - right,
            ast.Mult: lambda: left * right,
            ast.Div: lambda: left / right,
            ast.FloorDiv: lambda: left // right,
            ast.Pow: lambda: left**right,
        }
        if type(node.op) in ops:
            return ops[type(node.op)]()
    raise Missing(f"not a constant expression: {ast.unparse(node)}")


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


class Wheel:
    def __init__(self, path: Path):
        self.path = path
        self.zip = zipfile.ZipFile(path)
        self.names = set(self.zip.namelist())
        m = re.match(r"sglang-([^-]+)-", path.name)
        if not m:
            raise SystemExit(f"{path}: not an sglang wheel name")
        self.version = m.group(1)

    def source(self, name: str) -> str | None:
        return self.zip.read(name).decode("utf-8") if name in self.names else None

    def find(self, files: str | tuple[str, ...], pattern: str, group: int = 1) -> dict[str, Any]:
        """The first line of the first file that matches `pattern`; the group is a Python expression."""
        for name in (files,) if isinstance(files, str) else files:
            text = self.source(name)
            if text is None:
                continue
            for lineno, line in enumerate(text.splitlines(), 1):
                m = re.search(pattern, line)
                if m:
                    expr = m.group(group).strip()
                    try:
                        value = _number(arith(ast.parse(expr, mode="eval").body))
                    except (Missing, SyntaxError):
                        value = expr
                    return {"value": value, "at": f"{name}:{lineno}"}
        where = files if isinstance(files, str) else " / ".join(files)
        return {"value": None, "at": None, "absent": f"no line matching /{pattern}/ in {where}"}

    def find_after(self, files: tuple[str, ...], anchor: str, pattern: str, within: int) -> dict[str, Any]:
        """The first line matching `pattern` at most `within` lines after a line matching `anchor`."""
        for name in files:
            lines = (self.source(name) or "").splitlines()
            for index, line in enumerate(lines):
                if re.search(anchor, line):
                    for offset, later in enumerate(lines[index + 1 : index + 1 + within], index + 2):
                        m = re.search(pattern, later)
                        if m:
                            try:
                                value = _number(arith(ast.parse(m.group(1), mode="eval").body))
                            except (Missing, SyntaxError):
                                value = m.group(1)
                            return {"value": value, "at": f"{name}:{offset}"}
        return {
            "value": None,
            "at": None,
            "absent": f"no /{pattern}/ within {within} lines after /{anchor}/ in {' / '.join(files)}",
        }


def _env(wheel: Wheel, name: str) -> dict[str, Any]:
    return wheel.find(_ENVIRON, rf"^\s+{name} = Env\w+\((.*)\)\s*$")


def _heuristic(node: Any) -> dict[str, Any]:  # an ast.Tuple row or a Heuristic(...) ast.Call
    items = node.elts if isinstance(node, ast.Tuple) else node.args  # a table row, or Heuristic(...)
    values = []
    mc = [0, 0]
    for item in items:
        if isinstance(item, ast.Call) and getattr(item.func, "id", "") == "Range":
            mc = [_number(arith(a)) for a in item.args]
        else:
            values.append(int(arith(item)))  # _pack_heuristic: int(p) for floats
    return {"one_shot_push": values[0], "one_shot_pull": values[1], "two_shot_pull": values[2], "mc": mc}


def _arch_table(tree: ast.Module, function: str) -> dict[str, Any] | None:
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function), None)
    if fn is None:
        return None
    pull_blocks: Any = None
    for call in ast.walk(fn):
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "AllReduceConfig":
            kw = {k.arg: k.value for k in call.keywords}
            try:
                pull_blocks = _number(arith(kw["num_pull_blocks"]))
            except Missing:
                pull_blocks = ast.unparse(kw["num_pull_blocks"])
    ret: Any = next(n for n in ast.walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict))
    worlds = {}
    for key, value in zip(ret.value.keys, ret.value.values):
        kw = {k.arg: k.value for k in value.keywords}
        worlds[int(arith(key))] = {
            "graph": _heuristic(kw["graph"]),
            "eager": _heuristic(kw["eager"]),
            "two_shot_push": _number(arith(kw["two_shot_push"])) if "two_shot_push" in kw else 0,
            "line": value.lineno,
        }
    return {"num_pull_blocks": pull_blocks, "at": f"{_V2_CONFIGS}:{fn.lineno}", "worlds": worlds}


def _map_table(tree: ast.Module, function: str) -> dict[str, Any] | None:
    """0.5.16-0.5.18: `_sm90_config(world_size, num_sm)` holds `graph_map` and `eager_map` ({W: (push, pull, two-shot
    pull[, Range])}) and returns AllReduceConfig(graph=..., eager=..., num_pull_blocks=...)."""
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function), None)
    if fn is None:
        return None
    maps: dict[str, ast.Dict] = {}
    pull_blocks: Any = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            maps[getattr(node.targets[0], "id", "")] = node.value
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "AllReduceConfig":
            kw = {k.arg: k.value for k in node.keywords}
            try:
                pull_blocks = _number(arith(kw["num_pull_blocks"]))
            except Missing:
                pull_blocks = ast.unparse(kw["num_pull_blocks"])
    if "graph_map" not in maps or "eager_map" not in maps:
        return None
    graph = {int(arith(k)): _heuristic(v) for k, v in zip(maps["graph_map"].keys, maps["graph_map"].values) if k is not None}
    eager = {int(arith(k)): _heuristic(v) for k, v in zip(maps["eager_map"].keys, maps["eager_map"].values) if k is not None}
    worlds = {w: {"graph": graph[w], "eager": eager[w], "two_shot_push": 0, "line": fn.lineno} for w in graph if w in eager}
    return {"num_pull_blocks": pull_blocks, "at": f"{_V2_CONFIGS}:{fn.lineno}", "worlds": worlds}


def _default_table(tree: ast.Module) -> dict[str, Any] | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "_get_all_reduce_configs":
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "AllReduceConfig":
                    kw = {k.arg: k.value for k in call.keywords}
                    row = {"graph": _heuristic(kw["graph"]), "eager": _heuristic(kw["eager"]), "two_shot_push": 0}
                    return {
                        "num_pull_blocks": ast.unparse(kw["num_pull_blocks"]),
                        "at": f"{_V2_CONFIGS}:{call.lineno}",
                        "row": row,
                    }
        if isinstance(node, ast.FunctionDef) and node.name == "get_all_reduce_config":  # 0.5.16-0.5.18
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.Assign) and getattr(stmt.targets[0], "id", "") == "default":
                    h = _heuristic(stmt.value)
                    return {
                        "num_pull_blocks": "num_sm",
                        "at": f"{_V2_CONFIGS}:{stmt.lineno}",
                        "row": {"graph": h, "eager": h, "two_shot_push": 0},
                    }
    return None


def _threshold_maps(tree: ast.Module) -> dict[str, Any] | None:
    """0.5.12.post1-0.5.15.post1 (no configs/ module): `_init_config` assigns THRESHOLD_2_SHOT_MAP = {W:
    ModeConfig(one_shot_push, one_shot_pull)} under `if is_sm100_supported():` (sm100) and its `else:` (default)."""
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name in ("_init_config", "_maybe_init_config")):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.If) and "is_sm100_supported" in ast.unparse(node.test):
                out: dict[str, Any] = {"at": f"{_V2}:{node.lineno}"}
                for arch, body in (("sm100", node.body), ("default", node.orelse)):
                    for stmt in body:
                        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict):
                            out[arch] = {
                                int(arith(k)): int(arith(v.args[0]))  # type: ignore[union-attr,attr-defined]
                                for k, v in zip(stmt.value.keys, stmt.value.values)
                                if k is not None
                            }
                if "default" in out:
                    return out
    return None


def custom_ar_v2_early(wheel: Wheel) -> dict[str, Any] | None:
    """The first v2 (0.5.12.post1-0.5.15.post1): one cudaMalloc'd storage per rank (jit_kernel
    custom_all_reduce.cuh storage_bytes) = signals + graph params (sizeof(AllReduceData) = 8 B x kMaxNumGPU,
    x (1 + graph_input_count)) + the pull buffer + kNumStages x W x the push buffer (the world's one-shot push
    threshold), each aligned to 128 B."""
    text = wheel.source(_V2)
    if text is None or wheel.source(_V2_CONFIGS) is not None or "THRESHOLD_2_SHOT_MAP" not in text:
        return None
    maps = _threshold_maps(ast.parse(text))
    return {
        "push_thresholds": maps,
        "max_pull_bytes": wheel.find(_V2, r"max_pull_size = (\d[\d *]*)"),
        "graph_input_count": wheel.find(_V2, r"graph_input_count=(\d+)"),
        "push_stages": wheel.find(_JIT_COMMON, r"static constexpr int64_t kNumStages = (\d+);"),
        "max_gpus": wheel.find(_JIT_COMMON, r"inline constexpr uint32_t kMaxNumGPU = (\d+);"),
    }


def custom_ar_v2(wheel: Wheel) -> dict[str, Any]:
    configs = wheel.source(_V2_CONFIGS)
    if wheel.source(_V2) is None:
        return {"present": False, "absent": f"{_V2} is not in this release"}
    tree = ast.parse(configs) if configs is not None else None
    return {
        "present": True,
        "tables_absent": None if configs is not None else f"{_V2_CONFIGS} is not in this release (no tuned tables read)",
        "default_on": _env(wheel, "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2"),
        "dispatch": wheel.find(_V1, r"if (_is_cuda and envs\.SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2\.get\(\)):"),
        # where present, a group v2 cannot serve (not full NVLink) falls back to the legacy CustomAllreduce
        "fallback_gate": wheel.find(_V1, r"if (can_use_custom_all_reduce_v2)\(group=group, device=device\):"),
        # 0.5.10.post1-0.5.11: v2 only when this variable is set (default false)
        "opt_in_env": wheel.find(_V1, r'get_bool_env_var\("(SGLANG_USE_JIT_ALL_REDUCE)", default="false"\)'),
        "max_size_kb": _env(wheel, "SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB"),
        "align_bytes": wheel.find(_V2, r"^_ALIGN_BYTES = (.+)$"),
        "semaphore_bytes": wheel.find(_V2, r"^_SEMAPHORE_BYTES = (.+)$"),
        "max_graph_inputs": wheel.find(_V2, r"^_MAX_GRAPH_INPUTS = (.+)$"),
        "graph_params_dtype": wheel.find(_V2, r"dtype=torch\.(uint64|int64)", 1),
        "push_slots_per_peer": wheel.find(_V2, r"push_num_(?:slots|bufs) = (\d+) \* self\.world_size"),
        "two_shot_push_slot_rule": wheel.find(_V2_CONFIGS, r"return (32 \* -\(-nbytes // \(16 \* world_size\)\))"),
        "arch": {}
        if tree is None
        else {
            "sm90": _arch_table(tree, "_sm90_configs") or _map_table(tree, "_sm90_config"),
            "sm100": _arch_table(tree, "_sm100_configs") or _map_table(tree, "_sm100_config"),
            "sm107": _arch_table(tree, "_sm107_configs"),
        },
        "other_arch": None if tree is None else _default_table(tree),
        "early": custom_ar_v2_early(wheel),
    }


def custom_ar_v1(wheel: Wheel) -> dict[str, Any]:
    return {
        # 0.4.3+: the class constant; 0.4.0-0.4.2: the constructor's default
        "max_size": _first(
            wheel.find(_V1, r"^\s+_MAX_CAR_SIZE = (\d[\d *]*)$"), wheel.find(_V1, r"^\s+max_size=(\d[\d *]*),\s*$")
        ),
        "from_vllm": wheel.find("sglang/srt/model_executor/model_runner.py", r"from (vllm\.distributed)[\w.]* import"),
        "world_sizes": wheel.find(_V1, r"_SUPPORTED_WORLD_SIZES = (\[[\d, ]+\])"),
    }


def _list(entry: dict[str, Any]) -> dict[str, Any]:
    if isinstance(entry.get("value"), str) and entry["value"].startswith("["):
        entry["value"] = [int(x) for x in re.findall(r"\d+", entry["value"])]
    return entry


def nccl(wheel: Wheel) -> dict[str, Any]:
    return {
        "cumem_set_to": wheel.find(_ENGINE, r"(int\((?:cfg|server_args)\.enable_symm_mem\b[^)]*\))"),
        "nvls_set_to": wheel.find(_ENGINE, r"(int\((?:cfg|server_args|self)\.enable_nccl_nvls or \w+\.enable_symm_mem\))"),
        "cumem_guard": wheel.find(_ENGINE, r'if ("NCCL_CUMEM_ENABLE" not in os\.environ or .*):'),
        "pre_warm_nccl": wheel.find(_EXEC_FIELDS, r'"Pre-warm NCCL.*(Default: [^"]*)"'),
        "world_group_device_id": wheel.find(_PARALLEL, r"init_process_group\(.*(device_id)="),
        "attention_tp_custom_ar": wheel.find(_PARALLEL, r"^            use_custom_allreduce=(None|False|True),\s*$"),
        "sync_token_ids_across_tp": _env(wheel, "SGLANG_SYNC_TOKEN_IDS_ACROSS_TP"),
    }


def deepep(wheel: Wheel) -> dict[str, Any]:
    return {
        "num_max_dispatch_tokens_per_rank": _env(wheel, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"),
        "expert_count_per_rank_shared_slots": wheel.find(
            _DEEPSEEK, r"num_experts_for_moe = (config\.n_routed_experts \+ self\.moe_ep_size)"
        ),
        # 0.5.20+: memory_hook.py reserve_for_deepep_a2a_mb returns it; 0.5.15.post1-0.5.19: inline in
        # server_args.py after the moe_a2a_backend == "deepep" condition
        "reserve_mib": _first(
            wheel.find(_MEMORY_HOOK[:1], r"^        return (2 \* 1024)$"),
            wheel.find_after(
                _MEMORY_HOOK[1:], r'moe_a2a_backend == "deepep"', r"^\s+(?:reserved_mem \+=|return) (2 \* 1024)$", 3
            ),
        ),
        # 0.5.11-0.5.17 determine_num_fused_shared_experts, 0.5.18+ shared_experts_fusion_disable_reason
        "shared_fusion_off_under_deepep": wheel.find(
            _DEEPSEEK, r'(?:return |disable_reason = )"(DeepEP: fusion off by default[^"]*)"'
        ),
        "reserve_function": wheel.find(_MEMORY_HOOK, r"^def (reserve_for_deepep_a2a_mb)\("),
        "param_bytes": wheel.find("sglang/srt/layers/moe/token_dispatcher/deepep.py", r"self\.params_bytes = (\d+)"),
        # --moe-a2a-backend deepep_v2: DeepEP's ElasticBuffer (token_dispatcher/deepep_v2.py), prebuilt at the end
        # of the graph setup where model_runner.py calls prebuild_deepep_v2_buffer, else at the first dispatch
        "v2_dispatcher": wheel.find("sglang/srt/layers/moe/token_dispatcher/deepep_v2.py", r"^\s+buffer = (ElasticBuffer)\($"),
        "v2_prebuild": wheel.find(
            "sglang/srt/model_executor/model_runner.py", r"^\s+(prebuild_deepep_v2_buffer)\(model=self\.model\)$"
        ),
    }


def _first(*entries: dict[str, Any]) -> dict[str, Any]:
    return next((e for e in entries if e["value"] is not None), entries[-1])


def _statement_gate(wheel: Wheel, files: tuple[str, ...], pattern: str) -> dict[str, Any]:
    """The `if` conditions a `reserved_mem` statement of the automatic rule sits under (outermost first, the
    `mem_fraction_static is None` guard left out), joined by " and "; "always" when it sits under none."""
    for name in files:
        text = wheel.source(name)
        if text is None:
            continue
        tree = ast.parse(text)
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.AugAssign) and re.search(pattern, ast.unparse(node)):
                conditions: list[str] = []
                up = parents.get(node)
                while up is not None and not isinstance(up, ast.FunctionDef):
                    if isinstance(up, ast.If) and "mem_fraction_static is None" not in ast.unparse(up.test):
                        conditions.append(ast.unparse(up.test))
                    up = parents.get(up)
                return {"value": " and ".join(reversed(conditions)) or "always", "at": f"{name}:{node.lineno}"}
    return {"value": None, "at": None, "absent": f"no reserved_mem += /{pattern}/ in {' / '.join(files)}"}


def _tiers(wheel: Wheel) -> dict[str, Any]:
    """0.5.2 and older: reserved_mem by card size, `if gpu_mem < X * 1024: reserved_mem = (a + parallel_size / b)
    * 1024`, as rows [upper bound MiB or null, MiB, MiB per parallel rank]."""
    for name in _MEMORY_HOOK:
        text = wheel.source(name)
        if text is None:
            continue
        for node in ast.walk(ast.parse(text)):
            if not (isinstance(node, ast.If) and ast.unparse(node.test).startswith("gpu_mem < ")):
                continue
            rows: list[list[Any]] = []
            branch: Any = node
            while True:
                assign = branch.body[0] if isinstance(branch, ast.If) else branch[0]
                if not (isinstance(assign, ast.Assign) and ast.unparse(assign.targets[0]) == "reserved_mem"):
                    break
                expr = ast.unparse(assign.value)
                m = re.fullmatch(r"\(([\d.]+) \+ parallel_size / (\d+)\) \* 1024|(\d+) \* 1024", expr)
                if m is None:
                    break
                upper = _number(arith(cast(ast.Compare, branch.test).comparators[0])) if isinstance(branch, ast.If) else None
                if m.group(3):
                    rows.append([upper, _number(float(m.group(3)) * 1024), 0])
                else:
                    rows.append([upper, _number(float(m.group(1)) * 1024), _number(1024 / float(m.group(2)))])
                if not isinstance(branch, ast.If):
                    return {"value": rows, "at": f"{name}:{node.lineno}"}
                branch = branch.orelse[0] if len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If) else branch.orelse
    return {"value": None, "at": None, "absent": "no `if gpu_mem < X * 1024: reserved_mem = ...` tiers"}


_SERVER_ARGS = "sglang/srt/server_args.py"
_BOOST = r"min\(mem_fraction \+ (\d+) \* 1024 \* \(1 - mem_fraction\) / gpu_mem, \(gpu_mem - 1024 \* (\d+)\) / gpu_mem\)"


def _fraction_chain(node: ast.stmt, names: dict[str, list[str]]) -> tuple[list[str], list[list[float]], float] | None:
    """`if self.tp_size >= 16: f = 0.79 elif ... else: f = 0.88` (or on a local such as parallel_size, whose
    assignment `names` gives): the server arguments compared, the [at least, fraction] rows and the else branch's
    fraction."""
    rows: list[list[float]] = []
    by: list[str] | None = None
    branch: Any = node
    while isinstance(branch, ast.If):
        test = branch.test
        if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.GtE) and isinstance(branch.body[0], ast.Assign)):
            return None
        rows.append([_number(arith(test.comparators[0])), _number(arith(branch.body[0].value))])
        compared = ast.unparse(test.left)
        by = [compared.removeprefix("self.")] if compared.startswith("self.") else names.get(compared)
        if by is None or len(branch.orelse) != 1:
            return None
        branch = branch.orelse[0]
    if by is None or not isinstance(branch, ast.Assign):
        return None
    return by, rows, _number(arith(branch.value))


def _parallel_tiers(wheel: Wheel) -> dict[str, Any]:
    """0.3.0-0.4.6: mem_fraction_static by the parallel size (`if self.tp_size >= 16: 0.79 elif ...`; tp x pp from
    0.4.6), only on cards up to `gpu_mem <= X` (0.4.5+; larger cards: a constant or (gpu_mem - R) / gpu_mem), and
    0.4.6's boost on cards above 96 GiB: min(f + A x (1 - f) / gpu_mem, (gpu_mem - B) / gpu_mem)."""
    absent = {"value": None, "at": None, "absent": "no `if self.tp_size >= N: self.mem_fraction_static = F` rule"}
    text = wheel.source(_SERVER_ARGS)
    if text is None:
        return absent
    rule = next(
        (
            n
            for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.If) and ast.unparse(n.test) == "self.mem_fraction_static is None"
        ),
        None,
    )
    if rule is None:
        return absent
    found: dict[str, Any] = {"cards_up_to_mib": None, "larger_cards": None, "large_card_boost": None}
    names: dict[str, list[str]] = {}  # a local the rule compares: the server arguments it is the product of
    for statement in rule.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            names[statement.targets[0].id] = re.findall(r"self\.(\w+)", ast.unparse(statement.value))
        if not isinstance(statement, ast.If):
            continue
        test = ast.unparse(statement.test)
        boost = re.search(r"gpu_mem > (\d+ \* 1024)$", test)
        gate = re.search(r"gpu_mem <= (\d+)$", test)
        if boost:
            m = (
                re.fullmatch(_BOOST, ast.unparse(statement.body[-1].value))
                if isinstance(statement.body[-1], ast.Assign)
                else None
            )
            if m is None:
                return absent
            over = _number(arith(ast.parse(boost.group(1), mode="eval").body))
            found["large_card_boost"] = {
                "over_mib": over,
                "share_mib": int(m.group(1)) * 1024,
                "cap_reserve_mib": int(m.group(2)) * 1024,
            }
            continue
        chain = _fraction_chain(statement.body[0], names) if gate else _fraction_chain(statement, names)
        if chain is None:
            return absent
        found["by"], found["tiers"], found["otherwise"] = chain
        if gate:
            found["cards_up_to_mib"] = int(gate.group(1))
            other = statement.orelse[0] if len(statement.orelse) == 1 else None
            value = ast.unparse(other.value) if isinstance(other, ast.Assign) else ""
            reserve = re.fullmatch(r"\(gpu_mem - 1024 \* (\d+)\) / gpu_mem", value)
            if reserve:
                found["larger_cards"] = {"reserve_mib": int(reserve.group(1)) * 1024}
            elif isinstance(other, ast.Assign) and isinstance(other.value, ast.Constant):
                found["larger_cards"] = {"fraction": _number(other.value.value)}
            else:
                return absent
    if "tiers" not in found:
        return absent
    return {"value": found, "at": f"{_SERVER_ARGS}:{rule.lineno}"}


def mem_fraction(wheel: Wheel) -> dict[str, Any]:
    return {
        "tiers": _tiers(wheel),
        "parallel_tiers": _parallel_tiers(wheel),
        "dp_attention_flat_mib": wheel.find_after(
            _MEMORY_HOOK, r"^\s+if self\.enable_dp_attention:$", r"^\s+reserved_mem \+= (4 \* 1024)$", 1
        ),
        "base_mib": wheel.find(_MEMORY_HOOK, r"^\s+reserved_mem = (512)$"),
        "activation_mib_per_token": wheel.find(_MEMORY_HOOK, r"reserved_mem \+= .*(?:activation_tokens|, 2048\)) \* ([\d.]+)$"),
        "activation_floor_tokens": wheel.find(_MEMORY_HOOK, r"max\((?:self|cfg)\.chunked_prefill_size, (\d+)\)"),
        "graph_mib_per_bs": wheel.find(
            _MEMORY_HOOK, r"reserved_mem \+= (?:self\.cuda_graph_max_bs|decode_cuda_graph_config\.max_bs) \* (\d+)$"
        ),
        "parallel_mib_per_8_ranks": wheel.find(
            _MEMORY_HOOK, r"reserved_mem \+= (?:self|cfg)\.tp_size \* (?:self|cfg)\.pp_size / 8 \* (\d+)$"
        ),
        "floor_mib": wheel.find(_MEMORY_HOOK, r"reserved_mem = max\(reserved_mem, (10 \* 1024)\)"),
        "floor_above_mib": wheel.find(_MEMORY_HOOK, r"gpu_mem > (60 \* 1024)"),
        "dp_attention_mib_per_bs_dp": wheel.find(_MEMORY_HOOK, r"reserved_mem \+= \S+max_bs \* \S+dp_size \* (\d+)$"),
        # DP attention's extra padding above a decode max_bs: + max_bs x dp x this, when max_bs > the bound
        "dp_attention_large_bs_over": wheel.find(_MEMORY_HOOK, r"^\s+if \S*max_bs > (\d+):$"),
        "dp_attention_large_bs_mib": wheel.find(_MEMORY_HOOK, r"reserved_mem \+= \S+max_bs \* \S+dp_size \* (\d+\.\d+)$"),
        "rounding_digits": wheel.find(_MEMORY_HOOK, r"round\(\(gpu_mem - reserved_mem\) / gpu_mem, (\d+)\)"),
    }


_CUDA_GRAPH_CONFIG = "sglang/srt/model_executor/cuda_graph_config.py"
_GRAPH_FILES = ("sglang/srt/arg_groups/cuda_graph_hook.py", "sglang/srt/server_args.py")


def _bucket_generator(wheel: Wheel) -> dict[str, Any]:
    """The prefill / piecewise CUDA-graph token buckets (generate_prefill_cuda_graph_batch_sizes, or
    _generate_piecewise_cuda_graph_tokens): each `range(start, stop, step)`, the stop of the last one the
    configured maximum + 1 (null here)."""
    for name in _GRAPH_FILES:
        text = wheel.source(name)
        if text is None:
            continue
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, ast.FunctionDef) and fn.name in (
                "generate_prefill_cuda_graph_batch_sizes",
                "_generate_prefill_cuda_graph_batch_sizes",
                "_generate_piecewise_cuda_graph_tokens",
            ):
                ranges = []
                for call in ast.walk(fn):
                    if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "range":
                        start, stop, step = call.args
                        try:
                            end: Any = int(arith(stop))
                        except Missing:
                            end = None
                        ranges.append([int(arith(start)), end, int(arith(step))])
                ranges.sort(key=lambda r: r[0])
                return {"value": ranges, "at": f"{name}:{fn.lineno}"}
    return {"value": None, "at": None, "absent": "no token-bucket generator in " + " / ".join(_GRAPH_FILES)}


_AUTO_DISABLE = re.compile(r"^_?(?:disable_(\w+?)_?(?:cudagraph|prefill)_if_incompatible|handle_(piecewise)_cuda_graph)$")


def _auto_disable(wheel: Wheel) -> dict[str, Any]:
    """The conditions under which the release turns its prefill / piecewise graph off before the memory rule, per
    backend: each `(name, lambda: cond)` of a rules list, or each `if cond: self.disable_piecewise_cuda_graph =
    True` (0.5.10.post1-0.5.13); {backend: [[name, condition source], ...]}."""
    found: dict[str, list[list[str]]] = {}
    first = None
    for name in (*_GRAPH_FILES, *(f for f in _MEMORY_HOOK if f not in _GRAPH_FILES)):
        text = wheel.source(name)
        if text is None:
            continue
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, ast.FunctionDef):
                continue
            m = _AUTO_DISABLE.match(fn.name)
            if m is None:
                continue
            backend = m.group(1) or m.group(2)
            rows = found.setdefault(backend, [])
            first = first or f"{name}:{fn.lineno}"
            for node in ast.walk(fn):
                if isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[1], ast.Lambda):
                    label = node.elts[0].value if isinstance(node.elts[0], ast.Constant) else None
                    rows.append([str(label or ""), ast.unparse(node.elts[1].body)])
                elif isinstance(node, ast.If) and any(
                    isinstance(b, ast.Assign) and ast.unparse(b).startswith("self.disable_piecewise_cuda_graph = True")
                    for b in node.body
                ):
                    rows.append(["", ast.unparse(node.test)])
    if not found:
        return {"value": None, "at": None, "absent": "no prefill / piecewise graph auto-disable function"}
    return {"value": found, "at": first}


def graph_reserve(wheel: Wheel) -> dict[str, Any]:
    """The automatic rule's prefill / piecewise CUDA-graph and speculative-decoding terms."""
    hook = (_MEMORY_HOOK[0], _MEMORY_HOOK[1])
    return {
        "bucket_mib": _first(
            wheel.find(hook, r"reserved_mem \+= len\(prefill_cuda_graph_config\.bs\) \* (\d+)$"),
            wheel.find(hook, r"reserved_mem \+= len\(self\.piecewise_cuda_graph_tokens\) \* (\d+)$"),
        ),
        # what turns the term on: 0.5.9 opt-in, 0.5.1x on unless disabled, 0.5.15.post1+ the prefill graph backend
        "bucket_switch": _first(
            wheel.find(hook, r"(prefill_cuda_graph_config\.backend != Backend\.DISABLED)"),
            wheel.find(hook, r"^\s+if (not self\.disable_piecewise_cuda_graph|self\.enable_piecewise_cuda_graph):$"),
        ),
        # 0.5.15.post1+: default_prefill_backend(); 0.5.14: the dataclass default
        "prefill_default_backend": _first(
            wheel.find(_CUDA_GRAPH_CONFIG, r"return Backend\.(\w+) if is_cuda\(\)"),
            wheel.find_after(
                (_CUDA_GRAPH_CONFIG,), r"^\s+prefill: PhaseConfig = field\(", r"PhaseConfig\(backend=Backend\.(\w+)\)", 2
            ),
        ),
        "buckets": _bucket_generator(wheel),
        "mla_mib": wheel.find_after(hook, r"MLA backend.*overhead", r"^\s+reserved_mem \+= (1\.5 \* 1024)$", 2),
        "mla_bucket_cap": _first(
            wheel.find(hook, r"max_bs = min\((\d+), cfg\.chunked_prefill_size\)"),
            wheel.find(hook, r"^\s+prefill_cuda_graph_config\.max_bs = (\d+)$"),
            wheel.find(hook, r"^\s+self\.piecewise_cuda_graph_max_tokens = (\d+)$"),
        ),
        "deepep_breakable_mib": wheel.find_after(hook, r"Prefill-BCG DeepEP delta", r"^\s+reserved_mem \+= (1 \* 1024)$", 3),
        "deepep_buckets_from": wheel.find(_GRAPH_FILES, r"max_bs = (?:cfg|self)\.cuda_graph_config\.prefill\.max_bs or (\d+)$"),
        "deepep_bucket_multiple": wheel.find(_GRAPH_FILES, r"aligned = sorted\(\{\(\(b \+ \d+\) // (\d+)\) \* \d+"),
        "standalone_mib": wheel.find_after(
            hook, r'speculative_algorithm == "STANDALONE"', r"^\s+reserved_mem \+= (\d+ \* 1024)$", 3
        ),
        "eagle_mib": _first(
            wheel.find_after(hook, r'speculative_algorithm != "NGRAM"', r"^\s+reserved_mem \+= (\d+ \* 1024)$", 3),
            # <= 0.5.2: `if STANDALONE: += 6 * 1024 / else: += 2 * 1024` under "draft model and larger cuda graph buffers"
            wheel.find_after(hook, r"^\s+else:$", r"^\s+reserved_mem \+= (2 \* 1024)$", 1),
            wheel.find_after(hook, r"^\s+# draft model and larger cuda graph buffers$", r"^\s+reserved_mem \+= (2 \* 1024)$", 1),
        ),
        "decode_activation": _first(
            wheel.find(hook, r"(activation_tokens = max\(running_requests \* draft_tokens, 2048\))"),
            wheel.find(hook, r"reserved_mem \+= (max\(running_requests \* draft_tokens, 2048\)) \* [\d.]+$"),
        ),
        # the conditions each graph term of the rule sits under (<= 0.5.14: none for the decode and DP terms)
        "decode_graph_gate": _statement_gate(wheel, hook, r"max_bs \* 2$"),
        "dp_attention_gate": _statement_gate(wheel, hook, r"max_bs \* (?:self|cfg)\.(?:attn_)?dp_size \* 3$"),
        "prefill_graph_gate": _statement_gate(wheel, hook, r"reserved_mem \+= len\("),
        "auto_disable": _auto_disable(wheel),
        # SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (not MLA): only the floor and the parallel slack are reserved
        "post_capture_env": _env(wheel, "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"),
        "post_capture_base_mib": _first(
            wheel.find_after(hook, r"if (?:self\.)?post_capture_kv_sizing\w*(?:\(\))?:$", r"^\s+reserved_mem = (\d+)$", 4),
            wheel.find(hook, r"^\s+reserved_mem = (1536)$"),
        ),
    }


def requests(wheel: Wheel) -> dict[str, Any]:
    return {
        "tokens_divisor": wheel.find(_REQS, r"(?:min\(estimated, full_token|self\.max_total_num_tokens) // (\d+)"),
        "per_context_factor": wheel.find(
            (*_REQS, "sglang/srt/model_executor/model_runner_kv_cache_mixin.py"),
            r"(?:full_token / self\.context_len|self\.model_config\.context_len) \* (\d+)",
        ),
        "user_divided_by": wheel.find(_REQS, r"max_running_requests // \(?(?:kvc\.(?:ps\.)?|self\.)?(attn_dp_size|dp_size)"),
    }


def disaggregation(wheel: Wheel) -> dict[str, Any]:
    return {
        "queue_size": _env(wheel, "SGLANG_DISAGGREGATION_QUEUE_SIZE"),
        "staging_pool_size_mb": _env(wheel, "SGLANG_DISAGG_STAGING_POOL_SIZE_MB"),
        "staging_buffer": _env(wheel, "SGLANG_DISAGG_STAGING_BUFFER"),
    }


def dsa_indexer(wheel: Wheel) -> dict[str, Any]:
    """DeepSeek V3.2 (DSA/NSA) indexer keys in the KV pool: index_head_dim + index_head_dim // block x scale bytes."""
    cells = ("sglang/srt/model_executor/pool_configurator.py", "sglang/srt/model_executor/model_runner_kv_cache_mixin.py")
    return {
        "quant_block_size": wheel.find("sglang/srt/mem_cache/memory_pool.py", r"^    quant_block_size = (\d+)$"),
        "scale_bytes": wheel.find(cells, r"index_head_dim // \w+\.quant_block_size \* (\d+)"),
    }


def _augassign(wheel: Wheel, name: str, target: str) -> dict[str, Any]:
    """The first `target += expr` of a file, as its source text."""
    text = wheel.source(name)
    for node in ast.walk(ast.parse(text or "")):
        if isinstance(node, ast.AugAssign) and ast.unparse(node.target) == target:
            return {"value": ast.unparse(node.value), "at": f"{name}:{node.lineno}"}
    return {"value": None, "at": None, "absent": f"no `{target} += ...` in {name}"}


_LAUNCHERS = ("sglang/srt/entrypoints/engine.py", "sglang/srt/managers/data_parallel_controller.py")


def placement(wheel: Wheel) -> dict[str, Any]:
    """Where a rank runs (engine.py's scheduler launch): gpu_id = base_gpu_id + (pp_rank % pp_size_per_node) x
    tp_size_per_node + (tp_rank % tp_size_per_node) x gpu_id_step; a DP replica (no DP attention) moves the base
    by the size DP's controller adds (tp_size x gpu_id_step, or tp_size x pp_size x gpu_id_step)."""
    return {
        "tp_term": wheel.find(_LAUNCHERS, r"\+ (\(tp_rank % tp_size_per_node\) \* \S*gpu_id_step)"),
        "pp_term": wheel.find(_LAUNCHERS, r"\+ \(?(\(pp_rank % pp_size_per_node\) \* tp_size_per_node)\)?"),
        "dp_base_step": _augassign(wheel, _LAUNCHERS[1], "base_gpu_id"),
    }


def extract(wheel: Wheel) -> dict[str, Any]:
    v1 = custom_ar_v1(wheel)
    _list(v1["world_sizes"])
    return {
        "wheel": wheel.path.name,
        "custom_ar_v2": custom_ar_v2(wheel),
        "custom_ar_v1": v1,
        "nccl": nccl(wheel),
        "deepep": deepep(wheel),
        "mem_fraction": mem_fraction(wheel),
        "graph_reserve": graph_reserve(wheel),
        "max_running_requests": requests(wheel),
        "disaggregation": disaggregation(wheel),
        "dsa_indexer": dsa_indexer(wheel),
        "placement": placement(wheel),
    }


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def _git_show(repo: Path, path: str) -> str:
    import subprocess

    done = subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True)
    return done.stdout


def _line_of(text: str, pattern: str) -> tuple[str, int]:
    for lineno, line in enumerate(text.splitlines(), 1):
        m = re.search(pattern, line)
        if m:
            return m.group(1), lineno
    raise SystemExit(f"DeepEP source: no line matching /{pattern}/")


def deepep_source(repo: Path) -> dict[str, Any]:
    """DeepEP's normal-mode buffer constants: the default dispatch/combine configs per rank count (Buffer.num_sms
    and Config(num_sms, nvl send, nvl recv, rdma send, rdma recv)), and the size-hint constants of
    csrc/legacy/config.hpp."""
    import subprocess

    commit = subprocess.run(
        ["git", "--git-dir", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    legacy_py = "deep_ep/buffers/legacy.py"
    tree = ast.parse(_git_show(repo, legacy_py))
    num_sms = None
    configs: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "num_sms" and node.value is not None:
            num_sms = {"value": arith(node.value), "at": f"{legacy_py}:{node.lineno}"}
        if isinstance(node, ast.FunctionDef) and node.name in ("get_dispatch_config", "get_combine_config"):
            table: Any = next(n for n in ast.walk(node) if isinstance(n, ast.Dict))
            configs[node.name] = {
                "at": f"{legacy_py}:{table.lineno}",
                "ranks": {int(arith(k)): [int(arith(a)) for a in v.args[1:]] for k, v in zip(table.keys, table.values)},
            }
    config_hpp = "csrc/legacy/config.hpp"
    hpp = _git_show(repo, config_hpp)
    compiled = "csrc/kernels/legacy/compiled.cuh"
    compiled_text = _git_show(repo, compiled)
    common = "deep_ep/include/deep_ep/common/compiled.cuh"
    internode = "csrc/kernels/legacy/internode.cu"

    def found(text: str, path: str, pattern: str) -> dict[str, Any]:
        value, line = _line_of(text, pattern)
        return {"value": int(value), "at": f"{path}:{line}"}

    fields, meta_line = _line_of(_git_show(repo, internode), r"^\s+int ([\w, ]+);")
    granularity, granularity_line = _line_of(_git_show(repo, legacy_py), r"NVSHMEM_CUMEM_GRANULARITY'\] = f'\{(2 \*\* \d+)\}'")
    return {
        "repository": "github.com/deepseek-ai/DeepEP",
        "commit": commit,
        "num_sms": num_sms,
        "dispatch_config": configs["get_dispatch_config"],
        "combine_config": configs["get_combine_config"],
        "max_topk": found(hpp, config_hpp, r"constexpr int kNumMaxTopK = (\d+);"),
        "max_scales": found(hpp, config_hpp, r"constexpr int kNumMaxScales = (\d+);"),
        "max_nvl_peers": found(compiled_text, compiled, r"#define LEGACY_NUM_MAX_NVL_PEERS (\d+)"),
        "topk_idx_bits": found(_git_show(repo, common), common, r"#define EP_NUM_TOPK_IDX_BITS (\d+)"),
        "nvshmem_cumem_granularity": {
            "value": int(arith(ast.parse(granularity, mode="eval").body)),
            "at": f"{legacy_py}:{granularity_line}",
        },
        "source_meta_bytes": {
            "value": 4 * len(fields.split(",")),
            "at": f"{internode}:{meta_line}",
            "how": f"struct SourceMeta {{ int {fields}; }}",
        },
    }


_NOT_SHIPPED = "not in the wheel's headers: defined in c10/cuda/CUDACachingAllocator.cpp, which the wheel does not ship"


def torch_allocator(wheel: Path) -> dict[str, Any]:
    """PyTorch's caching allocator: the segment a request gets when no cached block fits (CUDACachingAllocator's
    get_allocation_size: <= kSmallSize -> kSmallBuffer; < kMinLargeAlloc -> the large segment size; else rounded up
    to kRoundLarge), from the constants the wheel's header ships (c10/core/AllocatorConfig.h from torch 2.9; all
    of them from 2.10). The large segment is kLargeBuffer up to 2.10 and large_segment_size_'s default from 2.11.
    A constant the wheel's headers do not state is recorded absent, with where it lives instead."""
    header = "torch/include/c10/core/AllocatorConfig.h"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        text = archive.read(header).decode("utf-8") if header in names else ""
        library = archive.read(_C10_CUDA) if _C10_CUDA in names else b""
    version = re.match(r"torch-([^-]+)-", wheel.name)

    def const(*patterns: str) -> dict[str, Any]:
        for pattern in patterns:
            found = re.search(pattern, text)
            if found:
                value, line = _line_of(text, pattern)
                return {"value": int(value), "at": f"{header}:{line}"}
        return {"value": None, "absent": _NOT_SHIPPED}

    return {
        "version": version.group(1) if version else wheel.name,
        "small_size": const(r"constexpr size_t kSmallSize = (\d+);"),
        "small_buffer": const(r"constexpr size_t kSmallBuffer = (\d+);"),
        "min_large_alloc": const(r"constexpr size_t kMinLargeAlloc = (\d+);"),
        "round_large": const(r"constexpr size_t kRoundLarge = (\d+);"),
        "large_segment_size": _from_library(
            const(r"large_segment_size_\{(\d+)\}", r"const(?:expr)? size_t kLargeBuffer = (\d+);"), library
        ),
    }


_C10_CUDA = "torch/lib/libc10_cuda.so"
_K_LARGE_BUFFER = "_ZN3c104cuda20CUDACachingAllocator12kLargeBufferE"  # c10::cuda::CUDACachingAllocator::kLargeBuffer


def _from_library(found: dict[str, Any], library: bytes) -> dict[str, Any]:
    """Up to 2.9 kLargeBuffer is an `extern const` of CUDACachingAllocator.cpp: where the headers do not state it,
    its value is read from libc10_cuda.so's symbol table (the other constants are constexpr there: no symbol)."""
    if found.get("value") is not None or not library:
        return found
    value = symbol_value(library, _K_LARGE_BUFFER)
    if value is None:
        return found
    return {"value": value, "at": f"{_C10_CUDA}: c10::cuda::CUDACachingAllocator::kLargeBuffer (symbol table)"}


def _torch_key(record: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", str(record["version"]).split("+")[0]))


HEADER = (
    "# GENERATED by tools/upstream/cell_constants.py from the released SGLang wheels named in each row; do not edit.\n"
    "# Regenerate: pip download --no-deps sglang==X -d DIR (one version per call), then\n"
    "#   python -m tools.upstream.cell_constants DIR/sglang-*.whl --deepep-repo DEEPEP_GIT_DIR --nccl-repo NCCL_GIT_DIR \\\n"
    "#     --torch-wheel TORCH_WHEEL (repeated: one per torch release) -o logscope/data/cell_constants.yaml\n"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", nargs="+", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument(
        "--deepep-repo", type=Path, help="A git directory of github.com/deepseek-ai/DeepEP (normal-mode buffer constants)"
    )
    parser.add_argument(
        "--nccl-repo", type=Path, help="A git directory of github.com/NVIDIA/nccl with its release tags (connection buffers)"
    )
    parser.add_argument(
        "--nccl-from", default="2.18", help="The oldest NCCL minor release read (X.Y; every release tag from it on)"
    )
    parser.add_argument(
        "--torch-wheel",
        type=Path,
        action="append",
        help="A torch wheel (its caching allocator's segment sizes); repeat it, one per torch release",
    )
    parser.add_argument(
        "--sources-from",
        type=Path,
        help="An earlier output whose deepep_source / nccl_sources / torch_allocators are kept where not read again",
    )
    args = parser.parse_args(argv)
    rows = {}
    for path in args.wheels:
        wheel = Wheel(path)
        rows[wheel.version] = extract(wheel)
    ordered = {v: rows[v] for v in sorted(rows, key=_key)}
    document: dict[str, Any] = {"format": 1, "versions": ordered}
    earlier = yaml.safe_load(args.sources_from.read_text(encoding="utf-8")) if args.sources_from else {}
    if args.deepep_repo is not None:
        document["deepep_source"] = deepep_source(args.deepep_repo)
    elif earlier.get("deepep_source"):
        document["deepep_source"] = earlier["deepep_source"]
    if args.nccl_repo is not None:
        major, minor = (int(p) for p in args.nccl_from.split(".")[:2])
        document["nccl_sources"] = nccl_sources(args.nccl_repo, (major, minor))
    elif earlier.get("nccl_sources"):
        document["nccl_sources"] = earlier["nccl_sources"]
    # a torch release read again replaces its earlier record; the others are kept
    torch = {str(r["version"]): r for r in earlier.get("torch_allocators") or []}
    torch.update({str(r["version"]): r for r in (torch_allocator(w) for w in args.torch_wheel or [])})
    if torch:
        document["torch_allocators"] = sorted(torch.values(), key=_torch_key)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(HEADER + yaml.safe_dump(document, sort_keys=False, width=120), encoding="utf-8")
    print(f"{args.output}: {len(ordered)} release(s): {', '.join(ordered)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
