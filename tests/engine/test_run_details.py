"""Smaller run details: history adapter, toolset lifecycle events, on_error hooks, cancel scope, streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from engine_agents import ScriptAgent, add_decision
from waits import wait_until

from qitos import AsyncEngine, Decision, Engine, EngineEventType, ToolRegistry, tool
from qitos.engine.hooks import EngineHook, HookContext
from qitos.kit.history import WindowHistory
from qitos.kit.parser import JsonDecisionParser
from qitos.models.scripted import ScriptedModel


def test_history_adapter_receives_each_exchange() -> None:
    """With agent.history set, each model call appends the user turn and the reply."""
    history = WindowHistory()
    model = ScriptedModel(['{"final": "ok"}'])
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser(), history=history)
    Engine(agent).run("h")
    assert [(m.role, m.step_id) for m in history.retrieve()] == [("user", 0), ("assistant", 0)]
    assert history.retrieve()[1].content == '{"final": "ok"}'


class Toolset:
    """A toolset recording setup and teardown."""

    name = "ts"

    def __init__(self) -> None:
        self.calls: list[str] = []

    @tool()
    def ping(self) -> str:
        """Ping."""
        return "pong"

    def setup(self, context: dict[str, Any]) -> None:
        self.calls.append("setup")

    def teardown(self, context: dict[str, Any]) -> None:
        self.calls.append("teardown")


def test_toolsets_are_set_up_and_torn_down_around_the_run() -> None:
    """toolset_setup_* events come before INIT; teardown events after END."""
    ts = Toolset()
    registry = ToolRegistry().register_toolset(ts)
    agent = ScriptAgent([Decision.act([{"name": "ts.ping"}]), Decision.final("x")], tool_registry=registry)
    result = Engine(agent).run("t")
    kinds = [e.phase for e in result.events]
    assert kinds[:3] == ["toolset_setup_start", "toolset_setup_end", "INIT"]
    assert kinds[-4:] == ["END", "toolset_teardown_start", "toolset_teardown_end", "run_end"]
    assert ts.calls == ["setup", "teardown"] and result.state.seen == ["pong"]


def test_on_error_hook_sees_recoverable_errors() -> None:
    """on_recover receives each error's info and the exception."""
    seen: list[dict[str, Any]] = []

    class Errs(EngineHook):
        def on_recover(self, ctx: HookContext, engine: Any) -> None:
            assert ctx.error is not None and ctx.error.info.category.value == ctx.payload["category"]
            seen.append(ctx.payload)

    model = ScriptedModel(["junk", '{"final": "ok"}'])
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())
    Engine(agent, hooks=[Errs()]).run("e")
    assert [e["category"] for e in seen] == ["parse"] and seen[0]["retrying"] is True


def test_cancel_requested_before_run_applies_once() -> None:
    """A cancel requested before run stops that run at step 0; the next run is unaffected."""
    engine = Engine(ScriptAgent([add_decision(), Decision.final("x")]))
    engine.request_cancel()
    first = engine.run("t")
    assert first.stop_reason == "cancelled_immediate" and first.step_count == 0
    second = engine.run("t")
    assert second.stop_reason in ("final", "max_steps")


def test_leaving_a_stream_early_cancels_the_run() -> None:
    """Breaking out of arun_stream cancels the underlying run and leaves no cancel pending."""

    async def main() -> AsyncEngine:
        engine = AsyncEngine(ScriptAgent([add_decision()]))
        async for event in engine.arun_stream("t"):
            if event.event_type is EngineEventType.ACT:
                break
        return engine

    engine = asyncio.run(main())
    assert engine.event_stream is None
    assert not engine.engine._cancel.is_set()
    again = engine.run("t")
    assert again.step_count == 10


def test_leaving_a_stream_as_its_run_ends_does_not_cancel_the_next_run() -> None:
    """A stream left after its run ended on its own, but before the run's thread returned, asks
    for a cancel nobody observes: it must not cancel the Engine's next run."""
    import threading

    finished = threading.Event()
    asked = threading.Event()

    async def main() -> AsyncEngine:
        engine = AsyncEngine(ScriptAgent([add_decision()]))
        inner = engine.engine
        real_run, real_cancel = inner.run, inner.request_cancel

        def cancel_and_tell() -> None:
            real_cancel()
            asked.set()

        def run_then_linger(task: Any, **kwargs: Any) -> Any:
            result = real_run(task, **kwargs)
            finished.set()
            # The run is over; its thread returns only once the stream has been left and has
            # asked for the cancel nobody will observe (a bound: a failing test still ends).
            asked.wait(60)
            return result

        inner.run = run_then_linger  # type: ignore[method-assign]
        inner.request_cancel = cancel_and_tell  # type: ignore[method-assign]
        async for _event in engine.arun_stream("t"):
            await wait_until(finished.is_set, what="the run to end on its own")
            break
        inner.run = real_run  # type: ignore[method-assign]
        return engine

    engine = asyncio.run(main())
    assert asked.is_set(), "leaving the stream did not ask for a cancel: the case is not exercised"
    del engine.engine.request_cancel  # the class's own again
    assert not engine.engine._cancel.is_set()
    assert engine.run("t").step_count == 10


def test_one_run_at_a_time_and_one_trace_per_writer(tmp_path: Any) -> None:
    """A second concurrent run, a reused finished writer, or a new run over a paused one are refused."""
    import threading

    from qitos import Action
    from qitos.trace.writer import TraceWriter

    entered, release = threading.Event(), threading.Event()

    @tool(name="hold")
    def hold() -> str:
        entered.set()
        release.wait(5)
        return "ok"

    agent = ScriptAgent(
        [Decision.act([Action("hold")]), Decision.final("x")], tool_registry=ToolRegistry().register(hold)
    )
    engine = Engine(agent)
    worker = threading.Thread(target=engine.run, args=("t",))
    worker.start()
    assert entered.wait(5)
    try:
        with pytest.raises(RuntimeError, match="already running"):
            engine.run("again")
    finally:
        release.set()
        worker.join(5)

    writer = TraceWriter(tmp_path, run_id="once")
    traced = Engine(ScriptAgent([Decision.final("x")]), trace_writer=writer)
    traced.run("t")
    with pytest.raises(RuntimeError, match="already holds a finished run"):
        traced.run("t")


def test_a_newer_run_invalidates_an_older_snapshot() -> None:
    """Starting a new run on the Engine makes the paused run's snapshot unresumable."""
    from qitos.engine.runtime import LifecyclePolicy

    class PauseFirst(LifecyclePolicy):
        policy_id = "first"

        def should_pause(self, context: Any) -> bool:
            return context.step_id == 0 and context.boundary == "before_decide"

    agent = ScriptAgent([Decision.final("x")], extensions={"p": PauseFirst}, lifecycle=["p"])
    engine = Engine(agent)
    old = engine.run("a")
    engine.run("b")
    with pytest.raises(ValueError, match="newer run"):
        engine.resume(old.snapshot)
