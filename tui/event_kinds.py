"""The timeline's event categories (errors, retries, model calls, ...): one small code per event."""

from __future__ import annotations

from typing import Any

from qitos.trace.events import EventKind
from qitos.trace.fields import as_int

OTHER, ERROR, RETRY, MODEL, TOOL, MEMORY, SKILL, LIFECYCLE = range(8)
# The filters the Events pane cycles through, in order, with the codes each one shows.
FILTERS: tuple[tuple[str, frozenset[int]], ...] = (
    ("all", frozenset(range(8))),
    ("errors", frozenset({ERROR})),
    ("retries", frozenset({RETRY})),
    ("model calls", frozenset({MODEL})),
    ("tool calls", frozenset({TOOL})),
    ("memory", frozenset({MEMORY})),
    ("skills", frozenset({SKILL})),
    ("lifecycle", frozenset({LIFECYCLE})),
)
_BY_KIND: dict[str, int] = {  # EventKinds are strs: a phase string finds its kind
    EventKind.MODEL_REQUEST: MODEL,
    EventKind.MODEL_RESPONSE: MODEL,
    EventKind.DECIDE: MODEL,
    EventKind.TOOL_CALL: TOOL,
    EventKind.TOOL_RESULT: TOOL,
    EventKind.ACT: TOOL,
    EventKind.MEMORY_APPEND: MEMORY,
    EventKind.MEMORY_RECALL: MEMORY,
    EventKind.MEMORY_DELETE: MEMORY,
    EventKind.SKILL_PUBLISH: SKILL,
    EventKind.SKILL_DEPRECATE: SKILL,
    EventKind.LIFECYCLE_PAUSE: LIFECYCLE,
    EventKind.LIFECYCLE_RESUME: LIFECYCLE,
    EventKind.INIT: LIFECYCLE,
    EventKind.END: LIFECYCLE,
    EventKind.RUN_END: LIFECYCLE,
    EventKind.ERROR: ERROR,
}


def category(phase: str, ok: bool, payload: dict[str, Any]) -> int:
    """The event's category code: a failure is an error, a second attempt a retry, else by kind."""
    if not ok or phase == EventKind.ERROR:
        return ERROR
    attempts = payload.get("attempts")
    if attempts is not None and (as_int(attempts) or 0) > 1:
        return RETRY
    if "retry" in phase.lower():
        return RETRY
    return _BY_KIND.get(phase, OTHER)
