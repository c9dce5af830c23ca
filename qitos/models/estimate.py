"""Deterministic token estimates (characters / 4) for models that report no usage."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from qitos.models.base import Message, ToolCall, Usage

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "estimate_usage", "message_units"]

CHARS_PER_TOKEN = 4  # the usual rule of thumb; deterministic stand-in for a tokenizer


def message_units(messages: Sequence[Message]) -> int:
    """The characters of the messages' content, the unit ``max_input_units`` is declared in."""
    total = 0
    for message in messages:
        content = message.get("content")
        if content is None:
            continue
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            # Chat "content parts": count the text of text parts, the JSON of anything else.
            for part in content:
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    total += len(part["text"])
                else:
                    total += len(json.dumps(part, default=str))
        else:
            total += len(str(content))
    return total


def estimate_tokens(chars: int) -> int:
    """Deterministic token estimate for ``chars`` characters (ceil of chars / 4)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def completion_units(text: str, tool_calls: Sequence[ToolCall] = ()) -> int:
    """The characters of a reply: its text plus each tool call's name and JSON arguments."""
    return len(text) + sum(len(c.name) + len(json.dumps(c.args, default=str)) for c in tool_calls)


def estimate_usage(messages: Sequence[Message], text: str, tool_calls: Sequence[Any] = ()) -> Usage:
    """The estimated usage of one call, marked ``estimated`` (the trace and the screen say so)."""
    prompt = estimate_tokens(message_units(messages))
    completion = estimate_tokens(completion_units(text, tool_calls))
    return Usage(prompt, completion, prompt + completion, estimated=True)
