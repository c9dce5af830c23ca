"""Events made by hand and folded into a RunStore alone (no app): the exact tests of the fold."""

from __future__ import annotations

from typing import Any

from qitos.trace.events import RunEvent
from tui.store import ListSource, RunStore


def ev(
    step: Any, phase: Any, payload: Any = None, ok: bool = True, error: str | None = None, run_id: str = "r"
) -> RunEvent:
    """An event with a fixed timestamp; an empty payload unless one is given."""
    return RunEvent(run_id, step, phase, ok, {} if payload is None else payload, error, "t")


def fold(*events: RunEvent) -> RunStore:
    """A store that folded ``events`` from index 0."""
    store = RunStore(ListSource(events))
    store.apply(events)
    return store


def fold_records(*records: dict[str, Any]) -> RunStore:
    """A store that folded trace-line objects from index 0."""
    store = RunStore()
    store.apply(records)
    return store
