"""Follow a run that another process is still writing: new events as they land, then its final status.

The body of the run screen's follow worker. It watches the run directory with ``watchfiles.awatch``
(a short debounce, so an appended line shows in tens of milliseconds) and, on each change, lets the
TraceReader index the complete lines appended since, hands them to the same fold as the replay's
background fold (the screen's event feed), and re-reads the run's status. A pause is not an end (the
writer holds its lock while paused, and the run resumes in the same file): following goes on
through pause and resume, and ends when the status is final: the writer finalized the run, or died
without doing so ("interrupted").
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qitos.trace.events import STATUS_INTERRUPTED, STATUS_PAUSED, STATUS_RUNNING, RunEvent

if TYPE_CHECKING:
    from qitos.trace.reader import TraceReader

DEBOUNCE_MS = 50  # watchfiles groups changes this long; its 1.6 s default is too slow for a live view
STEP_MS = 10
# A writer killed without finalizing changes no file; only its lock goes. The watcher's own timeout
# wakes the loop this often to probe the lock, so such a run ends as "interrupted" instead of
# being followed for ever.
LOCK_CHECK_MS = 1000
# Statuses of a run that may still grow: its writer is alive (a paused writer keeps its lock).
GOING_ON = frozenset({STATUS_RUNNING, STATUS_PAUSED})


@dataclass(frozen=True)
class FollowEnd:
    """How following ended: the run's last status, and what went wrong if the trace was cut."""

    status: str
    problem: str | None = None


def _catch_up(reader: TraceReader, start: int) -> tuple[list[RunEvent], str, int]:
    """Index what was appended, read the events from ``start`` on, and say the run's status."""
    reader.refresh()  # reloads the manifest first, then indexes events: a final status comes with them
    status = reader.status
    if status == STATUS_INTERRUPTED:
        # The status reads the manifest, then probes the lock. A writer that finalized between the
        # two released the lock after writing its final manifest: read it again before believing
        # that the run was cut short.
        reader.refresh()
        status = reader.status
    total = len(reader)
    events = list(reader.events(start, total)) if total > start else []
    return events, status, total


async def follow_run(
    reader: TraceReader,
    start: int,
    *,
    deliver: Callable[[list[RunEvent], int], None],
    on_status: Callable[[str], None],
    stop_event: asyncio.Event,
) -> FollowEnd:
    """Deliver the run's events from index ``start`` on as they are written, until it is finished.

    ``deliver(events, first_index)`` gets each new batch, ``on_status(status)`` each status seen
    after a batch; ``stop_event`` ends the watch early (the screen is going away).
    """
    from watchfiles import awatch

    async def step() -> FollowEnd | None:
        nonlocal start
        # Indexing and parsing touch the disk: keep them off the event loop.
        events, status, total = await asyncio.to_thread(_catch_up, reader, start)
        if total < start:
            return FollowEnd(status, f"the trace shrank to {total} events while followed ({start} shown)")
        if events:
            deliver(events, start)
            start += len(events)
        on_status(status)
        return None if status in GOING_ON else FollowEnd(status)

    # Lines written between the last fold and the watch starting are caught up here.
    end = await step()
    if end is not None:
        return end
    async for _changes in awatch(
        reader.run_dir,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop_event,
        rust_timeout=LOCK_CHECK_MS,
        yield_on_timeout=True,
    ):
        end = await step()
        if end is not None:
            return end
    # Stopped from outside: the run may go on, we no longer look.
    return FollowEnd(reader.status)
