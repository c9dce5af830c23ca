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
from qitos.trace.fields import token_total
from qitos.trace.parse import (
    event_from_line,
    load_manifest,
    open_trace_file,
    parse_object,
    trace_file_problem,
)

HEAD_BYTES = 1 << 20  # the first MiB holds the first few hundred events of any realistic trace
HEAD_CHUNK = 256 << 10  # read in steps, and no further than the events the first frame needs


class HeadSource:
    """The first complete events of a run's events.jsonl (an EventSource): each line parsed once
    into its record for the first fold, and into a RunEvent only when a pane asks for it."""

    def __init__(self, run_dir: Path, *, limit: int, run_id: str = "") -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self.complete = False  # True when the head holds every complete line of the file
        self._lines: list[tuple[int, bytes]] = []  # (1-based line number, the line) of each event
        self._events: dict[int, RunEvent] = {}
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
            data = b""
            newlines = 0
            at_eof = False
            # Enough complete lines for `limit` events (blank lines aside), at most HEAD_BYTES.
            while len(data) < HEAD_BYTES and newlines <= limit:
                chunk = handle.read(min(HEAD_CHUNK, HEAD_BYTES - len(data)))
                if not chunk:
                    at_eof = True
                    break
                data += chunk
                newlines += chunk.count(b"\n")
            if not at_eof and len(data) >= HEAD_BYTES:
                at_eof = not handle.read(1)
        end = data.rfind(b"\n")
        lines = data[: end + 1].split(b"\n")[:-1] if end >= 0 else []
        for line_no, raw in enumerate(lines, start=1):
            if not raw:
                continue  # the reader skips empty lines too (and only those)
            if len(self._lines) >= limit:
                return
            self._lines.append((line_no, raw))
        self.complete = at_eof

    def __len__(self) -> int:
        return len(self._lines)

    def records(self) -> Iterator[dict[str, Any]]:
        """Every event of the head as its record, which the store folds as it would the event
        (RunStore.apply): a plain parse, cheaper than building a RunEvent per line."""
        for index, (_, raw) in enumerate(self._lines):
            data, _ = parse_object(raw)
            yield data if data is not None else self.event(index).to_dict()

    def event(self, index: int) -> RunEvent:
        """The event at ``index`` (within the head), parsed on first use."""
        if index < 0:
            index += len(self._lines)
        event = self._events.get(index)
        if event is None:
            line_no, raw = self._lines[index]  # IndexError beyond the head, as a list's
            event = self._events[index] = event_from_line(raw, line_no, self.run_id)[0]
        return event

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Events ``start`` .. ``stop`` of the head."""
        return iter([self.event(i) for i in range(len(self._lines))[start:stop]])


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
