"""Core contracts: actions, decisions, state, tasks, tools, memory, history, env, context and request views.

The names upstream QitOS re-exports from ``qitos.core`` are available here, each loaded from its
module on first use (so importing ``qitos.core.context`` alone stays cheap).
"""

from __future__ import annotations

from qitos._exports import lazy_exports

# Each re-export and the module that defines it (upstream's ``qitos.core`` names that exist here).
_EXPORTS: dict[str, str] = {
    "Action": "qitos.core.action",
    "ActionKind": "qitos.core.action",
    "AgentModule": "qitos.core.agent_module",
    "Decision": "qitos.core.decision",
    "Env": "qitos.core.env",
    "EnvObservation": "qitos.core.env",
    "EnvSpec": "qitos.core.env",
    "EnvStepResult": "qitos.core.env",
    "ErrorCategory": "qitos.core.errors",
    "QitosRuntimeError": "qitos.core.errors",
    "RuntimeErrorInfo": "qitos.core.errors",
    "History": "qitos.core.history",
    "HistoryMessage": "qitos.core.history",
    "HistoryPolicy": "qitos.core.history",
    "Memory": "qitos.core.memory",
    "MemoryRecord": "qitos.core.memory",
    "StateSchema": "qitos.core.state",
    "StopReason": "qitos.core.stop_reason",
    "Task": "qitos.core.task",
    "TaskBudget": "qitos.core.task",
    "TaskCriterionResult": "qitos.core.task",
    "TaskResource": "qitos.core.task",
    "TaskResourceBinding": "qitos.core.task",
    "TaskResult": "qitos.core.task",
    "TaskValidationIssue": "qitos.core.task",
    "BaseTool": "qitos.core.tool",
    "FunctionTool": "qitos.core.tool",
    "ToolPermission": "qitos.core.tool",
    "tool": "qitos.core.tool",
    "ToolRegistry": "qitos.core.tool_registry",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
