"""Which SGLang functions run only at startup (and in which step) and which only while the server serves, per
release (catalog/stages.json, generated from the released wheels by tools/upstream/stages.py): a traceback's
SGLang frames, or the function that prints a wording, place a failure in time when no phase line does.

A function is placed only when every catalogued release that reaches it agrees: a release where startup and serving
code both reach it (`both`), or a stack whose frames point both ways, places nothing. An input that shows its release
(stated, or a range inferred from its wordings) is placed by the catalogued releases of that range alone."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from logscope.core import user_cache
from logscope.core.held_literals import HeldLiterals
from logscope.core.resources import data_dir
from logscope.core.text_memo import MEMO_TEXT, OwnedMemo

CATALOG_FILE = "stages.json"
# the functions SGLang installs as signal handlers (tools/upstream/signal_handlers.py): they run when the signal
# arrives, at any time after startup installed them, so neither their frames nor their lines place anything
HANDLERS_FILE = "signal_handlers.json"
WORDING = "wording:"  # the key prefix of a literal's entry (tools/upstream/stages.py)
# a frame as the traceback reader keeps it: "<path>:<line> <function>[: <code>]"
_FRAME = re.compile(r"(?P<path>\S+?\.py):(?P<line>\d+) (?P<func>[\w<>]+)")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a function runs: `startup` (with its step, or None) or `serving`, and the evidence said in a finding."""

    stage: str
    phase: str | None
    qualname: str
    releases: str  # "0.5.2-0.5.23"
    root: str | None
    read_from: str = "catalog/stages.json"  # where the placement was read (the catalogue, else the released files named)

    def basis(self, evidence: str) -> str:
        """What a finding says of the placement: the evidence (a frame, a wording's function), the time, the
        releases and root the catalogue read it from."""
        when = "at startup" if self.stage == "startup" else "while the scheduler serves, its warmup batch included"
        step = f", in its {self.phase} step" if self.phase else ""
        root = f", reached from {self.root}" if self.root and self.root != self.qualname else ""
        return f"{evidence} runs only {when}{step}: {self.qualname} in sglang {self.releases}{root}, per {self.read_from}"


# a release run as the user cache keeps it (plain tuples load several times faster than dataclasses):
# (stage, phase, first release, last release, qualname, root)
_Run = tuple[str, str | None, str, str, str, str | None]
_Row = tuple[str, str | None, str, str, str | None]  # a Placement's fields
# the releases an input shows: (lowest, highest), one release stated as (it, it); None: the input shows none
Releases = tuple[str, str] | None


@cache
def _placed() -> tuple[dict[str, tuple[_Run, ...]], tuple[tuple[str, tuple[_Run, ...]], ...]]:
    """The release runs of every key some release places: by `module:function`, and (literal head, runs) longest
    first (the most specific wording wins). Built once per catalogue and kept in the user cache (the catalogue's JSON
    costs a paste more); the key is the file's size and time and this module's text, not a hash of the 3 MB file."""
    path = data_dir("catalog") / CATALOG_FILE
    handlers = data_dir("catalog") / HANDLERS_FILE
    key = user_cache.stamp_key([path, handlers], (__file__,))
    return user_cache.cached(
        "stages", key, lambda: _build(path, handlers), lambda value: isinstance(value, tuple) and len(value) == 2
    )


def _signal_handlers(path: Path) -> frozenset[str]:
    try:
        return frozenset(json.loads(path.read_text(encoding="utf-8"))["handlers"])
    except OSError:
        return frozenset()


def _build(path: Path, handlers: Path) -> tuple[dict[str, tuple[_Run, ...]], tuple[tuple[str, tuple[_Run, ...]], ...]]:
    runs: dict[str, list[list[Any]]] = json.loads(path.read_text(encoding="utf-8"))["functions"]
    signalled = _signal_handlers(handlers)
    functions: dict[str, tuple[_Run, ...]] = {}
    wordings: list[tuple[str, tuple[_Run, ...]]] = []
    for key, key_runs in runs.items():
        # a signal handler's run places nothing (kept as `none`: no root of that release reaches it when it runs)
        kept = tuple(("none" if r[4] in signalled else r[0], r[1], r[2], r[3], r[4], r[6]) for r in key_runs)
        if not any(run[0] in ("startup", "serving") for run in kept):
            continue
        if key.startswith(WORDING):
            wordings.append((key[len(WORDING) :], kept))
        else:
            functions[key] = kept
    return functions, tuple(sorted(wordings, key=lambda pair: -len(pair[0])))


def module_of(path: str) -> str | None:
    """The SGLang module of a source path as a frame prints it (any install prefix), or None for another package."""
    path = path.replace("\\", "/")
    at = path.rfind("sglang/srt/")
    if at < 0:
        return "sglang.launch_server" if path.endswith("sglang/launch_server.py") else None
    return path[at:-3].replace("/", ".").removesuffix(".__init__")


def place_function(module: str, function: str, releases: Releases = None) -> Placement | None:
    """The placement of `module:function` when every release that places it (of `releases`, when given) agrees."""
    runs = _placed()[0].get(f"{module}:{function}")
    row = None if runs is None else _agreed(runs, releases)
    return None if row is None else Placement(*row)


def place_wording(text: str, releases: Releases = None) -> tuple[Placement, str] | None:
    """(placement, the literal) of the longest placed literal the text holds: a message only startup code or only
    serving code prints or raises (in every release that prints it, of `releases` when given). Answered once per
    distinct (text, releases): a log repeats its lines on every rank and launch, and each caller asks again (1.5 ms
    a question in review15b's profile of 2,000 repeated prose lines). The wordings read are kept beside the answer,
    so another catalogue never hits (OwnedMemo); texts over MEMO_TEXT characters are not kept."""
    wordings = _placed()[1]
    if len(text) > MEMO_TEXT:  # (a whole traceback is read anew: 4,096 kept texts of 32 KiB would hold 128 MiB)
        return _place_wording(wordings, text, releases)
    return _WORDING_ANSWERS.answer(wordings, (text, releases), lambda: _place_wording(wordings, text, releases))


_WORDING_ANSWERS: OwnedMemo[tuple[Placement, str] | None] = OwnedMemo()


def _place_wording(
    wordings: tuple[tuple[str, tuple[_Run, ...]], ...], text: str, releases: Releases
) -> tuple[Placement, str] | None:
    unplaced: list[str] = []  # literals the text holds that code of both times prints (in the releases read)
    for at in _held(wordings, text):
        literal, runs = wordings[at]
        if not any(literal in longer for longer in unplaced):
            row = _agreed(runs, releases)
            if row is not None:
                return Placement(*row), literal
            if _contradicted(runs, releases):  # a shorter head of this wording would claim what it does not
                unplaced.append(literal)
    return None


def _held(wordings: tuple[tuple[str, Any], ...], text: str) -> list[int]:
    """The positions in `wordings` (ascending) of the literals `text` holds (testing each of the ~6,800 literals with
    `in` cost 2.5 ms a message, a third of the CPU time of a log of many ERROR records)."""
    if _HEADS[0] is not wordings:
        _HEADS[:] = [wordings, HeldLiterals([literal for literal, _ in wordings], head=12)]
    return _HEADS[1].held(text)


_HEADS: list[Any] = [None, None]  # (the wordings indexed, their index)


def _base(version: str) -> tuple[int, ...]:
    """A release's 0.X.Y (the catalogue holds the last patch of each): 0.5.3.post3 -> (0, 5, 3)."""
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def _in_releases(runs: tuple[_Run, ...], releases: Releases) -> tuple[_Run, ...]:
    if releases is None:
        return runs
    low, high = _base(releases[0]), _base(releases[1])
    return tuple(run for run in runs if _base(run[2]) <= high and low <= _base(run[3]))


def _contradicted(runs: tuple[_Run, ...], releases: Releases) -> bool:
    """Whether the runs (of `releases`, when given) say the key runs at both times: a `both` run, or runs that
    disagree."""
    placed = [run for run in _in_releases(runs, releases) if run[0] != "none"]
    return any(run[0] == "both" for run in placed) or len({run[0] for run in placed}) > 1


@lru_cache(maxsize=4096)
def _agreed(runs: tuple[_Run, ...], releases: Releases) -> _Row | None:
    """One placement when every release run that places the key (of `releases`, when given) agrees on the time: a
    run where startup and serving code both reach it (`both`) places nothing; a run that no root reaches (`none`: the
    call graph of that release lost the path, as when a handler moved to another component) neither places it nor
    contradicts."""
    placed = [run for run in _in_releases(runs, releases) if run[0] != "none"]
    if not placed or any(run[0] == "both" for run in placed) or len({run[0] for run in placed}) != 1:
        return None
    newest = placed[-1]
    phases = {run[1] for run in placed}
    phase = phases.pop() if len(phases) == 1 else None
    return (newest[0], phase, newest[4], f"{placed[0][2]}-{newest[3]}", newest[5])


def place_frame(frame: str, releases: Releases = None) -> Placement | None:
    m = _FRAME.search(frame)
    if m is None:
        return None
    if m.group("func") == "serve" and m.group("path").replace("\\", "/").endswith(_CLI_SERVE_FILE):
        return _cli_serve(releases)
    module = module_of(m.group("path"))
    return None if module is None else place_function(module, m.group("func"), releases)


# the `sglang serve` command (sglang 0.5.5.post3 .. 0.5.23 sglang/cli/serve.py serve: prepare_server_args, then the
# launch script's run_server, which the catalogue places at startup; the command line's main calls it, from 0.5.10.post1
# on as "serve(args, extra_argv)" in sglang/cli/main.py): catalog/stages.json reads sglang/srt/ and the launch script,
# not sglang/cli/, so its frames are placed here
_CLI_SERVE_FILE = "sglang/cli/serve.py"
_CLI_MAIN_FILE = "sglang/cli/main.py"
_CLI_RELEASES = ("0.5.5", "0.5.23")


def _cli_serve(releases: Releases) -> Placement | None:
    """The `sglang serve` launcher's placement (startup), unless the input shows releases without that command."""
    if releases is not None and not (
        _base(releases[0]) <= _base(_CLI_RELEASES[1]) and _base(_CLI_RELEASES[0]) <= _base(releases[1])
    ):
        return None
    return Placement(
        "startup",
        None,
        "sglang.cli.serve.serve",
        "0.5.5.post3-0.5.23",
        "sglang.launch_server.run_server",
        "the released sglang/cli/serve.py and main.py",
    )


# a test harness's frames: it calls SGLang's functions directly, outside any server's startup or serving
_HARNESS = re.compile(r"/tests?/|/_pytest/|/unittest/")


# the outermost frame of code typed by hand: `python -c "..."` compiles its argument as "<string>", code read from stdin
# (`python - <<EOF`, the interactive prompt) as "<stdin>" (CPython 3.x Modules/main.c pymain_run_command /
# pymain_run_stdin): a stack under it is an import check or a snippet, no server's startup or serving
_BY_HAND = re.compile(r"^<(?:string|stdin)>:\d+ <module>")


# the frame a child process of multiprocessing's spawn / forkserver start method runs first under its own `python -c`
# (CPython 3.8-3.13 multiprocessing/spawn.py get_command_line: `python -c 'from multiprocessing.spawn import
# spawn_main; spawn_main(...)' --multiprocessing-fork`, then spawn_main -> _main -> process.py _bootstrap -> the target;
# forkserver.py's server and children the same way): SGLang's scheduler and detokenizer processes, review15c item 2;
# a Windows path parts its folders by backslashes (`C:\Python311\Lib\multiprocessing\spawn.py`, review15d item 10)
_SPAWNED = re.compile(r"(?:^|[/\\])multiprocessing[/\\](?:spawn|forkserver)\.py:\d+ ")


def run_by_hand(frames: list[str]) -> bool:
    """The stack's outermost frame (frames outermost first) is a `python -c` command's or stdin's code (_BY_HAND),
    and no spawned child process's (_SPAWNED right under it)."""
    if not frames or not _BY_HAND.match(str(frames[0]).strip()):
        return False
    return len(frames) < 2 or not _SPAWNED.search(str(frames[1]).strip())


def _outside_the_server(frame: str) -> bool:
    """A frame that shows the stack is no server's: a test harness, or an SGLang module run as a script
    (`python -m sglang.srt...`: its `<module>` frame), the launch script excepted."""
    m = _FRAME.search(frame)
    if m is None:
        return False
    if _HARNESS.search(m.group("path")):
        return True
    return m.group("func") == "<module>" and module_of(m.group("path")) not in (None, "sglang.launch_server")


# the first call a frame's source line makes ("server_args = prepare_server_args(sys.argv[1:])", "self.init_cuda_graphs()")
_CALLED = re.compile(r"(?<![\w.])(?:self\.|[A-Za-z_]\w*\.)?(?P<name>[A-Za-z_]\w*)\s*\(")


def place_call(frame: str, releases: Releases = None) -> Placement | None:
    """The placement of the function an SGLang frame's source line calls, when the catalogue places every function of
    that name alike (in the frame's own module first, else in any module): a traceback cut right under that frame was
    inside that call."""
    m = _FRAME.search(frame)
    if m is None:
        return None
    module, rest = module_of(m.group("path")), frame[m.end() :]
    if module is None and ": " in rest and m.group("path").replace("\\", "/").endswith(_CLI_MAIN_FILE):
        called = _CALLED.search(rest.split(": ", 1)[1])
        return _cli_serve(releases) if called is not None and called.group("name") == "serve" else None
    if module is None or ": " not in rest:
        return None
    called = _CALLED.search(rest.split(": ", 1)[1])
    if called is None:
        return None
    name = called.group("name")
    keys = [k for k in _placed()[0] if k.startswith(f"{module}:") and (k.endswith(f":{name}") or k.endswith(f".{name}"))]
    if not keys:
        keys = [k for k in _placed()[0] if k.endswith(f":{name}") or k.endswith(f".{name}")]
    rows = {_agreed(_placed()[0][k], releases) for k in keys}
    row = rows.pop() if len(rows) == 1 else None
    return None if row is None else Placement(*row)


def place_stack(frames: list[str], releases: Releases = None, cut: bool = False) -> tuple[Placement, str] | None:
    """(placement, the frame that gave it) from a traceback's frames (outermost first): the innermost placed SGLang
    frame, with the innermost startup step any placed frame names; None when placed frames disagree on the time. A
    traceback `cut` below its innermost frame was inside the call that frame's source line makes (place_call)."""
    if run_by_hand(frames) or any(_outside_the_server(f) for f in frames):
        return None
    placed = [(p, f) for f in reversed(frames) if (p := place_frame(f, releases)) is not None]
    if cut and frames and (call := place_call(frames[-1], releases)) is not None:
        placed.insert(0, (call, frames[-1]))
    if not placed or len({p.stage for p, _ in placed}) != 1:
        return None
    stepped = [(p, f) for p, f in placed if p.phase is not None]
    if len({p.phase for p, _ in stepped}) > 1:  # steps that contradict each other: startup, step not told
        return Placement("startup", None, placed[0][0].qualname, placed[0][0].releases, placed[0][0].root), placed[0][1]
    return stepped[0] if stepped else placed[0]
