"""The run-scoped event sink: lets stores used inside a run (memory, skill libraries) record events.

The Engine binds its emitter for the duration of a run; code running inside that run — an agent's
tools, a memory source adapter, a skill library — calls :func:`emit` and the event lands in the
run's event stream and trace. Outside a run, :func:`emit` records nothing: a memory used from a
script has no run to report to. A ContextVar keeps concurrent runs in different threads apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

Emitter = Callable[..., None]
"""``emitter(kind, payload, *, ok=True, error=None)`` — what the Engine binds."""

_current: ContextVar[Emitter | None] = ContextVar("qitos_run_emitter", default=None)


def emit(kind: str, payload: dict[str, Any], *, ok: bool = True, error: str | None = None) -> bool:
    """Record one event in the active run; returns False (and records nothing) outside a run."""
    emitter = _current.get()
    if emitter is None:
        return False
    emitter(kind, payload, ok=ok, error=error)
    return True


def active() -> bool:
    """Whether code is running inside a run that records events."""
    return _current.get() is not None


@contextmanager
def bind(emitter: Emitter) -> Iterator[None]:
    """Route :func:`emit` calls made in this context to ``emitter`` until the block ends."""
    token = _current.set(emitter)
    try:
        yield
    finally:
        _current.reset(token)
