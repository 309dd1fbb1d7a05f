"""The output formats of `logscope diff` and `logscope plan`, in one light list the CLI reads for its choices
without importing the pipeline (compare/render.py maps each to its renderer)."""

COMPARE_FORMATS = ("text", "json", "markdown", "html")
