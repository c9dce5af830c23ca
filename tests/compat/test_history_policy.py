"""The agent's History and the HistoryPolicy shape which exchanges a model request carries; the
request view reports the rest as history omissions and the ExchangeLog keeps every exchange."""

from __future__ import annotations

from typing import Any

import pytest

from qitos import AgentModule, Engine, HistoryPolicy, RuntimeBudget, StateSchema
from qitos.core.history import History
from qitos.kit.history import WindowHistory
from qitos.kit.parser import JsonDecisionParser
from qitos.models.scripted import ScriptedModel

WAIT = '{"thought": "keep going", "mode": "wait"}'


class Chatty(AgentModule):
    """Asks the model every step (it always waits), with a step-numbered user turn."""

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task, max_steps=50)

    def prepare(self, state: StateSchema) -> str:
        return f"turn {state.current_step}"

    def reduce(self, state: StateSchema, observation: Any, decision: Any) -> StateSchema:
        return state


def run(steps: int, *, history: History | None = None, policy: HistoryPolicy | None = None) -> Any:
    agent = Chatty(llm=ScriptedModel([WAIT] * steps), model_parser=JsonDecisionParser(), history=history)
    engine = Engine(agent, budget=RuntimeBudget(max_steps=steps), history_policy=policy)
    return engine, engine.run("talk")


def last_request(result: Any) -> dict[str, Any]:
    return [e for e in result.events if e.phase == "model_request"][-1].payload


def sent_user_turns(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def test_agent_history_retrieve_decides_the_carried_exchanges() -> None:
    """A WindowHistory of 2 messages (one step's user turn and answer) carries one past exchange."""
    engine, result = run(4, history=WindowHistory(window_size=2))
    request = last_request(result)
    view = request["view"]
    assert sent_user_turns(request) == ["turn 2", "turn 3"]
    assert view["history_omitted_exchange_ids"] == ["ex-000001", "ex-000002"]
    assert view["omitted_exchange_ids"] == ["ex-000001", "ex-000002"] and view["receipts"] == []
    by_id = {e["exchange_id"]: e for e in view["exchanges"]}
    assert by_id["ex-000001"]["omitted_by"] == "history" and by_id["ex-000003"]["selected"]
    assert view["policies"]["history"].startswith("history(roles=user,assistant;max_messages=24")
    assert len(engine.request_builder.exchange_log) == 4  # the log keeps the record of every exchange


def test_retrieve_gets_the_policy_query_state_and_observation() -> None:
    calls: list[tuple[dict[str, Any], Any, Any]] = []

    class Spy(WindowHistory):
        def retrieve(self, query: Any = None, state: Any = None, observation: Any = None) -> Any:
            calls.append((query, state, observation))
            return super().retrieve(query, state, observation)

    run(3, history=Spy(), policy=HistoryPolicy(roles=["user", "assistant"], max_messages=5, step_window=2))
    assert len(calls) == 3
    query, state, observation = calls[-1]
    assert query == {"roles": ["user", "assistant"], "max_items": 5, "step_min": 1}
    assert isinstance(state, StateSchema) and observation is not None


def test_hostile_history_output_is_read_totally() -> None:
    """Whatever retrieve returns, only well-formed messages count; a bad one never crashes the run."""

    class Junk(WindowHistory):
        def retrieve(self, query: Any = None, state: Any = None, observation: Any = None) -> Any:
            good = super().retrieve(query, state, observation)
            return [None, "text", {"role": 1}, {"role": "user", "content": "x", "step_id": True}, *good]

    _, result = run(3, history=Junk(window_size=2))
    assert result.state.stop_reason == "budget_steps"
    assert last_request(result)["view"]["history_omitted_exchange_ids"] == ["ex-000001"]


@pytest.mark.parametrize(
    ("policy", "carried_turns"),
    [
        (HistoryPolicy(max_messages=3), ["turn 4"]),  # whole exchanges only: 2 messages each
        (HistoryPolicy(max_messages=4), ["turn 3", "turn 4"]),
        (HistoryPolicy(step_window=2), ["turn 4"]),
        (HistoryPolicy(max_messages=0), []),
        (HistoryPolicy(max_tokens=12), ["turn 4"]),  # one exchange is ~10 tokens
        (HistoryPolicy(), ["turn 0", "turn 1", "turn 2", "turn 3", "turn 4"]),
    ],
)
def test_policy_limits_apply_without_an_agent_history(
    policy: HistoryPolicy, carried_turns: list[str]
) -> None:
    _, result = run(6, policy=policy)
    request = last_request(result)
    assert sent_user_turns(request) == [*carried_turns, "turn 5"]
    view = request["view"]
    assert len(view["history_omitted_exchange_ids"]) == 5 - len(carried_turns)
    assert view["selected_exchange_ids"][-1] == "ex-000006"  # the current exchange is always carried


def test_default_policy_caps_a_long_run_at_24_messages() -> None:
    """HistoryPolicy() (max_messages=24) is the Engine's default, as the root page says."""
    _, result = run(20)
    request = last_request(result)
    assert sent_user_turns(request)[0] == "turn 7"  # 12 past exchanges of 2 messages each
    assert len(request["view"]["history_omitted_exchange_ids"]) == 7


def test_history_message_dicts_are_accepted() -> None:
    class Dicts(WindowHistory):
        def retrieve(self, query: Any = None, state: Any = None, observation: Any = None) -> Any:
            return [
                {"role": m.role, "content": m.content, "step_id": m.step_id}
                for m in super().retrieve(query, state, observation)
            ]

    _, result = run(3, history=Dicts(window_size=2))
    assert sent_user_turns(last_request(result)) == ["turn 1", "turn 2"]
