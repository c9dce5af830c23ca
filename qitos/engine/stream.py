"""Streaming engine events for asyncio consumers: EngineEvent, its types and the EventStream queue."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from qitos.engine.runtime import RuntimePhase
from qitos.trace.events import EventKind, Stage


class EngineEventType(str, Enum):
    """The kinds of event ``AsyncEngine.arun_stream`` yields."""

    STEP_START = "step_start"
    STEP_END = "step_end"
    PHASE_START = "phase_start"
    PHASE_END = "phase_end"
    DECIDE = "decide"
    ACT = "act"
    REDUCE = "reduce"
    CRITIC = "critic"
    CHECK_STOP = "check_stop"
    HANDOFF = "handoff"
    DELEGATE = "delegate"
    FANOUT = "fanout"
    ERROR = "error"
    RUN_START = "run_start"
    RUN_END = "run_end"


@dataclass
class EngineEvent:
    """One structured event of a streamed run."""

    event_type: EngineEventType
    step_id: int = 0
    agent_id: str | None = None
    phase: RuntimePhase | None = None
    ok: bool = True
    payload: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    ts: str = field(default_factory=lambda: datetime.now(UTC).isoformat())


_PHASE_TYPES = {
    EventKind.DECIDE: EngineEventType.DECIDE,
    EventKind.ACT: EngineEventType.ACT,
    EventKind.REDUCE: EngineEventType.REDUCE,
    EventKind.CRITIC: EngineEventType.CRITIC,
    EventKind.CHECK_STOP: EngineEventType.CHECK_STOP,
    EventKind.ERROR: EngineEventType.ERROR,
}


def from_run_event(event: Any, agent_id: str | None = None) -> EngineEvent:
    """The EngineEvent for one RunEvent: engine phases keep their type, other kinds are phase ends."""
    phase_name = event.phase
    stage = event.payload.get("stage") if isinstance(event.payload, dict) else None
    if phase_name == EventKind.OBSERVE and stage == Stage.START:
        kind = EngineEventType.STEP_START
    elif phase_name in _PHASE_TYPES:
        kind = _PHASE_TYPES[phase_name]
    else:
        kind = EngineEventType.PHASE_END
    try:
        phase = RuntimePhase(phase_name)
    except ValueError:
        phase = None
    return EngineEvent(
        event_type=kind,
        step_id=event.step_id,
        agent_id=agent_id,
        phase=phase,
        ok=event.ok,
        payload={"kind": phase_name, **event.payload},
        error=event.error,
        ts=event.ts,
    )


class EventStream:
    """An async-compatible, thread-safe event queue with fan-out subscriptions.

    Producers call :meth:`emit` from any thread; consumers iterate with ``async for`` or take their
    own queue from :meth:`subscribe`. Every consumer sees every event emitted after it subscribed,
    followed by the end of the stream once :meth:`close` is called.
    """

    _END = object()

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._queues: list[asyncio.Queue[Any]] = []
        self._default: asyncio.Queue[Any] | None = None
        self._closed = False
        self._history: list[EngineEvent] = []

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _bind_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def subscribe(self) -> asyncio.Queue[Any]:
        """A new queue receiving every later event, then None when the stream closes."""
        self._bind_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        with self._lock:
            self._queues.append(queue)
            if self._closed:
                queue.put_nowait(None)
        return queue

    def emit(self, event: EngineEvent) -> None:
        """Deliver ``event`` to every subscriber; safe to call from any thread."""
        if not isinstance(event, EngineEvent):
            raise TypeError(f"EventStream.emit needs an EngineEvent, got {type(event).__name__}")
        with self._lock:
            if self._closed:
                raise RuntimeError("EventStream.emit after close()")
            self._history.append(event)
            queues = list(self._queues)
        self._deliver(queues, event)

    def emit_sync(self, event: EngineEvent) -> None:
        """Alias of :meth:`emit` for synchronous callers."""
        self.emit(event)

    def close(self) -> None:
        """Signal the end of the stream to every subscriber (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            queues = list(self._queues)
        self._deliver(queues, None)

    async def __aiter__(self) -> AsyncIterator[EngineEvent]:
        """Iterate events as they arrive until the stream closes."""
        queue = self._default
        if queue is None:
            queue = self._default = self.subscribe()
        while True:
            item = await queue.get()
            if item is None:
                return
            yield item

    def _deliver(self, queues: list[asyncio.Queue[Any]], item: Any) -> None:
        if not queues:
            return
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for queue in queues:
            if loop is None or running is loop:
                queue.put_nowait(item)
            else:
                loop.call_soon_threadsafe(queue.put_nowait, item)
