"""Exact behaviour of the fold's run-level facts (issue 19): the model, stop reason and result,
memory and skill operations, pauses and rulings, errors and failures, and the run's end."""

from __future__ import annotations

from store_events import ev, fold

from qitos.trace.events import EventKind


def test_memory_operations_are_indexed_at_their_step_and_counted() -> None:
    store = fold(
        ev(0, EventKind.MEMORY_APPEND), ev(0, EventKind.MEMORY_RECALL), ev(1, EventKind.MEMORY_DELETE)
    )
    assert [s.memory for s in store.steps] == [(0, 1), (2,)]
    assert store.memory_ops == 3


def test_skill_operations_are_indexed_at_their_step_and_counted() -> None:
    store = fold(
        ev(0, EventKind.SKILL_PUBLISH), ev(2, EventKind.SKILL_DEPRECATE), ev(2, EventKind.SKILL_PUBLISH)
    )
    assert [s.skills for s in store.steps] == [(0,), (1, 2)]
    assert store.skill_ops == 3


# ---- the model, the stop reason and the result -----------------------------------------------------
def test_upstream_init_names_the_model_unless_a_request_named_it() -> None:
    assert fold(ev(0, EventKind.INIT, {"run_meta": {"model_name": "up-1"}})).model_id == "up-1"
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"model_id": "native"}),
        ev(0, EventKind.INIT, {"run_meta": {"model_name": "up-1"}}),
    )
    assert store.model_id == "native"


def test_upstream_init_without_a_model_name_leaves_the_model_unnamed() -> None:
    assert fold(ev(0, EventKind.INIT, {"run_meta": {}})).model_id == ""


def test_upstream_check_stop_says_why_the_run_stopped_and_what_it_gave() -> None:
    store = fold(
        ev(2, EventKind.CHECK_STOP, {"stage": "stop", "stop_reason": "final_result", "final_result": 7})
    )
    assert (store.stop_reason, store.final_result) == ("final_result", 7)


def test_upstream_check_stop_without_figures_keeps_the_earlier_ones() -> None:
    store = fold(
        ev(1, EventKind.CHECK_STOP, {"stage": "stop", "stop_reason": "budget", "final_result": "r"}),
        ev(2, EventKind.CHECK_STOP, {"stage": "stop"}),
    )
    assert (store.stop_reason, store.final_result) == ("budget", "r")


def test_upstream_check_stop_of_another_stage_says_nothing() -> None:
    store = fold(ev(1, EventKind.CHECK_STOP, {"stage": "continue", "stop_reason": "x", "final_result": 1}))
    assert (store.stop_reason, store.final_result) == (None, None)


def test_upstream_end_says_why_the_run_stopped_or_keeps_the_earlier_reason() -> None:
    assert fold(ev(3, EventKind.END, {"stop_reason": "max_steps"})).stop_reason == "max_steps"
    store = fold(
        ev(1, EventKind.CHECK_STOP, {"stage": "stop", "stop_reason": "budget"}), ev(3, EventKind.END)
    )
    assert store.stop_reason == "budget"


# ---- pauses and rulings ----------------------------------------------------------------------------
def test_a_pause_says_who_paused_why_where_and_what_was_pending() -> None:
    pending = [{"name": "write", "args": {"path": "a"}}]
    store = fold(
        ev(
            2,
            EventKind.LIFECYCLE_PAUSE,
            {
                "policy_id": "agent.policy",
                "reason": "why",
                "step_id": 5,
                "boundary": "before_act",
                "pending_actions": pending,
            },
        )
    )
    pause = store.pause
    assert pause is not None
    assert (pause.policy_id, pause.reason, pause.step, pause.boundary, pause.own) == (
        "agent.policy",
        "why",
        5,
        "before_act",
        False,
    )
    assert pause.pending_actions == pending and type(pause.pending_actions) is list
    assert store.status == "paused" and store.display_status == "paused"
    assert store.steps[0].pauses == (0,)


def test_a_pause_without_a_step_id_is_at_its_event_step_and_the_tui_policy_is_its_own() -> None:
    store = fold(ev(4, EventKind.LIFECYCLE_PAUSE, {"policy_id": "qitos-tui.pause"}))
    assert store.pause is not None
    assert (store.pause.step, store.pause.own, store.pause.pending_actions) == (4, True, [])


def test_a_resume_ends_the_pause_and_the_run_goes_on() -> None:
    store = fold(ev(1, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"}), ev(1, EventKind.LIFECYCLE_RESUME))
    assert store.pause is None and store.status == "running"
    assert store.steps[0].pauses == (0, 1)


def test_a_ruling_on_a_pause_is_kept_as_one_line_with_its_step() -> None:
    ruling = {
        "policy_id": "p",
        "verdict": "denied",
        "by": "person",
        "actions": [{"name": "rm"}],
        "reason": "no",
    }
    store = fold(
        ev(1, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"}), ev(1, EventKind.LIFECYCLE_DECISION, ruling)
    )
    assert store.last_decision == "step 1: denied by person: rm (paused by p) — no"
    assert store.steps[0].pauses == (0, 1)
    assert store.pause is not None  # a ruling is not a resume


# ---- errors and failures ---------------------------------------------------------------------------
def test_an_error_is_indexed_counted_and_fails_the_run_at_its_step() -> None:
    payload = {"category": "network", "message": "refused"}
    store = fold(ev(0, EventKind.OBSERVE), ev(3, EventKind.ERROR, payload, ok=False))
    step = store.steps[1]
    assert (step.errors, step.ok, step.error, step.retries) == ((1,), False, "network: refused", 0)
    assert store.error_count == 1
    assert store.failure == payload and store.failure_step == 3


def test_an_error_without_a_message_says_the_event_error() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "model"}, ok=False, error="HTTP 500"))
    assert store.steps[0].error == "model: HTTP 500"
    store = fold(ev(0, EventKind.ERROR, {"category": "model", "message": ""}, ok=False, error="HTTP 500"))
    assert store.steps[0].error == "model"  # an empty message says nothing: no colon left hanging


def test_an_error_saying_nothing_of_why_names_only_its_category() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "model"}, ok=False))
    assert store.steps[0].error == "model"
    store = fold(ev(0, EventKind.ERROR, ok=False))
    assert store.steps[0].error == "error"


def test_an_error_text_is_cut_to_80_characters() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "c", "message": "m" * 90}, ok=False))
    assert store.steps[0].error == "c: " + "m" * 76 + "…"


def test_a_failed_tool_call_error_fails_its_step_but_not_the_run() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "tool", "message": "bad args"}, ok=False))
    assert (store.steps[0].ok, store.steps[0].error) == (False, "tool: bad args")
    assert store.failure is None and store.failure_step is None


def test_a_retried_error_counts_a_retry_and_neither_fails_the_step_nor_the_run() -> None:
    store = fold(
        ev(0, EventKind.ERROR, {"category": "model", "retrying": True}, ok=False),
        ev(0, EventKind.ERROR, {"category": "model", "retrying": True}, ok=False),
    )
    step = store.steps[0]
    assert (step.retries, step.ok, step.error, step.errors) == (2, True, None, (0, 1))
    assert store.error_count == 2 and store.failure is None


def test_the_latest_failure_is_the_one_kept() -> None:
    store = fold(
        ev(0, EventKind.ERROR, {"category": "a"}, ok=False),
        ev(1, EventKind.ERROR, {"category": "b"}, ok=False),
    )
    assert store.failure == {"category": "b"} and store.failure_step == 1


def test_an_error_naming_a_request_joins_that_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(
            0,
            EventKind.ERROR,
            {"category": "network", "details": {"request_id": "a"}, "retrying": True},
            ok=False,
        ),
        ev(0, EventKind.ERROR, {"category": "model", "details": {"request_id": "a"}}, ok=False),
    )
    assert [ex.errors for ex in store.exchanges] == [(2, 3), ()]


def test_a_model_or_parse_error_naming_no_request_joins_the_step_latest_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "c"}),
        ev(0, EventKind.ERROR, {"category": "model"}, ok=False),
        ev(0, EventKind.ERROR, {"category": "parse"}, ok=False),
        ev(0, EventKind.ERROR, {"category": "model", "details": {"request_id": "gone"}}, ok=False),
    )
    assert [ex.errors for ex in store.exchanges] == [(), (), (3, 4, 5)]


def test_other_errors_naming_no_request_join_no_exchange() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.ERROR, {"category": "network"}, ok=False),
        ev(0, EventKind.ERROR, {"category": "tool"}, ok=False),
        ev(1, EventKind.ERROR, {"category": "model"}, ok=False),
    )
    assert [ex.errors for ex in store.exchanges] == [()]
    assert [s.errors for s in store.steps] == [(1, 2), (3,)]


def test_an_error_naming_an_answered_request_joins_the_step_latest_exchange_only_when_a_model_error() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_RESPONSE, {"request_id": "a"}),
        ev(0, EventKind.ERROR, {"category": "network", "details": {"request_id": "a"}}, ok=False),
    )
    assert [ex.errors for ex in store.exchanges] == [()]


# ---- the run's end ---------------------------------------------------------------------------------
def test_the_run_end_sets_status_reason_result_and_ends_a_pause() -> None:
    store = fold(
        ev(1, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"}),
        ev(1, EventKind.RUN_END, {"status": "stopped", "stop_reason": "cancelled", "final_result": [1]}),
    )
    assert (store.status, store.stop_reason, store.final_result, store.pause) == (
        "stopped",
        "cancelled",
        [1],
        None,
    )


def test_a_run_end_without_figures_keeps_the_earlier_ones() -> None:
    store = fold(
        ev(1, EventKind.CHECK_STOP, {"stage": "stop", "stop_reason": "final_result", "final_result": "r"}),
        ev(1, EventKind.RUN_END),
    )
    assert (store.status, store.stop_reason, store.final_result) == ("running", "final_result", "r")


def test_a_run_end_with_a_null_result_says_so() -> None:
    store = fold(
        ev(1, EventKind.CHECK_STOP, {"stage": "stop", "final_result": "r"}),
        ev(1, EventKind.RUN_END, {"final_result": None}),
    )
    assert store.final_result is None


def test_the_run_end_token_figure_counts_when_larger_than_the_folded_one() -> None:
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 30}}),
        ev(0, EventKind.RUN_END, {"token_usage": 50}),
    )
    assert store.total_tokens == 50
    store = fold(
        ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 30}}),
        ev(0, EventKind.RUN_END, {"token_usage": 20}),
    )
    assert store.total_tokens == 30
    store = fold(ev(0, EventKind.RUN_END, {"token_usage": {"total_tokens": 9}}))
    assert store.total_tokens == 9


def test_a_run_end_without_a_token_figure_leaves_the_count_as_folded() -> None:
    assert fold(ev(0, EventKind.RUN_END)).total_tokens == 0


def test_every_pause_and_resume_of_a_step_is_kept() -> None:
    store = fold(
        ev(1, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"}),
        ev(1, EventKind.LIFECYCLE_RESUME),
        ev(1, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"}),
        ev(1, EventKind.LIFECYCLE_DECISION, {"verdict": "approved"}),
        ev(1, EventKind.LIFECYCLE_RESUME),
    )
    assert store.steps[0].pauses == (0, 1, 2, 3, 4)
