"""Shared types and tables every stage and edge reads: the kind catalogue, events, the model, phases, errors,
data locations, YAML loading, the model table, grammars, the user cache, bounds, redaction, the upstream catalogue."""
