"""EventFeed: the thread-safe hand-over of events from a producer thread to the UI's fold."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from qitos.trace.events import RunEvent

if TYPE_CHECKING:
    from qitos.trace.reader import TraceReader
    from tui.store import RunStore


class Batch(Protocol):
    """The events of one push, counted before they are folded: a list of RunEvents (live), or a
    block of trace lines that parse into records as they are iterated (the reader's LineRecords)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[RunEvent | dict[str, Any]]: ...


class FoldedElsewhere:
    """Events folded elsewhere (a part of a trace, in a worker process: tui.fold_parts), queued
    in the feed to be joined to the store in their turn, on the UI thread."""

    def __len__(self) -> int:
        raise NotImplementedError

    def join(self, store: RunStore, reader: TraceReader) -> None:
        """Join what was folded to ``store``, folded up to the first of these events."""
        raise NotImplementedError


class EventFeed:
    """Producers push events from any thread; the UI drains them all at once on its own thread."""

    def __init__(self, notify: Callable[[], None]) -> None:
        self._notify = notify
        self._lock = threading.Lock()
        # RunEvents, or the trace's line objects (records) that RunStore.apply folds alike, or a
        # part of the trace folded in a worker process, to be joined in its turn.
        self._chunks: list[tuple[int | None, Batch | FoldedElsewhere]] = []
        self._pending = 0

    def push(self, events: Batch | FoldedElsewhere, start: int | None = None) -> None:
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

    def drain(self, limit: int | None = None) -> list[tuple[int | None, Batch | FoldedElsewhere]]:
        """What was queued since the last drain, oldest first: everything, or whole chunks up to
        about ``limit`` events (always at least one chunk), so the UI can fold in short slices."""
        with self._lock:
            if limit is None:
                taken, self._chunks = self._chunks, []
            else:
                count = 0
                cut = 0
                for _, events in self._chunks:
                    if cut and count + len(events) > limit:
                        break
                    count += len(events)
                    cut += 1
                taken, self._chunks = self._chunks[:cut], self._chunks[cut:]
            self._pending -= sum(len(events) for _, events in taken)
        return taken

    @property
    def pending(self) -> int:
        """How many events wait to be drained (a producer that can wait keeps this bounded)."""
        return self._pending
