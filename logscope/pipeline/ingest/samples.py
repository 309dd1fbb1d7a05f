"""The samples files of `logscope run` among the inputs (logscope/core/samples.py): told apart from logs by their
header, each tied to its log (the one it names, in its folder); a log given alone brings the samples file that
sits beside it (launch.log → launch.samples.jsonl)."""

from __future__ import annotations

from pathlib import Path

from logscope.core.samples import SamplesFile, is_samples_head, read_samples, samples_path_for
from logscope.pipeline.ingest.ingest import Source, rank_hint_from_name


def _is_samples(path: Path) -> bool:
    """A regular file that starts as a samples file (a pipe is never opened here: reading it would consume it)."""
    try:
        if not path.is_file():
            return False
        with open(path, "rb") as handle:
            return is_samples_head(handle.read(64))
    except OSError:
        return False


def split_samples(sources: list[Source]) -> tuple[list[Source], dict[str, SamplesFile]]:
    """(the sources that are not samples files, log source name → its samples). A samples file given without
    its log brings the log in when it exists."""
    logs: list[Source] = []
    given: list[SamplesFile] = []
    for source in sources:
        if source.path is not None and source.data is None and source.stream is None and _is_samples(source.path):
            given.append(read_samples(source.path))
        else:
            logs.append(source)
    by_path = {s.path.resolve(): s for s in logs if s.path is not None and s.data is None and s.stream is None}
    out: dict[str, SamplesFile] = {}
    for samples in given:
        log_path = (Path(samples.path).parent / samples.header.log).resolve()
        log = by_path.get(log_path)
        if log is None and log_path.is_file():
            log = Source(name=str(Path(samples.path).parent / samples.header.log), path=log_path)
            log.rank_hint = rank_hint_from_name(log.name)
            logs.append(log)
            by_path[log_path] = log
        if log is not None:
            out[log.name] = samples
    for path, log in by_path.items():
        beside = samples_path_for(path)
        if log.name not in out and beside.is_file() and _is_samples(beside):
            out[log.name] = read_samples(beside)
    return logs, out
