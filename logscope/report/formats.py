"""Output format → renderer: the one table the CLI reads (its --format choices come from here). A new format
is its module and one line here. Renderers are imported when used, so `--help` pays for none of them."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

# format name → "module:function"; each function takes (document, width) and returns the whole output
RENDERERS: dict[str, str] = {
    "text": "logscope.report.text:render_terminal",
    "json": "logscope.report.json:render_json",
    "markdown": "logscope.report.markdown:render_markdown",
    "html": "logscope.report.html:render_html",
    "comment": "logscope.report.comment:render_comment",
}


def renderer(name: str) -> Callable[[dict[str, Any], int], str]:
    module, function = RENDERERS[name].split(":")
    return getattr(import_module(module), function)
