"""What a run directory holds and how its status reads: shared by the writer, the reader and list_runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qitos.trace import lock
from qitos.trace.events import STATUS_INTERRUPTED, STATUS_PAUSED, STATUS_RUNNING

SCHEMA_VERSION = "v1"
MANIFEST_FILE = "manifest.json"
EVENTS_FILE = "events.jsonl"
STEPS_FILE = "steps.jsonl"
STATUS_UNKNOWN = "unknown"  # said by readers when there is no readable manifest and no writer


def is_run_dir(path: str | Path) -> bool:
    """Whether ``path`` is a directory holding a run trace (a manifest, events or steps file)."""
    p = Path(path)
    return p.is_dir() and any((p / name).is_file() for name in (MANIFEST_FILE, EVENTS_FILE, STEPS_FILE))


def count_lines(path: Path) -> int:
    """Complete lines in ``path`` (0 if it is missing or unreadable), counted in 1 MiB chunks."""
    try:
        with path.open("rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return 0


def effective_status(manifest: dict[str, Any], run_dir: Path) -> str:
    """The manifest's status, or "interrupted" when it says running or paused but no writer holds
    the lock (a paused writer keeps it: without one, nothing can resume that run)."""
    status = manifest.get("status")
    if not isinstance(status, str) or not status:
        return STATUS_RUNNING if lock.writer_alive(run_dir) else STATUS_UNKNOWN
    if status in (STATUS_RUNNING, STATUS_PAUSED) and not lock.writer_alive(run_dir):
        return STATUS_INTERRUPTED
    return status
