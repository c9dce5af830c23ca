"""QitOS: the agent framework core (Engine, tools, context, memory, tracing).

The root exports are loaded on first use: importing one submodule (``qitos.trace.events`` in the
TUI's first paint, say) does not pay for the whole Engine.
"""

from __future__ import annotations

from qitos._exports import lazy_exports

# Each root export and the module that defines it.
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
    "AsyncEngine": "qitos.engine.async_engine",
    "Engine": "qitos.engine.engine",
    "EngineResult": "qitos.engine.result",
    "EngineEvent": "qitos.engine.stream",
    "EngineEventType": "qitos.engine.stream",
    "EventStream": "qitos.engine.stream",
    "RuntimeBudget": "qitos.engine.runtime",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
