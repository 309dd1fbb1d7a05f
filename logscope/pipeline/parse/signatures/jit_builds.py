"""The library whose JIT build failed, when the failure itself names only the build tool: torch's cpp_extension running
ninja (`_run_ninja_build`, "Error building extension"), ninja's own lines, FlashInfer's "Ninja build failed." Its
library is the one whose build the lines before it opened and did not finish (FlashInfer's "Loading JIT ops: <name>"
without "Finished loading JIT ops: <name>"), or whose build folder ninja entered in the output printed just under the
failure's message (parsers/jit_build.py). A folder entered before it names nothing: that build may have finished."""

from __future__ import annotations

import re

from logscope.core.events import Event
from logscope.pipeline.parse.parsers.jit_build import BEGIN, END, ENTERED

# torch 2.x utils/cpp_extension.py _run_ninja_build (its frame, and its RuntimeError "Error building extension '%s'"),
# the ninja command it runs (subprocess.CalledProcessError: Command '['ninja', '-v']' ...), FlashInfer 0.7.4
# jit/cpp_ext.py run_ninja's RuntimeError("Ninja build failed."), ninja's "build stopped: subcommand failed."
_BUILD_FAILURE = re.compile(
    r"\b_run_ninja_build\b|Error building extension|\[['\"]ninja['\"]|Ninja build failed|ninja: build stopped"
)
_OUTPUT_AFTER = 3  # a failure's message that holds the build's output: ninja's first line comes right after it


class JitBuilds:
    """The JIT build lines of each input, in line order."""

    def __init__(self, builds: dict[str, list[Event]]) -> None:
        """`builds`: each input's JIT_BUILD events (failures_of gathers them with the other lines it reads beside)."""
        self.builds = {source: sorted(lines, key=lambda e: e.line) for source, lines in builds.items()}

    def library_of(self, event: Event) -> tuple[str, Event] | None:
        """(library, the line that names its build) when the event is a build failure inside a library's JIT build."""
        builds = self.builds.get(event.source)
        if not builds or not is_build_failure(event):
            return None
        for build in builds:
            if build.data["state"] == ENTERED and 0 < build.line - event.line <= _OUTPUT_AFTER:
                return str(build.data["library"]), build
        running: Event | None = None
        for build in builds:
            if build.line > event.line:
                break
            if build.data["state"] == BEGIN:
                running = build
            elif build.data["state"] == END and running is not None and running.data["module"] == build.data["module"]:
                running = None
        return (str(running.data["library"]), running) if running is not None else None


def is_build_failure(event: Event) -> bool:
    """A failure of a JIT build's tool: its message or its frames name torch's ninja build or ninja itself."""
    frames = event.data.get("frame_paths") or event.data.get("frames") or []
    texts = [str(event.data.get("full_text") or event.text), str(event.data.get("message") or ""), *map(str, frames)]
    return any(_BUILD_FAILURE.search(text) for text in texts)
