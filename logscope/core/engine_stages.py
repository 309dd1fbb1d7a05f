"""Which functions of vLLM's engine run only while it starts and which only once it serves (catalog/engine_stages.json,
checked against the released wheels by tools/upstream/engine_stages.py): a traceback through vLLM's frames, and no
SGLang frame, is placed in time by them as stage_functions.py places SGLang's (Dynamo, verl, LMCache, gpustack and
vllm-ascend run vLLM's engine, and their pastes show its frames).

A stack is placed only when every placed frame agrees on the time; a stack through a test harness or through vLLM's
elastic-EP rescale (which loads the model and captures the graphs again in a serving engine) places nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

from logscope.core.resources import data_dir

CATALOG_FILE = "engine_stages.json"
# a frame as the traceback reader keeps it: "<path>:<line> <function>[: <code>]"
_FRAME = re.compile(r"(?P<path>\S+?\.py):(?P<line>\d+) (?P<func>[\w<>]+)")
# the frames whose stack belongs to no engine's start or serving: a test harness; the rescale of a running engine
_ELSEWHERE = re.compile(r"/tests?/|/_pytest/|/unittest/|vllm/distributed/elastic_ep/")


@dataclass(frozen=True, slots=True)
class EnginePlacement:
    stage: str  # startup or serving
    phase: str | None
    qualname: str
    releases: str  # the catalogued releases that define it: "0.8.5.post1-0.34.0"

    def basis(self, frame: str) -> str:
        when = "while vLLM's engine starts" if self.stage == "startup" else "once vLLM's engine serves"
        step = f", in its {self.phase} step" if self.phase else ""
        return f"frame {frame} runs only {when}{step}: {self.qualname} in vllm {self.releases}, per catalog/engine_stages.json"


@cache
def _functions() -> dict[str, EnginePlacement]:
    """module:function -> its placement, where every catalogued release run agrees on the time and step."""
    try:
        runs = json.loads((data_dir("catalog") / CATALOG_FILE).read_text(encoding="utf-8"))["functions"]
    except OSError:
        return {}
    out = {}
    for key, key_runs in runs.items():
        if len({(run[0], run[1]) for run in key_runs}) != 1:
            continue
        newest = key_runs[-1]
        out[key] = EnginePlacement(newest[0], newest[1], " / ".join(newest[4]), f"{key_runs[0][2]}-{newest[3]}")
    return out


def module_of(path: str) -> str | None:
    """vLLM's module of a source path as a frame prints it (any install prefix), or None for another package."""
    path = path.replace("\\", "/")
    at = path.rfind("/vllm/")
    start = at + 1 if at >= 0 else (0 if path.startswith("vllm/") else -1)
    if start < 0:
        return None
    return path[start:-3].replace("/", ".").removesuffix(".__init__")


def place_frame(frame: str) -> EnginePlacement | None:
    m = _FRAME.search(frame)
    if m is None:
        return None
    module = module_of(m.group("path"))
    return None if module is None else _functions().get(f"{module}:{m.group('func')}")


def place_stack(frames: list[str]) -> tuple[EnginePlacement, str] | None:
    """(placement, the frame that gave it) from a traceback's frames (outermost first): the innermost placed vLLM frame,
    a startup step where a placed frame names one; None when placed frames disagree on the time."""
    if any(_ELSEWHERE.search(f.split(" ", 1)[0]) for f in frames):
        return None
    placed = [(p, f) for f in reversed(frames) if (p := place_frame(f)) is not None]
    if not placed or len({p.stage for p, _ in placed}) != 1:
        return None
    stepped = [(p, f) for p, f in placed if p.phase is not None]
    return stepped[0] if stepped and len({p.phase for p, _ in stepped}) == 1 else placed[0]
