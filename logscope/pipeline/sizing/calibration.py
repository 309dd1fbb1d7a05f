"""Calibration files: what `logscope probe` measured on real GPUs, per mechanism and group size, and how
`logscope analyze --calibration` reads them. The file is YAML (read with safe_load), validated on load;
bad files are a one-line error naming the file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logscope.core.errors import InputError

FORMAT = 1
_TOP_KEYS = {
    "logscope_calibration",
    "command",
    "measured_at",
    "hardware",
    "software",
    "environment",
    "world_size",
    "mechanisms",
    "skipped",
    "readings",
    "processes",
}
_MECHANISM_KEYS = {
    "mechanism",
    "stage",
    "group",
    "group_size",
    "mib",
    "outside_allocator_mib",
    "reserved_mib",
    "timing",
    "per_rank_mib",
    "what",
    "requested_mib",
    "environment",
}
NCCL_DEFAULT_CUMEM = "1"  # NCCL's own default when NCCL_CUMEM_ENABLE is unset


@dataclass(frozen=True, slots=True)
class Measured:
    """One mechanism measured at one group size."""

    mechanism: str
    stage: str
    group: str
    group_size: int
    mib: float  # device memory the stage took (max over ranks)
    outside_allocator_mib: float
    timing: str
    requested_mib: float | None = None
    environment: tuple[tuple[str, str], ...] = ()  # the NCCL/SGLang variables the probe ran under

    def env_key(self) -> tuple[str, str | None]:
        """(effective NCCL_CUMEM_ENABLE, NCCL_BUFFSIZE or None for NCCL's default)."""
        env = dict(self.environment)
        cumem = env.get("NCCL_CUMEM_ENABLE")
        return (NCCL_DEFAULT_CUMEM if cumem in (None, "") else str(cumem)), (env.get("NCCL_BUFFSIZE") or None)


@dataclass(frozen=True)
class Calibration:
    path: str
    gpu: str | None
    world_size: int
    software: dict[str, Any]
    measured: tuple[Measured, ...]
    pids: frozenset[int] = field(default_factory=frozenset)  # the probe's processes (they appear in its dumps)

    def lookup(
        self, mechanism: str, group_size: int | None = None, env_key: tuple[str, str | None] | None = None
    ) -> Measured | None:
        """The measurement of `mechanism` at exactly this group size (any size when None) and, when `env_key` is
        given, under that NCCL environment: never extrapolated."""
        for entry in self.measured:
            if (
                entry.mechanism == mechanism
                and (group_size is None or entry.group_size == group_size)
                and (env_key is None or entry.env_key() == env_key)
            ):
                return entry
        return None

    def environments(self) -> list[tuple[str, str | None]]:
        return sorted({m.env_key() for m in self.measured}, key=lambda k: (k[0], k[1] or ""))

    def label(self) -> str:
        return f"{Path(self.path).name} ({self.gpu or 'unknown GPU'}, world size {self.world_size})"

    def summary(self) -> dict[str, Any]:
        """What the report says about the calibration it used."""
        return {
            "path": self.path,
            "gpu": self.gpu,
            "world_size": self.world_size,
            "torch": self.software.get("torch"),
            "nccl": self.software.get("nccl"),
            "mechanisms": sorted({m.mechanism for m in self.measured}),
            "environments": [f"NCCL_CUMEM_ENABLE={c}" + (f", NCCL_BUFFSIZE={b}" if b else "") for c, b in self.environments()],
        }


def _fail(path: str, message: str) -> InputError:
    return InputError(f"{path}: not a logscope calibration file ({message})")


def load_calibration(path: str | Path) -> Calibration:
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise _fail(name, "not UTF-8 text") from None
    import yaml  # only with --calibration: an analysis without one does not pay for it

    from logscope.core.yamlfile import safe_loader

    try:
        data = yaml.load(text, Loader=safe_loader())  # noqa: S506 - libyaml's safe loader where PyYAML has it
    except yaml.YAMLError as exc:
        raise _fail(name, f"invalid YAML: {str(exc).splitlines()[0]}") from None
    return parse_calibration(data, name)


def parse_calibration(data: Any, name: str = "calibration") -> Calibration:
    if not isinstance(data, dict) or data.get("logscope_calibration") != FORMAT:
        raise _fail(name, f"expected a mapping with logscope_calibration: {FORMAT}")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise _fail(name, f"unknown keys {sorted(unknown)}")
    world = data.get("world_size")
    if not isinstance(world, int) or world < 1:
        raise _fail(name, "world_size must be a positive integer")
    measured = []
    top_env = data.get("environment") if isinstance(data.get("environment"), dict) else {}
    for index, entry in enumerate(data.get("mechanisms") or []):
        if not isinstance(entry, dict) or set(entry) - _MECHANISM_KEYS:
            raise _fail(
                name,
                f"mechanisms[{index}] has unknown keys {sorted(set(entry) - _MECHANISM_KEYS)}"
                if isinstance(entry, dict)
                else f"mechanisms[{index}] is not a mapping",
            )
        try:
            measured.append(
                Measured(
                    str(entry["mechanism"]),
                    str(entry["stage"]),
                    str(entry.get("group", "world")),
                    int(entry["group_size"]),
                    float(entry["mib"]),
                    float(entry["outside_allocator_mib"]),
                    str(entry.get("timing", "eager")),
                    None if entry.get("requested_mib") is None else float(entry["requested_mib"]),
                    _env_items(entry.get("environment", top_env), name, index),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise _fail(name, f"mechanisms[{index}]: {type(exc).__name__} {exc}") from None
    hardware = data.get("hardware") or {}
    pids = frozenset(int(p["pid"]) for p in data.get("processes") or [] if isinstance(p, dict) and "pid" in p)
    return Calibration(
        name,
        hardware.get("gpu") if isinstance(hardware, dict) else None,
        world,
        dict(data.get("software") or {}),
        tuple(measured),
        pids,
    )


def _env_items(env: Any, name: str, index: int) -> tuple[tuple[str, str], ...]:
    if not isinstance(env, dict):
        raise _fail(name, f"mechanisms[{index}]: environment must be a mapping")
    return tuple(sorted((str(k), str(v)) for k, v in env.items()))


def dump_calibration(data: dict[str, Any]) -> str:
    import yaml

    return str(yaml.safe_dump(data, sort_keys=False, width=110))
