"""Paths → jobs. A job is a folder that holds files (its files directly in it, not in its sub-folders); with
--job-depth N, a folder N levels below the scanned path holds one job, with every file below it; with
--job-pattern GLOB, a folder whose name matches holds one job, every file below it. A file named on the command
line (or matched by a glob) is a job of its own. Problems met on the way (a folder that cannot be listed, a
symlink loop, a file that cannot be stat'ed) stay with the job they belong to: the scan goes on."""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import os
from dataclasses import dataclass, field

from logscope.core.printable import shown_name
from logscope.fleet.rows import JobFiles
from logscope.pipeline.ingest.folders import listing, regular_file


@dataclass(slots=True)
class JobFile:
    path: str
    size: int
    mtime_ns: int


@dataclass(slots=True)
class Job:
    name: str
    files: list[JobFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "path: why", each a file or folder left out

    def on_disk(self) -> JobFiles:
        digest = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.path):
            digest.update(os.fsencode(f.path) + f"\0{f.size}\0{f.mtime_ns}\n".encode())
        for problem in sorted(self.problems):
            digest.update(f"!{problem}\n".encode(errors="surrogateescape"))
        return JobFiles(
            bytes=sum(f.size for f in self.files),
            newest_mtime_ns=max((f.mtime_ns for f in self.files), default=0),
            fingerprint=digest.hexdigest()[:32],
        )


@dataclass(frozen=True, slots=True)
class Grouping:
    depth: int | None = None  # a job per folder this many levels below the scanned path
    pattern: str | None = None  # a job per folder whose name matches this glob


class _Walk:
    def __init__(self, grouping: Grouping) -> None:
        self.grouping = grouping
        self.jobs: dict[str, Job] = {}
        self.root: str | None = None  # the real path of the folder being walked: no link leads out of it

    def job(self, name: str) -> Job:
        return self.jobs.setdefault(name, Job(shown_name(name)))

    def add_file(self, job: Job, path: str) -> None:
        if self._leaves_root(job, path):
            return
        info, problem = regular_file(path)  # the reading `analyze DIR` makes too (pipeline/ingest/folders.py)
        if info is not None:
            job.files.append(JobFile(path, info.st_size, info.st_mtime_ns))
        elif problem is not None:
            job.problems.append(problem)

    def _leaves_root(self, job: Job, path: str) -> bool:
        """A symbolic link whose target lies outside the scanned folder is not followed (told as the job's
        problem): a link to / would walk the machine, a link to a file would put its lines in the tables."""
        if self.root is None or not os.path.islink(path):
            return False
        target = os.path.realpath(path)
        if os.path.commonpath([self.root, target]) == self.root:
            return False
        job.problems.append(f"{shown_name(path)}: a link out of the scanned folder (to {shown_name(target)}), not followed")
        return True

    def folder(self, root: str) -> None:
        """Walk a scanned folder; symlinked folders inside it are followed once (a loop back to a folder already
        seen is a problem of the job, not a hang), links that lead out of it are not followed."""
        seen: set[tuple[int, int]] = set()
        self.root = os.path.realpath(root)
        try:
            self._walk(root, 0, None, seen, root)
        finally:
            self.root = None

    def _walk(self, folder: str, depth: int, owner: Job | None, seen: set[tuple[int, int]], parent: str) -> None:
        if owner is None and self._holds_job(folder, depth):
            owner = self.job(folder)
        if self._leaves_root(owner or self.job(parent), folder):
            return
        walked_before = len(seen)
        files, folders, problem = listing(folder, seen)
        if problem is not None:
            # a second link: the link's problem, told with the folder that holds it; else the folder's own
            linked = len(seen) == walked_before and "already walked" in problem
            (owner or self.job(parent if linked else folder)).problems.append(problem)
            return
        if files:
            here = owner or (self.job(folder) if self.grouping.depth is None and self.grouping.pattern is None else None)
            if here is not None:
                for entry in files:
                    self.add_file(here, entry.path)
        for entry in folders:
            self._walk(entry.path, depth + 1, owner, seen, folder)

    def _holds_job(self, folder: str, depth: int) -> bool:
        if self.grouping.depth is not None:
            return depth == self.grouping.depth
        if self.grouping.pattern is not None:
            return fnmatch.fnmatch(os.path.basename(os.path.normpath(folder)), self.grouping.pattern)
        return False


def find_jobs(paths: list[str], grouping: Grouping) -> tuple[list[Job], list[str]]:
    """The jobs under the paths (folders, files, quoted globs), sorted by name, and the arguments that named
    nothing (each a usage error the caller reports)."""
    walk = _Walk(grouping)
    missing: list[str] = []
    for arg in paths:
        named = [arg] if os.path.lexists(arg) else sorted(glob.glob(arg, recursive=True))
        if not named:
            missing.append(f"{arg}: no such file or directory" + (" (no file matches this pattern)" if _is_glob(arg) else ""))
        for path in named:
            if os.path.isdir(path):
                walk.folder(path)
            else:
                walk.add_file(walk.job(path), path)
    jobs = [job for job in walk.jobs.values() if job.files or job.problems]
    return sorted(jobs, key=lambda j: j.name), missing


def _is_glob(arg: str) -> bool:
    return any(ch in arg for ch in "*?[")


def newest(job: Job) -> int:
    return max((f.mtime_ns for f in job.files), default=0)
