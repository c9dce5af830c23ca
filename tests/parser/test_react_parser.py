"""ReActTextParser: upstream raw outputs, classic Action Input form, failures the recovery policy retries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qitos.core.errors import ParseExecutionError
from qitos.kit.parser import ReActTextParser, get_parser
from qitos.kit.parser.call_syntax import CallSyntaxError, parse_call
from qitos.models.base import ToolCall


def test_matches_upstream_decisions_for_every_raw_output(upstream_trace_dirs: list[Path]) -> None:
    """Each upstream model_output parses to the actions upstream's own parser recorded next."""
    parser = ReActTextParser()
    pairs = 0
    for run_dir in upstream_trace_dirs:
        events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
        outputs = [e for e in events if e["payload"].get("stage") == "model_output"]
        ready = [e for e in events if e["payload"].get("stage") == "decision_ready"]
        assert len(outputs) == len(ready) > 0
        for out, expected in zip(outputs, ready, strict=True):
            decision = parser.parse(out["payload"]["raw_output"])
            assert decision.mode == expected["payload"]["mode"]
            assert [{"name": a.name, "args": a.args} for a in decision.actions] == expected["payload"][
                "actions"
            ]
            assert decision.rationale and decision.rationale.startswith("The ")
            pairs += 1
    assert pairs >= 5


def test_final_answer_with_thought() -> None:
    d = ReActTextParser().parse("Thought: The tests pass.\nFinal Answer: Fixed add() in buggy_module.py.")
    assert (d.mode, d.final_answer, d.rationale) == (
        "final",
        "Fixed add() in buggy_module.py.",
        "The tests pass.",
    )


def test_multi_line_call_fences_and_literals() -> None:
    text = (
        "Thought: write the file\n"
        "Action: ```python\n"
        'create(path="a.py", content="""def f():\n    return 1\n""", overwrite=true, tags=("x", "y"), n=None)\n'
        "```\n"
    )
    (action,) = ReActTextParser().parse(text).actions
    assert action.name == "create"
    assert action.args == {
        "path": "a.py",
        "content": "def f():\n    return 1\n",
        "overwrite": True,
        "tags": ["x", "y"],
        "n": None,
    }


def test_invented_observation_and_everything_after_it_is_ignored() -> None:
    text = (
        "Thought: look\nAction: view(path='x')\nObservation: file contents...\n"
        "Thought: good\nFinal Answer: all done"
    )
    d = ReActTextParser().parse(text)
    assert d.mode == "act" and [a.name for a in d.actions] == ["view"]


def test_several_actions_and_classic_action_input() -> None:
    d = ReActTextParser().parse(
        'Thought: two things\nAction: list_tree\nAction Input: {"path": ".", "depth": 2}\n'
        "Action: run_command(command=ls -la)"
    )
    assert [(a.name, a.args) for a in d.actions] == [
        ("list_tree", {"path": ".", "depth": 2}),
        ("run_command", {"command": "ls -la"}),  # not Python: read by splitting, kept as text
    ]


def test_native_tool_calls_take_precedence() -> None:
    d = ReActTextParser().parse(
        "Let me check.", tool_calls=[ToolCall("view", {"path": "x"}, call_id="call_9")]
    )
    assert d.mode == "act" and d.rationale == "Let me check."
    assert (d.actions[0].name, d.actions[0].args, d.actions[0].action_id) == ("view", {"path": "x"}, "call_9")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("I think we are done here.", "found no 'Action"),
        ("Thought: hm\nFinal Answer:   ", "'Final Answer:' is empty"),
        ("Action: view('a.py')", "by name"),
        ("Action: view(path='a.py'", "missing its closing"),
        ("Action: view(path='a.py', path='b.py')", "given twice"),
        ("Action: 42", "cannot read the action"),
        ("Action: search\nAction Input: not json", "not JSON"),
        ("Action: rm_rf(path='/')", "unknown tool 'rm_rf'; available tools: search, view"),
    ],
)
def test_failures_are_recoverable_parse_errors(text: str, match: str) -> None:
    with pytest.raises(ParseExecutionError, match=match) as info:
        ReActTextParser(tool_names=["view", "search"]).parse(text)
    assert info.value.info.recoverable is True
    assert info.value.info.category.value == "parse"
    assert info.value.info.details["raw_output"] == text


def test_parse_call_edge_cases() -> None:
    assert parse_call("list_tree()") == ("list_tree", {})
    assert parse_call("my-tool(x={'a': (1, 2)}, y=-3.5);") == ("my-tool", {"x": {"a": [1, 2]}, "y": -3.5})
    assert parse_call("t(expr=a + b, flag=False)") == ("t", {"expr": "a + b", "flag": False})
    assert parse_call("t(path=/tmp/x y, q='a, b')") == ("t", {"path": "/tmp/x y", "q": "a, b"})
    with pytest.raises(CallSyntaxError, match="unterminated"):
        parse_call("t(path=/tmp, q='oops)")
    with pytest.raises(CallSyntaxError, match=r"\*\*"):
        parse_call("t(**kw)")


def test_get_parser_by_name() -> None:
    assert isinstance(get_parser("react"), ReActTextParser)
    assert isinstance(get_parser("ReActTextParser", tool_names={"a"}), ReActTextParser)
    with pytest.raises(ValueError, match="unknown parser 'yaml'"):
        get_parser("yaml")
