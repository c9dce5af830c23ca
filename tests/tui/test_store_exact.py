"""Exact behaviour of the RunStore fold (issue 19): a fresh store, apply over events and records,
the per-event bookkeeping (categories, steps, failures, raw kinds) and the queries the panes read."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from store_events import ev, fold, fold_records

import tui.store as store_module
from qitos.trace.events import EventKind, RunEvent
from tui.event_kinds import ERROR, LIFECYCLE, MODEL, OTHER, RETRY, TOOL
from tui.store import ListSource, RunStore


# ---- a fresh store ---------------------------------------------------------------------------------
def test_a_fresh_store_is_an_empty_live_run() -> None:
    store = RunStore()
    assert len(store.source) == 0 and isinstance(store.source, ListSource)
    assert (store.run_id, store.status, store.display_status) == ("", "running", "live")
    assert store.declared_status is None and store.model_id == ""
    assert store.stop_reason is None and store.final_result is None
    assert (store.total_tokens, store.declared_tokens, store.tokens, store.event_count) == (0, 0, 0, 0)
    assert store.categories == bytearray() and store.steps == [] and len(store.step_pos) == 0
    assert store.exchanges == [] and store.exchange_by_id == {}
    assert store.pause is None and store.last_decision is None and store.error_count == 0
    assert store.failure is None and store.failure_step is None
    assert store.unknown_kinds == {} and store.notices == []
    assert (store.memory_ops, store.skill_ops) == (0, 0)
    assert store.used_series() == [] and store.exchanges_until(0, 5) == (0, [])


def test_a_store_reads_from_the_source_it_is_given() -> None:
    source = ListSource([ev(0, EventKind.INIT)])
    store = RunStore(source, run_id="given")
    assert store.source is source and store.run_id == "given"
    assert store.load(0) is source.event(0)


def test_a_fresh_store_folds_a_first_step_from_its_first_event() -> None:
    store = fold(ev(0, EventKind.OBSERVE))
    assert store.used_series() == [0.0]
    assert store.steps[0].phase == "OBSERVE"


# ---- apply -----------------------------------------------------------------------------------------
def test_apply_returns_how_many_events_it_folded_and_counts_them() -> None:
    store = RunStore()
    assert store.apply([ev(0, EventKind.OBSERVE), ev(0, EventKind.OBSERVE)]) == 2
    assert store.event_count == 2
    assert store.apply([ev(1, EventKind.OBSERVE)]) == 1
    assert store.event_count == 3
    assert [(s.step, s.first, s.last) for s in store.steps] == [(0, 0, 1), (1, 2, 2)]


def test_apply_at_a_start_index_folds_the_events_there() -> None:
    store = RunStore()
    store.apply([ev(4, EventKind.OBSERVE), ev(4, EventKind.OBSERVE)], 5)
    assert (store.steps[0].first, store.steps[0].last) == (5, 6)
    assert store.event_count == 7


def test_apply_of_earlier_events_again_keeps_the_count_of_the_furthest() -> None:
    store = RunStore()
    store.apply([ev(0, EventKind.OBSERVE)] * 4)
    store.apply([ev(0, EventKind.OBSERVE)], 1)
    assert store.event_count == 4


def test_the_run_id_is_taken_from_the_first_event_that_has_one() -> None:
    store = fold(
        ev(0, EventKind.OBSERVE, run_id=""),
        ev(0, EventKind.OBSERVE, run_id="a"),
        ev(0, "OBSERVE", run_id="b"),
    )
    assert store.run_id == "a"


def test_a_store_given_a_run_id_keeps_it() -> None:
    store = RunStore(run_id="mine")
    store.apply([ev(0, EventKind.OBSERVE, run_id="other")])
    assert store.run_id == "mine"


def test_a_record_folds_its_fields_as_an_event_does() -> None:
    store = fold_records(
        {
            "run_id": "rec",
            "step_id": 2,
            "phase": "tool_result",
            "ok": False,
            "payload": {"tool": "t"},
            "error": "e",
        }
    )
    assert store.run_id == "rec"
    step = store.steps[0]
    assert (step.step, step.ok, step.error) == (2, False, "e")
    assert store.categories == bytearray([ERROR])


def test_a_record_without_fields_folds_as_a_successful_step_zero_event_of_no_run() -> None:
    store = fold_records({"phase": "OBSERVE"})
    assert store.run_id == ""
    assert [(s.step, s.ok, s.phase) for s in store.steps] == [(0, True, "OBSERVE")]
    assert store.categories == bytearray([OTHER])


def test_a_record_with_a_step_id_as_text_or_unusable_reads_it_as_an_event_would() -> None:
    store = fold_records(
        {"phase": "OBSERVE", "step_id": "3"},
        {"phase": "OBSERVE", "step_id": 2**63},
        {"phase": "OBSERVE", "step_id": -(2**63)},
        {"phase": "OBSERVE", "step_id": "many"},
        {"phase": "OBSERVE", "step_id": 2**63 - 1},
        {"phase": "OBSERVE", "step_id": -(2**63) + 1},
    )
    assert [s.step for s in store.steps] == [3, 0, 2**63 - 1, -(2**63) + 1]
    assert [(s.first, s.last) for s in store.steps] == [(0, 0), (1, 3), (4, 4), (5, 5)]


def test_a_record_without_a_phase_is_an_event_without_a_kind() -> None:
    store = fold_records({"step_id": 1})
    assert store.unknown_kinds == {"": 1} and store.steps[0].raw == (0,)


def test_a_record_field_of_an_empty_name_is_none_of_its_fields() -> None:
    store = fold_records({"": "x", "phase": "OBSERVE"})
    assert store.run_id == "" and store.steps[0].phase == "OBSERVE"


def test_a_record_with_a_run_id_that_is_not_text_has_no_run_id() -> None:
    store = fold_records({"phase": "OBSERVE", "run_id": 5}, {"phase": "OBSERVE", "run_id": "late"})
    assert store.run_id == "late"


def test_a_record_spells_ok_as_a_word_and_the_word_is_read() -> None:
    store = fold_records(
        {"phase": "OBSERVE", "step_id": 0, "ok": "no"}, {"phase": "OBSERVE", "step_id": 1, "ok": "yes"}
    )
    assert [s.ok for s in store.steps] == [False, True]
    assert store.categories == bytearray([ERROR, OTHER])


def test_a_record_with_ok_false_fails_its_step() -> None:
    store = fold_records({"phase": "OBSERVE", "ok": False})
    assert store.steps[0].ok is False and store.steps[0].error == "OBSERVE"


def test_a_record_whose_payload_is_not_an_object_keeps_it_as_the_value() -> None:
    store = fold_records({"phase": "error", "ok": False, "payload": [1, 2]})
    assert store.failure == {"value": [1, 2]}


def test_a_record_whose_error_is_not_text_reads_it_as_text() -> None:
    store = fold_records({"phase": "OBSERVE", "ok": False, "error": {"why": 1}})
    assert store.steps[0].error == '{"why": 1}'
    store = fold_records({"phase": "OBSERVE", "ok": False, "error": "plain"})
    assert store.steps[0].error == "plain"


def test_an_event_whose_payload_is_not_an_object_folds_as_an_empty_one() -> None:
    store = fold(RunEvent("r", 0, EventKind.RUN_END, True, None, None, "t"))  # type: ignore[arg-type]
    assert store.status == "running" and store.steps[0].ok is True


def test_an_event_whose_phase_is_not_text_is_an_event_without_a_kind() -> None:
    store = fold_records({"phase": 5})
    assert store.unknown_kinds == {"": 1}
    assert store.notices == ["events without a kind (first at event 1): shown as raw events"]


def test_an_event_whose_step_id_is_text_folds_at_that_step() -> None:
    store = fold(ev("4", EventKind.OBSERVE), ev("four", EventKind.OBSERVE))
    assert [s.step for s in store.steps] == [4, 0]


# ---- categories ------------------------------------------------------------------------------------
def test_each_event_gets_the_category_of_its_kind() -> None:
    store = fold(
        ev(0, EventKind.INIT),
        ev(0, EventKind.MODEL_REQUEST),
        ev(0, EventKind.TOOL_CALL),
        ev(0, EventKind.OBSERVE),
        ev(0, "category-test-kind"),
    )
    assert store.categories == bytearray([LIFECYCLE, MODEL, TOOL, OTHER, OTHER])


def test_a_failed_event_is_an_error_whatever_its_kind() -> None:
    store = fold(ev(0, EventKind.TOOL_CALL, ok=False), ev(0, "failed-category-kind", ok=False))
    assert store.categories == bytearray([ERROR, ERROR])


def test_a_successful_event_with_more_than_one_attempt_is_a_retry() -> None:
    store = fold(
        ev(0, EventKind.TOOL_RESULT, {"ok": True, "attempts": 2}),
        ev(0, EventKind.TOOL_RESULT, {"ok": True, "attempts": 1}),
    )
    assert store.categories == bytearray([RETRY, TOOL])


def test_an_event_folded_past_the_end_leaves_other_for_the_gap() -> None:
    store = RunStore()
    store.apply([ev(0, EventKind.TOOL_CALL)], 3)
    assert store.categories == bytearray([OTHER, OTHER, OTHER, TOOL])


def test_an_event_folded_again_replaces_its_category() -> None:
    store = fold(ev(0, EventKind.TOOL_CALL), ev(0, EventKind.TOOL_CALL))
    store.apply([ev(0, EventKind.MODEL_REQUEST)], 0)
    assert store.categories == bytearray([MODEL, TOOL])


def test_toolset_events_are_categorised_but_make_no_step() -> None:
    store = fold(ev(0, EventKind.TOOLSET_TEARDOWN_START), ev(0, EventKind.TOOLSET_SETUP_END, ok=False))
    assert store.steps == [] and store.event_count == 2
    assert store.categories == bytearray([OTHER, ERROR])


# ---- steps -----------------------------------------------------------------------------------------
def test_a_step_spans_from_its_first_to_its_last_event() -> None:
    store = fold(
        ev(0, EventKind.OBSERVE), ev(1, EventKind.OBSERVE), ev(0, EventKind.ACT), ev(1, EventKind.END)
    )
    assert [(s.step, s.first, s.last) for s in store.steps] == [(0, 0, 2), (1, 1, 3)]


def test_an_event_folded_again_does_not_move_a_step_end_back() -> None:
    store = fold(ev(0, EventKind.OBSERVE), ev(0, EventKind.OBSERVE), ev(0, EventKind.OBSERVE))
    store.apply([ev(0, EventKind.OBSERVE)], 1)
    assert (store.steps[0].first, store.steps[0].last) == (0, 2)


def test_a_step_shows_the_latest_engine_phase_it_reached() -> None:
    store = fold(
        ev(0, EventKind.INIT), ev(0, EventKind.DECIDE), ev(0, EventKind.MODEL_REQUEST), ev(0, "REDUCE")
    )
    assert store.steps[0].phase == "DECIDE"
    store.apply([ev(0, EventKind.ACT), ev(0, EventKind.END)])
    assert store.steps[0].phase == "END"


def test_steps_are_found_again_by_id_when_numbered_out_of_order() -> None:
    store = fold(ev(5, EventKind.OBSERVE), ev(2, EventKind.OBSERVE), ev(5, EventKind.ACT))
    assert [(s.step, s.first, s.last) for s in store.steps] == [(5, 0, 2), (2, 1, 1)]


def test_a_failed_event_fails_its_step_with_its_error() -> None:
    store = fold(ev(0, EventKind.ACT, ok=False, error="it broke"))
    assert (store.steps[0].ok, store.steps[0].error) == (False, "it broke")


def test_a_failed_event_without_an_error_says_its_message_or_else_its_kind() -> None:
    store = fold(ev(0, EventKind.ACT, {"message": "said why"}, ok=False), ev(1, EventKind.ACT, ok=False))
    assert [s.error for s in store.steps] == ["said why", "ACT"]


def test_a_step_error_is_cut_to_80_characters() -> None:
    store = fold(
        ev(0, EventKind.ACT, ok=False, error="e" * 80), ev(1, EventKind.ACT, ok=False, error="e" * 81)
    )
    assert [s.error for s in store.steps] == ["e" * 80, "e" * 79 + "…"]


def test_a_retried_error_does_not_fail_its_step() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "model", "retrying": True}, ok=False))
    assert store.steps[0].ok is True and store.steps[0].error is None
    assert store.steps[0].retries == 1


def test_a_failed_event_that_says_retrying_but_is_no_error_fails_its_step() -> None:
    store = fold(ev(0, EventKind.ACT, {"retrying": True}, ok=False, error="x"))
    assert (store.steps[0].ok, store.steps[0].error) == (False, "x")


def test_an_error_not_retried_fails_its_step() -> None:
    store = fold(ev(0, EventKind.ERROR, {"category": "tool", "message": "no", "retrying": False}, ok=False))
    assert (store.steps[0].ok, store.steps[0].error) == (False, "tool: no")


def test_events_of_known_kinds_without_a_pane_of_their_own_are_not_raw() -> None:
    store = fold(ev(0, EventKind.OBSERVE), ev(0, EventKind.REDUCE), ev(0, EventKind.CRITIC))
    assert store.steps[0].raw == () and store.unknown_kinds == {} and store.notices == []


# ---- raw events ------------------------------------------------------------------------------------
def test_unknown_kinds_are_kept_raw_counted_and_noticed_once_each() -> None:
    store = fold(
        ev(0, EventKind.OBSERVE),
        ev(0, "raw-kind-a"),
        ev(1, "raw-kind-a"),
        ev(1, "raw-kind-b"),
        ev(1, "raw-kind-a"),
    )
    assert store.unknown_kinds == {"raw-kind-a": 3, "raw-kind-b": 1}
    assert [s.raw for s in store.steps] == [(1,), (2, 3, 4)]
    assert store.notices == [
        "unknown event kind 'raw-kind-a' (first at event 2): shown as raw events",
        "unknown event kind 'raw-kind-b' (first at event 4): shown as raw events",
    ]


def test_an_unknown_kind_is_named_in_its_notice_cut_to_40_characters() -> None:
    kind = "k" * 45
    store = fold(ev(0, kind))
    assert store.notices == [f"unknown event kind '{'k' * 39}…' (first at event 1): shown as raw events"]


def test_events_without_a_kind_are_noticed_once() -> None:
    store = fold(ev(0, ""), ev(0, ""))
    assert store.unknown_kinds == {"": 2}
    assert store.notices == ["events without a kind (first at event 1): shown as raw events"]


def test_every_malformed_line_gets_its_own_notice_worded_as_the_reader_words_it() -> None:
    store = fold(
        ev(0, "<malformed>", {"line": 3}, ok=False, error="malformed trace line 3: not JSON"),
        ev(0, "<malformed>", {"line": 7}, ok=False, error="malformed trace line 7: cut short"),
    )
    assert store.unknown_kinds == {"<malformed>": 2}
    assert store.notices == [
        "events.jsonl line 3: not JSON; shown as a raw event",
        "events.jsonl line 7: cut short; shown as a raw event",
    ]


def test_a_malformed_line_without_a_reason_is_noticed_as_unreadable() -> None:
    store = fold(ev(0, "<malformed>", {"line": 2}, ok=False))
    assert store.notices == ["events.jsonl line 2: unreadable; shown as a raw event"]


# ---- queries ---------------------------------------------------------------------------------------
def test_the_status_word_follows_the_run_end() -> None:
    assert fold(ev(0, EventKind.RUN_END, {"status": "failed"})).display_status == "failed"
    assert fold(ev(0, EventKind.RUN_END, {"status": "stopped"})).display_status == "stopped"


def test_an_unknown_status_is_shown_as_it_is_written() -> None:
    assert fold(ev(0, EventKind.RUN_END, {"status": "odd-status"})).display_status == "odd-status"


def test_the_manifest_status_is_the_last_word_while_the_events_say_running_or_paused() -> None:
    store = RunStore()
    store.declared_status = "interrupted"
    assert store.display_status == "interrupted"
    store.apply([ev(0, EventKind.LIFECYCLE_PAUSE, {"policy_id": "p"})])
    assert store.display_status == "interrupted"
    store.apply([ev(0, EventKind.RUN_END, {"status": "completed"})])
    assert store.display_status == "finished"


def test_the_run_tokens_are_the_larger_of_the_folded_and_the_declared_figures() -> None:
    store = fold(ev(0, EventKind.MODEL_RESPONSE, {"usage": {"total_tokens": 50}}))
    assert store.tokens == 50
    store.declared_tokens = 80
    assert store.tokens == 80
    store.declared_tokens = 20
    assert store.tokens == 50


def test_used_series_gives_each_step_its_used_units_and_zero_without_a_budget() -> None:
    budget = {"view": {"budget": {"max_units": 100, "used": {"a": 30, "b": 12}}}}
    store = fold(ev(0, EventKind.MODEL_REQUEST, budget), ev(1, EventKind.OBSERVE))
    assert store.used_series() == [42.0, 0.0]
    store.apply([ev(2, EventKind.MODEL_REQUEST, budget)])
    assert store.used_series() == [42.0, 0.0, 42.0]


def test_used_series_sees_a_budget_arriving_for_an_early_step() -> None:
    budget = {"view": {"budget": {"max_units": 100, "used": {"a": 7}}}}
    store = fold(ev(0, EventKind.OBSERVE), ev(1, EventKind.OBSERVE))
    assert store.used_series() == [0.0, 0.0]
    store.apply([ev(0, EventKind.MODEL_REQUEST, budget)])
    assert store.used_series() == [7.0, 0.0]


def test_exchanges_until_ends_at_the_last_exchange_up_to_the_step() -> None:
    store = fold(
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "a"}),
        ev(0, EventKind.MODEL_REQUEST, {"request_id": "b"}),
        ev(1, EventKind.OBSERVE),
        ev(2, EventKind.MODEL_REQUEST, {"request_id": "c"}),
    )
    begin, shown = store.exchanges_until(1, limit=5)
    assert begin == 0 and [e.exchange_id for e in shown] == ["a", "b"]
    begin, shown = store.exchanges_until(2, limit=2)
    assert begin == 1 and [e.exchange_id for e in shown] == ["b", "c"]
    begin, shown = store.exchanges_until(99, limit=1)
    assert begin == 2 and [e.exchange_id for e in shown] == ["c"]


def test_exchanges_until_a_step_before_any_exchange_is_empty() -> None:
    store = fold(ev(0, EventKind.OBSERVE), ev(1, EventKind.MODEL_REQUEST, {"request_id": "a"}))
    assert store.exchanges_until(0, limit=5) == (0, [])


def test_exchanges_until_on_a_store_without_steps_is_empty() -> None:
    assert RunStore().exchanges_until(3, 3) == (0, [])


def test_a_record_payload_object_is_read_by_its_kind() -> None:
    store = fold_records({"phase": "run_end", "payload": {"status": "completed"}})
    assert store.status == "completed"


def test_an_event_payload_of_a_dict_subclass_is_read_as_the_dict_it_is() -> None:
    payload = OrderedDict(status="failed")
    store = fold(RunEvent("r", 0, EventKind.RUN_END, True, payload, None, "t"))
    assert store.status == "failed"


def test_a_store_folds_kinds_it_meets_for_the_first_time_and_remembers_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table: dict[str, Any] = {}
    monkeypatch.setattr(store_module, "_KINDS_SEEN", table)
    store = fold(ev(0, EventKind.INIT), ev(0, EventKind.TOOL_CALL), ev(0, EventKind.INIT))
    assert store.categories == bytearray([LIFECYCLE, TOOL, LIFECYCLE])
    assert set(table) == {"INIT", "tool_call"}


def test_an_event_folded_past_the_end_of_earlier_ones_fills_only_the_gap() -> None:
    store = fold(ev(0, EventKind.TOOL_CALL))
    store.apply([ev(0, EventKind.MODEL_REQUEST)], 3)
    assert store.categories == bytearray([TOOL, OTHER, OTHER, MODEL])


def test_an_event_integer_step_id_is_taken_as_it_is() -> None:
    store = fold(ev(2**64, EventKind.OBSERVE))
    assert store.steps[0].step == 2**64
