"""OpenAICompatibleModel: any server speaking the chat-completions API (hosted, vLLM, llama.cpp, Ollama).

Uses the ``openai`` package (the ``openai`` extra), imported when the first model is built, so
``import qitos`` never needs it. Every failure becomes a ModelExecutionError: timeouts, connection
failures, 429 and 5xx are recoverable (trying again may work); other 4xx and malformed responses
are not. Capacity (``max_input_units``) is what the caller declares, never guessed from the name.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from qitos.core.errors import ModelExecutionError
from qitos.models.base import Message, Model, ModelResponse, ToolCall, Usage

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
# Servers such as vLLM, llama.cpp and Ollama ignore the key but the client insists on one.
_LOCAL_PLACEHOLDER_KEY = "not-needed"
_BODY_EXCERPT = 300


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise ImportError(
            "OpenAICompatibleModel needs the 'openai' package: pip install 'qitos-tui[openai]'"
        ) from exc
    return openai


def _failure(message: str, *, recoverable: bool, **details: Any) -> ModelExecutionError:
    error = ModelExecutionError.make(message, phase="DECIDE", recoverable=recoverable, **details)
    assert isinstance(error, ModelExecutionError)
    return error


def chat_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Tool specs in the chat-completions ``tools`` form (``{name, description, parameters}`` wrapped)."""
    out: list[dict[str, Any]] = []
    for spec in tools:
        if spec.get("type") == "function" and isinstance(spec.get("function"), Mapping):
            out.append(dict(spec))
            continue
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool spec needs a 'name': {dict(spec)!r}")
        function: dict[str, Any] = {"name": name}
        if spec.get("description"):
            function["description"] = spec["description"]
        function["parameters"] = spec.get("parameters") or {"type": "object", "properties": {}}
        out.append({"type": "function", "function": function})
    return out


class OpenAICompatibleModel(Model):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        max_input_units: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        model_id: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("model must name the served model, e.g. 'gpt-4o-mini' or 'Qwen/Qwen3-8B'")
        if max_input_units is not None and (not isinstance(max_input_units, int) or max_input_units <= 0):
            raise ValueError(f"max_input_units must be a positive int or None, not {max_input_units!r}")
        if not timeout or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative int, not {max_retries!r}")
        key = api_key or os.environ.get(api_key_env)
        if not key:
            if base_url is None:
                raise ValueError(
                    f"no API key: pass api_key= or set the {api_key_env} environment variable "
                    "(or give base_url= for a local server that needs none)"
                )
            key = _LOCAL_PLACEHOLDER_KEY
        openai = _import_openai()
        self.model = model
        self.model_id = model_id or model
        self.max_input_units = max_input_units
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._openai = openai
        # The key lives only inside the client: it is not an attribute a trace could pick up.
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, timeout=self.timeout, max_retries=max_retries
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel(model={self.model!r}, base_url={self.base_url!r})"

    def complete(
        self, messages: Sequence[Message], *, tools: Sequence[Mapping[str, Any]] | None = None
    ) -> ModelResponse:
        """One chat completion; ModelExecutionError (recoverable or not) on any failure."""
        request: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        if tools:
            request["tools"] = chat_tools(tools)
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.extra_body:
            request["extra_body"] = self.extra_body
        started = time.monotonic()
        raw = self._send(request, started)
        return self._read(raw.text, raw.status_code)

    def _send(self, request: dict[str, Any], started: float) -> Any:
        openai = self._openai
        where = self.base_url or "the OpenAI API"
        try:
            return self._client.chat.completions.with_raw_response.create(**request)
        except openai.APITimeoutError as exc:
            raise _failure(
                f"{self.model_id}: no response from {where} within {self.timeout:g}s "
                f"(after {self.max_retries} retries)",
                recoverable=True,
                kind="timeout",
                elapsed_s=round(time.monotonic() - started, 3),
            ) from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise _failure(
                f"{self.model_id}: cannot connect to {where}: {cause}",
                recoverable=True,
                kind="connection",
            ) from exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            # 429 and 5xx are the server's momentary trouble; other 4xx are our request's fault.
            recoverable = status == 429 or status >= 500 or status == 408
            body = _excerpt(exc.response.text if exc.response is not None else "")
            raise _failure(
                f"{self.model_id}: HTTP {status} from {where}: {_server_message(body) or body or exc.message}",
                recoverable=recoverable,
                kind="http",
                status=status,
                body=body,
            ) from exc
        except openai.OpenAIError as exc:
            raise _failure(
                f"{self.model_id}: request failed: {exc}", recoverable=False, kind="client"
            ) from exc

    def _read(self, text: str, status: int) -> ModelResponse:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise _failure(
                f"{self.model_id}: malformed response (HTTP {status}): not JSON: {_excerpt(text)!r}",
                recoverable=False,
                kind="malformed",
            ) from exc
        if not isinstance(data, dict):
            raise self._malformed("the body is not a JSON object", text)
        if "error" in data and not data.get("choices"):
            raise _failure(
                f"{self.model_id}: the server reported an error: {_server_message(text) or _excerpt(text)}",
                recoverable=False,
                kind="server_error",
            )
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._malformed("it has no choices", text)
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise self._malformed("choices[0] has no message", text)
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if content is not None and not isinstance(content, str):
            raise self._malformed("message content is not text", text)
        return ModelResponse(
            text=content or "",
            tool_calls=self._tool_calls(message.get("tool_calls"), text),
            usage=self._usage(data.get("usage"), text),
            model_id=data["model"] if isinstance(data.get("model"), str) and data["model"] else self.model_id,
            finish_reason=choices[0].get("finish_reason"),
        )

    def _tool_calls(self, calls: Any, text: str) -> tuple[ToolCall, ...]:
        if not calls:
            return ()
        if not isinstance(calls, list):
            raise self._malformed("tool_calls is not a list", text)
        out = []
        for n, call in enumerate(calls):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise self._malformed(f"tool call {n} has no function name", text)
            arguments = function.get("arguments") or "{}"
            try:
                args = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError as exc:
                # The model wrote broken JSON; asking again usually fixes it.
                raise _failure(
                    f"{self.model_id}: arguments of tool call {function['name']!r} are not valid JSON: "
                    f"{_excerpt(str(arguments))!r}",
                    recoverable=True,
                    kind="tool_arguments",
                ) from exc
            if not isinstance(args, dict):
                raise _failure(
                    f"{self.model_id}: arguments of tool call {function['name']!r} are not a JSON object",
                    recoverable=True,
                    kind="tool_arguments",
                )
            call_id = call.get("id")
            out.append(ToolCall(function["name"], args, None if call_id is None else str(call_id)))
        return tuple(out)

    def _usage(self, usage: Any, text: str) -> Usage:
        if usage is None:
            return Usage()  # some servers omit it; zeros say "not reported"
        if not isinstance(usage, dict):
            raise self._malformed("usage is not an object", text)
        try:
            prompt = int(usage.get("prompt_tokens") or 0)
            completion = int(usage.get("completion_tokens") or 0)
            total = int(usage.get("total_tokens") or prompt + completion)
        except (TypeError, ValueError) as exc:
            raise self._malformed("usage figures are not numbers", text) from exc
        return Usage(prompt, completion, total)

    def _malformed(self, what: str, text: str) -> ModelExecutionError:
        return _failure(
            f"{self.model_id}: malformed chat-completions response: {what}: {_excerpt(text)!r}",
            recoverable=False,
            kind="malformed",
        )


def _excerpt(text: str) -> str:
    return text if len(text) <= _BODY_EXCERPT else text[:_BODY_EXCERPT] + "…"


def _server_message(body: str) -> str | None:
    """The ``error.message`` of an OpenAI-style error body, when it has one."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str):
        return message
    if isinstance(error, str):
        return error
    return None
