"""Replay source: paint from the head of events.jsonl at once, then hand over to the TraceReader.

The TraceReader indexes every line before it answers (about 60 ms per 100 MB here), so a large
trace would delay the first frame by its size. The first frame needs only the first few hundred
events: :class:`HeadSource` reads them straight from the start of the file, the screen paints them,
and the reader is opened on a worker thread; the store then switches to it and folds the rest in
the background. HeadSource counts lines exactly as the reader does (only empty lines are skipped),
so event indices agree across the hand-over.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from qitos.trace.parse import event_from_line, load_manifest, open_trace_file, trace_file_problem
from qitos.trace.runs import token_total

HEAD_BYTES = 1 << 20  # the first MiB holds the first few hundred events of any realistic trace


class HeadSource:
    """The first complete events of a run's events.jsonl, parsed eagerly (an EventSource)."""

    def __init__(self, run_dir: Path, *, limit: int, run_id: str = "") -> None:
        self.run_dir = run_dir
        self.complete = False  # True when the head holds every complete line of the file
        self._events: list[RunEvent] = []
        path = run_dir / "events.jsonl"
        if trace_file_problem(path) is not None or not path.is_file():
            self.complete = True  # the reader says why, once it is open
            return
        try:
            fd = open_trace_file(path)
        except OSError:
            self.complete = True
            return
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(HEAD_BYTES)
            at_eof = not handle.read(1)
        end = data.rfind(b"\n")
        lines = data[: end + 1].split(b"\n")[:-1] if end >= 0 else []
        line_no = 0
        for raw in lines:
            line_no += 1
            if not raw:
                continue  # the reader skips empty lines too (and only those)
            if len(self._events) >= limit:
                return
            self._events.append(event_from_line(raw, line_no, run_id)[0])
        self.complete = at_eof

    def __len__(self) -> int:
        return len(self._events)

    def event(self, index: int) -> RunEvent:
        """The event at ``index`` (within the head)."""
        return self._events[index]

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Events ``start`` .. ``stop`` of the head."""
        return iter(self._events[start:stop])


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's manifest, or {} when it is missing or unusable (the reader says why, later)."""
    return load_manifest(run_dir)[0]


def manifest_tokens(manifest: dict[str, Any]) -> int:
    """The manifest's token total (top level, or in the summary as upstream writes it), else 0."""
    tokens = token_total(manifest.get("token_usage"))
    summary = manifest.get("summary")
    if tokens is None and isinstance(summary, dict):
        tokens = token_total(summary.get("token_usage"))
    return tokens if tokens is not None and tokens > 0 else 0
