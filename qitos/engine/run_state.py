"""The mutable bookkeeping of one run (kept apart from the Engine so a paused run can be resumed)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qitos.core.stop_reason import StopReason
from qitos.core.task import Task
from qitos.engine.runtime import RuntimeBudget
from qitos.trace.events import STATUS_RUNNING, RunEvent

if TYPE_CHECKING:
    from qitos.engine.model_call import ModelCaller
    from qitos.engine.result import StepRecord
    from qitos.engine.runtime import RuntimeSnapshot
    from qitos.engine.tool_executor import ToolExecutor


class StopSignal(Exception):
    """Unwinds the loop once a stop reason has been written to the state."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason.value)
        self.reason = reason


@dataclass
class RunState:
    """Counters, records, events and handles of one run."""

    run_id: str
    task: str | Task
    writer: Any
    started: float
    engine_id: int = 0
    state: Any = None
    budget: RuntimeBudget = field(default_factory=RuntimeBudget)
    records: list[StepRecord] = field(default_factory=list)
    events: list[RunEvent] = field(default_factory=list)
    step_count: int = 0
    tokens: int = 0
    recoveries: int = 0
    critic_retries: int = 0
    stop_reason: str | None = None
    status: str = STATUS_RUNNING
    error: dict[str, Any] | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)  # every error event's payload
    snapshot: RuntimeSnapshot | None = None
    pending: dict[str, Any] = field(default_factory=dict)
    current_record: StepRecord | None = (
        None  # the step in progress, written as a partial record if the run ends in it
    )
    model: ModelCaller | None = None  # both set by the Engine's start-up, before the first step
    executor: ToolExecutor | None = None
    toolsets_open: bool = False
    closed: bool = False
    active_elapsed: float = 0.0
    segment_start: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.segment_start = self.started

    def elapsed(self, clock: Callable[[], float]) -> float:
        """Seconds the run has been active (time spent paused does not count)."""
        return self.active_elapsed + (clock() - self.segment_start)

    @property
    def final_result(self) -> Any:
        """The state's final result, when it has one."""
        return getattr(self.state, "final_result", None)


def is_stopped(run: RunState) -> bool:
    """Whether a stop reason has been decided for ``run``."""
    return run.stop_reason is not None
