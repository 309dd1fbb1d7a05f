"""SGLang's signal handlers place nothing in time: tools/upstream/signal_handlers.py reads the functions the released
code installs with signal.signal / loop.add_signal_handler (catalog/signal_handlers.json), and
logscope/core/stage_functions.py takes no placement from them (a handler runs when its signal arrives, whenever that
is, not when the startup code that installed it ran)."""

from __future__ import annotations

import json

from logscope.core import stage_functions
from logscope.core.resources import data_dir
from tools.upstream.signal_handlers import module_handlers

# the shapes of sglang 0.5.23: a nested def installed by its parent (entrypoints/engine.py), a method given through an
# object to the event loop (managers/tokenizer_manager.py), a coroutine run by a lambda for each signal of a loop
# (entrypoints/grpc_server.py 0.5.5-0.5.9)
ENGINE = """
import signal
class Engine:
    def _launch_subprocesses(self):
        if True:
            def sigterm_handler(signum, frame):
                logger.warning("SIGTERM received on node_rank 0")
            signal.signal(signal.SIGTERM, sigterm_handler)
        def helper():
            pass
        helper()
"""
TOKENIZER = """
import signal
class TokenizerManager:
    def auto_create_handle_loop(self):
        signal_handler = SignalHandler(self)
        loop.add_signal_handler(signal.SIGTERM, signal_handler.sigterm_handler)
class SignalHandler:
    def sigterm_handler(self, signum=None, frame=None):
        logger.warning(f"SIGTERM received. {signum=} {frame=}. Draining requests and shutting down...")
"""
GRPC = """
import asyncio, signal
def serve_grpc():
    async def signal_handler():
        logger.info("Received shutdown signal")
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: asyncio.create_task(signal_handler()))
    event.signal(1, 2)
"""


def test_the_handlers_a_module_installs_are_named_as_the_stage_catalogue_names_functions() -> None:
    assert module_handlers(ENGINE) == {"Engine._launch_subprocesses.sigterm_handler"}
    assert module_handlers(TOKENIZER) == {"SignalHandler.sigterm_handler"}
    assert module_handlers(GRPC) == {"serve_grpc.signal_handler"}


def test_the_committed_catalogue_holds_the_handlers_of_the_releases() -> None:
    handlers = json.loads((data_dir("catalog") / "signal_handlers.json").read_text())["handlers"]
    assert handlers["SignalHandler.sigterm_handler"] == ["0.4.6.post5", "0.5.23"]
    assert handlers["_set_envs_and_config.launch_phase_sigquit_handler"] == ["0.4.10.post2", "0.5.23"]


def test_a_wording_only_a_signal_handler_prints_places_nothing() -> None:
    drain = "SIGTERM received. signum=None frame=None. Draining requests and shutting down..."
    assert stage_functions.place_wording(drain) is None
    child = "Received sigquit from a child process. It usually means the child failed."
    assert stage_functions.place_wording(child) is None
    assert stage_functions.place_function("sglang.srt.entrypoints.engine", "sigterm_handler") is None


def test_startup_code_that_is_no_handler_still_places() -> None:
    placed = stage_functions.place_function("sglang.srt.model_executor.model_runner", "init_memory_pool")
    assert placed is not None
    assert placed.stage == "startup"
