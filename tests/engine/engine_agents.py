"""Small real agents shared by the engine tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qitos import Action, AgentModule, Decision, StateSchema, ToolRegistry, tool


@dataclass
class CounterState(StateSchema):
    """State that keeps every action result it saw."""

    seen: list[Any] = field(default_factory=list)


@tool(name="add", description="Add two integers.")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_registry() -> ToolRegistry:
    """A registry holding the ``add`` tool."""
    return ToolRegistry().register(add)


class ScriptAgent(AgentModule):
    """Returns the scripted decisions in order (None: ask the model); records action results."""

    def __init__(
        self, decisions: list[Decision[Any] | None] | Callable[[Any], Any] | None = None, **kwargs: Any
    ) -> None:
        kwargs.setdefault("tool_registry", make_registry())
        super().__init__(**kwargs)
        self.decisions = decisions
        self.calls = 0

    def init_state(self, task: str, **kwargs: Any) -> CounterState:
        """A counter state with the task and optional max_steps."""
        return CounterState(task=task, max_steps=kwargs.get("max_steps", 10))

    def prepare(self, state: CounterState) -> str:
        """The task and what the tools returned so far."""
        return f"task={state.task} seen={state.seen}"

    def decide(self, state: CounterState, observation: Any) -> Decision[Any] | None:
        """The next scripted decision."""
        self.calls += 1
        if self.decisions is None:
            return None
        if callable(self.decisions):
            return self.decisions(state)
        index = min(self.calls - 1, len(self.decisions) - 1)
        return self.decisions[index]

    def reduce(self, state: CounterState, observation: Any, decision: Decision[Any]) -> CounterState:
        """Append the step's action results."""
        state.seen.extend(observation["action_results"])
        return state


def add_decision(a: int = 1, b: int = 2) -> Decision[Any]:
    """An act decision calling ``add``."""
    return Decision.act([Action("add", {"a": a, "b": b})])


def phases(result: Any) -> list[tuple[int, str, str | None]]:
    """(step, phase, stage) of every event of a result."""
    return [(e.step_id, e.phase, e.payload.get("stage")) for e in result.events]
