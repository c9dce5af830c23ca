"""AsyncEngine (arun, arun_stream) and EventStream (thread-safe emit, fan-out)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from engine_agents import ScriptAgent, add_decision

from qitos import AsyncEngine, Decision, EngineEvent, EngineEventType, EventStream
from qitos.engine.runtime import RuntimePhase


def test_arun_returns_the_same_result_as_run() -> None:
    """arun runs the loop off the event loop thread and returns an EngineResult."""
    engine = AsyncEngine(ScriptAgent([add_decision(), Decision.final("x")]))
    assert engine.agent is engine.engine.agent and engine.event_stream is None
    result = asyncio.run(engine.arun("t"))
    assert result.state.final_result == "x" and result.step_count == 2
    sync = AsyncEngine(ScriptAgent([add_decision(), Decision.final("x")])).run("t")
    assert sync.state.seen == result.state.seen


def test_arun_stream_yields_run_start_to_run_end() -> None:
    """The stream starts with run_start, ends with run_end, and carries the phases between."""

    async def collect() -> tuple[list[EngineEvent], object]:
        engine = AsyncEngine(ScriptAgent([add_decision(), Decision.final("x")]))
        events = []
        async for event in engine.arun_stream("t"):
            assert engine.event_stream is not None
            events.append(event)
        return events, engine.event_stream

    events, stream_after = asyncio.run(collect())
    types = [e.event_type for e in events]
    assert types[0] is EngineEventType.RUN_START and types[-1] is EngineEventType.RUN_END
    assert events[-1].payload["stop_reason"] == "final" and events[-1].payload["status"] == "completed"
    for kind in (
        EngineEventType.STEP_START,
        EngineEventType.DECIDE,
        EngineEventType.ACT,
        EngineEventType.REDUCE,
    ):
        assert kind in types
    decide = next(e for e in events if e.event_type is EngineEventType.DECIDE)
    assert decide.phase is RuntimePhase.DECIDE and decide.agent_id == "ScriptAgent"
    assert stream_after is None


def test_event_stream_thread_safe_emit_and_fan_out() -> None:
    """Two subscribers each get every event emitted from several threads, then the end."""

    async def main() -> tuple[list[int], list[int], list[int]]:
        stream = EventStream()
        first, second = stream.subscribe(), stream.subscribe()

        def produce(base: int) -> None:
            for i in range(50):
                stream.emit(EngineEvent(EngineEventType.STEP_START, step_id=base + i))

        threads = [threading.Thread(target=produce, args=(b,)) for b in (0, 100)]
        for t in threads:
            t.start()
        iterated: list[int] = []

        async def iterate() -> None:
            async for event in stream:
                iterated.append(event.step_id)

        task = asyncio.create_task(iterate())
        await asyncio.sleep(0)  # one turn of the loop, not a clock: the task subscribes before RUN_END
        await asyncio.to_thread(lambda: [t.join() for t in threads])
        stream.emit_sync(EngineEvent(EngineEventType.RUN_END, step_id=999))
        stream.close()
        stream.close()  # idempotent

        async def drain(q: asyncio.Queue) -> list[int]:
            out = []
            while (item := await q.get()) is not None:
                out.append(item.step_id)
            return out

        a, b = await drain(first), await drain(second)
        await task
        return a, b, iterated

    a, b, iterated = asyncio.run(main())
    assert sorted(a) == sorted(b) == sorted([*range(50), *range(100, 150), 999])
    assert a[-1] == 999 and iterated[-1] == 999


def test_event_stream_rejects_bad_input_and_emit_after_close() -> None:
    """emit needs an EngineEvent and an open stream."""

    async def main() -> None:
        stream = EventStream()
        with pytest.raises(TypeError, match="EngineEvent"):
            stream.emit("x")  # type: ignore[arg-type]
        stream.close()
        with pytest.raises(RuntimeError, match="after close"):
            stream.emit(EngineEvent(EngineEventType.ERROR))
        queue = stream.subscribe()
        assert await queue.get() is None

    asyncio.run(main())


def test_engine_event_defaults() -> None:
    """EngineEvent defaults as documented."""
    event = EngineEvent(EngineEventType.ERROR)
    assert (event.step_id, event.agent_id, event.phase, event.ok, event.payload, event.error) == (
        0,
        None,
        None,
        True,
        {},
        None,
    )
    assert event.ts.endswith("+00:00")
