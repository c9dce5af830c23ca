"""QitOS: the agent framework core (Engine, tools, context, memory, tracing)."""

from __future__ import annotations

from qitos.core.action import Action, ActionKind
from qitos.core.agent_module import AgentModule
from qitos.core.decision import Decision
from qitos.core.env import Env, EnvSpec
from qitos.core.errors import (
    ErrorCategory,
    ModelExecutionError,
    ParseExecutionError,
    QitosRuntimeError,
    RuntimeErrorInfo,
    StateExecutionError,
    SystemExecutionError,
    ToolExecutionError,
)
from qitos.core.history import History, HistoryMessage, HistoryPolicy
from qitos.core.memory import Memory, MemoryRecord
from qitos.core.state import StateSchema
from qitos.core.stop_reason import StopReason
from qitos.core.task import Task, TaskBudget, TaskResource, TaskResult
from qitos.core.tool import ToolPermission, tool
from qitos.core.tool_registry import ToolRegistry
from qitos.engine.async_engine import AsyncEngine
from qitos.engine.engine import Engine
from qitos.engine.result import EngineResult
from qitos.engine.stream import EngineEvent, EngineEventType, EventStream

__all__ = [
    "Action",
    "ActionKind",
    "AgentModule",
    "AsyncEngine",
    "Decision",
    "Engine",
    "EngineEvent",
    "EngineEventType",
    "EngineResult",
    "Env",
    "EnvSpec",
    "ErrorCategory",
    "EventStream",
    "History",
    "HistoryMessage",
    "HistoryPolicy",
    "Memory",
    "MemoryRecord",
    "ModelExecutionError",
    "ParseExecutionError",
    "QitosRuntimeError",
    "RuntimeErrorInfo",
    "StateExecutionError",
    "StateSchema",
    "StopReason",
    "SystemExecutionError",
    "Task",
    "TaskBudget",
    "TaskResource",
    "TaskResult",
    "ToolExecutionError",
    "ToolPermission",
    "ToolRegistry",
    "tool",
]
