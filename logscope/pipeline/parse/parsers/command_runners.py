"""The programs that run a command under them, in one table: the launch command readers (command_shapes.py,
command_text.py), the registry's shape test of a launch line and the classifier's test of a line that starts a record
all read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

# a wrapper runs the command after its own options and arguments, in the same process tree ("nohup", "numactl
# --cpunodebind=0", "taskset -c 0-31", "env -u X Y=1", "/usr/bin/time -v", "sudo -E"); a runner runs it in a container,
# a job or an environment ("docker exec -it c python3 -m ...", "srun -N 1 python -m ...", "kubectl exec pod --
# python3 -m ..."); a container start runs an image, whose command comes after the image ("docker run ... -e VAR=value
# image python3 -m ...", its -e flags the launch's environment)
RunnerKind = Literal["wrapper", "runner", "container_start"]
WRAPPER: Final = "wrapper"
RUNNER: Final = "runner"
CONTAINER_START: Final = "container_start"


@dataclass(frozen=True)
class CommandRunner:
    words: tuple[str, ...]  # as typed, blanks between them: ("docker", "exec")
    kind: RunnerKind  # WRAPPER, RUNNER or CONTAINER_START
    # one word of its own before the command, neither an option nor an option's value: the container, pod or image it
    # runs the command in ("docker exec box python3 ...", "apptainer exec img.sif python ...", "docker run ... image
    # python3 ..."); the others' words before the command are options, their values, assignments and numbers only
    target: bool = False


COMMAND_RUNNERS: Final = (
    *(
        CommandRunner((name,), WRAPPER)
        for name in ("nohup", "env", "time", "numactl", "taskset", "sudo", "exec", "stdbuf", "nice", "ionice", "chrt", "timeout")
    ),
    *(CommandRunner((tool, "exec"), RUNNER, target=True) for tool in ("docker", "podman", "kubectl")),
    CommandRunner(("ray", "job", "submit"), RUNNER),
    CommandRunner(("srun",), RUNNER),
    CommandRunner(("mpirun",), RUNNER),
    *(CommandRunner((tool, "run"), RUNNER) for tool in ("uv", "conda", "pixi")),
    *(CommandRunner((tool, verb), RUNNER, target=True) for tool in ("apptainer", "singularity") for verb in ("exec", "run")),
    # profilers and debuggers run the program after their own options: "nsys profile -o out --trace=cuda,nvtx python3
    # -m ...", "ncu --set full python ...", "compute-sanitizer --tool memcheck python ...", "py-spy record -o a.svg --
    # python ...", "gdb -ex run --args python3 -m ..." (their options are no server arguments)
    *(CommandRunner(("nsys", verb), RUNNER) for verb in ("profile", "launch")),
    *(CommandRunner((tool,), RUNNER) for tool in ("ncu", "compute-sanitizer", "gdb", "cuda-gdb")),
    CommandRunner(("py-spy", "record"), RUNNER),
    *(CommandRunner((tool, "run"), CONTAINER_START, target=True) for tool in ("docker", "podman")),
)

# the wrappers' names ("/usr/bin/time" is "time"), and the first words of the runners
WRAPPER_NAMES: Final = frozenset(r.words[0] for r in COMMAND_RUNNERS if r.kind == WRAPPER)
RUNNER_FIRST_WORDS: Final = frozenset(r.words[0] for r in COMMAND_RUNNERS if r.kind == RUNNER)


def alternation(kind: RunnerKind, target: bool | None = None) -> str:
    """A regular expression (a non-capturing group) of the table's programs of this kind (of those that take a target
    word or not, where `target` says), blanks between their words."""
    rows = (r for r in COMMAND_RUNNERS if r.kind == kind and (target is None or r.target == target))
    return "(?:" + "|".join(sorted(r"\s+".join(r.words) for r in rows)) + ")"
