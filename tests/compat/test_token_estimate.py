"""A model that reports no usage gets a deterministic estimate, marked as one, and max_tokens binds."""

from __future__ import annotations

from typing import Any

from qitos import AgentModule, Engine, RuntimeBudget, StateSchema
from qitos.kit.parser import JsonDecisionParser
from qitos.models.base import ModelResponse, Usage
from qitos.models.estimate import estimate_tokens, message_units


class Waiter(AgentModule):
    """Asks the model every step; the model always answers with a wait."""

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task, max_steps=20)

    def prepare(self, state: StateSchema) -> str:
        return f"step {state.current_step}: {state.task}"

    def reduce(self, state: StateSchema, observation: Any, decision: Any) -> StateSchema:
        return state


def plain_llm(messages: list[dict[str, Any]]) -> str:
    """The documented ``llm`` form: messages in, text out, no usage."""
    return '{"thought": "not yet", "mode": "wait"}'


def test_plain_callable_usage_is_estimated_and_marked() -> None:
    agent = Waiter(llm=plain_llm, model_parser=JsonDecisionParser())
    result = Engine(agent, budget=RuntimeBudget(max_steps=1)).run("count the stars")
    request = next(e for e in result.events if e.phase == "model_request")
    response = next(e for e in result.events if e.phase == "model_response")
    usage = response.payload["usage"]
    prompt = estimate_tokens(message_units(request.payload["messages"]))
    completion = estimate_tokens(len(plain_llm([])))
    assert usage == {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "estimated": True,
    }
    assert prompt > 0 and completion > 0


def test_max_tokens_binds_a_plain_callable() -> None:
    agent = Waiter(llm=plain_llm, model_parser=JsonDecisionParser())
    result = Engine(agent, budget=RuntimeBudget(max_steps=20, max_tokens=60)).run("count the stars")
    assert result.state.stop_reason == "budget_tokens"
    assert 1 < result.step_count < 20


def test_reported_usage_is_kept_unmarked() -> None:
    def reporting(messages: list[dict[str, Any]]) -> ModelResponse:
        return ModelResponse(text='{"final": "done"}', usage=Usage(7, 3, 10))

    agent = Waiter(llm=reporting, model_parser=JsonDecisionParser())
    result = Engine(agent).run("t")
    response = next(e for e in result.events if e.phase == "model_response")
    assert response.payload["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
