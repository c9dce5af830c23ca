"""QitOS: the agent framework core (Engine, tools, context, memory, tracing).

The root exports are loaded on first use: importing one submodule (``qitos.trace.events`` in the
TUI's first paint, say) does not pay for the whole Engine.
"""

from __future__ import annotations

import importlib
from typing import Any

# Each root export and the module that defines it.
_EXPORTS: dict[str, str] = {
    "Action": "qitos.core.action",
    "ActionKind": "qitos.core.action",
    "AgentModule": "qitos.core.agent_module",
    "Decision": "qitos.core.decision",
    "Env": "qitos.core.env",
    "EnvSpec": "qitos.core.env",
    "ErrorCategory": "qitos.core.errors",
    "ModelExecutionError": "qitos.core.errors",
    "ParseExecutionError": "qitos.core.errors",
    "QitosRuntimeError": "qitos.core.errors",
    "RuntimeErrorInfo": "qitos.core.errors",
    "StateExecutionError": "qitos.core.errors",
    "SystemExecutionError": "qitos.core.errors",
    "ToolExecutionError": "qitos.core.errors",
    "History": "qitos.core.history",
    "HistoryMessage": "qitos.core.history",
    "HistoryPolicy": "qitos.core.history",
    "Memory": "qitos.core.memory",
    "MemoryRecord": "qitos.core.memory",
    "StateSchema": "qitos.core.state",
    "StopReason": "qitos.core.stop_reason",
    "Task": "qitos.core.task",
    "TaskBudget": "qitos.core.task",
    "TaskResource": "qitos.core.task",
    "TaskResult": "qitos.core.task",
    "ToolPermission": "qitos.core.tool",
    "tool": "qitos.core.tool",
    "ToolRegistry": "qitos.core.tool_registry",
    "AsyncEngine": "qitos.engine.async_engine",
    "Engine": "qitos.engine.engine",
    "EngineResult": "qitos.engine.result",
    "EngineEvent": "qitos.engine.stream",
    "EngineEventType": "qitos.engine.stream",
    "EventStream": "qitos.engine.stream",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load a root export from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'qitos' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
