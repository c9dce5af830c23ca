"""The model interface the Engine calls: assembled messages in, text and/or tool calls plus usage out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call, as the provider reported it (zeros when it did not).

    ``estimated`` marks figures the Engine estimated because the model reported none.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The usage as the JSON object written in ``model_response`` events (``estimated`` only when true)."""
        out: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }
        if self.estimated:
            out["estimated"] = True
        return out

    @property
    def reported(self) -> bool:
        """Whether any figure is non-zero (all zeros: the model reported no usage)."""
        return bool(self.prompt_tokens or self.completion_tokens or self.total_tokens)


@dataclass(frozen=True)
class ToolCall:
    """A structured tool call returned by a model (native function calling)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None


@dataclass(frozen=True)
class ModelResponse:
    """What one model call returned."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model_id: str = "unknown"
    finish_reason: str | None = None


Message = Mapping[str, Any]  # {"role": "system" | "user" | "assistant" | "tool", "content": str, ...}


class Model(ABC):
    """A chat model: the Engine hands it the assembled messages and reads back a ModelResponse.

    ``max_input_units`` is the capacity the adapter (or its user) declares, in characters; it is
    never inferred from the model's name. None means "not declared".
    """

    model_id: str = "unknown"
    max_input_units: int | None = None

    @abstractmethod
    def complete(
        self, messages: Sequence[Message], *, tools: Sequence[Mapping[str, Any]] | None = None
    ) -> ModelResponse:
        """Run one chat completion over ``messages``; raise ModelExecutionError on failure."""

    def __call__(self, messages: Sequence[Message]) -> str:
        """Plain-callable form: the response text only."""
        return self.complete(messages).text


class CallableModel(Model):
    """Adapts a plain ``callable(messages) -> str`` (the documented ``llm`` form) to Model."""

    def __init__(self, fn: Callable[[Sequence[Message]], Any], model_id: str | None = None) -> None:
        self._fn = fn
        fn_name: str = getattr(fn, "__name__", "callable")
        self.model_id = model_id or fn_name

    def complete(
        self, messages: Sequence[Message], *, tools: Sequence[Mapping[str, Any]] | None = None
    ) -> ModelResponse:
        """Call the wrapped function; a ModelResponse it returns passes through unchanged."""
        out = self._fn(list(messages))
        if isinstance(out, ModelResponse):
            return out
        return ModelResponse(text="" if out is None else str(out), model_id=self.model_id)


def as_model(llm: Any) -> Model | None:
    """The Model behind an agent's ``llm`` argument: a Model as is, a callable wrapped, None kept."""
    if llm is None or isinstance(llm, Model):
        return llm
    if callable(llm):
        return CallableModel(llm)
    raise TypeError(f"llm must be a qitos Model or a callable(messages) -> str, not {type(llm).__name__}")
