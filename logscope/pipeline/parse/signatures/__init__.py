"""Failure signatures: evidence (exception lines, frames, native frames, whole lines) → mechanism and finding.

The signatures are data (`rules/signatures/<mechanism>.yaml`); this package loads and validates them,
compiles their patterns, and matches them against the events a paste holds.
"""
