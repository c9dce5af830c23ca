"""JsonDecisionParser: every accepted shape, fences and prose, and clear recoverable failures."""

from __future__ import annotations

import json

import pytest

from qitos.core.decision import Decision
from qitos.core.errors import ParseExecutionError
from qitos.kit.parser import JsonDecisionParser
from qitos.models.base import ToolCall


def acts(d: Decision) -> list[tuple[str, dict]]:
    assert d.mode == "act"
    return [(a.name, a.args) for a in d.actions]


@pytest.mark.parametrize(
    "text",
    [
        '{"action": {"name": "view", "args": {"path": "a.py"}}, "thought": "look"}',
        '```json\n{"action": {"name": "view", "args": {"path": "a.py"}}, "thought": "look"}\n```',
        'Sure! Here it is:\n{"action": "view", "action_input": {"path": "a.py"}, "thought": "look"} hope it helps',
        '{"name": "view", "arguments": {"path": "a.py"}, "reasoning": "look"}',
    ],
)
def test_single_action_shapes(text: str) -> None:
    d = JsonDecisionParser().parse(text)
    assert acts(d) == [("view", {"path": "a.py"})] and d.rationale == "look"


def test_lists_and_chat_completion_tool_calls() -> None:
    p = JsonDecisionParser()
    assert acts(p.parse('[{"name": "a", "args": {}}, {"name": "b", "args": {"x": 1}}]')) == [
        ("a", {}),
        ("b", {"x": 1}),
    ]
    d = p.parse(
        '{"tool_calls": [{"id": "call_1", "type": "function",'
        ' "function": {"name": "search", "arguments": "{\\"q\\": \\"qitos\\"}"}}]}'
    )
    assert acts(d) == [("search", {"q": "qitos"})] and d.actions[0].action_id == "call_1"
    assert acts(p.parse('{"actions": [{"name": "a", "args": null}]}')) == [("a", {})]


def test_final_and_mode_shapes() -> None:
    p = JsonDecisionParser()
    assert p.parse('{"final": "42"}').final_answer == "42"
    assert p.parse('{"final_answer": {"sum": 42}, "thought": "t"}').final_answer == '{"sum": 42}'
    round_trip = Decision.act([{"name": "x", "args": {"k": 1}}]).to_dict()  # type: ignore[list-item]
    assert acts(p.parse(json.dumps(round_trip))) == [("x", {"k": 1})]
    assert p.parse('{"mode": "wait", "rationale": "later"}').mode == "wait"
    assert p.parse('{"mode": "final", "final_answer": "ok"}').final_answer == "ok"


def test_native_tool_calls_take_precedence() -> None:
    d = JsonDecisionParser().parse('{"final": "ignored"}', tool_calls=[ToolCall("view", {"p": 1})])
    assert acts(d) == [("view", {"p": 1})]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("no json here", "no JSON object found"),
        ('"just a string"', "a JSON str is no decision"),
        ('{"foo": 1}', r"unrecognised keys \['foo'\]"),
        ('{"actions": []}', "non-empty list"),
        ('{"action": {"args": {}}}', "tool name must be a non-empty string"),
        ('{"action": {"name": "a", "args": [1]}}', "must be an object"),
        ('{"tool_calls": [{"function": {"name": "a", "arguments": "{oops"}}]}', "are not JSON"),
        ('{"final": null}', "missing"),
        ('{"mode": "branch"}', "not one of act, final, wait"),
        ('{"action": {"name": "nope", "args": {}}}', "unknown tool 'nope'"),
    ],
)
def test_failures_are_recoverable_parse_errors(text: str, match: str) -> None:
    with pytest.raises(ParseExecutionError, match=match) as info:
        JsonDecisionParser(tool_names=["a", "view"]).parse(text)
    assert info.value.info.recoverable is True


def test_non_text_output_is_a_parse_error() -> None:
    with pytest.raises(ParseExecutionError, match="must be text"):
        JsonDecisionParser().parse(None)  # type: ignore[arg-type]
