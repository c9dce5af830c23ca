"""What a run returns: the final state, per-step records, every event, and the outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from qitos.core.task import TaskResult
from qitos.trace.events import RunEvent

StateT = TypeVar("StateT")

RuntimeEvent = RunEvent
"""The events an EngineResult holds are the run events written to ``events.jsonl``."""


@dataclass
class StepRecord:
    """One step as upstream writes it to ``steps.jsonl``."""

    step_id: int
    observation: Any = None
    decision: Any = None
    actions: list[Any] = field(default_factory=list)
    action_results: list[Any] = field(default_factory=list)
    tool_invocations: list[dict[str, Any]] = field(default_factory=list)
    critic_outputs: list[dict[str, Any]] = field(default_factory=list)
    state_diff: dict[str, Any] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The record as a steps.jsonl object (upstream's field names first)."""
        from qitos.core.decision import _action_dict
        from qitos.engine.serialize import jsonable

        out = {
            "step_id": self.step_id,
            "observation": jsonable(self.observation),
            "decision": jsonable(self.decision),
            "actions": jsonable([_action_dict(a) for a in self.actions]),
            "action_results": jsonable(self.action_results),
            "tool_invocations": jsonable(self.tool_invocations),
            "critic_outputs": jsonable(self.critic_outputs),
            "state_diff": jsonable(self.state_diff),
        }
        if self.errors:
            out["errors"] = jsonable(self.errors)
        return out


@dataclass
class EngineResult(Generic[StateT]):
    """The dataclass returned by ``Engine.run``."""

    state: StateT
    records: list[StepRecord]
    events: list[RuntimeEvent]
    step_count: int
    task_result: TaskResult | None = None
    # Added after the documented fields: how the run ended and, when paused, how to resume it.
    status: str = "completed"
    run_id: str = ""
    snapshot: Any = None
    token_usage: int = 0
    error: Any = None
    stop_reason: str | None = None  # as written to state.stop_reason (kept here for states without one)

    @property
    def final_result(self) -> Any:
        """``state.final_result`` when the state has one."""
        return getattr(self.state, "final_result", None)
