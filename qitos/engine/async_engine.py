"""AsyncEngine: the same Engine loop run in a worker thread, awaitable and streamable from asyncio."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Generic, TypeVar

from qitos.core.agent_module import AgentModule
from qitos.engine.engine import Engine
from qitos.engine.hooks import EngineHook
from qitos.engine.result import EngineResult
from qitos.engine.stream import EngineEvent, EngineEventType, EventStream, from_run_event

StateT = TypeVar("StateT")
ObservationT = TypeVar("ObservationT")
ActionT = TypeVar("ActionT")


class _StreamHook(EngineHook):
    """Forwards every run event of the sync Engine into an EventStream."""

    def __init__(self, stream: EventStream, agent_id: str | None) -> None:
        self.stream = stream
        self.agent_id = agent_id

    def on_event(self, event: Any, state: Any = None, record: Any = None, engine: Any = None) -> None:
        """Convert and emit (thread-safe: the Engine runs in a worker thread); the rest is not needed."""
        # Once the consumer has left (stream closed), the events still reach result.events and the
        # trace; only the forwarding stops.
        if not self.stream.closed:
            self.stream.emit(from_run_event(event, self.agent_id))


class AsyncEngine(Generic[StateT, ObservationT, ActionT]):
    """Non-blocking execution: blocking engine work runs in a thread, safe inside asyncio loops."""

    def __init__(self, agent: AgentModule[StateT, ObservationT, ActionT], **engine_kwargs: Any) -> None:
        self._engine: Engine[StateT, ObservationT, ActionT] = Engine(agent, **engine_kwargs)
        self._stream: EventStream | None = None

    @property
    def engine(self) -> Engine[StateT, ObservationT, ActionT]:
        """The underlying sync Engine."""
        return self._engine

    @property
    def agent(self) -> AgentModule[StateT, ObservationT, ActionT]:
        """Same as ``engine.agent``."""
        return self._engine.agent

    @property
    def event_stream(self) -> EventStream | None:
        """The active event stream during ``arun_stream()``, otherwise None."""
        return self._stream

    async def arun(self, task: Any, **kwargs: Any) -> EngineResult[StateT]:
        """Run the loop in a worker thread and return the same EngineResult as ``Engine.run``."""
        return await asyncio.to_thread(self._engine.run, task, **kwargs)

    async def arun_stream(self, task: Any, **kwargs: Any) -> AsyncIterator[EngineEvent]:
        """Run the loop and yield EngineEvents as they happen, from run_start to run_end."""
        if self._stream is not None:
            raise RuntimeError("AsyncEngine.arun_stream is already streaming a run")
        stream = EventStream(asyncio.get_running_loop())
        queue = stream.subscribe()
        agent_id = type(self.agent).__name__
        hook = _StreamHook(stream, agent_id)
        self._stream = stream
        self._engine.register_hook(hook)
        # The stream's own events carry run data too (the task, the final result, an error): they
        # are masked with the redactor the run's events are masked with.
        redact = self._engine.redactor_for(self._engine.trace_writer).redact
        stream.emit(
            EngineEvent(EngineEventType.RUN_START, agent_id=agent_id, payload=redact({"task": str(task)}))
        )

        def work() -> EngineResult[StateT]:
            try:
                return self._engine.run(task, **kwargs)
            finally:
                self._engine.unregister_hook(hook)

        future = asyncio.ensure_future(asyncio.to_thread(work))
        future.add_done_callback(lambda fut: self._finish_stream(stream, fut, agent_id))
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                yield item
            await future
        finally:
            self._stream = None
            if not future.done():
                self._engine.request_cancel()
                try:
                    await asyncio.shield(future)
                finally:
                    # The run may have ended on its own just before the request (its thread had
                    # not returned yet): a request no run observed must not cancel the next one.
                    self._engine._withdraw_cancel()

    def _finish_stream(self, stream: EventStream, future: asyncio.Future[Any], agent_id: str) -> None:
        if future.cancelled():
            self._engine.request_cancel()  # the worker thread is still running: ask it to stop
        if future.cancelled() or future.exception() is not None:
            exc = None if future.cancelled() else future.exception()
            redactor = self._engine.redactor_for(self._engine.trace_writer)
            message = "cancelled" if exc is None else redactor.redact_text(f"{type(exc).__name__}: {exc}")
            stream.emit(EngineEvent(EngineEventType.ERROR, agent_id=agent_id, ok=False, error=message))
            stream.emit(EngineEvent(EngineEventType.RUN_END, agent_id=agent_id, ok=False, error=message))
        else:
            result = future.result()
            payload = self._engine.redactor_for(self._engine.trace_writer).redact(
                {
                    "status": result.status,
                    "stop_reason": result.stop_reason,
                    "final_result": result.final_result,
                    "steps": result.step_count,
                }
            )
            stream.emit(
                EngineEvent(
                    EngineEventType.RUN_END, step_id=result.step_count, agent_id=agent_id, payload=payload
                )
            )
        stream.close()

    def run(self, task: Any, **kwargs: Any) -> EngineResult[StateT]:
        """Synchronous fallback: delegates to ``Engine.run``."""
        return self._engine.run(task, **kwargs)
