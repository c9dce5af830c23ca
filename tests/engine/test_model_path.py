"""Model calls: request/response events, token usage and budget, parsing and recovery."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_agents import ScriptAgent

from qitos import Engine, ModelExecutionError, RuntimeErrorInfo
from qitos.engine.policies import RecoveryPolicy
from qitos.engine.runtime import RuntimeBudget
from qitos.kit.parser import JsonDecisionParser, ReActTextParser
from qitos.models.base import ModelResponse, ToolCall, Usage
from qitos.models.scripted import ScriptedModel

ADD = json.dumps({"action": {"name": "add", "args": {"a": 2, "b": 2}}})
FINAL = json.dumps({"final": "four"})


def test_model_decision_emits_request_and_response_and_counts_tokens() -> None:
    """decide None → model called with the built request; usage recorded; parser output used."""
    model = ScriptedModel([ADD, FINAL], model_id="scripted-test")
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())
    result = Engine(agent).run("add")
    assert result.state.seen == [4] and result.state.final_result == "four"
    assert result.state.stop_reason == "final"
    requests = [e for e in result.events if e.phase == "model_request"]
    responses = [e for e in result.events if e.phase == "model_response"]
    assert len(requests) == len(responses) == 2
    first = requests[0].payload
    assert first["model_id"] == "scripted-test" and first["tools"] == ["add"]
    assert first["messages"][-1] == {"role": "user", "content": "task=add seen=[]"}
    assert responses[0].payload["request_id"] == first["request_id"]
    assert responses[0].payload["text"] == ADD
    usage_total = sum(e.payload["usage"]["total_tokens"] for e in responses)
    assert usage_total > 0 and result.token_usage == usage_total
    stages = [e.payload.get("stage") for e in result.events if e.phase == "DECIDE" and e.step_id == 0]
    assert stages == ["start", "model_input", "model_output", "decision_ready"]
    # The second request carries the first exchange as history.
    assert len(requests[1].payload["messages"]) > len(first["messages"])


def test_engine_parser_overrides_agent_parser_and_react_works() -> None:
    """Engine(parser=...) wins over agent.model_parser."""
    model = ScriptedModel(["Thought: add\nAction: add(a=1, b=5)", "Final Answer: six"])
    agent = ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())
    result = Engine(agent, parser=ReActTextParser()).run("react")
    assert result.state.seen == [6] and result.state.final_result == "six"


def test_native_tool_calls_become_actions() -> None:
    """A response with tool_calls is an act decision even without parseable text."""
    model = ScriptedModel(
        [ModelResponse(text="", tool_calls=(ToolCall("add", {"a": 1, "b": 1}, "c1"),)), FINAL]
    )
    result = Engine(ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())).run("native")
    assert result.state.seen == [2]
    calls = [e.payload for e in result.events if e.phase == "tool_call"]
    assert calls == [{"call_id": "c1", "tool": "add", "args": {"a": 1, "b": 1}}]


def test_parse_error_is_retried_then_recovers() -> None:
    """A ParseExecutionError is recoverable: the step re-asks the model and continues."""
    model = ScriptedModel(["not json at all", ADD, FINAL])
    handled: list[RuntimeErrorInfo] = []
    engine = Engine(
        ScriptAgent(None, llm=model, model_parser=JsonDecisionParser()),
        recovery_handler=lambda info, state: handled.append(info),
    )
    result = engine.run("retry")
    assert result.state.final_result == "four" and result.state.seen == [4]
    errors = [e for e in result.events if e.phase == "error"]
    assert len(errors) == 1 and errors[0].payload["category"] == "parse" and errors[0].payload["retrying"]
    assert [i.category.value for i in handled] == ["parse"]
    assert model.calls == 3


def test_persistent_parse_errors_end_with_unrecoverable_error() -> None:
    """After max_retries_per_step retries the run stops with unrecoverable_error, status failed."""
    model = ScriptedModel(lambda messages: "garbage")
    engine = Engine(
        ScriptAgent(None, llm=model, model_parser=JsonDecisionParser()),
        recovery_policy=RecoveryPolicy(max_retries_per_step=2),
    )
    result = engine.run("bad")
    assert result.state.stop_reason == "unrecoverable_error" and result.status == "failed"
    assert model.calls == 3
    errors = [e.payload for e in result.events if e.phase == "error"]
    assert [e["retrying"] for e in errors] == [True, True, False]
    assert result.error["category"] == "parse"


def test_model_error_is_retried() -> None:
    """A recoverable ModelExecutionError from the model is retried like a parse error."""
    outage = ModelExecutionError.make("503 from provider", recoverable=True)
    model = ScriptedModel([outage, FINAL])
    result = Engine(ScriptAgent(None, llm=model, model_parser=JsonDecisionParser())).run("m")
    assert result.state.stop_reason == "final"
    assert [e.payload["category"] for e in result.events if e.phase == "error"] == ["model"]


def test_plain_callable_llm_exceptions_become_model_errors() -> None:
    """An exception from a callable llm is a ModelExecutionError; an unrecoverable one stops at once."""
    calls: list[int] = []

    def flaky(messages: list[dict[str, Any]]) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("reset by peer")
        return FINAL

    result = Engine(ScriptAgent(None, llm=flaky, model_parser=JsonDecisionParser())).run("c")
    assert result.state.final_result == "four"
    assert (
        "ConnectionError: reset by peer"
        in [e for e in result.events if e.phase == "error"][0].payload["message"]
    )
    exhausted = ScriptedModel([])
    result = Engine(ScriptAgent(None, llm=exhausted, model_parser=JsonDecisionParser())).run("x")
    assert result.state.stop_reason == "unrecoverable_error" and "exhausted" in result.error["message"]


def test_token_budget_stops_with_budget_tokens() -> None:
    """Usage reaching RuntimeBudget.max_tokens ends the run with budget_tokens."""
    reply = ModelResponse(text=ADD, usage=Usage(60, 40, 100))
    model = ScriptedModel(lambda messages: reply)
    engine = Engine(
        ScriptAgent(None, llm=model, model_parser=JsonDecisionParser()), budget=RuntimeBudget(max_tokens=250)
    )
    result = engine.run("tokens")
    assert result.state.stop_reason == "budget_tokens"
    # The third call passes the budget: its actions never run; the cut step is kept as a partial record.
    assert result.token_usage == 300 and result.state.seen == [4, 4]
    assert result.step_count == 3 and len(result.records) == 3
    cut = result.records[2]
    assert cut.decision.mode == "act" and cut.action_results == []
    assert cut.errors[-1]["message"] == "step ended early: budget_tokens"


def test_missing_llm_or_parser_is_a_clear_failure() -> None:
    """decide None without llm, or model text without parser, fails with a message saying so."""
    result = Engine(ScriptAgent(None)).run("no llm")
    assert result.state.stop_reason == "unrecoverable_error" and "no llm" in result.error["message"]
    result = Engine(ScriptAgent(None, llm=ScriptedModel([FINAL]))).run("no parser")
    assert "no parser" in result.error["message"]
    with pytest.raises(TypeError, match="llm must be"):
        Engine(ScriptAgent(None, llm=42))


def test_failing_prompt_hook_is_reported_not_raised() -> None:
    """An exception in prepare() during a model step ends the run with a message naming it."""

    class BadPrompt(ScriptAgent):
        def prepare(self, state: Any) -> str:
            raise RuntimeError("template missing")

    model = ScriptedModel([FINAL])
    result = Engine(BadPrompt(None, llm=model, model_parser=JsonDecisionParser())).run("p")
    assert result.stop_reason == "unrecoverable_error"
    assert "building the model request failed: RuntimeError: template missing" in result.error["message"]
    assert model.calls == 0


def test_request_that_cannot_fit_fails_the_run_instead_of_raising() -> None:
    """A required contribution over the declared budget: a failed run with an error event, no exception."""
    from qitos.core.context import StaticContextContributor

    model = ScriptedModel([FINAL], model_id="tiny", max_input_units=200, enforce_capacity=False)
    agent = ScriptAgent(
        None,
        llm=model,
        model_parser=JsonDecisionParser(),
        extensions={"huge": StaticContextContributor("notes.huge", "project", "x" * 5000, required=True)},
        context={"contributors": ["huge"], "budget": {"provider": "declared"}},
    )
    result = Engine(agent).run("fit")
    assert result.status == "failed"
    assert result.state.stop_reason == "unrecoverable_error"
    errors = [e for e in result.events if e.phase == "error"]
    assert errors and "could not be built" in errors[0].payload["message"]
    assert "ContextBudgetExceededError" in errors[0].payload["message"]
    assert not [e for e in result.events if e.phase == "model_request"]


def test_latencies_come_from_the_engine_clock() -> None:
    """With a fixed engine clock, model and tool latencies in the trace are reproducible."""
    ticks = iter(range(10_000))
    model = ScriptedModel([ADD, FINAL], model_id="clocked")
    engine = Engine(ScriptAgent(None, llm=model, model_parser=JsonDecisionParser()))
    engine.clock = lambda: next(ticks) / 1000  # one millisecond per reading
    result = engine.run("add")
    latencies = [
        e.payload["latency_ms"] for e in result.events if e.phase in ("model_response", "tool_result")
    ]
    assert latencies and all(value == 1.0 for value in latencies)
