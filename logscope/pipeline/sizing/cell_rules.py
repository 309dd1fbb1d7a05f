"""The NCCL environment a launch ran with and the communicator sizes measured under it: rows keyed by
environment (`data/nccl_h200.yaml`, or a probe calibration). The release constants live in the memory-model
library (logscope/memory_model)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from logscope.core import user_cache
from logscope.core.resources import PACKAGE_DATA
from logscope.core.yamlfile import safe_loader, yaml
from logscope.pipeline.sizing.calibration import Calibration, parse_calibration

_DATA = PACKAGE_DATA
# the probe's env-matrix calibration on one H200 (`logscope probe --world-size 1 --env-matrix`), when committed;
# until then the issue 27 table (nccl_h200.yaml)
SHIPPED_CALIBRATION = _DATA / "h200-nccl-calibration.yaml"


def _yaml_data(name: str) -> Any:
    """A shipped data file, parsed once per content and kept in the user cache (YAML construction in Python costs
    a paste more than the constants are worth)."""
    path = _DATA / name
    return user_cache.cached(
        "data-" + name.replace(".", "-"),
        user_cache.content_key([path], ()),
        lambda: yaml.load(path.read_text(encoding="utf-8"), Loader=safe_loader()),  # noqa: S506 - a safe loader
        lambda v: isinstance(v, dict),
    )


@cache
def nccl_table() -> dict[str, Any]:
    return dict(_yaml_data("nccl_h200.yaml"))


def _flag(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class NcclEnv:
    """The NCCL environment the server's processes ran with, and where each value came from."""

    cumem: str
    cumem_source: str
    buffsize: str | None  # None: NCCL's default
    nvls: str = "0"  # NCCL_NVLS_ENABLE as SGLang leaves it

    def key(self) -> tuple[str, str | None]:
        return self.cumem, self.buffsize

    def describe(self) -> str:
        text = f"NCCL_CUMEM_ENABLE={self.cumem} ({self.cumem_source})"
        text += f", NCCL_BUFFSIZE={self.buffsize}" if self.buffsize else ""
        return text + (
            ", NCCL_NVLS_ENABLE=1 (NVLS buffers are not in rows measured with NVLS off: a lower bound)"
            if self.nvls == "1"
            else ""
        )


def nccl_env(environment: dict[str, Any], config: dict[str, Any]) -> NcclEnv:
    """SGLang's rule (engine._set_envs_and_config): a NCCL_CUMEM_ENABLE the user set is kept unless symmetric
    memory is on; otherwise it is set to int(enable_symm_mem)."""
    symm = config.get("enable_symm_mem") is True
    given = environment.get("NCCL_CUMEM_ENABLE")
    if given is not None and not symm:
        cumem, source = ("1" if _flag(given) else "0"), "set in the input"
    else:
        cumem = "1" if symm else "0"
        source = "SGLang sets it" + (" (symmetric memory on)" if symm else "")
    buff = environment.get("NCCL_BUFFSIZE")
    # NCCL_NVLS_ENABLE: int(enable_nccl_nvls or enable_symm_mem) unless the user set it and neither flag is on
    nvls_flag = config.get("enable_nccl_nvls") is True or symm
    given_nvls = environment.get("NCCL_NVLS_ENABLE")
    nvls = "1" if nvls_flag else ("1" if given_nvls is not None and _flag(given_nvls) else "0")
    return NcclEnv(cumem, source, str(buff) if buff not in (None, "") else None, nvls)


@dataclass(frozen=True)
class NcclSizes:
    first_mib: float
    further_mib: tuple[float, float]
    basis: str


@cache
def shipped_calibration() -> Calibration | None:
    if not SHIPPED_CALIBRATION.exists():
        return None
    return parse_calibration(_yaml_data(SHIPPED_CALIBRATION.name), str(SHIPPED_CALIBRATION))


def _from_calibration(env: NcclEnv, calibration: Calibration, gpu_name: str | None = None) -> NcclSizes | None:
    """First communicator = the eager init + its first collective, further = a split communicator with its
    first all-reduce: the memory outside the PyTorch allocator, at world size 1, under this environment."""
    key = env.key()
    init = calibration.lookup("nccl_communicator", None, key)
    first = calibration.lookup("nccl_first_collective", None, key)
    split = calibration.lookup("nccl_split_communicator", None, key)
    if init is None or split is None:
        return None
    first_mib = init.outside_allocator_mib + (first.outside_allocator_mib if first else 0.0)
    return NcclSizes(
        first_mib,
        (split.outside_allocator_mib, split.outside_allocator_mib),
        f"{measured_on(calibration.gpu, gpu_name)}, {env.describe()}; logscope probe "
        f"{Path(calibration.path).name}, NCCL {calibration.software.get('nccl', '?')}",
    )


def measured_on(gpu: str | None, gpu_name: str | None) -> str:
    """The GPU a measurement was taken on, as a basis names it: "assumed" when the input names no GPU (the
    figure then stands for a card the input never shows)."""
    named = gpu or "unknown GPU"
    return named if gpu_name else f"{named} (assumed: the input names no GPU)"


def same_gpu(measured_on: str | None, gpu_name: str | None) -> bool:
    """Whether a measurement taken on `measured_on` may stand for the launch's GPU: yes when the launch's GPU is
    not in the input (the figure is then labelled with the GPU it was measured on), else only the same model."""
    if not gpu_name or not measured_on:
        return True
    return measured_on.strip().lower() == gpu_name.strip().lower()


def nccl_sizes(env: NcclEnv, calibration: Calibration | None = None, gpu_name: str | None = None) -> NcclSizes | None:
    """The measured row for this environment: the probe calibration shipped with logscope (or the one given),
    else the issue 27 table; None when neither measured it, or when they were measured on another GPU model
    than the launch's."""
    chosen = calibration if calibration is not None else shipped_calibration()
    if chosen is not None and same_gpu(chosen.gpu, gpu_name):
        found = _from_calibration(env, chosen, gpu_name)
        if found is not None:
            return found
    table = nccl_table()
    if not same_gpu(str(table.get("gpu") or ""), gpu_name):
        return None
    for row in table["rows"]:
        want = row["env"]
        if str(want.get("NCCL_CUMEM_ENABLE")) == env.cumem and want.get("NCCL_BUFFSIZE") == env.buffsize:
            further = tuple(float(x) for x in row["further_communicator_mib"])
            return NcclSizes(
                float(row["first_communicator_mib"]),
                (further[0], further[-1]),
                f"{measured_on(str(table['gpu']), gpu_name)}, {env.describe()}; {table['source']}",
            )
    return None
