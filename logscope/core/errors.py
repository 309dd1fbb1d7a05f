"""Errors that reach the user as one line (exit code 2), never as a traceback."""

from __future__ import annotations


class LogscopeError(Exception):
    """Base class: the message names the input and what was wrong."""


class InputError(LogscopeError):
    """An input could not be read (missing, unreadable, not text, corrupt gzip)."""


class RuleError(LogscopeError):
    """A rule file is invalid; the message carries file:line:col."""
