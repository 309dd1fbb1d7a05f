"""Document kind → output format → renderer: the one table that the CLI (its --format choices) and the golden
tests read. A new format is its function and one line per document kind here. Renderers are imported when used,
so `--help` pays for none of them."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

# each function takes (document, width) and returns the whole output
DOCUMENTS: dict[str, dict[str, str]] = {
    "report": {  # logscope analyze and triage
        "text": "logscope.report.text:render_terminal",
        "json": "logscope.report.json:render_json",
        "markdown": "logscope.report.markdown:render_markdown",
        "html": "logscope.report.html:render_html",
        "comment": "logscope.report.comment:render_comment",
    },
    "diff": {
        "text": "logscope.report.text:render_compare_terminal",
        "json": "logscope.report.json:render_json",
        "markdown": "logscope.report.markdown:render_compare_markdown",
        "html": "logscope.report.html:render_compare_html",
    },
    "plan": {
        "text": "logscope.report.text:render_compare_terminal",
        "json": "logscope.report.json:render_json",
        "markdown": "logscope.report.markdown:render_compare_markdown",
        "html": "logscope.report.html:render_compare_html",
    },
}
RENDERERS = DOCUMENTS["report"]
COMPARE_FORMATS = tuple(DOCUMENTS["diff"])  # diff and plan offer the same formats


def renderer(name: str, document: str = "report") -> Callable[[dict[str, Any], int], str]:
    module, function = DOCUMENTS[document][name].split(":")
    return getattr(import_module(module), function)
