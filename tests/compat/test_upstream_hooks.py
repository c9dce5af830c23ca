"""Upstream-style EngineHooks are called with upstream's methods and signatures; ours still work."""

from __future__ import annotations

from typing import Any

from qitos import Action, AgentModule, Decision, Engine, StateSchema, ToolRegistry, tool
from qitos.engine.hooks import EngineHook, HookContext


class AddAgent(AgentModule):
    """Adds once, then answers."""

    def __init__(self) -> None:
        registry = ToolRegistry()

        @tool(name="add")
        def add(a: int, b: int) -> int:
            return a + b

        registry.register(add)
        super().__init__(tool_registry=registry)

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task, max_steps=4)

    def decide(self, state: StateSchema, observation: Any) -> Decision:
        if state.current_step == 0:
            return Decision.act([Action(name="add", args={"a": 40, "b": 2})])
        return Decision.final("42")

    def reduce(self, state: StateSchema, observation: Any, decision: Decision) -> StateSchema:
        return state


class UpstreamHook(EngineHook):
    """Written against upstream's EngineHook: keyword-exact signatures, no base-class defaults used."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.events: list[str] = []

    def on_run_start(self, task: str, state: Any, engine: Any) -> None:
        assert isinstance(engine, Engine) and isinstance(state, StateSchema)
        self.calls.append(f"run_start:{task}")

    def on_before_step(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append(f"before_step:{ctx.step_id}")

    def on_before_decide(self, ctx: HookContext, engine: Any) -> None:
        assert ctx.observation is not None and ctx.task == "sum"
        self.calls.append("before_decide")

    def on_after_decide(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append(f"after_decide:{ctx.decision.mode}")

    def on_before_act(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append("before_act")

    def on_after_act(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append(f"after_act:{ctx.action_results}")

    def on_after_reduce(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append("after_reduce")

    def on_after_check_stop(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append(f"after_check_stop:{ctx.phase.value}:{ctx.payload.get('stop_reason')}")

    def on_after_step(self, ctx: HookContext, engine: Any) -> None:
        self.calls.append(f"after_step:{ctx.step_id}")

    def on_step_end(self, record: Any, state: Any, engine: Any) -> None:
        self.calls.append(f"step_end:{record.step_id}")

    def on_event(self, event: Any, state: Any, record: Any, engine: Any) -> None:
        assert engine is not None
        self.events.append(event.phase)

    def on_run_end(self, result: Any, engine: Any) -> None:
        self.calls.append(f"run_end:{result.state.stop_reason}")


def test_upstream_hook_methods_are_called_in_order_with_upstream_arguments() -> None:
    hook = UpstreamHook()
    result = Engine(AddAgent(), hooks=[hook]).run("sum")
    assert result.state.final_result == "42"
    assert hook.calls == [
        "run_start:sum",
        "before_step:0",
        "before_decide",
        "after_decide:act",
        "before_act",
        "after_act:[42]",
        "after_reduce",
        "after_check_stop:CHECK_STOP:None",
        "after_step:0",
        "step_end:0",
        "before_step:1",
        "before_decide",
        "after_decide:final",
        "before_act",
        "after_act:[]",
        "after_reduce",
        "after_check_stop:CHECK_STOP:final",
        "after_step:1",
        "step_end:1",
        "run_end:final",
    ]
    assert hook.events == [e.phase for e in result.events]
    assert result.events and not [e for e in result.events if e.phase == "error"]


def test_event_only_on_event_still_gets_every_event() -> None:
    """The TUI's live tap (``on_event(self, event)``) is called with the event alone."""
    seen: list[Any] = []

    class Tap(EngineHook):
        def on_event(self, event: Any) -> None:
            seen.append(event)

    result = Engine(AddAgent(), hooks=[Tap()]).run("sum")
    assert seen == result.events


def test_duck_typed_upstream_hook_without_the_base_class() -> None:
    """Upstream dispatches by method name, so a plain object with hook methods is called too."""

    class Plain:
        def __init__(self) -> None:
            self.steps: list[int] = []
            self.kinds: set[str] = set()

        def on_step_end(self, record: Any, state: Any, engine: Any) -> None:
            self.steps.append(record.step_id)

        def on_event(self, **kwargs: Any) -> None:
            self.kinds.add(kwargs["event"].phase)

    plain = Plain()
    Engine(AddAgent(), hooks=[plain]).run("sum")
    assert plain.steps == [0, 1] and {"INIT", "run_end"} <= plain.kinds
