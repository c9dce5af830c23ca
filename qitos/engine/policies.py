"""Recovery, state validation, critics, stop criteria and branch selection used by the Engine."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qitos.core.decision import Decision
from qitos.core.errors import ErrorCategory, RuntimeErrorInfo, StateExecutionError
from qitos.core.stop_reason import StopReason
from qitos.engine.serialize import jsonable

RecoveryHandler = Callable[[RuntimeErrorInfo, Any], Any]
"""``handler(error_info, state)`` called before each retry of a recoverable error."""


@dataclass
class RecoveryPolicy:
    """Which errors are retried and how often before the run stops with ``unrecoverable_error``."""

    max_retries_per_step: int = 2
    max_recoveries_per_run: int = 6
    retry_categories: tuple[str, ...] = ("model", "parse", "tool")
    max_critic_retries_per_step: int = 2

    def __post_init__(self) -> None:
        for name in ("max_retries_per_step", "max_recoveries_per_run", "max_critic_retries_per_step"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"RecoveryPolicy.{name} must be an int >= 0, got {value!r}")
        known = {c.value for c in ErrorCategory}
        bad = [c for c in self.retry_categories if c not in known]
        if bad:
            raise ValueError(
                f"RecoveryPolicy.retry_categories: unknown categories {bad}; known {sorted(known)}"
            )

    def should_retry(self, info: RuntimeErrorInfo, step_retries: int, run_recoveries: int) -> bool:
        """Whether this error gets another attempt given the retries spent so far."""
        return (
            info.recoverable
            and ErrorCategory(info.category).value in self.retry_categories
            and step_retries < self.max_retries_per_step
            and run_recoveries < self.max_recoveries_per_run
        )


class StateValidationGate:
    """Validates the state before and after phases; a failure is an unrecoverable state error.

    ``mode="strict"`` (default) checks after INIT and after every REDUCE; ``"off"`` checks nothing.
    Extra ``checks`` are ``fn(state) -> str | None`` returning a problem description.
    """

    def __init__(self, mode: str = "strict", checks: Sequence[Callable[[Any], str | None]] = ()) -> None:
        if mode not in ("strict", "off"):
            raise ValueError(f"StateValidationGate mode must be 'strict' or 'off', got {mode!r}")
        self.mode = mode
        self.checks = list(checks)

    def before_phase(self, phase: str, state: Any, step_id: int) -> None:
        """Check the state before ``phase`` (REDUCE inputs are checked here)."""

    def after_phase(self, phase: str, state: Any, step_id: int) -> None:
        """Check the state after INIT and REDUCE."""
        if self.mode == "off" or phase not in ("INIT", "REDUCE"):
            return
        if state is None:
            raise StateExecutionError.make(f"{phase} produced no state (None)", phase=phase, step_id=step_id)
        validate = getattr(state, "validate", None)
        if callable(validate):
            try:
                validate()
            except StateExecutionError as exc:
                raise StateExecutionError.make(str(exc), phase=phase, step_id=step_id) from exc
            except (ValueError, TypeError) as exc:
                raise StateExecutionError.make(
                    f"state validation failed: {exc}", phase=phase, step_id=step_id
                ) from exc
        for check in self.checks:
            problem = check(state)
            if problem:
                raise StateExecutionError.make(f"state check failed: {problem}", phase=phase, step_id=step_id)


@dataclass
class CriticOutput:
    """What a critic says about a step: continue, retry it, or stop the run."""

    action: str = "continue"
    reason: str = ""
    score: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.action not in ("continue", "retry", "stop"):
            raise ValueError(f"critic action must be 'continue', 'retry' or 'stop', got {self.action!r}")

    def to_dict(self) -> dict[str, Any]:
        """Upstream's ``{action, reason, score}`` (plus details when any)."""
        out: dict[str, Any] = {"action": self.action, "reason": self.reason, "score": self.score}
        if self.details:
            out["details"] = jsonable(self.details)
        return out

    @classmethod
    def coerce(cls, value: Any) -> CriticOutput:
        """A CriticOutput from what a critic returned (CriticOutput, dict, or an action string)."""
        if isinstance(value, CriticOutput):
            return value
        if isinstance(value, str):
            return cls(action=value)
        if isinstance(value, dict):
            unknown = set(value) - {"action", "reason", "score", "details"}
            if unknown:
                raise ValueError(f"critic output has unknown keys {sorted(unknown)}")
            return cls(**value)
        if value is None:
            return cls()
        raise ValueError(
            f"a critic must return a CriticOutput, dict or action string, got {type(value).__name__}"
        )


class Critic(ABC):
    """Evaluates each step after REDUCE; may ask to retry the step or stop the run."""

    name: str = "critic"

    @abstractmethod
    def evaluate(self, state: Any, decision: Any, results: list[Any]) -> CriticOutput | dict[str, Any] | str:
        """Judge the step that produced ``state`` from ``decision`` and its action ``results``."""


@dataclass
class StopDecision:
    """A stop criterion's verdict."""

    stop: bool
    reason: StopReason | None = None
    detail: str = ""


class StopCriteria(ABC):
    """Decides after each step whether the run should stop."""

    @abstractmethod
    def should_stop(self, state: Any, step_id: int, runtime_info: dict[str, Any]) -> StopDecision:
        """Return a StopDecision; ``runtime_info`` carries elapsed time, tokens and the last decision."""

    def reset(self) -> None:
        """Forget per-run memory before a new run (nothing to forget by default)."""
        return None


class FinalResultCriteria(StopCriteria):
    """Stops once the state holds a final result (set by ``reduce``).

    The reason is ``final``, as upstream QitOS reports it: a final result set by ``reduce`` is the
    agent's final answer just as ``Decision.final`` is, and agents written for upstream compare
    ``stop_reason`` with ``"final"``. ``success`` stays the reason of a stop criterion that says
    stop without naming one. Both count as a successful TaskResult.
    """

    def should_stop(self, state: Any, step_id: int, runtime_info: dict[str, Any]) -> StopDecision:
        """Stop with ``final`` when ``state.final_result`` is set."""
        if getattr(state, "final_result", None) is not None:
            return StopDecision(True, StopReason.FINAL, "state.final_result is set")
        return StopDecision(False)


class StagnationCriteria(StopCriteria):
    """Stops when the state has not changed for ``window`` consecutive steps."""

    def __init__(self, window: int = 3, ignore_fields: Sequence[str] = ("current_step", "metrics")) -> None:
        if not isinstance(window, int) or window < 1:
            raise ValueError(f"StagnationCriteria.window must be an int >= 1, got {window!r}")
        self.window = window
        self.ignore_fields = set(ignore_fields)
        self._last: str | None = None
        self._unchanged = 0

    def reset(self) -> None:
        """Forget the last fingerprint."""
        self._last = None
        self._unchanged = 0

    def should_stop(self, state: Any, step_id: int, runtime_info: dict[str, Any]) -> StopDecision:
        """Stop with ``stagnation`` after ``window`` steps without a state change."""
        data = jsonable(state)
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k not in self.ignore_fields}
        fingerprint = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
        if fingerprint == self._last:
            self._unchanged += 1
        else:
            self._unchanged = 0
        self._last = fingerprint
        if self._unchanged >= self.window:
            return StopDecision(True, StopReason.STAGNATION, f"state unchanged for {self._unchanged} steps")
        return StopDecision(False)


class BranchSelector(ABC):
    """Picks one decision among a branch decision's candidates."""

    @abstractmethod
    def select(
        self, candidates: list[Decision[Any]], state: Any = None, observation: Any = None
    ) -> Decision[Any]:
        """Return the chosen candidate."""


class FirstCandidateSelector(BranchSelector):
    """The default selector: the first candidate."""

    def select(
        self, candidates: list[Decision[Any]], state: Any = None, observation: Any = None
    ) -> Decision[Any]:
        """Return ``candidates[0]``."""
        if not candidates:
            raise ValueError("no branch candidates to select from")
        return candidates[0]


class Search(ABC):
    """A search strategy over branch candidates; when set it replaces the branch selector."""

    @abstractmethod
    def select(
        self, candidates: list[Decision[Any]], state: Any = None, observation: Any = None
    ) -> Decision[Any]:
        """Return the candidate the search prefers."""
