"""Ledger: per-rank memory ledgers, the nvidia-smi join and the timeline numbers."""
