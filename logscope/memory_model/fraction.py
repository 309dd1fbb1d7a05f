"""SGLang's automatic mem_fraction_static, per release, and its request cap:

    reserved = base + activation x max(tokens, floor) + tp x pp / 8 x 1024
               + decode graph reserve (max_bs x graph, + DP attention max_bs x dp x 3 (x 1.5 more above 300))
               + prefill / piecewise graph reserve (buckets x 8 MiB, or a flat MLA term; + DeepEP under a
                 breakable prefill graph) ; floor 10 GiB above 60 GiB
               + DeepEP reserve (releases that have it) + speculative draft reserve (releases that have it)
    mem_fraction_static = round((gpu_mem - reserved) / gpu_mem, 3), gpu_mem = nvidia-smi memory.total (MiB)
    tokens: chunked_prefill_size (max_prefill_tokens when chunking is off); on a decode node of releases
            with the rule, running requests x draft tokens
    max_running_requests = min(min(max(tokens / context_len x 512, 2048), 4096), tokens // 2), or a user value
                           divided by the (attention) DP size

0.3.0-0.4.6 pick the fraction itself instead: by tp_size (tp x pp in 0.4.6), 0.79 / 0.8x / 0.85 / 0.87 / 0.88 from
16 / 8 / 4 / 2 / 1 ranks, only on cards up to 81920 MiB from 0.4.5 (above: (gpu_mem - 13 GiB) / gpu_mem in 0.4.5,
0.88 in 0.4.6), and in 0.4.6 above 96 GiB min(f + 48 GiB x (1 - f) / gpu_mem, (gpu_mem - 18 GiB) / gpu_mem).

Every constant is the release's (data/cell_constants.yaml, with its file:line): server_args.py
_handle_gpu_memory_settings up to 0.5.19, arg_groups/memory_hook.py handle_gpu_memory_settings /
reserve_for_graph_mb / reserve_for_deepep_a2a_mb from 0.5.20, the buckets of the release's generator
(generate_prefill_cuda_graph_batch_sizes or _generate_piecewise_cuda_graph_tokens), the DeepEP re-alignment
of cuda_graph_hook.py apply_deepep_adjustments. The rule runs only when the user gave no --mem-fraction-static;
the server_args dump prints the resolved value, so whether it was given cannot be read from the dump: callers
say which they assume."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds
from logscope.memory_model.record import GraphReserve, Sourced
from logscope.memory_model.releases import ReleaseChoice, inherited

DEEPEP_RESERVE = kinds.DEEPEP_RESERVE  # the part's name


class MissingRule(ValueError):
    """The release's source gives no value for a term of the automatic rule."""


@dataclass
class AutoFraction:
    value: float | None  # None: the card's memory.total is unknown
    reserved_mib: float
    parts: list[tuple[str, float, str]] = field(default_factory=list)  # (what, MiB, source line)
    missing: list[str] = field(default_factory=list)  # settings the rule needs that the input lacks
    assumed: list[str] = field(default_factory=list)  # defaults of the release the rule used, not shown by the input
    no_rule: str | None = None  # the release's source gives no such term: the rule cannot run for it
    release: ReleaseChoice | None = None
    chosen: str | None = None  # a rule that picks the fraction itself (0.3.0-0.4.6): which row, in words

    def part(self, what: str) -> float:
        return sum(mib for name, mib, _ in self.parts if name == what)

    def describe(self) -> str:
        if self.chosen is not None:
            return self.chosen
        terms = " + ".join(f"{what} {mib:g}" for what, mib, _ in self.parts if mib)
        return f"reserved {self.reserved_mib:g} MiB ({terms})"


def _num(config: dict[str, Any], key: str) -> float | None:
    value = config.get(key)
    try:
        return None if value is None or value == "None" else float(value)
    except (TypeError, ValueError):
        return None


def _need(found: Sourced[Any], name: str, release: ReleaseChoice) -> float:
    if found.value is None:
        raise MissingRule(f"SGLang {release.version} has no {name} in its automatic rule ({found.absent})")
    return float(found.value)


def uses_mla(model: dict[str, Any]) -> bool | None:
    """Whether the model's attention is MLA (use_mla_backend): a config with kv_lora_rank, or a DeepSeek
    architecture; None when the input shows neither the config nor the architecture."""
    if model.get("kv_lora_rank") is not None:
        return True
    named = str(model.get("architecture") or "")
    if not named:
        return None
    return "deepseek" in named.lower()


def deepep_reserve_applies(config: dict[str, Any], release: ReleaseChoice) -> tuple[bool, str]:
    """Whether the release's DeepEP reserve is in the automatic rule for this config, and why (not)."""
    mib = release.record.deepep.reserve_mib.value
    if mib is None:
        return False, f"SGLang {release.version} has no DeepEP reserve in its automatic rule"
    if config.get("moe_a2a_backend") != "deepep":
        return False, "moe_a2a_backend is not deepep"
    if config.get("disaggregation_mode") == "prefill":
        return False, "a prefill node"
    if _decode_graphs_off(config):
        return False, "decode CUDA graphs off"
    return True, f"{mib:g} MiB ({release.record.deepep.reserve_mib.at})"


def _decode_graphs_off(config: dict[str, Any]) -> bool:
    backend = config.get("cuda_graph_backend_decode")
    return config.get("disable_cuda_graph") is True or (backend is not None and str(backend).lower() == "disabled")


def _gate_open(gate: Sourced[str], config: dict[str, Any], default: bool) -> bool:
    """Whether a term's `if` conditions (as the release's source writes them) hold for this config: the node
    mode and the decode graph backend; the DP attention condition is the caller's. An unextracted gate keeps
    `default`."""
    text = gate.value
    if text is None:
        return default
    mode = config.get("disaggregation_mode")
    if "!= 'prefill'" in text and mode == "prefill":
        return False
    if "!= 'decode'" in text and mode == "decode":
        return False
    return not ("decode_cuda_graph_config.backend != Backend.DISABLED" in text and _decode_graphs_off(config))


_UNKNOWN = object()  # a value the input does not show: a condition over it neither holds nor fails
_NOT_CUDA = ("is_hip", "is_npu", "is_cpu", "is_mps", "is_xpu")


def _field(node: ast.expr, config: dict[str, Any], mla: bool | None) -> Any:
    """The value a condition of the release's source reads: `self.X`, `cfg.X`, `self._resolved().X`,
    `resolved_view(server_args).X` are the config's X; `self.use_mla_backend()` the attention kind; the
    platform checks are CUDA's."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Call)):
        holder = ast.unparse(node.value)
        if holder in ("self", "cfg") or holder.endswith(("_resolved()", "resolved_view(self)", "resolved_view(server_args)")):
            return config.get(node.attr, _UNKNOWN)
        return _UNKNOWN
    if isinstance(node, ast.Call):
        called = ast.unparse(node.func)
        if called.endswith("use_mla_backend"):
            return _UNKNOWN if mla is None else mla
        if called in _NOT_CUDA:
            return False
        if called == "is_cuda":
            return True
        if called == "bool" and node.args:
            inner = _truth(node.args[0], config, mla)
            return _UNKNOWN if inner is None else inner
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_field(e, config, mla) for e in node.elts]
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else tuple(items)
    return _truth(node, config, mla) if isinstance(node, (ast.BoolOp, ast.UnaryOp, ast.Compare)) else _UNKNOWN


_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _truth(node: ast.expr, config: dict[str, Any], mla: bool | None) -> bool | None:
    """Three-valued: whether a condition of the release's source (its text from the record, parsed, never run)
    holds for the config; None when it reads something the input does not show."""
    if isinstance(node, ast.BoolOp):
        values = [_truth(v, config, mla) for v in node.values]
        if isinstance(node.op, ast.And):
            return False if False in values else (None if None in values else True)
        return True if True in values else (None if None in values else False)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand, config, mla)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        left, right = _field(node.left, config, mla), _field(node.comparators[0], config, mla)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        try:
            return bool(_COMPARE[type(node.ops[0])](left, right))
        except TypeError:
            return None
    value = _field(node, config, mla)
    return None if value is _UNKNOWN else bool(value)


def auto_disabled(rule: GraphReserve, backend: str, config: dict[str, Any], mla: bool | None) -> str | None:
    """The release's reason to turn this prefill graph backend off before its memory rule, when one holds for the
    config (its auto-disable rules, from the release's source); None when none does or the input cannot tell."""
    rows = (rule.auto_disable.value or {}).get({"full": "full_prefill"}.get(backend, backend)) or ()
    for name, condition in rows:
        try:
            tree = ast.parse(condition, mode="eval").body
        except SyntaxError:
            continue
        if _truth(tree, config, mla) is True:
            return f"{name or condition} ({rule.auto_disable.at})"
    return None


def token_buckets(rule: GraphReserve, max_tokens: int) -> list[int]:
    """The release's prefill / piecewise capture sizes up to max_tokens (its generator's ranges)."""
    ranges = rule.buckets.value or ()
    sizes = [s for start, stop, step in ranges for s in range(start, (max_tokens + 1) if stop is None else stop, step)]
    return [s for s in sizes if s <= max_tokens]


def _graph_term_on(config: dict[str, Any], rule: GraphReserve, assumed: list[str], mla: bool | None = None) -> bool:
    """Whether the prefill / piecewise graph term applies: per the switch the release's rule reads, after the
    release's own auto-disable rules (which run before the memory rule)."""
    switch = rule.bucket_switch.value or ""
    if config.get("disable_cuda_graph") is True:
        return False
    if "prefill_cuda_graph_config.backend" in switch:
        if not _gate_open(rule.prefill_graph_gate, config, config.get("disaggregation_mode") != "decode"):
            return False
        if config.get("disable_prefill_cuda_graph") is True:
            return False
        backend = config.get("cuda_graph_backend_prefill")
        if backend is not None:
            if str(backend).lower() == "disabled":
                return False
        else:
            if (_num(config, "pp_size") or 1) > 1:
                return False  # cuda_graph_hook.py apply_cuda_graph_compatibility: PP turns the breakable default off
            backend = rule.prefill_default_backend.value
            if backend is None:
                return False
            assumed.append(f"prefill CUDA graph backend {str(backend).lower()} (the release's default on CUDA)")
        reason = auto_disabled(rule, str(backend).lower(), config, mla)
        if reason is not None:
            assumed.append(f"the release turns the {str(backend).lower()} prefill graph off: {reason}")
            return False
        return True
    if switch == "not self.disable_piecewise_cuda_graph":
        on = config.get("disable_piecewise_cuda_graph") is not True
        if "disable_piecewise_cuda_graph" not in config:
            assumed.append("piecewise CUDA graph on (the release's default)")
        reason = auto_disabled(rule, "piecewise", config, mla) if on else None
        if reason is not None:
            assumed.append(f"the release turns the piecewise graph off: {reason}")
            return False
        return on
    if switch == "self.enable_piecewise_cuda_graph":
        return config.get("enable_piecewise_cuda_graph") is True
    return False


def _graph_parts(
    config: dict[str, Any], release: ReleaseChoice, chunk: float, mla: bool | None, assumed: list[str]
) -> list[tuple[str, float, str]]:
    rule = release.record.graph_reserve
    if rule.bucket_mib.value is None or not _graph_term_on(config, rule, assumed, mla):
        return []
    if mla is None:
        assumed.append("not an MLA model (the input does not show the attention kind)")
    deepep = config.get("moe_a2a_backend") == "deepep"
    breakable = "prefill_cuda_graph_config.backend" in (rule.bucket_switch.value or "") and str(
        config.get("cuda_graph_backend_prefill") or rule.prefill_default_backend.value or ""
    ).lower() in ("breakable",)
    parts: list[tuple[str, float, str]] = []
    if mla and rule.mla_mib.value is not None:
        parts.append(("prefill_graphs", float(rule.mla_mib.value), rule.mla_mib.at or ""))
    else:
        cap = rule.mla_bucket_cap.value if mla else None
        given = _num(config, "cuda_graph_max_bs_prefill") or _num(config, "piecewise_cuda_graph_max_tokens")
        max_tokens = int(given or (min(cap, chunk) if cap else chunk))
        buckets = token_buckets(rule, max_tokens)
        if deepep and breakable and rule.deepep_buckets_from.value and rule.deepep_bucket_multiple.value:
            # apply_deepep_adjustments runs before the maximum is resolved: the default maximum's buckets,
            # rounded up to the multiple
            step = int(rule.deepep_bucket_multiple.value)
            generated = token_buckets(rule, int(given or rule.deepep_buckets_from.value))
            buckets = sorted({-(-b // step) * step for b in generated})
        parts.append(("prefill_graphs", len(buckets) * float(rule.bucket_mib.value), rule.bucket_mib.at or ""))
    if deepep and breakable and rule.deepep_breakable_mib.value is not None:
        parts.append(("prefill_graphs_deepep", float(rule.deepep_breakable_mib.value), rule.deepep_breakable_mib.at or ""))
    return parts


def _speculative(config: dict[str, Any], release: ReleaseChoice) -> tuple[str, float, str] | None:
    algorithm = config.get("speculative_algorithm")
    if algorithm in (None, "None", "NGRAM"):
        return None
    rule = release.record.graph_reserve
    found = rule.standalone_mib if algorithm == "STANDALONE" else rule.eagle_mib
    if found.value is None:
        return None
    return ("speculative", float(found.value), found.at or "")


def _post_capture(environment: dict[str, Any], release: ReleaseChoice, mla: bool | None) -> bool:
    """SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (overrides.py post_capture_kv_sizing_planned; never for MLA)."""
    rule = release.record.graph_reserve
    if rule.post_capture_base_mib.value is None or mla:
        return False
    given = environment.get("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING")
    on = given if given is not None else rule.post_capture_env.value
    return str(on).strip().lower() in ("1", "true", "yes", "on")


def auto_fraction(
    config: dict[str, Any],
    release: ReleaseChoice,
    gpu_mem_mib: float | None,
    mla: bool | None = None,
    environment: dict[str, Any] | None = None,
) -> AutoFraction:
    """The release's automatic mem_fraction_static for this config on a card of gpu_mem_mib (memory.total);
    `mla`: whether the model uses MLA attention (None: not shown by the input, taken as not); `environment`:
    the variables the input shows (post-capture KV sizing)."""
    terms = {
        name: inherited(release.record, lambda r, name=name: getattr(r.mem_fraction, name))  # type: ignore[misc]
        for name in release.record.mem_fraction.__dataclass_fields__
    }

    def c(name: str) -> float:
        return _need(terms[name], name, release)

    def at(name: str) -> str:
        return terms[name].at or ""

    out = AutoFraction(None, 0.0, release=release)
    try:
        _compute(out, config, release, gpu_mem_mib, mla, environment or {}, c, at)
    except MissingRule as exc:  # the release's source gives no such term: say so, never raise to the user
        out.no_rule, out.value, out.parts, out.reserved_mib = str(exc), None, [], 0.0
    return out


def _tiered(out: AutoFraction, config: dict[str, Any], release: ReleaseChoice, gpu_mem_mib: float | None) -> None:
    """<= 0.5.2: reserved_mem by the card's size, (a + tp x pp / b) GiB, + a flat DP-attention and draft reserve."""
    rule = release.record.mem_fraction
    if gpu_mem_mib is None:
        out.missing.append("the card's memory.total (the tiered rule picks its row by it)")
        return
    tiers = rule.tiers.value or ()
    row = next(t for t in tiers if t[0] is None or gpu_mem_mib < float(t[0]))
    parallel = (_num(config, "tp_size") or 1) * (_num(config, "pp_size") or 1)
    below = f"below {float(row[0]):g} MiB" if row[0] is not None else "the top tier"
    parts = [(f"tier ({below})", float(row[1]) + parallel * float(row[2]), rule.tiers.at or "")]
    speculative = _speculative(config, release)
    if speculative is not None:
        parts.append(speculative)
    if config.get("enable_dp_attention") and rule.dp_attention_flat_mib.value is not None:
        parts.append(("dp_attention", float(rule.dp_attention_flat_mib.value), rule.dp_attention_flat_mib.at or ""))
    out.parts, out.reserved_mib = parts, sum(mib for _, mib, _ in parts)
    out.value = round((gpu_mem_mib - out.reserved_mib) / gpu_mem_mib, 3)


def _by_parallel_size(out: AutoFraction, config: dict[str, Any], rule: Sourced[Any], gpu_mem_mib: float | None) -> None:
    """0.3.0-0.4.6: the fraction by tp_size (tp x pp in 0.4.6), on cards up to cards_up_to_mib only (0.4.5+; larger
    ones take a constant or (gpu_mem - R) / gpu_mem), then 0.4.6's boost above 96 GiB. Nothing is rounded."""
    v: Mapping[str, Any] = rule.value or {}
    at = rule.at or ""
    size = 1.0
    for name in v["by"]:
        size *= _num(config, name) or 1
    gate, boost = v.get("cards_up_to_mib"), v.get("large_card_boost")
    if gpu_mem_mib is None and (gate is not None or boost):
        out.missing.append("the card's memory.total (the rule picks its branch by it)")
        return
    by = " x ".join(v["by"])
    if gate is None or (gpu_mem_mib is not None and gpu_mem_mib <= float(gate)):
        row = next((r for r in v["tiers"] if size >= float(r[0])), None)
        fraction = float(row[1]) if row else float(v["otherwise"])
        how = f"{by} {size:g} >= {float(row[0]):g}: {fraction:g}" if row else f"{by} {size:g}: {fraction:g}"
        if gate is not None:
            how += f" (a card of {gpu_mem_mib:g} <= {float(gate):g} MiB)"
    else:
        larger = v["larger_cards"]
        assert gpu_mem_mib is not None
        if "reserve_mib" in larger:
            reserve = float(larger["reserve_mib"])
            fraction = (gpu_mem_mib - reserve) / gpu_mem_mib
            how = f"a card of {gpu_mem_mib:g} > {float(gate):g} MiB: ({gpu_mem_mib:g} - {reserve:g}) / {gpu_mem_mib:g}"
        else:
            fraction = float(larger["fraction"])
            how = f"a card of {gpu_mem_mib:g} > {float(gate):g} MiB: {fraction:g}"
    if boost and gpu_mem_mib is not None and gpu_mem_mib > float(boost["over_mib"]):
        share, cap = float(boost["share_mib"]), float(boost["cap_reserve_mib"])
        fraction = min(fraction + share * (1 - fraction) / gpu_mem_mib, (gpu_mem_mib - cap) / gpu_mem_mib)
        how += f"; above {float(boost['over_mib']):g} MiB: min(f + {share:g} x (1 - f) / gpu_mem, (gpu_mem - {cap:g}) / gpu_mem)"
    out.value, out.chosen = fraction, f"{how} = {fraction:.4f} ({at})"


def _compute(
    out: AutoFraction,
    config: dict[str, Any],
    release: ReleaseChoice,
    gpu_mem_mib: float | None,
    mla: bool | None,
    environment: dict[str, Any],
    c: Any,
    at: Any,
) -> None:
    if release.record.mem_fraction.parallel_tiers.value:
        _by_parallel_size(out, config, release.record.mem_fraction.parallel_tiers, gpu_mem_mib)
        return
    if release.record.mem_fraction.tiers.value and release.record.mem_fraction.base_mib.value is None:
        _tiered(out, config, release, gpu_mem_mib)
        return
    tp, pp = _num(config, "tp_size") or 1, _num(config, "pp_size") or 1
    if _post_capture(environment, release, mla):
        base = release.record.graph_reserve.post_capture_base_mib
        out.parts = [
            ("post_capture_base", float(base.value or 0), base.at or ""),
            ("parallel", tp * pp / 8 * c("parallel_mib_per_8_ranks"), at("parallel_mib_per_8_ranks")),
        ]
        out.reserved_mib = sum(mib for _, mib, _ in out.parts)
        if gpu_mem_mib is not None:
            out.value = round((gpu_mem_mib - out.reserved_mib) / gpu_mem_mib, int(c("rounding_digits")))
        return
    chunk = _num(config, "chunked_prefill_size")
    if chunk is None:
        out.missing.append("chunked_prefill_size")
        chunk = 0.0
    tokens = chunk if chunk > 0 else (_num(config, "max_prefill_tokens") or 0.0)
    activation_at = at("activation_mib_per_token")
    if config.get("disaggregation_mode") == "decode" and release.record.graph_reserve.decode_activation.value:
        running = _num(config, "max_running_requests") or _num(config, "cuda_graph_max_bs") or 1
        tokens = running * (_num(config, "speculative_num_draft_tokens") or 1)
        activation_at = release.record.graph_reserve.decode_activation.at or activation_at
    parts = [
        ("base", c("base_mib"), at("base_mib")),
        ("activation", max(tokens, c("activation_floor_tokens")) * c("activation_mib_per_token"), activation_at),
        ("parallel", tp * pp / 8 * c("parallel_mib_per_8_ranks"), at("parallel_mib_per_8_ranks")),
    ]
    gates = release.record.graph_reserve
    default_on = config.get("disable_cuda_graph") is not True and config.get("disaggregation_mode") != "prefill"
    graphs_on = _gate_open(gates.decode_graph_gate, config, default_on)
    dp_on = bool(config.get("enable_dp_attention")) and _gate_open(gates.dp_attention_gate, config, graphs_on)
    if graphs_on or dp_on:
        max_bs = _num(config, "cuda_graph_max_bs")
        if max_bs is None:
            out.missing.append("cuda_graph_max_bs (cuda_graph_config.decode.max_bs from 0.5.14)")
        else:
            graph = max_bs * c("graph_mib_per_bs") if graphs_on else 0.0
            if dp_on:
                dp = _num(config, "dp_size") or 1
                # + max_bs x dp x 3, and + max_bs x dp x 1.5 more when max_bs > 300 (both from the release)
                graph += max_bs * dp * c("dp_attention_mib_per_bs_dp")
                if max_bs > c("dp_attention_large_bs_over"):
                    graph += max_bs * dp * c("dp_attention_large_bs_mib")
            parts.append(("cuda_graphs", graph, gates.dp_attention_gate.at if not graphs_on else at("graph_mib_per_bs")))
    parts += _graph_parts(config, release, chunk, mla, out.assumed)
    reserved = sum(mib for _, mib, _ in parts)
    if gpu_mem_mib is not None and gpu_mem_mib > c("floor_above_mib") and reserved < c("floor_mib"):
        parts.append(("floor", c("floor_mib") - reserved, at("floor_mib")))
        reserved = float(c("floor_mib"))
    applies, _why = deepep_reserve_applies(config, release)
    if applies:
        mib = _need(release.record.deepep.reserve_mib, "DeepEP reserve", release)
        parts.append((DEEPEP_RESERVE, mib, release.record.deepep.reserve_mib.at or ""))
        reserved += mib
    speculative = _speculative(config, release)
    if speculative is not None:
        parts.append(speculative)
        reserved += speculative[1]
    out.parts, out.reserved_mib = parts, reserved
    if gpu_mem_mib is not None:
        out.value = round((gpu_mem_mib - reserved) / gpu_mem_mib, int(c("rounding_digits")))


def default_requests(tokens: int, context_len: int, release: ReleaseChoice) -> tuple[int, str]:
    """The request cap SGLang derives when --max-running-requests is not set."""
    factor_rule = inherited(release.record, lambda r: r.requests.per_context_factor)
    divisor_rule = inherited(release.record, lambda r: r.requests.tokens_divisor)
    factor = int(_need(factor_rule, "max_running_requests per-context factor", release))
    divisor = int(_need(divisor_rule, "max_running_requests tokens divisor", release))
    rule = min(max(int(tokens / context_len * factor), 2048), 4096)
    value = min(rule, tokens // divisor)
    return value, (
        f"min(min(max({tokens} / context_len {context_len} x {factor}, 2048), 4096) = {rule}, "
        f"{tokens} // {divisor} = {tokens // divisor}) "
        f"({divisor_rule.at})"
    )


def user_requests(value: int, dp: int, release: ReleaseChoice) -> tuple[int, str]:
    """A --max-running-requests the user set, per worker: divided by the (attention) DP size."""
    divided = inherited(release.record, lambda r: r.requests.user_divided_by)
    by = divided.value or "dp_size"
    return max(1, value // dp), (f"--max-running-requests {value} // {by} {dp} ({divided.at})")
