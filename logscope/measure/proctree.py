"""The processes of a launched tree: the root and every descendant, found by walking /proc (each process's
parent is field 4 of /proc/PID/stat, after the command name in parentheses, which may itself hold spaces or
parentheses); and the ending of that tree when the launch ends or ignores the signal it was sent
(`LaunchTree`, `Ending`)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

PROC = Path("/proc")


def _parent(stat: bytes) -> int | None:
    close = stat.rfind(b")")
    if close < 0:
        return None
    fields = stat[close + 2 :].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def descendants(root: int, proc: Path = PROC) -> set[int]:
    """`root` and every process below it, as /proc shows them now (empty where /proc cannot be read)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir(proc)
    except OSError:
        return set()
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(proc / name / "stat", "rb") as handle:
                parent = _parent(handle.read())
        except OSError:
            continue  # ended while we looked
        if parent is not None:
            children.setdefault(parent, []).append(int(name))
    tree = {root}
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in tree:
                tree.add(child)
                stack.append(child)
    return tree


GRACE_S = 5.0  # from SIGTERM to SIGKILL, for a launch (or what it left behind) that does not end
ESCALATE_S = 10.0  # from a forwarded SIGTERM/SIGHUP to SIGKILL, for a launch that ignores it
MAX_TRACKED = 65536


def _stat(pid: int, proc: Path = PROC) -> tuple[str, int, int] | None:
    """(state, process group, start time in clock ticks) of a process, or None when it is gone."""
    try:
        with open(proc / str(pid) / "stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    if len(fields) < 20:
        return None
    return fields[0].decode(), int(fields[2]), int(fields[19])


class LaunchTree:
    """A launch's processes as sampled while it runs (pid and start time, so that a pid used again later is never
    signalled), and its ending: SIGTERM to its process group and to every process of the tree still alive (a
    daemon that left the group with setsid included), SIGKILL to what is left after a grace period."""

    def __init__(self, root: int, proc: Path = PROC) -> None:
        self.root, self.proc = root, proc
        self.seen: dict[int, int] = {}
        self.sample()

    def sample(self) -> None:
        for pid in descendants(self.root, self.proc):
            if pid not in self.seen and len(self.seen) < MAX_TRACKED:
                stat = _stat(pid, self.proc)
                if stat is not None:
                    self.seen[pid] = stat[2]

    def alive(self) -> list[int]:
        """The processes of the tree still running (a zombie has ended), the root included while it runs."""
        out = []
        for pid, started in self.seen.items():
            stat = _stat(pid, self.proc)
            if stat is not None and stat[2] == started and stat[0] not in ("Z", "X"):
                out.append(pid)
        return out

    def signal(self, sig: int) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.root, sig)  # the group the launch was started in
        for pid in self.alive():
            with contextlib.suppress(OSError):
                os.kill(pid, sig)


class Terminating:
    """A signal handler that notes when a SIGTERM or SIGHUP came (the launch then has ESCALATE_S to end before
    `Ending` sends SIGKILL), then forwards it as `forward` does."""

    def __init__(self, forward: Callable[[int, FrameType | None], None]) -> None:
        self.forward = forward
        self.at: float | None = None

    def __call__(self, sig: int, frame: FrameType | None) -> None:
        if self.at is None:
            self.at = time.monotonic()
        self.forward(sig, frame)


class Ending:
    """The steps that end a launch's tree, driven by the wrapper's loop (`step` between reads, so the pipes keep
    being read while the tree ends): when the root has exited, SIGTERM to the rest, SIGKILL after GRACE_S; when a
    SIGTERM or SIGHUP was forwarded and the launch still runs after ESCALATE_S, SIGKILL. `done` once nothing of the
    tree is left, or GRACE_S after the SIGKILL (a process outside the tree that holds the pipes is not waited for)."""

    def __init__(self, tree: LaunchTree, say: Callable[[str], None]) -> None:
        self.tree, self.say = tree, say
        self.terminated_at: float | None = None
        self.killed_at: float | None = None
        self.forwarded_at: float | None = None
        self.next_sample = 0.0

    def step(self, root_exited: bool, forwarded_at: float | None, now: float) -> bool:
        """One look at the tree (`forwarded_at`: when a SIGTERM or SIGHUP was forwarded to the launch, if one
        was); True when the wrapper should stop waiting for the pipes."""
        if not root_exited and now >= self.next_sample:
            self.tree.sample()
            self.next_sample = now + 0.5
        self.forwarded_at = forwarded_at
        if not root_exited:
            if self.forwarded_at is not None and self.killed_at is None and now - self.forwarded_at >= ESCALATE_S:
                self.say(f"the launch still runs {ESCALATE_S:g} s after the signal: SIGKILL sent to its processes")
                self._kill(now)
            return False
        if self.terminated_at is None:
            self.terminated_at = now
            left = [pid for pid in self.tree.alive() if pid != self.tree.root]
            if left:
                self.say(f"the launch exited; {len(left)} of its processes still ran: SIGTERM sent (SIGKILL after {GRACE_S:g} s)")
                self.tree.signal(signal.SIGTERM)
            return False
        if self.killed_at is None:
            if now - self.terminated_at < GRACE_S:
                return False
            if not self.tree.alive():
                return True  # nothing of the tree left, yet the pipes are held: by no process of the launch's
            self._kill(now)
            return False
        return now - self.killed_at >= GRACE_S

    def _kill(self, now: float) -> None:
        self.killed_at = now
        self.tree.signal(signal.SIGKILL)
