"""ScriptedModel: deterministic replies, usage, declared capacity, clear failures."""

from __future__ import annotations

import pytest

from qitos.core.errors import ModelExecutionError
from qitos.models.base import Model, ModelResponse, ToolCall, Usage
from qitos.models.estimate import estimate_tokens, message_units
from qitos.models.scripted import ScriptedModel

MSGS = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Add 2 and 3."}]


def test_replays_script_in_order_with_estimated_usage() -> None:
    model = ScriptedModel(["Thought: add\nAction: add(a=2, b=3)", "Final Answer: 5"])
    assert isinstance(model, Model) and model.model_id == "scripted"
    first = model.complete(MSGS)
    prompt = estimate_tokens(len("You are terse.") + len("Add 2 and 3."))
    assert first.text.startswith("Thought: add")
    assert first.usage == Usage(
        prompt, estimate_tokens(len(first.text)), prompt + estimate_tokens(len(first.text))
    )
    assert first.finish_reason == "stop" and first.model_id == "scripted"
    assert model(MSGS) == "Final Answer: 5"  # plain-callable form
    assert model.calls == 2 and model.remaining == 0
    assert model.requests[0] == MSGS


def test_same_script_same_results() -> None:
    script = ["a", {"text": "b", "tool_calls": [{"name": "view", "args": {"path": "x"}}]}]
    runs = []
    for _ in range(2):
        m = ScriptedModel(script)
        runs.append([m.complete(MSGS), m.complete(MSGS + [{"role": "user", "content": "more"}])])
    assert runs[0] == runs[1]


def test_dict_and_model_response_items() -> None:
    model = ScriptedModel(
        [
            {
                "text": "",
                "tool_calls": [{"name": "search", "arguments": {"q": "x"}, "id": "call_1"}],
                "usage": {"prompt_tokens": 7, "completion_tokens": 3},
            },
            ModelResponse(text="done", usage=Usage(1, 2, 3), model_id="other", finish_reason="length"),
        ],
        model_id="demo",
    )
    r1 = model.complete(MSGS)
    assert r1.tool_calls == (ToolCall("search", {"q": "x"}, "call_1"),)
    assert r1.usage == Usage(7, 3, 10) and r1.finish_reason == "tool_calls" and r1.model_id == "demo"
    r2 = model.complete(MSGS)
    assert (r2.text, r2.usage, r2.model_id, r2.finish_reason) == ("done", Usage(1, 2, 3), "other", "length")


def test_function_of_the_request() -> None:
    seen_tools = []

    def respond(messages, tools=None):
        seen_tools.append(tools)
        return f"Final Answer: {len(messages)} messages"

    model = ScriptedModel(respond, model_id="fn")
    assert model.complete(MSGS, tools=[{"name": "t"}]).text == "Final Answer: 2 messages"
    assert seen_tools == [[{"name": "t"}]] and model.remaining is None
    assert ScriptedModel(lambda messages: messages[-1]["content"]).complete(MSGS).text == "Add 2 and 3."
    bad = ScriptedModel(lambda messages: 42)
    with pytest.raises(TypeError, match="responder reply to call 1"):
        bad.complete(MSGS)


def test_exhausted_script_is_a_clear_unrecoverable_error() -> None:
    model = ScriptedModel(["only"])
    model.complete(MSGS)
    with pytest.raises(ModelExecutionError, match="script exhausted — call 2 but only 1") as info:
        model.complete(MSGS)
    assert info.value.info.recoverable is False
    model.reset()
    assert model.complete(MSGS).text == "only"


def test_scripted_exceptions_are_raised() -> None:
    failure = ModelExecutionError.make("provider hiccup", recoverable=True)
    model = ScriptedModel([failure, "ok"])
    with pytest.raises(ModelExecutionError, match="provider hiccup"):
        model.complete(MSGS)
    assert model.complete(MSGS).text == "ok"


def test_declared_capacity_is_enforced() -> None:
    assert message_units(MSGS) == 26
    model = ScriptedModel(["fits", "never"], max_input_units=26)
    assert model.max_input_units == 26
    assert model.complete(MSGS).text == "fits"
    with pytest.raises(
        ModelExecutionError, match="27 characters exceeds scripted's declared max_input_units of 26"
    ):
        model.complete(MSGS + [{"role": "user", "content": "!"}])
    loose = ScriptedModel(["ok"], max_input_units=1, enforce_capacity=False)
    assert loose.complete(MSGS).text == "ok"


def test_content_parts_are_counted() -> None:
    parts = [{"role": "user", "content": [{"type": "text", "text": "abc"}, {"type": "image_url", "x": 1}]}]
    assert message_units(parts) == 3 + len('{"type": "image_url", "x": 1}')


@pytest.mark.parametrize(
    ("script", "match"),
    [
        ([1], r"script\[0\]: a scripted reply is a str"),
        ([{"txt": "typo"}], r"unknown key\(s\) \['txt'\]"),
        ([{"tool_calls": [{"args": {}}]}], "non-empty 'name'"),
        ([{"usage": {"prompt_tokens": "many"}}], "usage figures must be integers"),
        ("just a string", "list of replies"),
    ],
)
def test_bad_scripts_are_rejected_up_front(script, match) -> None:
    with pytest.raises(TypeError, match=match):
        ScriptedModel(script)


def test_bad_capacity_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_input_units"):
        ScriptedModel(["x"], max_input_units=0)
