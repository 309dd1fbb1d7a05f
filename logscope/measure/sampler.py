"""NVML sampling of a launched tree: the device's used memory and, per process of the tree, the memory NVML
shows for it on each GPU. `nvml` is pynvml (nvidia-ml-py) or any object with its functions (the tests' fake
NVML); without NVML or a GPU the sampler says why and measures nothing."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from logscope.core.samples import GpuInfo, GpuSample, Sample
from logscope.measure.proctree import descendants

MIB = float(1 << 20)


@dataclass(frozen=True, slots=True)
class Nvml:
    """An initialised NVML and its GPUs, or the reason there is none."""

    module: Any
    gpus: tuple[GpuInfo, ...]
    driver: str | None
    reason: str | None = None

    @property
    def available(self) -> bool:
        return self.module is not None and bool(self.gpus)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def open_nvml(module: Any = None) -> Nvml:
    """NVML initialised, with each GPU's name and memory (Total and, where NVML v2 gives it, Reserved)."""
    if module is None:
        try:
            import pynvml  # nvidia-ml-py
        except ImportError:
            return Nvml(None, (), None, "NVML is not installed (pip install nvidia-ml-py)")
        module = pynvml
    try:
        module.nvmlInit()
        count = module.nvmlDeviceGetCount()
        gpus = []
        for index in range(count):
            handle = module.nvmlDeviceGetHandleByIndex(index)
            total, reserved = _memory_totals(module, handle)
            gpus.append(GpuInfo(index, _text(module.nvmlDeviceGetName(handle)), total, reserved))
        driver = _text(module.nvmlSystemGetDriverVersion())
    except Exception as exc:  # noqa: BLE001 - NVML's errors (NVMLError_LibraryNotFound, _DriverNotLoaded, ...) all mean: no NVML
        return Nvml(None, (), None, f"NVML failed: {exc or type(exc).__name__}")
    if not gpus:
        return Nvml(None, (), driver, "NVML sees no GPU")
    return Nvml(module, tuple(gpus), driver)


def _memory_totals(module: Any, handle: Any) -> tuple[float, float | None]:
    version = getattr(module, "nvmlMemory_v2", None)
    if version is not None:
        try:
            info = module.nvmlDeviceGetMemoryInfo(handle, version=version)
            return info.total / MIB, getattr(info, "reserved", None) and info.reserved / MIB
        except Exception:  # noqa: BLE001, S110 - drivers before v2 memory info: Total only
            pass
    return module.nvmlDeviceGetMemoryInfo(handle).total / MIB, None


def take_sample(nvml: Nvml, root: int, t: float, trigger: str, line: int | None, text: str | None) -> Sample:
    """One sample of every GPU: device used, the tree's processes, everyone else."""
    tree = descendants(root)
    out = []
    module = nvml.module
    for gpu in nvml.gpus:
        handle = module.nvmlDeviceGetHandleByIndex(gpu.index)
        used = module.nvmlDeviceGetMemoryInfo(handle).used / MIB
        mine: dict[int, float] = {}
        others = 0.0
        for proc in module.nvmlDeviceGetComputeRunningProcesses(handle):
            mib = (proc.usedGpuMemory or 0) / MIB  # None where the driver hides it (no permission)
            if proc.pid in tree:
                mine[proc.pid] = mine.get(proc.pid, 0.0) + mib
            else:
                others += mib
        out.append(GpuSample(gpu.index, used, mine, others))
    return Sample(t, trigger, line, text, tuple(out))


MAX_PENDING = 256  # phase sample requests waiting for the sampler's thread


class Sampler:
    """Takes samples on a background thread: at a fixed interval, and at once when a phase line is printed
    (`at_phase`); each is handed to `write` on that thread, in the order taken."""

    def __init__(self, nvml: Nvml, root: int, write: Callable[[Sample], None], interval_s: float, started: float) -> None:
        self.nvml, self.root, self.write = nvml, root, write
        self.interval_s, self.started = interval_s, started
        self.requests: queue.SimpleQueue[tuple[str, int | None, str | None, threading.Event | None]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="logscope-sampler", daemon=True)
        self.error: str | None = None
        self.lock = threading.Lock()
        self.pending = 0  # phase requests waiting
        self.skipped = 0  # phase lines that got no sample of their own (the queue was full)

    def start(self) -> None:
        self.requests.put(("start", None, None, None))
        self.thread.start()

    def at_phase(self, line: int, text: str) -> threading.Event:
        """Asks for a sample now; the event is set once it is written. At most MAX_PENDING requests wait: past
        them a phase line gets no sample of its own (a crash loop printing phase lines faster than NVML answers
        would grow the queue without bound), and the event is set at once."""
        taken = threading.Event()
        with self.lock:
            if self.pending >= MAX_PENDING:
                self.skipped += 1
                taken.set()
                return taken
            self.pending += 1
        self.requests.put(("phase", line, text, taken))
        return taken

    def stop(self) -> None:
        """Takes the last sample and waits for the thread."""
        self.requests.put(("end", None, None, None))
        self.thread.join()

    def _loop(self) -> None:
        deadline = time.monotonic() + self.interval_s
        while True:
            try:
                trigger, line, text, taken = self.requests.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                trigger, line, text, taken = "interval", None, None, None
                deadline += self.interval_s
                if deadline < time.monotonic():  # fell behind (a suspended process): no burst to catch up
                    deadline = time.monotonic() + self.interval_s
            if self.error is None:
                try:
                    self.write(take_sample(self.nvml, self.root, time.monotonic() - self.started, trigger, line, text))
                except Exception as exc:  # noqa: BLE001 - a GPU fallen off the bus must not stop the launch's output
                    self.error = f"NVML sampling stopped: {exc or type(exc).__name__}"
            if taken is not None:
                taken.set()
                with self.lock:
                    self.pending -= 1
            if trigger == "end":
                return
