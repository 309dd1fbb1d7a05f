"""Whether SGLang's automatic mem_fraction_static rule ran for a launch: the server_args dump prints the resolved
value either way, so only a launch command pasted with the log tells that --mem-fraction-static was given.
The rule itself is the memory-model library's (logscope/memory_model/fraction.py)."""

from __future__ import annotations

from logscope.core import kinds
from logscope.core.model import Launch
from logscope.pipeline.assemble.launch_facts import flag_field


def fraction_on_command(launch: Launch) -> bool:
    """Whether a launch command in the input gives --mem-fraction-static (then SGLang's automatic rule did not
    run). The server_args dump prints the resolved value either way, so it cannot tell."""
    return any(
        flag_field(flag) == "mem_fraction_static"
        for e in launch.all_events()
        if e.kind == kinds.LAUNCH_COMMAND
        for flag in e.data.get("args", {})
    )
