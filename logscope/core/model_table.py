"""hidden_size and routed-expert count of common MoE models, for the DeepEP estimate when the log does
not print them. Keyed by the architecture SGLang prints in "Load weight end. type=..."; where one
architecture covers several sizes, the model path decides (longest matching fragment wins)."""

from __future__ import annotations

from typing import Any

# architecture → [(path fragment or "" for the default, {hidden_size, num_experts, name})]
MOE_MODELS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "DeepseekV3ForCausalLM": [("", {"hidden_size": 7168, "num_experts": 256, "name": "DeepSeek-V3/R1"})],
    "DeepseekV32ForCausalLM": [("", {"hidden_size": 7168, "num_experts": 256, "name": "DeepSeek-V3.2"})],
    "DeepseekV2ForCausalLM": [
        ("lite", {"hidden_size": 2048, "num_experts": 64, "name": "DeepSeek-V2-Lite"}),
        ("", {"hidden_size": 5120, "num_experts": 160, "name": "DeepSeek-V2"}),
    ],
    "Qwen3MoeForCausalLM": [
        ("30b", {"hidden_size": 2048, "num_experts": 128, "name": "Qwen3-30B-A3B"}),
        ("235b", {"hidden_size": 4096, "num_experts": 128, "name": "Qwen3-235B-A22B"}),
    ],
    "Qwen2MoeForCausalLM": [("", {"hidden_size": 2048, "num_experts": 60, "name": "Qwen1.5/Qwen2-MoE-A2.7B"})],
    "MixtralForCausalLM": [
        ("8x22b", {"hidden_size": 6144, "num_experts": 8, "name": "Mixtral-8x22B"}),
        ("", {"hidden_size": 4096, "num_experts": 8, "name": "Mixtral-8x7B"}),
    ],
    "KimiK2ForCausalLM": [("", {"hidden_size": 7168, "num_experts": 384, "name": "Kimi-K2"})],
}


def moe_shape(architecture: str | None, model_path: str | None) -> dict[str, Any] | None:
    entries = MOE_MODELS.get(architecture or "")
    if not entries:
        return None
    path = (model_path or "").lower()
    matches = [(len(fragment), shape) for fragment, shape in entries if fragment and fragment in path]
    if matches:
        return max(matches, key=lambda m: m[0])[1]
    default = [shape for fragment, shape in entries if fragment == ""]
    return default[0] if default else None
