"""logscope: GPU memory diagnostics for SGLang server startup logs."""

__version__ = "0.1.0"
SCHEMA_ID = "logscope/1"
