"""The RunStore fold: synthetic runs, upstream traces, incremental application."""

from __future__ import annotations

import json
from pathlib import Path

from qitos.trace.events import RunEvent
from tui.action_brief import action_brief
from tui.store import ListSource, RunStore, format_action
from tui.synthetic import synthetic_events


def _fold(events: list[RunEvent]) -> RunStore:
    store = RunStore(ListSource(events))
    store.apply(events)
    return store


def test_fold_builds_one_summary_per_step_with_actions_and_errors() -> None:
    events = list(synthetic_events(6))
    store = _fold(events)
    assert [s.step for s in store.steps] == [0, 1, 2, 3, 4, 5]
    assert store.steps[0].action == "read_file calc.py"  # the tool and its most telling argument
    assert store.steps[2].ok is False and "AssertionError" in (store.steps[2].error or "")
    assert store.steps[5].action.startswith("answer: Done")
    assert store.model_id == "scripted-1"
    assert store.status == "completed" and store.display_status == "finished"
    assert store.stop_reason == "final_result"
    assert store.total_tokens == sum(120 + 10 * s for s in range(6))
    assert store.event_count == len(events)


def test_budget_exchanges_memory_skills_and_pause_are_indexed() -> None:
    events = list(synthetic_events(6))
    store = _fold(events)
    s3 = store.steps[3]
    assert s3.budget is not None and s3.budget.max_units == 4000 and s3.budget.unit == "chars"
    assert dict(s3.budget.used)["context"] == 320 and s3.budget.available_units == 4000 - s3.budget.used_total
    assert s3.used_units == 300 + 120 + (200 + 120) + 300
    assert store.used_series()[0] == 300 + 120 + 200
    assert len(store.exchanges) == 6
    ex = store.exchanges[2]
    assert ex.exchange_id == "ex-0002" and ex.request is not None and ex.response is not None
    assert [events[i].phase for i in ex.tool_calls + ex.tool_results] == ["tool_call", "tool_result"]
    assert store.memory_ops == sum(1 for e in events if e.phase.startswith("memory_"))
    assert store.skill_ops == 1
    assert [events[i].phase for i in s3.pauses] == ["lifecycle_pause", "lifecycle_resume"]
    assert store.pause is None  # resumed later in the stream


def test_incremental_apply_equals_one_shot_fold() -> None:
    events = list(synthetic_events(9, pause_at=None))
    whole = _fold(events)
    parts = RunStore(ListSource(events))
    for start in range(0, len(events), 7):
        parts.apply(events[start : start + 7], start)
    assert [(s.step, s.action, s.ok, s.used_units, s.first, s.last) for s in parts.steps] == [
        (s.step, s.action, s.ok, s.used_units, s.first, s.last) for s in whole.steps
    ]
    assert parts.total_tokens == whole.total_tokens and parts.event_count == whole.event_count


def test_used_series_follows_the_fold_as_it_grows_and_when_an_early_step_changes() -> None:
    events = list(synthetic_events(9, pause_at=None))
    store = RunStore(ListSource(events))
    requests = [i for i, e in enumerate(events) if e.phase == "model_request"]
    held = requests[1]  # step 1's request arrives last, after the rest of the run
    order = [i for i in range(len(events)) if i != held]
    for start in range(0, len(order), 5):
        for i in order[start : start + 5]:
            store.apply([events[i]], i)
        assert store.used_series() == [float(s.used_units or 0) for s in store.steps]
    assert store.used_series()[1] == 0.0
    store.apply([events[held]], held)
    assert (
        store.used_series() == [float(s.used_units or 0) for s in store.steps] == _fold(events).used_series()
    )
    assert store.used_series()[1] > 0


def test_pause_without_resume_leaves_store_paused_with_pending_action() -> None:
    events = [e for e in synthetic_events(6, end=False) if not (e.phase == "lifecycle_resume")]
    cut = next(i for i, e in enumerate(events) if e.phase == "lifecycle_pause") + 1
    store = _fold(events[:cut])
    assert store.display_status == "paused"
    assert store.pause is not None and store.pause.policy_id == "demo.pause_before_write"
    assert store.pause.pending_actions == [{"name": "read_file", "args": {"path": "calc.py"}}]
    assert store.pause.own is False


def test_unknown_kinds_are_kept_raw() -> None:
    events = [
        RunEvent("r", 0, "INIT", True, {}, None, "t"),
        RunEvent("r", 0, "weird_kind", True, {"a": 1}, None, "t"),
    ]
    store = _fold(events)
    assert store.unknown_kinds == {"weird_kind": 1}
    assert store.steps[0].raw == (1,)


def test_exchanges_until_limits_and_counts_earlier_ones() -> None:
    store = _fold(list(synthetic_events(8, pause_at=None)))
    begin, shown = store.exchanges_until(5, limit=3)
    assert begin == 3 and [e.step for e in shown] == [3, 4, 5]


def test_format_action_caps_width() -> None:
    text = format_action({"name": "write", "args": {"body": "y" * 200}})
    assert text.startswith("write(body=") and len(text) <= 60


def test_upstream_traces_fold_into_steps_actions_and_model(upstream_trace_dirs: list[Path]) -> None:
    for run_dir in upstream_trace_dirs:
        lines = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
        events = [RunEvent.from_dict(json.loads(line)) for line in lines]
        store = _fold(events)
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        assert len(store.steps) == manifest["step_count"]
        assert store.model_id == manifest["model_id"]
        first = json.loads((run_dir / "steps.jsonl").read_text(encoding="utf-8").splitlines()[0])
        action = first["actions"][0]
        brief = action_brief(action)  # the tool and its most telling argument
        assert store.steps[0].action == brief and brief.startswith(action["name"])
        assert all(ex.request is not None and ex.response is not None for ex in store.exchanges)
        assert store.stop_reason == "final_result"
