"""Model adapters: the interface the Engine calls, a scripted offline model, an OpenAI-compatible one."""

from __future__ import annotations

from qitos.models.base import CallableModel, Message, Model, ModelResponse, ToolCall, Usage, as_model
from qitos.models.openai_compat import OpenAICompatibleModel  # imports `openai` only when one is built
from qitos.models.scripted import ScriptedModel

__all__ = [
    "CallableModel",
    "Message",
    "Model",
    "ModelResponse",
    "OpenAICompatibleModel",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "as_model",
]
