"""Assemble: events into launches (ranks, phase readings, settings, the SGLang version they imply)."""
