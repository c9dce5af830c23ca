"""The runs of a folder for the run list, newest first, in batches: the first rows never wait for the last.

A folder of 10,000 runs took ~3 s to read every manifest before the list showed anything. Here
the folders are listed and ordered by their own modification time (a run's folder changes each
time its manifest is replaced, so that is when it was last written) with one stat each, and the
manifests are read in that order, a screenful first, then batches 100 ms apart at first and twice
as far apart each time up to a second: each batch costs the table a relayout and a redraw, so
10,000 runs in 100 ms batches took twice as long to list as in a handful of growing ones.

Each manifest is opened straight away (one open, one fstat, one read: never a symbolic link or a
FIFO) rather than probed with stats first; anything unusual goes through ``summarize_run``, which
words what is wrong.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from qitos.trace.errors import TraceError
from qitos.trace.layout import MANIFEST_FILE, is_run_dir
from qitos.trace.parse import parse_json
from qitos.trace.runs import RunSummary, summarize_run, summary_from_manifest

__all__ = ["RunBatch", "iter_run_batches", "run_order"]

FIRST_BATCH = 60  # runs in the first batch: a screenful on a tall terminal
BATCH_SECONDS = 0.1  # the gap after the first batch; each later gap doubles
MAX_BATCH_SECONDS = 1.0  # up to this, so progress still moves every second


@dataclass(frozen=True)
class RunBatch:
    """Runs read so far by one listing (each folder once), and how far it has got."""

    runs: list[RunSummary]
    done: int  # folders looked at
    total: int  # folders to look at
    skipped: int = 0  # folders that are not runs (hidden, no trace files, unreadable) so far
    final: bool = False


def run_order(run: RunSummary) -> tuple[str, str]:
    """The list's sort key (used reversed: most recently updated first), as ``scan_runs`` sorts."""
    return (run.updated_at or "", run.run_id)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def read_run(entry: os.DirEntry[str]) -> RunSummary | None:
    """The summary of the run in folder ``entry``, None when it is no run (OSError if unreadable)."""
    path = Path(entry.path)
    try:
        fd = os.open(os.path.join(entry.path, MANIFEST_FILE), _OPEN_FLAGS)
    except FileNotFoundError:
        return summarize_run(path) if is_run_dir(path) else None  # events or steps only, or none
    except OSError:
        return summarize_run(path)  # a link or unreadable: summarize_run says which
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return summarize_run(path)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data, reason = parse_json(b"".join(chunks))
    if reason is not None or not isinstance(data, dict):
        return summarize_run(path)  # it words why the manifest is unusable
    return summary_from_manifest(path, data, None)


def _mtime(entry: os.DirEntry[str]) -> float:
    """A folder's modification time, 0 if it vanished since it was listed."""
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0


def iter_run_batches(folder: Path, *, cancelled: object = None) -> Iterator[RunBatch]:
    """Summaries of the runs in ``folder``, newest folders first; TraceError if it cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            children = [e for e in listing if e.is_dir()]
    except FileNotFoundError as exc:
        raise TraceError(f"{folder}: no such folder") from exc
    except NotADirectoryError as exc:
        raise TraceError(f"{folder}: not a folder") from exc
    except OSError as exc:
        raise TraceError(f"cannot list {folder}: {exc}") from exc
    children.sort(key=lambda e: (_mtime(e), e.name), reverse=True)
    runs: list[RunSummary] = []
    skipped = 0
    budget = FIRST_BATCH
    gap = BATCH_SECONDS
    last = time.monotonic()
    for done, entry in enumerate(children, start=1):
        if getattr(cancelled, "is_cancelled", False):
            return
        try:
            run = None if entry.name.startswith(".") else read_run(entry)
        except OSError:
            run = None
        if run is None:
            skipped += 1
        else:
            runs.append(run)
        budget -= 1
        now = time.monotonic()
        if budget <= 0 or now - last >= gap:
            yield RunBatch(runs, done, len(children), skipped)
            if budget > 0:  # not the first batch: the next gap is longer
                gap = min(gap * 2, MAX_BATCH_SECONDS)
            runs, last, budget = [], now, 1 << 30
    yield RunBatch(runs, len(children), len(children), skipped, final=True)
