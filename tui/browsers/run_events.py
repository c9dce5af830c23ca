"""What the run panes feed the browsers: the selected step's recalls and the run's skill publications.

Both read a :class:`tui.store.RunStore` (live or replayed: the same fold), loading only the events
the store indexed for memory and skills, so calling them on every step change stays cheap.
"""

from __future__ import annotations

from typing import Any

from qitos.trace.events import EventKind
from tui.store import RunStore

__all__ = ["publishes", "recalls_at"]


def recalls_at(store: RunStore, pos: int) -> tuple[int | None, list[dict[str, Any]]]:
    """(step id, memory_recall payloads) of the step at position ``pos``; (None, []) before any step."""
    steps = store.steps
    if not steps:
        return None, []
    step = steps[max(0, min(pos, len(steps) - 1))]
    payloads = []
    for index in step.memory:
        event = store.load(index)
        if event.phase == EventKind.MEMORY_RECALL and isinstance(event.payload, dict):
            payloads.append(dict(event.payload))
    return step.step, payloads


def publishes(store: RunStore, upto: int | None = None) -> list[dict[str, Any]]:
    """skill_publish payloads of the run (folded so far), or of its steps up to position ``upto``."""
    steps = store.steps if upto is None else store.steps[: max(0, upto) + 1]
    payloads = []
    for step in steps:
        for index in step.skills:
            event = store.load(index)
            if event.phase == EventKind.SKILL_PUBLISH and isinstance(event.payload, dict):
                payloads.append(dict(event.payload))
    return payloads
