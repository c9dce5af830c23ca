"""The error raised for run directories that cannot be read or written."""

from __future__ import annotations


class TraceError(Exception):
    """A run directory cannot be opened, read or written; the message says which and why."""
