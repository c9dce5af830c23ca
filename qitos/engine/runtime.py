"""Runtime contracts of one run: phases, budgets, lifecycle policies and resumable snapshots."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

Boundary = Literal["before_decide", "before_act"]
BOUNDARIES: tuple[str, ...] = ("before_decide", "before_act")


class RuntimePhase(str, Enum):
    """The phases of one engine step, named as upstream traces spell them."""

    INIT = "INIT"
    OBSERVE = "OBSERVE"
    DECIDE = "DECIDE"
    ACT = "ACT"
    REDUCE = "REDUCE"
    CRITIC = "CRITIC"
    CHECK_STOP = "CHECK_STOP"
    END = "END"


@dataclass
class RuntimeBudget:
    """Step, wall-time and token limits of a run (None: unlimited)."""

    max_steps: int = 10
    max_runtime_seconds: float | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"RuntimeBudget.max_steps must be an int >= 1, got {self.max_steps!r}")
        if self.max_runtime_seconds is not None and (
            not isinstance(self.max_runtime_seconds, int | float) or self.max_runtime_seconds <= 0
        ):
            raise ValueError(
                f"RuntimeBudget.max_runtime_seconds must be positive or None, got {self.max_runtime_seconds!r}"
            )
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int) or self.max_tokens < 1):
            raise ValueError(
                f"RuntimeBudget.max_tokens must be a positive int or None, got {self.max_tokens!r}"
            )

    def tightened(self, task_budget: Any) -> RuntimeBudget:
        """This budget narrowed by a TaskBudget's limits (the smaller limit wins)."""

        def pick(mine: Any, theirs: Any) -> Any:
            if theirs is None:
                return mine
            return theirs if mine is None else min(mine, theirs)

        return RuntimeBudget(
            max_steps=pick(self.max_steps, getattr(task_budget, "max_steps", None)),
            max_runtime_seconds=pick(
                self.max_runtime_seconds, getattr(task_budget, "max_runtime_seconds", None)
            ),
            max_tokens=pick(self.max_tokens, getattr(task_budget, "max_tokens", None)),
        )


@dataclass(frozen=True)
class RuntimeSnapshotContext:
    """What a lifecycle policy sees at a step boundary."""

    run_id: str
    step_id: int
    boundary: Boundary
    state: Any
    pending_decision: Any = None
    pending_actions: tuple[Any, ...] = ()


class LifecyclePolicy:
    """Replaceable cooperative lifecycle policy; never a worker scheduler.

    The Engine asks :meth:`should_pause` before deciding and before acting at every step. Returning
    True ends ``Engine.run`` cooperatively with a resumable snapshot; nothing runs in the background.
    """

    policy_id: str = "qitos.lifecycle/never"

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        """Whether the run should pause at this boundary; the base policy never pauses."""
        return False


@dataclass
class RuntimeSnapshot:
    """A paused run: where it stopped and everything ``Engine.resume`` needs to continue it."""

    run_id: str
    step_id: int
    boundary: Boundary
    policy_id: str
    reason: str
    state: Any
    pending_decision: Any = None
    pending_actions: list[Any] = field(default_factory=list)
    # The live run (private to the Engine that paused it): counters, records, events, writer.
    run: Any = field(default=None, repr=False, compare=False)
    # Which policy paused (its index in the Engine's list); on resume only later ones are asked here.
    policy_index: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The snapshot's inspectable part as JSON data (the live run is not serialised)."""
        from qitos.engine.serialize import jsonable

        return {
            "run_id": self.run_id,
            "step_id": self.step_id,
            "boundary": self.boundary,
            "policy_id": self.policy_id,
            "reason": self.reason,
            "state": jsonable(self.state),
            "pending_decision": jsonable(self.pending_decision),
            "pending_actions": jsonable(self.pending_actions),
        }
