"""ScriptedModel: a deterministic offline model that replays a script — the demo's and the tests' default."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from qitos.core.errors import ModelExecutionError
from qitos.models.base import Message, Model, ModelResponse, ToolCall, Usage
from qitos.models.estimate import completion_units, estimate_tokens, message_units

ScriptItem = str | ModelResponse | Mapping[str, Any] | BaseException
"""One scripted reply: text, a full ModelResponse, a dict ``{text, tool_calls, usage, finish_reason}``,
or an exception instance, which the call raises (to rehearse failures and recovery)."""

Responder = Callable[..., ScriptItem]
"""``fn(messages)`` or ``fn(messages, tools=...)`` returning a ScriptItem."""

_ITEM_KEYS = frozenset({"text", "tool_calls", "usage", "finish_reason", "model_id"})


def _tool_call(value: Any, where: str) -> ToolCall:
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("name"), str) and value["name"]:
        args = value.get("args", value.get("arguments", {}))
        if not isinstance(args, Mapping):
            raise TypeError(f"{where}: tool call args must be a dict, not {type(args).__name__}")
        call_id = value.get("call_id", value.get("id"))
        return ToolCall(
            name=value["name"], args=dict(args), call_id=None if call_id is None else str(call_id)
        )
    raise TypeError(f"{where}: a tool call is a ToolCall or a dict with a non-empty 'name', not {value!r}")


def _usage(value: Any, where: str) -> Usage | None:
    if value is None or isinstance(value, Usage):
        return value
    if isinstance(value, Mapping):
        try:
            prompt = int(value.get("prompt_tokens", 0))
            completion = int(value.get("completion_tokens", 0))
            total = int(value.get("total_tokens", prompt + completion))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{where}: usage figures must be integers: {exc}") from exc
        return Usage(prompt, completion, total)
    raise TypeError(f"{where}: usage must be a Usage or a dict, not {type(value).__name__}")


def _check_item(item: Any, where: str) -> None:
    """Reject a script entry that is not a ScriptItem, naming where it is."""
    if isinstance(item, str | ModelResponse | BaseException):
        return
    if isinstance(item, Mapping):
        unknown = sorted(set(item) - _ITEM_KEYS)
        if unknown:
            raise TypeError(f"{where}: unknown key(s) {unknown}; expected some of {sorted(_ITEM_KEYS)}")
        if not isinstance(item.get("text", ""), str):
            raise TypeError(f"{where}: 'text' must be a string")
        calls = item.get("tool_calls", ())
        if not isinstance(calls, list | tuple):
            raise TypeError(f"{where}: 'tool_calls' must be a list")
        for n, call in enumerate(calls):
            _tool_call(call, f"{where} tool call {n}")
        _usage(item.get("usage"), where)
        return
    raise TypeError(
        f"{where}: a scripted reply is a str, ModelResponse, dict or exception, not {type(item).__name__}"
    )


class ScriptedModel(Model):
    """Replays scripted replies in order (or asks a function), with deterministic usage; never networks.

    ``max_input_units`` is the capacity it declares, in characters of message content; a request
    larger than that fails like a real model's context overflow would (``enforce_capacity=False``
    turns that off). Usage the script does not give is estimated as characters / 4.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] | Responder,
        *,
        model_id: str = "scripted",
        max_input_units: int | None = None,
        enforce_capacity: bool = True,
    ) -> None:
        if max_input_units is not None and (not isinstance(max_input_units, int) or max_input_units <= 0):
            raise ValueError(f"max_input_units must be a positive int or None, not {max_input_units!r}")
        if not isinstance(model_id, str) or not model_id:
            raise ValueError("model_id must be a non-empty string")
        self.model_id = model_id
        self.max_input_units = max_input_units
        self.enforce_capacity = enforce_capacity
        self._responder: Responder | None = None
        self._script: tuple[ScriptItem, ...] = ()
        self._pass_tools = False
        if callable(script) and not isinstance(script, Sequence):
            self._responder = script
            self._pass_tools = _accepts_tools(script)
        elif isinstance(script, Sequence) and not isinstance(script, str | bytes):
            for index, item in enumerate(script):
                _check_item(item, f"script[{index}]")
            self._script = tuple(script)
        else:
            raise TypeError("script must be a list of replies or a function of the messages")
        self._lock = threading.Lock()
        self._cursor = 0
        self.requests: list[list[dict[str, Any]]] = []  # every request received, for inspection

    @property
    def calls(self) -> int:
        """How many completions have been requested so far."""
        return len(self.requests)

    @property
    def remaining(self) -> int | None:
        """Scripted replies not yet used (None for a function-driven model)."""
        return None if self._responder is not None else len(self._script) - self._cursor

    def fast_forward(self, calls: int) -> None:
        """Skip the next ``calls`` scripted replies (a fork put them back from a trace instead)."""
        with self._lock:
            if self._responder is None:
                self._cursor = min(self._cursor + max(int(calls), 0), len(self._script))

    def reset(self) -> None:
        """Start the script again from the first reply and forget the recorded requests."""
        with self._lock:
            self._cursor = 0
            self.requests.clear()

    def complete(
        self, messages: Sequence[Message], *, tools: Sequence[Mapping[str, Any]] | None = None
    ) -> ModelResponse:
        """The next scripted reply (or the function's reply) for ``messages``."""
        request = [dict(m) for m in messages]
        prompt_chars = message_units(request)
        if self.enforce_capacity and self.max_input_units is not None and prompt_chars > self.max_input_units:
            raise ModelExecutionError.make(
                f"request of {prompt_chars} characters exceeds {self.model_id}'s declared "
                f"max_input_units of {self.max_input_units}",
                recoverable=False,
                model_id=self.model_id,
                input_units=prompt_chars,
                max_input_units=self.max_input_units,
            )
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
            if self._responder is None:
                if self._cursor >= len(self._script):
                    raise ModelExecutionError.make(
                        f"{self.model_id}: script exhausted — call {number} but only "
                        f"{len(self._script)} scripted replies",
                        recoverable=False,
                        model_id=self.model_id,
                        calls=number,
                    )
                item: Any = self._script[self._cursor]
                self._cursor += 1
        if self._responder is not None:
            kwargs = {"tools": list(tools or [])} if self._pass_tools else {}
            item = self._responder(request, **kwargs)
            _check_item(item, f"{self.model_id} responder reply to call {number}")
        if isinstance(item, BaseException):
            raise item
        return self._response(item, prompt_chars)

    def _response(self, item: ScriptItem, prompt_chars: int) -> ModelResponse:
        calls: tuple[ToolCall, ...]
        if isinstance(item, str):
            text, calls, usage, finish, model_id = item, (), None, None, None
        elif isinstance(item, ModelResponse):
            text, calls, finish = item.text, item.tool_calls, item.finish_reason
            usage = item.usage if item.usage != Usage() else None
            model_id = item.model_id if item.model_id != "unknown" else None
        else:
            assert isinstance(item, Mapping)
            text = item.get("text", "")
            calls = tuple(_tool_call(c, "tool call") for c in item.get("tool_calls", ()))
            usage = _usage(item.get("usage"), "usage")
            finish, model_id = item.get("finish_reason"), item.get("model_id")
        if usage is None:
            prompt = estimate_tokens(prompt_chars)
            completion = estimate_tokens(completion_units(text, calls))
            usage = Usage(prompt, completion, prompt + completion)
        return ModelResponse(
            text=text,
            tool_calls=tuple(calls),
            usage=usage,
            model_id=model_id or self.model_id,
            finish_reason=finish or ("tool_calls" if calls else "stop"),
        )


def _accepts_tools(fn: Callable[..., Any]) -> bool:
    """Whether a responder function takes a ``tools`` keyword (or **kwargs)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "tools" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
