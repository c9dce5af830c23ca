"""RequestBuilder: every model call is a RequestView over the run's ExchangeLog and fresh contributions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qitos.core.context import (
    ContextBudgetExceededError,
    ContextContribution,
    ContextError,
    DeclaredContextBudgetPolicy,
    StaticContextContributor,
)
from qitos.engine.request_builder import BuiltRequest, RequestBuilder
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor
from qitos.models.base import ModelResponse, ToolCall
from qitos.models.estimate import message_units
from qitos.models.scripted import ScriptedModel
from qitos.trace.events import RunEvent

TOOLS = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]


class CountingContributor:
    """A live contributor: its value changes on every call, so a stale cache would show."""

    contributor_id = "live.counter"

    def __init__(self) -> None:
        self.calls = 0
        self.requests: list[Any] = []
        self.resets: list[str | None] = []
        self.closed = False

    def contribute(self, request: Any) -> tuple[ContextContribution, ...]:
        self.calls += 1
        self.requests.append(request)
        return (ContextContribution("live.counter", "session", f"call #{self.calls}", priority=1),)

    def reset(self, run_id: str | None = None) -> None:
        self.resets.append(run_id)

    def close(self) -> None:
        self.closed = True


def run_steps(builder: RequestBuilder, model: ScriptedModel, steps: int) -> list[BuiltRequest]:
    """Drive the builder the way the Engine does: build, call the model, record answer and tools."""
    built_all = []
    for step in range(steps):
        built = builder.build(
            step_id=step,
            system_prompt="You add numbers.",
            user_text=f"step {step}: " + "q" * 80,
            tool_specs=TOOLS,
        )
        response = model.complete(built.messages, tools=TOOLS)
        builder.record_response(built, response, step_id=step)
        builder.record_tool_results([{"tool": "add", "result": {"sum": step}, "error": None}], step_id=step)
        built_all.append(built)
    return built_all


def test_small_budget_run_drops_optional_context_and_records_a_compaction_receipt() -> None:
    live = CountingContributor()
    contributors = [
        StaticContextContributor("notes.required", "project", "Only add integers.", required=True),
        StaticContextContributor("notes.optional", "project", "Background: " + "b" * 800, priority=5),
        live,
    ]
    model = ScriptedModel(["a" * 60] * 8, max_input_units=900)  # declares its capacity; enforces it
    builder = RequestBuilder(
        contributors=contributors, compactor=ClosedExchangeWindowCompactor(), model=model
    )
    builder.start_run("run-ctx")
    built = run_steps(builder, model, 8)

    assert live.calls == 8 and [r.step_id for r in live.requests] == list(range(8))  # fresh every build
    assert live.requests[3].request_id == built[3].request_id == "run-ctx:req-0004"
    assert live.resets == ["run-ctx"]
    for b in built:
        view = b.view
        assert view is not None
        json.dumps(view)  # JSON data only
        budget = view["budget"]
        assert budget["max_units"] == 900 and budget["unit"] == "characters"
        assert sum(budget["used"].values()) + budget["available_units"] == 900
        assert budget["available_units"] >= 0
        assert message_units(b.messages) == sum(budget["used"].values()) - budget["used"]["tools"]
        by_id = {c["contribution_id"]: c for c in view["contributions"]}
        assert by_id["notes.required"]["selected"] is True and by_id["notes.required"]["required"] is True
        assert by_id["notes.optional"]["selected"] is False
        assert by_id["notes.optional"]["reason"].startswith("over budget")
        assert (
            by_id["notes.optional"]["units"] == len("Background: ") + 800
            and by_id["notes.optional"]["priority"] == 5
        )
        assert {"role": "system", "content": f"call #{built.index(b) + 1}"} in b.messages
        assert set(view["selected_exchange_ids"]).isdisjoint(view["omitted_exchange_ids"])
        assert [e["exchange_id"] for e in view["exchanges"]] == sorted(
            view["selected_exchange_ids"] + view["omitted_exchange_ids"]
        )
    last = built[-1].view
    assert last is not None and last["omitted_exchange_ids"], "a small budget must have compacted history"
    (receipt,) = last["receipts"]
    assert receipt["input_exchange_ids"] == last["omitted_exchange_ids"]
    assert receipt["output_digest"] == last["selected_digest"]
    assert receipt["policy_id"] == "qitos.context.closed_window/v1"
    assert len(receipt["declared_losses"]) == len(receipt["input_exchange_ids"])
    assert last["omitted_exchange_ids"][0] == "ex-000001"  # oldest first
    assert (
        last["protected_exchange_ids"] == ["ex-000008"] and last["selected_exchange_ids"][-1] == "ex-000008"
    )
    assert last["policies"] == {
        "selection": "qitos.context.priority/v1",
        "budget": "qitos.context.declared_budget/v1",
        "compaction": "qitos.context.closed_window/v1",
        "history": "history(roles=user,assistant;max_messages=24;step_window=None;max_tokens=None)",
    }
    assert last["history_omitted_exchange_ids"] == []  # 8 exchanges: all within the default policy
    # The payload survives a trace round trip unchanged: a replay needs nothing else.
    event = RunEvent(
        "run-ctx", 7, "model_request", payload={"request_id": built[-1].request_id, "view": last}
    )
    assert RunEvent.from_dict(json.loads(event.to_json())).payload["view"] == last
    # The log keeps every exchange: compaction changed the request, never the history.
    assert len(builder.exchange_log) == 8


def test_without_a_compactor_an_over_budget_history_fails_explicitly() -> None:
    model = ScriptedModel(["a" * 60] * 8, max_input_units=900)
    builder = RequestBuilder(model=model)
    builder.start_run("run-strict")
    with pytest.raises(ContextBudgetExceededError, match="explicit compaction policy"):
        run_steps(builder, model, 8)
    assert model.calls < 8


def test_defaults_use_declared_capacity_and_document_default() -> None:
    builder = RequestBuilder(model=ScriptedModel(["ok"], max_input_units=4321))
    built = builder.build(step_id=0, system_prompt=None, user_text="hi")
    assert built.view is not None and built.view["budget"]["max_units"] == 4321
    assert built.messages == [{"role": "user", "content": "hi"}]
    plain = RequestBuilder().build(step_id=0, system_prompt="s", user_text="hi")
    assert plain.view is not None and plain.view["budget"]["max_units"] == 120000
    policy = DeclaredContextBudgetPolicy(default_max_input_units=50, protected_recent_exchanges=2)
    small = RequestBuilder(budget_policy=policy).build(step_id=0, system_prompt="s", user_text="hi")
    assert small.view is not None and small.view["budget"]["max_units"] == 50
    assert small.view["budget"]["protected_recent_exchanges"] == 2


def test_contributions_never_add_or_enable_tools() -> None:
    sneaky = StaticContextContributor(
        "sneaky",
        "project",
        {"tools": [{"type": "function", "function": {"name": "delete_everything"}}]},
        priority=99,
    )
    builder = RequestBuilder(contributors=[sneaky])
    built = builder.build(step_id=0, system_prompt="s", user_text="hi", tool_specs=TOOLS)
    assert builder.last_view is not None and builder.last_view.tool_schemas == TOOLS
    none = builder.build(step_id=1, system_prompt="s", user_text="again", tool_specs=())
    assert (
        builder.last_view.tool_schemas == []
        and none.view is not None
        and none.view["budget"]["used"]["tools"] == 0
    )
    assert all(m["role"] in ("system", "user", "assistant") for m in built.messages)
    with pytest.raises(ContextError, match="never declares tools"):
        StaticContextContributor("t", "project", "x", requested_placement="tool")


def test_exchanges_record_responses_and_observations_and_close_at_the_next_step() -> None:
    builder = RequestBuilder()
    builder.start_run("run-x")
    first = builder.build(step_id=0, system_prompt="s", user_text="add 1 and 2")
    builder.record_response(first, ModelResponse("", (ToolCall("add", {"a": 1, "b": 2}),)), step_id=0)
    builder.record_tool_results([{"tool": "add", "result": 3, "error": None}], step_id=0)
    log = builder.exchange_log
    assert not log.is_closed("ex-000001")
    second = builder.build(step_id=1, system_prompt="s", user_text="and now?")
    assert log.is_closed("ex-000001") and not log.is_closed("ex-000002")
    items = log.get("ex-000001").items
    assert [(i.role, i.kind) for i in items] == [
        ("user", "message"),
        ("assistant", "message"),
        ("user", "observation"),
    ]
    assert items[1].tool_calls == (("add", '{"a":1,"b":2}'),)
    assert items[2].content == "Observation:\nadd: 3"
    assert second.messages[1:] == [
        {"role": "user", "content": "add 1 and 2"},
        {"role": "assistant", "content": 'Tool calls: [{"args":{"a":1,"b":2},"name":"add"}]'},
        {"role": "user", "content": "Observation:\nadd: 3"},
        {"role": "user", "content": "and now?"},
    ]
    builder.record_tool_results([{"tool": "add", "result": None, "error": "boom"}], step_id=1)
    assert log.get("ex-000002").items[-1].content == "Observation:\nadd: error: boom"
    with pytest.raises(ValueError, match="not built by this builder"):
        builder.record_response(BuiltRequest("other:req-0001", []), ModelResponse("x"), step_id=1)


def test_a_retried_call_reuses_the_step_turn() -> None:
    builder = RequestBuilder()
    builder.start_run("run-r")
    builder.build(step_id=0, system_prompt=None, user_text="hello")
    retry = builder.build(step_id=0, system_prompt=None, user_text="hello")
    assert len(builder.exchange_log) == 1 and retry.messages == [{"role": "user", "content": "hello"}]
    assert retry.request_id == "run-r:req-0002"


def test_start_run_starts_a_fresh_log_and_resets_contributors() -> None:
    live = CountingContributor()
    builder = RequestBuilder(contributors=[live])
    builder.start_run("run-1")
    builder.build(step_id=0, system_prompt=None, user_text="a")
    assert len(builder.exchange_log) == 1 and live.resets == ["run-1"]
    builder.start_run("run-2")
    assert len(builder.exchange_log) == 0 and live.resets == ["run-1", "run-2"]
    assert builder.exchange_log.log_id == "run-2"
    assert builder.build(step_id=0, system_prompt=None, user_text="b").request_id == "run-2:req-0001"
    builder.close()
    assert live.closed


def test_bad_contributor_output_fails_with_its_name() -> None:
    class Broken:
        contributor_id = "broken"

        def contribute(self, request: Any) -> Any:
            return [{"not": "a contribution"}]

    with pytest.raises(ContextError, match="'broken' returned a dict"):
        RequestBuilder(contributors=[Broken()]).build(step_id=0, system_prompt=None, user_text="x")
