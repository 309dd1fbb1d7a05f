"""The analysis pipeline, one folder per stage in the order data flows: ingest -> parse -> assemble -> failures ->
sizing -> ledger -> rule_engine; analyze.py runs them all (layers in pyproject.toml)."""
