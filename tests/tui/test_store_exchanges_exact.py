"""Exact behaviour of the fold's exchanges (issue 19): model requests and responses, tool calls and
results, upstream DECIDE and ACT stages, and the DECIDE exchange dropped for a native request."""

from __future__ import annotations

import pytest
from store_events import ev, fold

import tui.store as store_module
from qitos.trace.events import EventKind


def test_a_request_opens_an_exchange_named_by_its_request_id() -> None:
    store = fold(ev(0, EventKind.OBSERVE), ev(0, EventKind.MODEL_REQUEST, {"request_id": "q1"}))
    [ex] = store.exchanges
    assert (ex.number, ex.step, ex.exchange_id, ex.request, ex.response) == (1, 0, "q1", 1, None)
    assert store.exchange_by_id == {"q1": 0}
    assert store.steps[0].requests == (1,) and store.steps[0].exchanges == (0,)


def test_a_request_without_a_request_id_is_named_by_its_event_index() -> None:
    store = fold(ev(0, EventKind.OBSERVE), ev(0, EventKind.MODEL_REQUEST))
    assert [ex.exchange_id for ex in store.exchanges] == ["req@1"]


def test_each_request_of_a_step_opens_the_next_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(1, EventKind.MODEL_REQUEST, {"request_id": "c"}),
    )
    assert [(ex.number, ex.step, ex.request) for ex in store.exchanges] == [(1, 0, 0), (2, 0, 1), (3, 1, 2)]
    assert [s.exchanges for s in store.steps] == [(0, 1), (2,)]
    assert [s.requests for s in store.steps] == [(0, 1), (2,)]


def test_a_request_names_the_model_and_one_without_a_model_keeps_it() -> None:
    store = fold(ev(0, EventKind.MODEL_REQUEST, {"model_id": "m-1"}))
    assert store.model_id == "m-1"
    store.apply([ev(1, EventKind.MODEL_REQUEST, {"model_id": ""}), ev(1, EventKind.MODEL_REQUEST)])
    assert store.model_id == "m-1"
    store.apply([ev(2, EventKind.MODEL_REQUEST, {"model_id": "m-2"})])
    assert store.model_id == "m-2"


def test_a_request_budget_is_kept_with_its_step() -> None:
    view = {
        "budget": {
            "max_units": 5000,
            "unit": "chars",
            "used": {"instructions": 1000, "tools": 300, "context": 700, "exchanges": 500},
            "available_units": 2500,
        }
    }
    store = fold(ev(0, EventKind.MODEL_REQUEST, {"view": view}))
    budget = store.steps[0].budget
    assert budget is not None
    assert (budget.max_units, budget.unit, budget.available_units) == (5000, "chars", 2500)
    assert budget.names == ("instructions", "tools", "context", "exchanges")
    assert budget.units == (1000, 300, 700, 500)
    assert store.steps[0].used_units == 2500


def test_requests_with_different_budget_categories_and_units_keep_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store_module, "_NAMES", {})  # categories and units met for the first time
    first = {"budget": {"max_units": 10, "unit": "unit-only-here-1", "used": {"cat-only-here-1": 4}}}
    second = {"budget": {"max_units": 20, "unit": "unit-only-here-2", "used": {"cat-only-here-2": 5, "x": 6}}}
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"view": first}), ev(1, EventKind.MODEL_REQUEST, {"view": second})
    )
    budgets = [s.budget for s in store.steps]
    assert [(b.unit, b.names, b.units) for b in budgets if b is not None] == [
        ("unit-only-here-1", ("cat-only-here-1",), (4,)),
        ("unit-only-here-2", ("cat-only-here-2", "x"), (5, 6)),
    ]
    assert [s.used_units for s in store.steps] == [4, 11]


def test_a_budget_without_a_unit_or_figures_reads_as_units_and_nothing_left_said() -> None:
    store = fold(ev(0, EventKind.MODEL_REQUEST, {"view": {"budget": {}}}))
    budget = store.steps[0].budget
    assert budget is not None
    assert (budget.max_units, budget.unit, budget.names, budget.units, budget.available_units) == (
        0,
        "units",
        (),
        (),
        None,
    )
    assert store.steps[0].used_units == 0


def test_a_request_without_a_budget_leaves_its_step_without_one() -> None:
    store = fold(ev(0, EventKind.MODEL_REQUEST, {"view": {"selected_exchange_ids": []}}))
    assert store.steps[0].budget is None and store.steps[0].used_units is None


def test_a_later_request_of_the_step_replaces_its_budget() -> None:
    a = {"budget": {"max_units": 10, "used": {"context": 1}}}
    b = {"budget": {"max_units": 10, "used": {"context": 9}}}
    store = fold(ev(0, EventKind.MODEL_REQUEST, {"view": a}), ev(0, EventKind.MODEL_REQUEST, {"view": b}))
    assert store.steps[0].used_units == 9


# ---- responses -------------------------------------------------------------------------------------
def test_a_response_answers_its_request_and_counts_its_tokens() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
        ev(0, EventKind.MODEL_RESPONSE, {"request_id": "q", "usage": {"total_tokens": 42}, "latency_ms": 5}),
    )
    [ex] = store.exchanges
    assert (ex.request, ex.response, ex.tokens) == (0, 1, 42)
    assert store.exchange_by_id == {}
    assert (store.steps[0].tokens, store.total_tokens, store.steps[0].latency_ms) == (42, 42, 5.0)


def test_the_responses_of_a_step_add_up_their_tokens_and_latency() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 10}, "latency_ms": 1.5}),
        ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 7}, "latency_ms": 2}),
        ev(1, EventKind.MODEL_RESPONSE, {"usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
    )
    assert [ex.tokens for ex in store.exchanges] == [10, 7, 7]
    assert [(s.tokens, s.latency_ms) for s in store.steps] == [(17, 3.5), (7, 0.0)]
    assert store.total_tokens == 24


def test_a_response_without_usage_counts_no_tokens() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 5}}), ev(0, EventKind.MODEL_RESPONSE)
    )
    assert [ex.tokens for ex in store.exchanges] == [5, 0]
    assert store.steps[0].tokens == 5 and store.total_tokens == 5


def test_a_response_without_its_request_opens_an_exchange_of_its_own() -> None:
    store = fold(ev(0, EventKind.MODEL_RESPONSE, {"request_id": "lost"}), ev(0, EventKind.MODEL_RESPONSE))
    assert [(ex.exchange_id, ex.request, ex.response) for ex in store.exchanges] == [
        ("lost", None, 0),
        ("req@1", None, 1),
    ]


def test_a_request_id_used_again_after_its_answer_opens_a_new_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "same"}),
        ev(0, EventKind.MODEL_RESPONSE, {"request_id": "same"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "same"}),
    )
    assert [(ex.number, ex.request, ex.response) for ex in store.exchanges] == [(1, 0, 1), (2, 2, None)]


def test_a_response_calling_tools_sets_the_step_action_to_the_calls_in_brief() -> None:
    calls = [{"name": "read_file", "args": {"path": "a.py"}}, {"name": "run", "args": {}}]
    store = fold(ev(0, EventKind.MODEL_RESPONSE, {"tool_calls": calls, "text": "let me look"}))
    assert store.steps[0].action == "read_file a.py +1 more"


def test_a_later_response_calling_tools_replaces_the_step_action() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"text": "thinking"}),
        ev(0, EventKind.MODEL_RESPONSE, {"tool_calls": [{"name": "grep", "args": {"pattern": "x"}}]}),
    )
    assert store.steps[0].action == "grep x"


def test_a_response_in_text_is_the_answer_unless_the_step_has_an_action() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"text": "first  answer\nhere"}),
        ev(0, EventKind.MODEL_RESPONSE, {"text": "second"}),
        ev(1, EventKind.MODEL_RESPONSE, {"text": ""}),
    )
    assert [s.action for s in store.steps] == ["answer: first answer here", ""]


def test_an_answer_is_cut_to_the_action_width() -> None:
    store = fold(ev(0, EventKind.MODEL_RESPONSE, {"text": "w" * 80}))
    assert store.steps[0].action == "answer: " + "w" * 51 + "…"


def test_an_answer_that_is_not_text_is_shown_as_json() -> None:
    store = fold(ev(0, EventKind.MODEL_RESPONSE, {"text": {"k": 1}}))
    assert store.steps[0].action == 'answer: {"k": 1}'


# ---- tool calls and results ------------------------------------------------------------------------
def test_a_tool_call_and_its_result_join_the_step_latest_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "c1", "tool": "ls", "args": {"path": "/"}}),
        ev(0, EventKind.TOOL_RESULT, {"call_id": "c1", "ok": True, "latency_ms": 4}),
    )
    first, second = store.exchanges
    assert (first.tool_calls, first.tool_results) == ((), ())
    assert (second.tool_calls, second.tool_results) == ((2,), (3,))
    assert store.steps[0].action == "ls /" and store.steps[0].latency_ms == 4.0
    assert store.steps[0].ok is True and store.steps[0].retries == 0


def test_a_tool_call_in_a_step_without_an_exchange_opens_one_for_the_tools() -> None:
    store = fold(ev(3, EventKind.TOOL_CALL, {"call_id": "c", "tool": "t"}), ev(3, EventKind.TOOL_RESULT))
    [ex] = store.exchanges
    assert (ex.exchange_id, ex.number, ex.step, ex.tool_calls, ex.tool_results) == (
        "tools@3",
        1,
        3,
        (0,),
        (1,),
    )


def test_a_tool_result_joins_the_exchange_of_its_call_even_from_a_later_step() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": 7, "tool": "t"}),
        ev(1, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(1, EventKind.TOOL_RESULT, {"call_id": 7}),
        ev(1, EventKind.TOOL_RESULT, {"call_id": 7}),
    )
    first, second = store.exchanges
    assert first.tool_results == (3,)
    assert second.tool_results == (4,)  # the call was answered: the next result is the step's


def test_every_tool_call_of_an_exchange_is_kept_in_order() -> None:
    store = fold(
        ev(0, EventKind.TOOL_CALL, {"call_id": "1", "tool": "a"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "2", "tool": "b"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "3", "tool": "c"}),
        ev(0, EventKind.TOOL_RESULT, {"call_id": "2"}),
        ev(0, EventKind.TOOL_RESULT, {"call_id": "1"}),
    )
    [ex] = store.exchanges
    assert ex.tool_calls == (0, 1, 2) and ex.tool_results == (3, 4)
    assert store.steps[0].action == "a"


def test_a_tool_call_does_not_replace_the_action_a_response_set() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"tool_calls": [{"name": "first", "args": {}}]}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "1", "tool": "second", "args": {}}),
    )
    assert store.steps[0].action == "first"


def test_a_tool_call_without_a_tool_name_shows_a_question_mark() -> None:
    assert fold(ev(0, EventKind.TOOL_CALL, {"args": {"q": "x"}})).steps[0].action == "? x"


def test_a_failed_tool_result_fails_its_step_with_the_tool_and_error() -> None:
    store = fold(
        ev(0, EventKind.TOOL_RESULT, {"tool": "write", "ok": False, "error": "denied"}),
        ev(1, EventKind.TOOL_RESULT, {"ok": False, "error": "e" * 90}),
    )
    assert [(s.ok, s.error) for s in store.steps] == [
        (False, "write: denied"),
        (False, "tool: " + "e" * 73 + "…"),
    ]
    assert [s.retries for s in store.steps] == [0, 0]


def test_a_failed_tool_result_without_an_error_text_names_only_the_tool() -> None:
    store = fold(
        ev(0, EventKind.TOOL_RESULT, {"tool": "write", "ok": False}),
        ev(1, EventKind.TOOL_RESULT, {"ok": False}),
    )
    assert [s.error for s in store.steps] == ["write", "tool"]


def test_a_tool_result_counts_the_attempts_before_the_last_as_retries() -> None:
    store = fold(
        ev(0, EventKind.TOOL_RESULT, {"ok": True, "attempts": 3}),
        ev(0, EventKind.TOOL_RESULT, {"ok": True, "attempts": 2}),
        ev(1, EventKind.TOOL_RESULT, {"ok": True, "attempts": 0}),
        ev(1, EventKind.TOOL_RESULT, {"ok": False, "attempts": 1, "error": "x"}),
    )
    assert [s.retries for s in store.steps] == [3, 0]
    assert [s.ok for s in store.steps] == [True, False]


def test_a_tool_result_that_says_nothing_of_success_is_a_success() -> None:
    store = fold(ev(0, EventKind.TOOL_RESULT, {"tool": "t"}), ev(0, EventKind.TOOL_RESULT, {"ok": "yes"}))
    assert store.steps[0].ok is True and store.steps[0].retries == 0


def test_tool_results_add_their_latency_to_the_step() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"latency_ms": 10}),
        ev(0, EventKind.TOOL_RESULT, {"ok": True, "latency_ms": 2.5}),
        ev(0, EventKind.TOOL_RESULT, {"ok": False, "latency_ms": 1}),
    )
    assert store.steps[0].latency_ms == 13.5


# ---- upstream DECIDE and ACT -----------------------------------------------------------------------
def test_upstream_decide_model_input_and_output_make_one_exchange_per_step() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input", "prepared": "p"}),
        ev(0, EventKind.DECIDE, {"stage": "model_output", "raw_output": "o"}),
        ev(1, EventKind.DECIDE, {"stage": "model_input"}),
        ev(1, EventKind.DECIDE, {"stage": "model_output"}),
    )
    assert [(ex.exchange_id, ex.number, ex.request, ex.response) for ex in store.exchanges] == [
        ("decide@0", 1, 0, 1),
        ("decide@1", 2, 2, 3),
    ]
    assert [s.requests for s in store.steps] == [(0,), (2,)]


def test_upstream_decision_sets_the_step_action_to_its_actions_or_final_answer() -> None:
    store = fold(
        ev(
            0,
            EventKind.DECIDE,
            {"stage": "decision_ready", "actions": [{"name": "ls", "args": {"path": "x"}}]},
        ),
        ev(1, EventKind.DECIDE, {"stage": "decision_ready", "final_answer": "42"}),
        ev(
            2, EventKind.DECIDE, {"stage": "decision_ready", "actions": [{"name": "a"}], "final_answer": "no"}
        ),
        ev(3, EventKind.DECIDE, {"stage": "decision_ready"}),
        ev(4, EventKind.DECIDE, {"stage": "decision_ready", "final_answer": "z" * 80}),
    )
    assert [s.action for s in store.steps] == ["ls x", "final: 42", "a", "", "final: " + "z" * 52 + "…"]


def test_upstream_decide_of_another_stage_makes_no_exchange() -> None:
    store = fold(ev(0, EventKind.DECIDE, {"stage": "start"}), ev(0, EventKind.DECIDE))
    assert store.exchanges == [] and store.steps[0].action == ""


def test_upstream_action_results_join_the_step_exchange_and_failures_fail_the_step() -> None:
    results = {
        "stage": "action_results",
        "tool_invocations": [
            {"tool_name": "ok_tool", "status": "success"},
            {"tool_name": "bad_tool", "status": "error", "error": "boom"},
        ],
    }
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}),
        ev(0, EventKind.ACT, results),
        ev(1, EventKind.ACT, {"stage": "action_results", "tool_invocations": [{"status": "success"}]}),
    )
    assert [ex.tool_results for ex in store.exchanges] == [(1,), (2,)]
    assert [ex.exchange_id for ex in store.exchanges] == ["decide@0", "tools@1"]
    assert [(s.ok, s.error) for s in store.steps] == [(False, "bad_tool: boom"), (True, None)]


def test_upstream_failed_action_without_an_error_text_names_only_the_tool() -> None:
    results = {"stage": "action_results", "tool_invocations": [{"status": "failed"}]}
    assert fold(ev(0, EventKind.ACT, results)).steps[0].error == "tool"


def test_upstream_act_of_another_stage_is_not_a_tool_result() -> None:
    store = fold(ev(0, EventKind.ACT, {"stage": "start", "tool_invocations": [{"status": "error"}]}))
    assert store.exchanges == [] and store.steps[0].ok is True


def test_upstream_failed_action_error_is_cut_to_80_characters() -> None:
    results = {
        "stage": "action_results",
        "tool_invocations": [{"tool_name": "t", "status": "x", "error": "e" * 90}],
    }
    store = fold(ev(0, EventKind.ACT, results))
    assert store.steps[0].error == "t: " + "e" * 76 + "…"


# ---- native requests replace upstream DECIDE exchanges ---------------------------------------------
def test_a_native_request_replaces_the_decide_exchange_made_just_before_it() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
        ev(0, EventKind.DECIDE, {"stage": "model_output"}),
        ev(0, EventKind.MODEL_RESPONSE, {"request_id": "q"}),
        ev(1, EventKind.MODEL_REQUEST, {"request_id": "q2"}),
    )
    assert [(ex.exchange_id, ex.number, ex.request, ex.response) for ex in store.exchanges] == [
        ("q", 1, 1, 3),
        ("q2", 2, 4, None),
    ]
    assert store.exchange_by_id == {"q2": 1}
    assert [s.requests for s in store.steps] == [(1,), (4,)]
    assert [s.exchanges for s in store.steps] == [(0,), (1,)]


def test_after_a_native_request_upstream_model_stages_make_no_exchange_but_decisions_still_count() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
        ev(1, EventKind.DECIDE, {"stage": "model_input"}),
        ev(1, EventKind.DECIDE, {"stage": "model_output"}),
        ev(1, EventKind.DECIDE, {"stage": "decision_ready", "final_answer": "done"}),
        ev(1, EventKind.ACT, {"stage": "action_results", "tool_invocations": [{"status": "error"}]}),
    )
    assert [ex.exchange_id for ex in store.exchanges] == ["q"]
    assert store.steps[1].requests == () and store.steps[1].action == "final: done"
    assert store.steps[1].ok is True


def test_a_decide_exchange_that_is_not_the_newest_is_left_in_the_log() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "c", "tool": "t"}),
        ev(1, EventKind.TOOL_CALL, {"call_id": "d", "tool": "t"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
    )
    assert [(ex.exchange_id, ex.number) for ex in store.exchanges] == [
        ("decide@0", 1),
        ("tools@1", 2),
        ("q", 3),
    ]
    assert store.exchange_by_id == {"decide@0": 0, "tools@1": 1, "q": 2}
    assert store.steps[0].requests == (0, 3) and store.steps[0].exchanges == (0, 2)


def test_a_decide_exchange_of_another_step_is_left_in_the_log() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}), ev(1, EventKind.MODEL_REQUEST, {"request_id": "q"})
    )
    assert [(ex.exchange_id, ex.number) for ex in store.exchanges] == [("decide@0", 1), ("q", 2)]
    assert store.steps[0].requests == (0,)


def test_a_decide_exchange_with_only_an_answer_is_dropped_and_the_step_requests_stay() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_output"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
    )
    assert [(ex.exchange_id, ex.number, ex.request) for ex in store.exchanges] == [("q", 1, 1)]
    assert store.steps[0].requests == (1,) and store.steps[0].exchanges == (0,)


def test_exchanges_after_a_dropped_one_are_numbered_by_their_position() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(0, EventKind.TOOL_CALL, {"call_id": "k", "tool": "t"}),
        ev(1, EventKind.TOOL_RESULT, {"call_id": "k"}),
    )
    assert [(ex.exchange_id, ex.number) for ex in store.exchanges] == [("a", 1), ("b", 2)]
    assert store.exchanges[1].tool_calls == (3,) and store.exchanges[1].tool_results == (4,)
    assert store.exchange_by_id == {"a": 0, "b": 1}


def test_a_dropped_decide_exchange_leaves_the_step_earlier_exchanges() -> None:
    store = fold(
        ev(0, EventKind.TOOL_CALL, {"call_id": "c", "tool": "t"}),
        ev(0, EventKind.DECIDE, {"stage": "model_input"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "q"}),
    )
    assert [ex.exchange_id for ex in store.exchanges] == ["tools@0", "q"]
    assert store.steps[0].exchanges == (0, 1) and store.steps[0].requests == (2,)


def test_every_upstream_model_input_of_a_step_is_one_of_its_requests() -> None:
    store = fold(
        ev(0, EventKind.DECIDE, {"stage": "model_input"}), ev(0, EventKind.DECIDE, {"stage": "model_input"})
    )
    assert store.steps[0].requests == (0, 1)
    assert [(ex.exchange_id, ex.request) for ex in store.exchanges] == [("decide@0", 1)]


def test_every_upstream_action_results_event_of_a_step_joins_its_exchange() -> None:
    results = {"stage": "action_results", "tool_invocations": []}
    store = fold(ev(0, EventKind.ACT, results), ev(0, EventKind.ACT, results))
    assert [ex.tool_results for ex in store.exchanges] == [(0, 1)]
