"""A client library's error that shows the server had taken a client's request: it was up and serving; and one that
shows the server answered and refused the request (a 4xx answer): the client's failure, none of the server's.

The wordings are data (rules/signatures/placing/client_accepted.yaml and client_refused.yaml, read by the signature
loader), each with the released package and files it comes from (checked by tools/upstream/package_wordings.py).
SGLang's own warmup request (its launcher's requests.post, http_server.py _wait_and_warmup) is startup's, never a
client's."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from logscope.core.errors import RuleError
from logscope.core.events import Event
from logscope.core.resources import rules_dir
from logscope.pipeline.parse.serving import PROBE_PATHS
from logscope.pipeline.parse.signatures.loader import Signature, load_signature_file

# the frames of SGLang's own warmup request (entrypoints/http_server.py, server.py before 0.4.1)
_WARMUP_FRAMES = re.compile(r"\b(?:_wait_and_warmup|_execute_server_warmup)\b")
_CAPTURE = re.compile(r"\{(\w+)(?::\w+)?\}")
# the answer was to a readiness probe (/health, /v1/models, ...): SGLang's probe handlers run no batch, so a 500 there
# shows the server answered, not that it served a request (review13b item 6)
_PROBE_URL = re.compile(r"\bfor url:? '?https?://[^/\s'\"]+" + PROBE_PATHS)


def _filled(pattern: str, values: dict[str, Any]) -> str:
    """The pattern's wording with each capture's value read in its place."""
    return _CAPTURE.sub(lambda m: str(values.get(m.group(1), m.group(0))), pattern)


@cache
def client_accepted() -> tuple[Signature, ...]:
    """The client errors that show a taken request, in the order they are tried."""
    return load_client_accepted(rules_dir() / "signatures" / "placing" / "client_accepted.yaml")


def load_client_accepted(path: Path) -> tuple[Signature, ...]:
    """The file's wordings; each must say `phase: serving`, the only time a taken request places a failure in (the
    key means what it says: another phase is refused, never placed as serving)."""
    signatures = tuple(load_signature_file(path))
    for sig in signatures:
        if sig.phase != "serving":
            raise RuleError(
                f"{path}: {sig.id}: phase: serving is the only phase a client's taken request places (got {sig.phase})"
            )
    return signatures


def placed_by_client(event: Event) -> tuple[str, str] | None:
    """("serving", basis) when the failure is a client library's error that shows the server had taken the request."""
    text = str(event.data.get("full_text") or event.text)
    frames = " ".join(str(f) for f in event.data.get("frame_paths") or event.data.get("frames") or [])
    for sig in client_accepted():
        values = sig.match(text)
        if values is None:
            continue
        if _WARMUP_FRAMES.search(frames + text) or _PROBE_URL.search(text):
            return None
        wording = _filled(sig.pattern.source, values)
        where = sig.source.split(": ", 1)[0]
        return "serving", (
            f"a client's request got '{wording}' ({where}): the server had taken the request, so it was up and serving requests"
        )
    return None


@cache
def client_refused() -> tuple[Signature, ...]:
    """The client errors that show the server answered and refused the request (openai's 4xx errors), from
    rules/signatures/placing/client_refused.yaml (each wording checked against the released wheels)."""
    return tuple(load_signature_file(rules_dir() / "signatures" / "placing" / "client_refused.yaml"))


def refused_by_server(event: Event) -> bool:
    """The failure is a client's error for a request the running server answered and refused (openai's 4xx errors):
    the client's, no failure of the server."""
    text = str(event.data.get("full_text") or event.text)
    if "Error code: 4" not in text:  # every wording holds it (a line's cost: one substring test)
        return False
    return any(sig.match(text) is not None for sig in client_refused())


# SGLang's frontend language runs in the client's process (sglang/lang/: interpreter.py's StreamExecutor, the
# RuntimeEndpoint backend that posts to a server), the server's code under sglang/srt/ (and the launch script)
_FRONTEND = "sglang/lang/"
_FRONTEND_BACKENDS = "sglang/lang/backend/"
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
# a frame of a module's body being imported ("...:9 <module>: from sglang.lang.ir import (")
_MODULE_FRAME = re.compile(r":\d+ <module>\b")


def client_program_failure(event: Event) -> bool:
    """The traceback is a client program's own failure: its stack runs SGLang's frontend language (sglang/lang/) and no
    server code (sglang/srt/, the launch script), and it raised in the frontend or in the client's script itself (a
    KeyError reading a generated variable, probe sgl-project/sglang#22716): none of a server rank's failures. A client
    library's error under it (a refused connection, a cut stream) stays what it is: evidence about the server."""
    frames = [str(f) for f in event.data.get("frame_paths") or event.data.get("frames") or []]
    if not frames:
        return False
    paths = [re.sub(r":\d+(?:\s.*)?$", "", frame, flags=re.S).replace("\\", "/") for frame in frames]  # (C:\ kept)
    if any("sglang/srt/" in path or path.endswith("sglang/launch_server.py") for path in paths):
        return False
    if not any(_FRONTEND in path for path in paths):
        return False
    # (importing the package runs the frontend's modules, sglang/__init__.py imports sglang.lang.api, at every
    # `python -m sglang.launch_server` and `sglang serve`: an import error there, or a frontend module's import-time
    # frame, is the server's install failing at its start, review16a item 8)
    if str(event.data.get("exception") or "").rsplit(".", 1)[-1] in _IMPORT_ERRORS:
        return False
    if any(path.endswith("sglang/__init__.py") for path in paths):
        return False
    if any(_FRONTEND in path and _MODULE_FRAME.search(frame) for path, frame in zip(paths, frames, strict=True)):
        return False
    inner = paths[-1]
    # (not in a backend of the frontend: sglang/lang/backend/runtime_endpoint.py's Runtime launches a server and raises
    # "Initialization failed" when the server's startup failed, a server's failure seen from its launcher, built
    # inference-3745)
    return (_FRONTEND in inner and _FRONTEND_BACKENDS not in inner) or inner == paths[0]
