"""EventFeed: the thread-safe hand-over of events from a producer thread to the UI's fold."""

from __future__ import annotations

import threading
from collections.abc import Callable

from qitos.trace.events import RunEvent


class EventFeed:
    """Producers push events from any thread; the UI drains them all at once on its own thread."""

    def __init__(self, notify: Callable[[], None]) -> None:
        self._notify = notify
        self._lock = threading.Lock()
        self._chunks: list[tuple[int | None, list[RunEvent]]] = []
        self._pending = 0

    def push(self, events: list[RunEvent], start: int | None = None) -> None:
        """Queue ``events`` (the first at index ``start``, or next in order) and wake the UI."""
        if not events:
            return
        with self._lock:
            wake = not self._chunks
            self._chunks.append((start, events))
            self._pending += len(events)
        # Wake the UI only when the buffer was empty: until it drains, it knows there is more.
        # (The notice is also a replaceable message, so a race costs at most one extra drain.)
        if wake:
            self._notify()

    def drain(self) -> list[tuple[int | None, list[RunEvent]]]:
        """Everything queued since the last drain, oldest first."""
        with self._lock:
            chunks, self._chunks = self._chunks, []
            self._pending = 0
        return chunks

    @property
    def pending(self) -> int:
        """How many events wait to be drained (a producer that can wait keeps this bounded)."""
        return self._pending
