"""Launch config, versions, environment and model, from the events found (docs/design.md: sources in order of
trust: the server_args dump, the launch command pasted with the log, check_env, then the log lines)."""

from __future__ import annotations

import re
from typing import Any

from logscope.core import kinds
from logscope.core.credentials import REDACTED, hides, is_credential
from logscope.core.events import Event
from logscope.core.model import Launch
from logscope.core.server_flags import field_of, may_take, takes, value_type
from logscope.pipeline.assemble.sglang_version import lines_of, sglang_version
from logscope.pipeline.parse.parsers.stated_env import (
    BUNDLED,
    BUNDLED_TAG,
    IMAGE_TAG,
    TORCH_NCCL_ERROR,
    WEAK,
    exception_versions,
)

CONFIG_KEYS = (
    "model_path",
    "tp_size",
    "dp_size",
    "ep_size",
    "pp_size",
    "moe_dense_tp_size",
    "attn_cp_size",
    "enable_dp_attention",
    "moe_a2a_backend",
    "deepep_mode",
    "enable_deepep_moe",
    "mem_fraction_static",
    "max_total_tokens",
    "chunked_prefill_size",
    "max_prefill_tokens",
    "max_running_requests",
    "cuda_graph_max_bs",
    "disable_cuda_graph",
    "disable_custom_all_reduce",
    "enable_symm_mem",
    "enable_nccl_nvls",
    "enable_torch_symm_mem",
    "enable_mscclpp",
    "disaggregation_mode",
    "disaggregation_transfer_backend",
    "kv_cache_dtype",
    "dtype",
    "quantization",
    "page_size",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_draft_model_path",
    "nnodes",
    "node_rank",
    "base_gpu_id",
    "gpu_id_step",
    "dist_init_addr",
    "enable_piecewise_cuda_graph",
    "pre_warm_nccl",
    "context_length",
    "attention_backend",
    "device",
    "enable_eplb",
    "ep_num_redundant_experts",
    "enable_memory_saver",
    "moe_runner_backend",
    "max_mamba_cache_size",
    "enable_two_batch_overlap",
    "enable_tp_lm_head_all_to_all",
    "trust_remote_code",
    # read by the memory model (expert count under DeepEP, the automatic fraction's graph terms)
    "enforce_shared_experts_fusion",
    "disable_piecewise_cuda_graph",
    "piecewise_cuda_graph_max_tokens",
    "disable_prefill_cuda_graph",
    "cuda_graph_backend_prefill",
    "cuda_graph_max_bs_prefill",
    "speculative_num_draft_tokens",
    "cuda_graph_backend_decode",
)
# 0.5.14+ print the graph settings nested: cuda_graph_config={'decode': {'backend': 'full', 'max_bs': 512, ...},
# 'prefill': {...}} (a dict from 0.5.19, CudaGraphConfig(decode=PhaseConfig(...), ...) before); the flat
# convenience fields (cuda_graph_max_bs_decode, ...) are None once folded in. (phase, key) -> config key
_GRAPH_CONFIG_KEYS = {
    ("decode", "max_bs"): "cuda_graph_max_bs",
    ("decode", "backend"): "cuda_graph_backend_decode",
    ("prefill", "backend"): "cuda_graph_backend_prefill",
    ("prefill", "max_bs"): "cuda_graph_max_bs_prefill",
}
_FLAT_GRAPH_KEYS = {"cuda_graph_max_bs_decode": "cuda_graph_max_bs"}


def flag_field(flag: str, version: str | None = None) -> str:
    """The key a launch command's flag (as read: `tp`, `tensor_parallel_size`) gives: a config key as spelled, else
    the ServerArgs field the release's argparse sets for it (server_flags.py: aliases and unique prefixes, from the
    released source), else the flag itself."""
    if flag in CONFIG_KEYS:
        return flag
    return field_of(flag, version) or flag


VERSION_KEYS = {
    "sglang": "sglang",
    "sgl_kernel": "sgl_kernel",
    "sglang-kernel": "sgl_kernel",
    "PyTorch": "torch",
    "CUDA Driver Version": "driver",
    "CUDA Driver Versions": "driver",
    "flashinfer": "flashinfer",
    "flashinfer_python": "flashinfer",
    "triton": "triton",
    "transformers": "transformers",
    "Transformers": "transformers",  # a hand-written block read as check_env's ("Python: ...", "Transformers: 5.9.0")
    "vllm": "vllm",
    "deep_ep": "deep_ep",
    "ROCM Driver Version": "rocm_driver",
    # PyTorch's / vLLM's collect_env
    "torch": "torch",
    "PyTorch version": "torch",
    "vLLM Version": "vllm",
    "Nvidia driver version": "driver",
    "sglang-kernel-cu12": "sgl_kernel",
    "sgl-kernel": "sgl_kernel",
    "flashinfer-python": "flashinfer",
    "nvidia-nccl-cu12": "nccl",
    "nvidia-nccl-cu13": "nccl",
    "CUDA used to build PyTorch": "cuda",
    # stated_env.py's keys for the issue template's fields and the packages a sentence names
    "driver": "driver",
    "cuda": "cuda",
    "nccl": "nccl",
    "mooncake": "mooncake",
    "mooncake-transfer-engine": "mooncake",
    "nixl": "nixl",
}


_NUMBER = {"int": int, "float": float}
_UNREAD = object()
# a word the shell expands ($MODEL, ${TP}, $(LWS_LEADER_ADDRESS):5757): the paste does not show its value
_EXPANDED = re.compile(r"\$(?:\w|\{|\()")
# a template's placeholder that a program fills before it runs the command: Python's f-string / str.format field
# ("{model}", "{}", "{args.tp}", "{cfg['path']}"), Jinja's or Helm's ("{{ .Values.modelPath }}", its "{{" cut off as
# a word of its own): the paste does not show the value
_TEMPLATED = re.compile(r"\{\{|\}\}|\{(?:[A-Za-z_][\w.]*(?:\[[^\]{}]*\])*)?(?:![rsa])?(?::[^{}\"]*)?\}")


def _coerce(key: str, value: Any) -> Any:
    """A config value as the released argparse types it (server_flags.json): an int or float flag's word as that
    number, a store_true flag's `True`/`False` as a bool; `_UNREAD` for a number flag's word that is no number (a
    shell variable, `$(LWS_GROUP_SIZE)`: the paste does not give the value), for a word none of the releases'
    choices holds (argparse refuses it), and for any word the shell expands."""
    if isinstance(value, str):
        if _EXPANDED.search(value) or ("{" in value or "}" in value) and _TEMPLATED.search(value):
            return _UNREAD
        number = _NUMBER.get(value_type(key) or "") if takes(key) in ("one", "optional") else None
        if number is not None:
            if value.endswith("."):  # "0." is a copy cut inside the number (argparse would read 0.0: no user writes it)
                return _UNREAD
            try:
                return number(value)
            except ValueError:
                return _UNREAD
        if takes(key) == "none" and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if takes(key) == "one" and not may_take(key, value, typed=False):  # a word argparse refuses: no choice of it
            return _UNREAD
    return value


def _set(launch: Launch, key: str, value: Any, source: str) -> None:
    if key not in launch.config and (typed := _coerce(key, value)) is not _UNREAD:
        launch.config[key] = typed
        launch.config_source[key] = source


def _stated(launch: Launch, key: str, value: Any, source: str) -> None:
    """Every argument as printed, from the most trusted source that states it."""
    if key not in launch.server_args:
        launch.server_args[key] = REDACTED if hides(key, value) else value
        launch.server_args_source[key] = source


def fill_launch_facts(launch: Launch, global_events: list[Event]) -> None:
    events = launch.events + [e for r in launch.ranks.values() for e in r.events]
    args = [e for e in events if e.kind == kinds.SERVER_ARGS]
    for ev in args[:1]:
        for key, value in ev.data["fields"].items():
            _stated(launch, key, value, kinds.SERVER_ARGS)
            if key in CONFIG_KEYS and value is not None:
                _set(launch, key, value, kinds.SERVER_ARGS)
        _graph_config(launch, ev.data["fields"])
    _versions(launch, events, global_events)  # the stated release decides how its argparse read the flags
    for ev in (e for e in events + global_events if e.kind in (kinds.LAUNCH_COMMAND, kinds.LAUNCH_FLAGS)):
        source = ev.data.get("source", kinds.LAUNCH_COMMAND)  # a flag list item of an issue says so
        for flag, value in ev.data["args"].items():
            key = flag_field(flag, launch.versions.get("sglang"))
            _stated(launch, key, value, source)
            if key in CONFIG_KEYS:
                _set(launch, key, value, source)
    for ev in (e for e in events + global_events if e.kind in (kinds.LAUNCH_COMMAND, kinds.ENV_EXPORT)):
        for key, value in ev.data["env"].items():
            launch.environment.setdefault(key, REDACTED if is_credential(key) else value)
    for ev in events:
        if ev.kind == kinds.NCCL_PREWARM:
            for key in ("tp_size", "pp_size", "ep_size"):
                _set(launch, key, ev.data[key], "log")
    _infer_sizes(launch)
    stated_by = next(
        (
            e.data.get("stated_by", e.grammar)
            for e in _by_trust(events + global_events)
            if e.kind in _ENV_KINDS and any(VERSION_KEYS.get(k) == "sglang" for k in e.data["values"])
        ),
        None,
    )
    stated = launch.versions.get("sglang")
    if stated is None:  # the release tag of the docker image the pasted launch command runs
        image = next(
            (
                (m.group(1), "docker_image" if pattern is IMAGE_TAG else BUNDLED)
                for e in events + global_events
                if e.kind == kinds.LAUNCH_COMMAND
                for pattern in (IMAGE_TAG, BUNDLED_TAG)
                if (m := pattern.search(e.data.get("full_text", e.text)))
            ),
            None,
        )
        if image is not None:
            stated, stated_by = image
    phase_lines = [(p.source, p.line, p.full_text or p.text) for r in launch.ranks.values() for p in r.phases]
    launch.sglang_version = sglang_version(lines_of(events, phase_lines), stated, stated_by)
    _model(launch)


def _graph_config(launch: Launch, fields: dict[str, Any]) -> None:
    """The CUDA graph settings of a 0.5.14+ dump, under the keys the memory model reads."""
    nested = fields.get("cuda_graph_config")
    if isinstance(nested, dict):
        for (phase, key), name in _GRAPH_CONFIG_KEYS.items():
            section = nested.get(phase)
            if isinstance(section, dict) and section.get(key) is not None:
                _set(launch, name, section[key], kinds.SERVER_ARGS)
    for flat, name in _FLAT_GRAPH_KEYS.items():
        if fields.get(flat) is not None:
            _set(launch, name, fields[flat], kinds.SERVER_ARGS)


def _infer_sizes(launch: Launch) -> None:
    """Parallel sizes the rank tags imply: a lower bound (TP14 alone shows tp_size >= 15), kept apart from
    the config so that no stated value is invented."""
    for dim, key in (("tp", "tp_size"), ("dp", "dp_size"), ("ep", "ep_size"), ("pp", "pp_size")):
        values = [v for t in launch.ranks.values() if (v := t.rank.get(dim)) is not None]
        if values and key not in launch.config and max(values) > 0:
            launch.config_lower_bounds[key] = {
                "at_least": max(values) + 1,
                "basis": f"highest rank tag {dim.upper()}{max(values)}",
            }


_ENV_KINDS = (kinds.CHECK_ENV, kinds.STATED_ENV)  # check_env, and the same values stated elsewhere (stated_env.py)


def _by_trust(events: list[Event]) -> list[Event]:
    """The events in input order, those that state a version only in prose (a sentence, a bare image tag) last:
    any other statement of the same version wins over them."""
    return sorted(events, key=lambda e: e.kind == kinds.STATED_ENV and e.data.get("stated_by") in WEAK)


def _versions(launch: Launch, events: list[Event], global_events: list[Event]) -> None:
    for ev in _by_trust(events + global_events):
        if ev.kind == kinds.NCCL_VERSION:
            launch.versions.setdefault("nccl", ev.data["nccl"])
        elif ev.kind == kinds.EXCEPTION and (m := TORCH_NCCL_ERROR.search(str(ev.data.get("message", "")))):
            launch.versions.setdefault("nccl", m.group(1))
        elif ev.kind == kinds.EXCEPTION and (checked := exception_versions(str(ev.data.get("message", "")))):
            for key, value in checked.items():  # a library's version check names the version installed
                if key in VERSION_KEYS:
                    launch.versions.setdefault(VERSION_KEYS[key], value)
        elif ev.kind in _ENV_KINDS:
            values = ev.data["values"]
            for key, name in VERSION_KEYS.items():
                value = values.get(key)
                if value and value != "Module Not Found":
                    value = value.split(",")[0].strip()
                    if name == "nccl" and (tag := _NCCL_TAG.match(value)):
                        value = tag.group(1)
                    launch.versions.setdefault(name, value)
            for name, value in _hand_written_versions(values):
                launch.versions.setdefault(name, value)
            nvcc = values.get("NVCC", "")
            m = re.search(r"release ([\d.]+)", nvcc)
            if m:
                launch.versions.setdefault("cuda", m.group(1))
            # check_env's "Python: 3.12.3 (main, ...)"; torch's collect_env.py (2.5.1 .. 2.10.0, vLLM's copy too) prints
            # "Python version: " + sys.version ("3.9.19 (main, ...)", "3.9.21 | packaged by conda-forge | (main, ...)")
            python = values.get("Python") or values.get("Python version", "")
            # sys.version always has three numbers ("3.12.7", "3.12.0+" of a source build): "Python: 3.12+" is a floor a
            # person wrote in a list ("3.12 or later"), no interpreter's release
            if python and not _PYTHON_FLOOR.match(python.split()[0]):
                launch.versions.setdefault("python", python.split()[0])
        elif ev.kind == kinds.SMI_VERSIONS:
            for key in ("driver", "cuda_driver_api"):
                if ev.data.get(key):
                    launch.versions.setdefault(key, ev.data[key])


_PYTHON_FLOOR = re.compile(r"^\d+\.\d+\+$")
# NCCL's release as its tag names it (NVIDIA/nccl tags v1.3.0-1 .. v2.30.7-1: v{major}.{minor}.{patch}-{revision}; its
# Debian packages add +cuda{major}.{minor}): "NCCL: 2.28.3-1" states the release 2.28.3 (stated_env._NAMED reads the
# same form in a sentence)
_NCCL_TAG = re.compile(r"^v?(\d+\.\d+\.\d+)-\d{1,2}(?:\+cuda\d+\.\d+)?$")


# a hand-written environment block read as check_env's key: value lines: "CUDA: 13.0 (nvcc 13.0.88)", "NCCL: 2.29.7" (keys
# check_env never prints: sglang 0.5.23 check_env.py writes "CUDA available", "CUDA_HOME", "CUDA Driver Version", no
# NCCL), the version the value starts with; and "FlashInfer 0.6.17 commit: <sha>": a package of VERSION_KEYS, its
# version and the commit it was built from
_HAND_KEYS = {"CUDA": "cuda", "NCCL": "nccl"}
_VERSION_HEAD = re.compile(r"v?(\d+\.\d+(?:\.\d+)*(?:\.?(?:post|rc|dev|a|b)\d+)?(?:\+[\w.]+)?)(?=\s|,|;|$)")
_COMMIT_KEY = re.compile(r"([A-Za-z][\w.-]*) v?(\d+\.\d+(?:\.\w+)*(?:\+[\w.]+)?) (?:git )?commit", re.IGNORECASE)
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_PACKAGE_KEYS = {key.lower(): name for key, name in VERSION_KEYS.items()}


def _hand_written_versions(values: dict[str, str]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for key, name in _HAND_KEYS.items():
        m = _VERSION_HEAD.match(values.get(key, "").strip())
        if m:
            found.append((name, m.group(1)))
    for key, value in values.items():
        m = _COMMIT_KEY.fullmatch(key.strip())
        package = _PACKAGE_KEYS.get(m.group(1).lower()) if m else None
        if m and package and _COMMIT.fullmatch(value.strip()):
            found.append((package, m.group(2)))
    return found


def global_versions(events: list[Event]) -> dict[str, str]:
    """Versions found outside any launch (a check_env paste alone)."""
    holder = Launch(id=0)
    _versions(holder, [], events)
    return holder.versions


def _model(launch: Launch) -> None:
    if "model_path" in launch.config:
        launch.model["path"] = launch.config["model_path"]
    for timeline in launch.ranks.values():
        for phase in timeline.phases:
            if phase.phase == kinds.LOAD_WEIGHT_END and "model_type" in phase.values:
                slot = "architecture" if phase.model == "target" else "draft_architecture"
                launch.model.setdefault(slot, phase.values["model_type"])
                for key in ("quant", "dtype"):
                    if key in phase.values and phase.model == "target":
                        launch.model.setdefault(key, phase.values[key])


_MODEL_KEYS = {
    "hidden_size": ("hidden_size",),
    "num_experts": ("n_routed_experts", "num_experts", "num_local_experts"),
    "layers": ("num_hidden_layers",),
    "heads": ("num_attention_heads",),
    "kv_heads": ("num_key_value_heads",),
}


def apply_model_config(launch: Launch, config: dict[str, Any]) -> None:
    """A Hugging Face config.json given with --model-config: it wins over the built-in model table."""
    text_config: dict[str, Any] = config["text_config"] if isinstance(config.get("text_config"), dict) else {}
    for key, names in _MODEL_KEYS.items():
        for name in names:
            value = config.get(name, text_config.get(name))
            if isinstance(value, int):
                launch.model[key] = value
                break
    architectures = config.get("architectures")
    if isinstance(architectures, list) and architectures and "architecture" not in launch.model:
        launch.model["architecture"] = str(architectures[0])
