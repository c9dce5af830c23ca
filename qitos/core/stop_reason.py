"""Why a run ended: the value written to ``state.stop_reason``."""

from __future__ import annotations

from enum import Enum


class StopReason(str, Enum):
    """A string enum; its value is written to ``state.stop_reason`` when a run ends."""

    SUCCESS = "success"
    FINAL = "final"
    MAX_STEPS = "max_steps"
    BUDGET_STEPS = "budget_steps"
    BUDGET_TIME = "budget_time"
    BUDGET_TOKENS = "budget_tokens"
    AGENT_CONDITION = "agent_condition"
    CRITIC_STOP = "critic_stop"
    STAGNATION = "stagnation"
    ENV_TERMINAL = "env_terminal"
    TASK_VALIDATION_FAILED = "task_validation_failed"
    ENV_CAPABILITY_MISMATCH = "env_capability_mismatch"
    UNRECOVERABLE_ERROR = "unrecoverable_error"
    CANCELLED_IMMEDIATE = "cancelled_immediate"
