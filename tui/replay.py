"""Replay source: paint from the head of events.jsonl at once, then hand over to the TraceReader.

The TraceReader indexes every line before it answers (about 60 ms per 100 MB here), so a large
trace would delay the first frame by its size. The first frame needs only the first few hundred
events: :class:`HeadSource` reads them straight from the start of the file, the screen paints them,
and the reader is opened on a worker thread; the store then switches to it and folds the rest in
the background. HeadSource counts lines exactly as the reader does (only empty lines are skipped),
so event indices agree across the hand-over.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent

HEAD_BYTES = 1 << 20  # the first MiB holds the first few hundred events of any realistic trace
MALFORMED = "<malformed>"  # the phase the TraceReader gives a damaged line


class HeadSource:
    """The first complete events of a run's events.jsonl, parsed eagerly (an EventSource)."""

    def __init__(self, run_dir: Path, *, limit: int, run_id: str = "") -> None:
        self.run_dir = run_dir
        self.complete = False  # True when the head holds every complete line of the file
        self._events: list[RunEvent] = []
        path = run_dir / "events.jsonl"
        if not path.is_file():
            self.complete = True
            return
        with path.open("rb") as handle:
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
            self._events.append(_parse(raw, line_no, run_id))
        self.complete = at_eof

    def __len__(self) -> int:
        return len(self._events)

    def event(self, index: int) -> RunEvent:
        """The event at ``index`` (within the head)."""
        return self._events[index]

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Events ``start`` .. ``stop`` of the head."""
        return iter(self._events[start:stop])


def _parse(raw: bytes, line: int, run_id: str) -> RunEvent:
    try:
        data: Any = json.loads(raw)
    except ValueError as exc:
        return _raw(raw, line, run_id, f"invalid JSON ({exc})")
    if not isinstance(data, dict):
        return _raw(raw, line, run_id, f"a JSON {type(data).__name__}, not an object")
    event = RunEvent.from_dict(data)
    event.run_id = event.run_id or run_id
    return event


def _raw(raw: bytes, line: int, run_id: str, reason: str) -> RunEvent:
    text = raw.decode("utf-8", errors="replace")
    payload = {"line": line, "text": text[:300]}
    return RunEvent(run_id, 0, MALFORMED, False, payload, f"malformed trace line {line}: {reason}", "")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's manifest, or {} when it is missing or unreadable (the reader says why, later)."""
    try:
        data = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def manifest_tokens(manifest: dict[str, Any]) -> int:
    """The manifest's token total (top level, or in the summary as upstream writes it), else 0."""
    tokens = manifest.get("token_usage")
    summary = manifest.get("summary")
    if tokens is None and isinstance(summary, dict):
        tokens = summary.get("token_usage")
    return tokens if isinstance(tokens, int) else 0
