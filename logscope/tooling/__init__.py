"""Tooling above the pipeline: the rule and signature case runners and the reference docs generators."""
