"""What the Engine's mixins expect of ``self``: the Engine's attributes and the methods they share.

Each mixin method is annotated ``self: EngineHost``, so mypy checks a mixin's use of
``self`` against this Protocol, and checks at every call on an Engine that the Engine provides
all of it (mypy's self-type pattern for mixins). Only types are imported here: no runtime cost.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.core.decision import Decision
    from qitos.core.errors import QitosRuntimeError
    from qitos.core.stop_reason import StopReason
    from qitos.core.task import Task, TaskResult
    from qitos.engine.model_call import ModelCaller
    from qitos.engine.policies import BranchSelector, RecoveryHandler, RecoveryPolicy, StateValidationGate
    from qitos.engine.replay import Replay
    from qitos.engine.request_builder import RequestBuilder
    from qitos.engine.result import EngineResult
    from qitos.engine.run_state import RunState
    from qitos.engine.runtime import LifecyclePolicy, RuntimeBudget
    from qitos.trace.events import RunEvent
P = ParamSpec("P")
R = TypeVar("R")


class EngineHost(Protocol):
    """The Engine as StartMixin, PhaseMixin, ActMixin and OutcomeMixin see it."""

    # Configuration (Engine.__init__).
    agent: AgentModule[Any, Any, Any]
    budget: RuntimeBudget
    validation_gate: StateValidationGate
    recovery_handler: RecoveryHandler | None
    recovery_policy: RecoveryPolicy
    stop_criteria: list[Any]
    branch_selector: BranchSelector
    search: Any  # anything with select(candidates, state, observation), as branch_selector
    critics: list[Any]
    env: Any  # an Env or any object with the ops the tools need (checked by preflight)
    request_builder: RequestBuilder
    lifecycle_policies: list[LifecyclePolicy]
    max_steps_override: int | None
    owned_env: Any
    clock: Callable[[], float]
    replay: Replay | None
    _cancel: threading.Event
    _finalised_writers: set[int]

    # Defined on the Engine.
    def _emit(
        self,
        run: RunState,
        phase: str,
        payload: dict[str, Any],
        *,
        ok: bool = True,
        error: str | None = None,
        step_id: int | None = None,
    ) -> RunEvent: ...
    def _call_hooks(self, name: str, run: RunState, phase: str, **extra: Any) -> None: ...
    def _guard(
        self, run: RunState, phase: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
    ) -> R: ...
    def _check_interrupts(self, run: RunState) -> None: ...
    def _set_stop(self, run: RunState, reason: StopReason) -> None: ...
    def _stop_now(self, run: RunState, reason: StopReason) -> NoReturn: ...
    def _report_error(self, run: RunState, exc: QitosRuntimeError, *, retrying: bool) -> None: ...
    def _fatal(self, run: RunState, phase: str, message: str, *, state: bool = False) -> NoReturn: ...
    def _parser(self) -> Any: ...
    def _model_caller(self, run: RunState) -> ModelCaller: ...
    def _env_info(self) -> dict[str, Any]: ...

    # Defined on one mixin, called from itself or another.
    def _decide_once(self, run: RunState, observation: Any) -> Decision[Any]: ...
    def _advance(self, run: RunState, state: Any) -> None: ...
    def _limit_reason(self, run: RunState, state: Any, steps_done: int) -> tuple[StopReason | None, str]: ...
    def _init_state(self, run: RunState, objective: str, kwargs: dict[str, Any]) -> bool: ...
    def _fail_early(
        self,
        run: RunState,
        message: str,
        reason: StopReason,
        phase: str,
        exc: QitosRuntimeError | None,
        details: dict[str, Any] | None = None,
    ) -> None: ...
    def _run_tool(self, run: RunState, action: Any, call_id: str) -> tuple[Any, dict[str, Any]]: ...
    def _run_env_step(self, run: RunState, action: Any, call_id: str) -> tuple[Any, dict[str, Any]]: ...
    def _keep_partial_step(self, run: RunState) -> None: ...
    def _result(self, run: RunState) -> EngineResult[Any]: ...
    def _summary(self, run: RunState) -> dict[str, Any]: ...
    def _task_result(self, run: RunState, task: Task) -> TaskResult: ...
