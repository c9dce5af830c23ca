"""Exact behaviour of the fold's small parts: short text, action lines, the list source, budgets,
step extras, the shared-value and kind tables, and latency readings (issue 19)."""

from __future__ import annotations

import pytest

import tui.store as store_module
from qitos.trace.events import EventKind, RunEvent
from tui.event_kinds import ERROR, LIFECYCLE, MODEL, OTHER
from tui.store import (
    Budget,
    ListSource,
    StepExtras,
    StepSummary,
    _kind_of,
    _latency,
    _shared,
    format_action,
    short,
)


def _event(n: int) -> RunEvent:
    return RunEvent("r", n, EventKind.OBSERVE, True, {"n": n}, None, "t")


# ---- short -----------------------------------------------------------------------------------------
def test_short_keeps_a_text_of_exactly_the_default_width_whole() -> None:
    assert short("a" * 60) == "a" * 60


def test_short_cuts_a_text_one_over_the_default_width_to_the_width_with_an_ellipsis() -> None:
    assert short("a" * 59 + "bc") == "a" * 59 + "…"


def test_short_cuts_to_a_given_width() -> None:
    assert short("abcdef", 4) == "abc…"
    assert short("abcd", 4) == "abcd"


def test_short_puts_a_text_on_one_line_with_single_spaces() -> None:
    assert short("  a \n\t b  c ") == "a b c"


def test_short_shows_a_string_as_it_is_and_anything_else_by_its_repr() -> None:
    assert short("x") == "x"
    assert short(["x", 1]) == "['x', 1]"


# ---- format_action ---------------------------------------------------------------------------------
def test_format_action_spells_name_and_each_argument() -> None:
    assert format_action({"name": "write", "args": {"path": "a.py", "n": 2}}) == "write(path=a.py, n=2)"


def test_format_action_cuts_each_argument_to_24_characters() -> None:
    assert format_action({"name": "w", "args": {"b": "y" * 24}}) == "w(b=" + "y" * 24 + ")"
    assert format_action({"name": "w", "args": {"b": "y" * 25}}) == "w(b=" + "y" * 23 + "…)"


def test_format_action_shows_arguments_that_are_not_an_object_as_short_text() -> None:
    assert format_action({"name": "run", "args": "z" * 30}) == "run(" + "z" * 23 + "…)"
    assert format_action({"name": "run", "args": None}) == "run()"
    assert format_action({"name": "run"}) == "run()"


def test_format_action_shows_a_tool_name_that_is_not_text_as_json() -> None:
    assert format_action({"name": 7, "args": {}}) == "7()"


def test_format_action_cuts_the_whole_line_to_60_characters() -> None:
    line = format_action({"name": "n" * 70, "args": {}})
    assert line == "n" * 59 + "…"


def test_format_action_shows_anything_but_an_action_object_as_short_text() -> None:
    assert format_action("the name of it") == "the name of it"
    assert format_action({"args": {"a": 1}}) == "{'args': {'a': 1}}"


# ---- ListSource ------------------------------------------------------------------------------------
def test_list_source_holds_its_events_in_order_and_appends_at_the_end() -> None:
    source = ListSource([_event(0), _event(1)])
    source.append(_event(2))
    assert len(source) == 3
    assert source.event(2).step_id == 2
    assert [e.step_id for e in source.events()] == [0, 1, 2]


def test_list_source_events_are_the_slice_from_start_to_stop() -> None:
    source = ListSource([_event(n) for n in range(5)])
    assert [e.step_id for e in source.events(1, 3)] == [1, 2]
    assert [e.step_id for e in source.events(3)] == [3, 4]


def test_list_source_events_slice_does_not_change_when_appended_to() -> None:
    source = ListSource([_event(0)])
    chunk = source.events()
    source.append(_event(1))
    assert [e.step_id for e in chunk] == [0]


def test_list_source_copies_the_events_it_starts_with() -> None:
    given = [_event(0)]
    source = ListSource(given)
    given.append(_event(1))
    assert len(source) == 1


def test_list_source_starts_empty() -> None:
    assert len(ListSource()) == 0


# ---- Budget ----------------------------------------------------------------------------------------
def test_budget_pairs_each_category_with_its_units_and_sums_them() -> None:
    budget = Budget(max_units=100, unit="chars", names=("a", "b"), units=(3, 4), available_units=93)
    assert budget.used == (("a", 3), ("b", 4))
    assert budget.used_total == 7


def test_budget_with_fewer_figures_than_categories_cannot_be_read_as_pairs() -> None:
    budget = Budget(max_units=100, unit="chars", names=("a", "b"), units=(3,), available_units=None)
    with pytest.raises(ValueError):
        _ = budget.used


# ---- StepSummary extras ----------------------------------------------------------------------------
def test_a_step_without_extras_reads_the_defaults() -> None:
    step = StepSummary(step=0, first=0, last=0)
    assert (step.error, step.retries, step.skills, step.pauses, step.errors, step.raw) == (
        None,
        0,
        (),
        (),
        (),
        (),
    )


def test_setting_a_default_on_a_step_without_extras_keeps_none() -> None:
    step = StepSummary(step=0, first=0, last=0)
    step.retries = 0
    step.error = None
    assert step.extras is None


def test_setting_a_value_on_a_step_without_extras_keeps_it_in_new_extras() -> None:
    step = StepSummary(step=0, first=0, last=0)
    step.retries = 2
    assert step.retries == 2
    assert step.extras == StepExtras(retries=2)


def test_a_value_equal_to_the_default_but_of_another_type_is_kept() -> None:
    step = StepSummary(step=0, first=0, last=0)
    step.retries = False  # == 0, but not the count 0
    assert step.extras is not None and step.retries is False


def test_a_step_with_extras_takes_even_the_default_value() -> None:
    step = StepSummary(step=0, first=0, last=0)
    step.retries = 2
    step.retries = 0
    assert step.retries == 0 and step.extras == StepExtras()


def test_the_extra_fields_read_on_the_class_are_the_descriptors() -> None:
    assert isinstance(StepSummary.__dict__["retries"], store_module._Extra)
    assert StepSummary.retries is StepSummary.__dict__["retries"]
    assert StepSummary.retries.name == "retries"


# ---- _shared ---------------------------------------------------------------------------------------
def test_shared_gives_back_the_equal_value_kept_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_SHARED", {})
    first = _shared(10**6 + 1)
    again = _shared(int("1000001"))
    assert again == first and again is first


def test_shared_never_gives_a_value_of_another_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_SHARED", {})
    assert type(_shared(1)) is int
    assert _shared(True) is True
    assert type(_shared(1.0)) is float
    assert type(_shared(1)) is int


def test_shared_keeps_no_more_than_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    table: dict[object, object] = {}
    monkeypatch.setattr(store_module, "_SHARED", table)
    for n in range(store_module._SHARED_LIMIT + 10):
        assert _shared(n) == n
    assert len(table) == store_module._SHARED_LIMIT == 4096
    assert 4095 in table and 4096 not in table


# ---- _kind_of --------------------------------------------------------------------------------------
def test_kind_of_a_known_kind_gives_its_category_shown_phase_handler_and_tally() -> None:
    code, shown, handler, tally = _kind_of(EventKind.INIT)
    assert (code, shown, tally) == (LIFECYCLE, "INIT", True)
    assert handler is store_module.RunStore._on_init
    assert _kind_of(EventKind.MODEL_REQUEST)[:2] == (MODEL, "")
    assert _kind_of(EventKind.ERROR)[0] == ERROR


def test_kind_of_an_unknown_kind_shows_no_phase_and_has_no_handler() -> None:
    assert _kind_of("no-such-kind-here") == (OTHER, "", None, True)


def test_kind_of_toolset_events_does_not_tally_them_for_a_step() -> None:
    assert _kind_of(EventKind.TOOLSET_TEARDOWN_END)[3] is False
    assert _kind_of(EventKind.TOOLSET_SETUP_START)[3] is False


def test_kind_of_remembers_each_kind_until_the_table_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    table: dict[str, object] = {}
    monkeypatch.setattr(store_module, "_KINDS_SEEN", table)
    monkeypatch.setattr(store_module, "_SHARED_LIMIT", 3)
    for n in range(5):
        _kind_of(f"kind-{n}")
    assert list(table) == ["kind-0", "kind-1", "kind-2"]
    assert table["kind-1"] == (OTHER, "", None, True)


# ---- _latency --------------------------------------------------------------------------------------
def test_latency_reads_a_finite_non_negative_figure() -> None:
    assert _latency({"latency_ms": 12.5}) == 12.5
    assert _latency({"latency_ms": 0.5}) == 0.5
    assert _latency({"latency_ms": 3}) == 3.0


def test_latency_is_zero_when_negative_missing_or_not_a_number() -> None:
    assert _latency({"latency_ms": -1}) == 0.0
    assert _latency({}) == 0.0
    assert _latency({"latency_ms": "5"}) == 0.0


def test_latency_is_capped_at_a_trillion_milliseconds() -> None:
    assert _latency({"latency_ms": 1e15}) == 1e12
    assert _latency({"latency_ms": 1e12}) == 1e12


def test_an_extra_field_is_named_after_the_attribute_it_is_assigned_to() -> None:
    class Holder:
        extra_field = store_module._Extra()

    assert Holder.__dict__["extra_field"].name == "extra_field"


# ---- a tool result's attempts ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "attempts", [None, 0, 1, -3, 2, 7, True, False, 1.0, 2.0, 2.5, "1", "3", 10**30, -(10**30), [2], {}]
)
@pytest.mark.parametrize("ok", [True, False, None])
def test_a_tool_results_attempts_fold_as_the_full_reading_says_whatever_their_type(
    attempts: object, ok: object
) -> None:
    # The fold skips reading a plain first attempt (absent, or an int of at most 1): whatever the
    # value, the category and retries are what reading the result in full gives.
    from qitos.trace.payloads import ToolResult
    from tui.event_kinds import category

    payload: dict[str, object] = {"call_id": "c1", "tool": "read_file", "latency_ms": 1.0}
    if attempts is not None:
        payload["attempts"] = attempts
    if ok is not None:
        payload["ok"] = ok
    store = store_module.RunStore()
    store.apply(
        [RunEvent("r", 0, EventKind.TOOL_CALL, True, {"call_id": "c1", "tool": "read_file"}, None, "t")]
    )
    store.apply([RunEvent("r", 0, EventKind.TOOL_RESULT, True, payload, None, "t")])
    result = ToolResult.read(payload)
    assert store.categories[-1] == category(EventKind.TOOL_RESULT, True, payload)
    assert store.steps[0].retries == max(0, (result.attempts or 1) - 1)
    assert store.steps[0].ok is result.ok
