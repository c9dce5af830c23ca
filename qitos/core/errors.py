"""Structured runtime errors: one category, phase and step for every failure the Engine meets."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Self


class ErrorCategory(str, Enum):
    """Where a runtime error came from."""

    MODEL = "model"
    PARSE = "parse"
    TOOL = "tool"
    STATE = "state"
    TASK = "task"
    ENV = "env"
    SYSTEM = "system"


@dataclass
class RuntimeErrorInfo:
    """Structured context of one runtime error."""

    category: ErrorCategory
    message: str
    phase: str
    step_id: int
    recoverable: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The error as the payload of an ``error`` event."""
        return {
            "category": ErrorCategory(self.category).value,
            "message": self.message,
            "phase": self.phase,
            "recoverable": self.recoverable,
            "details": dict(self.details),
        }


class QitosRuntimeError(Exception):
    """Base class of every structured runtime error in QitOS."""

    default_category: ErrorCategory = ErrorCategory.SYSTEM
    default_recoverable: bool = False

    def __init__(self, info: RuntimeErrorInfo | str) -> None:
        if isinstance(info, str):
            info = RuntimeErrorInfo(
                category=self.default_category,
                message=info,
                phase="",
                step_id=0,
                recoverable=self.default_recoverable,
            )
        if not isinstance(info, RuntimeErrorInfo):
            raise TypeError(f"{type(self).__name__} needs a RuntimeErrorInfo or a message, not {info!r}")
        super().__init__(info.message)
        self.info = info

    @classmethod
    def make(
        cls,
        message: str,
        *,
        phase: str = "",
        step_id: int = 0,
        recoverable: bool | None = None,
        **details: Any,
    ) -> Self:
        """Build the error from a message with this class's category and recoverability."""
        return cls(
            RuntimeErrorInfo(
                category=cls.default_category,
                message=message,
                phase=phase,
                step_id=step_id,
                recoverable=cls.default_recoverable if recoverable is None else recoverable,
                details=details,
            )
        )


class ModelExecutionError(QitosRuntimeError):
    """The model call failed (network, provider error, bad response)."""

    default_category = ErrorCategory.MODEL
    default_recoverable = True


class ParseExecutionError(QitosRuntimeError):
    """The model's output could not be parsed into a Decision."""

    default_category = ErrorCategory.PARSE
    default_recoverable = True


class ToolExecutionError(QitosRuntimeError):
    """A tool call failed, timed out or named no known tool."""

    default_category = ErrorCategory.TOOL
    default_recoverable = True


class StateExecutionError(QitosRuntimeError):
    """The agent state is invalid or a state hook failed."""

    default_category = ErrorCategory.STATE


class SystemExecutionError(QitosRuntimeError):
    """An unexpected failure inside the runtime itself."""

    default_category = ErrorCategory.SYSTEM


class TaskValidationError(QitosRuntimeError):
    """A Task failed validation before the run started."""

    default_category = ErrorCategory.TASK


class EnvExecutionError(QitosRuntimeError):
    """The environment failed or refused an operation."""

    default_category = ErrorCategory.ENV
