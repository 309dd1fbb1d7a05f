"""SGLang's automatic mem_fraction_static, per release, and its request cap:

    reserved = base + max(chunked_prefill_size, floor) x activation + tp x pp / 8 x 1024
               + decode graph reserve (max_bs x graph, + DP attention max_bs x dp x 3) ; floor 10 GiB above 60 GiB
               + DeepEP reserve (releases that have it: moe_a2a_backend deepep, decode graphs on, not a prefill node)
    mem_fraction_static = round((gpu_mem - reserved) / gpu_mem, 3), gpu_mem = nvidia-smi memory.total (MiB)
    max_running_requests = min(min(max(tokens / context_len x 512, 2048), 4096), tokens // 2), or a user value
                           divided by the (attention) DP size

Every constant is the release's (data/cell_constants.yaml, with its file:line). The rule runs only when the
user gave no --mem-fraction-static; the server_args dump prints the resolved value, so whether it was given
cannot be read from the dump: callers say which they assume."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from logscope.core import kinds
from logscope.core.model import Launch
from logscope.memory_model.record import Sourced
from logscope.memory_model.releases import ReleaseChoice, inherited
from logscope.pipeline.assemble.launch_facts import FLAG_ALIASES


@dataclass
class AutoFraction:
    value: float | None  # None: the card's memory.total is unknown
    reserved_mib: float
    parts: list[tuple[str, float, str]] = field(default_factory=list)  # (what, MiB, source line)
    missing: list[str] = field(default_factory=list)  # settings the rule needs that the input lacks
    release: ReleaseChoice | None = None

    def part(self, what: str) -> float:
        return sum(mib for name, mib, _ in self.parts if name == what)

    def describe(self) -> str:
        terms = " + ".join(f"{what} {mib:g}" for what, mib, _ in self.parts if mib)
        return f"reserved {self.reserved_mib:g} MiB ({terms})"


def _num(config: dict[str, Any], key: str) -> float | None:
    value = config.get(key)
    try:
        return None if value is None or value == "None" else float(value)
    except (TypeError, ValueError):
        return None


def fraction_on_command(launch: Launch) -> bool:
    """Whether a launch command in the input gives --mem-fraction-static (then SGLang's automatic rule did not
    run). The server_args dump prints the resolved value either way, so it cannot tell."""
    return any(
        FLAG_ALIASES.get(flag, flag) == "mem_fraction_static"
        for e in launch.all_events()
        if e.kind == kinds.LAUNCH_COMMAND
        for flag in e.data.get("args", {})
    )


def deepep_reserve_applies(config: dict[str, Any], release: ReleaseChoice) -> tuple[bool, str]:
    """Whether the release's DeepEP reserve is in the automatic rule for this config, and why (not)."""
    mib = release.record.deepep.reserve_mib.value
    if mib is None:
        return False, f"SGLang {release.version} has no DeepEP reserve in its automatic rule"
    if config.get("moe_a2a_backend") != "deepep":
        return False, "moe_a2a_backend is not deepep"
    if config.get("disaggregation_mode") == "prefill":
        return False, "a prefill node"
    if config.get("disable_cuda_graph") is True:
        return False, "decode CUDA graphs off"
    return True, f"{mib:g} MiB ({release.record.deepep.reserve_mib.at})"


def _need(field: Sourced[Any], name: str, release: ReleaseChoice) -> float:
    if field.value is None:
        raise MissingRule(f"SGLang {release.version} has no {name} in its automatic rule ({field.absent})")
    return float(field.value)


class MissingRule(ValueError):
    """The release's source gives no value for a term of the automatic rule."""


def auto_fraction(config: dict[str, Any], release: ReleaseChoice, gpu_mem_mib: float | None) -> AutoFraction:
    terms = {
        name: inherited(release.record, lambda r, name=name: getattr(r.mem_fraction, name))  # type: ignore[misc]
        for name in release.record.mem_fraction.__dataclass_fields__
    }

    def c(name: str) -> float:
        return _need(terms[name], name, release)

    def at(name: str) -> str:
        return terms[name].at or ""

    out = AutoFraction(None, 0.0, release=release)
    tp, pp = _num(config, "tp_size") or 1, _num(config, "pp_size") or 1
    chunk = _num(config, "chunked_prefill_size")
    if chunk is None:
        out.missing.append("chunked_prefill_size")
        chunk = 0.0
    if chunk <= 0:
        chunk = _num(config, "max_prefill_tokens") or 0.0
    parts = [
        ("base", float(c("base_mib")), at("base_mib")),
        ("activation", max(chunk, c("activation_floor_tokens")) * c("activation_mib_per_token"), at("activation_mib_per_token")),
        ("parallel", tp * pp / 8 * c("parallel_mib_per_8_ranks"), at("parallel_mib_per_8_ranks")),
    ]
    graphs_on = config.get("disable_cuda_graph") is not True and config.get("disaggregation_mode") != "prefill"
    if graphs_on:
        max_bs = _num(config, "cuda_graph_max_bs")
        if max_bs is None:
            out.missing.append("cuda_graph_max_bs")
        else:
            graph = max_bs * c("graph_mib_per_bs")
            if config.get("enable_dp_attention"):
                dp = _num(config, "dp_size") or 1
                graph += max_bs * dp * c("dp_attention_mib_per_bs_dp") * (1.5 if max_bs > 300 else 1.0)
            parts.append(("cuda_graphs", graph, at("graph_mib_per_bs")))
    reserved = sum(mib for _, mib, _ in parts)
    if gpu_mem_mib is not None and gpu_mem_mib > c("floor_above_mib") and reserved < c("floor_mib"):
        parts.append(("floor", c("floor_mib") - reserved, at("floor_mib")))
        reserved = float(c("floor_mib"))
    applies, _why = deepep_reserve_applies(config, release)
    if applies:
        mib = _need(release.record.deepep.reserve_mib, "DeepEP reserve", release)
        parts.append((kinds.DEEPEP_RESERVE, mib, release.record.deepep.reserve_mib.at or ""))
        reserved += mib
    out.parts, out.reserved_mib = parts, reserved
    if gpu_mem_mib is not None:
        out.value = round((gpu_mem_mib - reserved) / gpu_mem_mib, int(c("rounding_digits")))
    return out


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
