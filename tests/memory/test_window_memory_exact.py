"""Exact WindowMemory behaviour: the window edges (0, 1, negative), role and step filters at their
bounds, summarize's lines and cut, evict's count, the record and option checks word for word, and
the events it emits."""

from __future__ import annotations

from typing import Any

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.window_memory import WindowMemory, check_record, int_option


def filled(window_size: int, count: int, role: str = "user") -> WindowMemory:
    memory = WindowMemory(window_size)
    for step in range(count):
        memory.append(MemoryRecord(role, f"fact {step}", step))
    return memory


def contents(records: list[MemoryRecord]) -> list[Any]:
    return [r.content for r in records]


def test_check_record_returns_the_record_itself() -> None:
    record = MemoryRecord("user", "x", 0)
    assert check_record(record) is record


def test_check_record_names_what_it_got() -> None:
    with pytest.raises(TypeError) as caught:
        check_record("text")
    assert str(caught.value) == "append expects a MemoryRecord, got str"


def test_int_option_reads_the_key_or_the_default() -> None:
    assert int_option({"k": 3}, "k") == 3
    assert int_option({}, "k", 7) == 7
    assert int_option({}, "k") is None
    assert int_option({"k": None}, "k", 7) is None


@pytest.mark.parametrize("value", [True, "4", 4.0])
def test_int_option_refuses_bools_and_non_ints_by_key_and_value(value: Any) -> None:
    with pytest.raises(ValueError) as caught:
        int_option({"step_min": value}, "step_min")
    assert str(caught.value) == f"memory query 'step_min' must be an int, got {value!r}"


@pytest.mark.parametrize("size", [True, 2.0, "3"])
def test_window_size_must_be_an_int(size: Any) -> None:
    with pytest.raises(ValueError) as caught:
        WindowMemory(size)
    assert str(caught.value) == f"WindowMemory.window_size must be an int, got {size!r}"


def test_default_window_is_twenty_records() -> None:
    memory = WindowMemory()
    for step in range(25):
        memory.append(MemoryRecord("user", f"fact {step}", step))
    assert contents(memory.retrieve()) == [f"fact {step}" for step in range(5, 25)]


def test_window_of_one_recalls_only_the_newest() -> None:
    assert contents(filled(1, 3).retrieve()) == ["fact 2"]


@pytest.mark.parametrize("size", [0, -2])
def test_window_of_zero_or_less_recalls_every_record(size: int) -> None:
    assert contents(filled(size, 3).retrieve()) == ["fact 0", "fact 1", "fact 2"]


def test_records_is_a_copy_of_everything_kept() -> None:
    memory = filled(2, 3)
    copy = memory.records
    copy.clear()
    assert contents(memory.records) == ["fact 0", "fact 1", "fact 2"]


def test_empty_roles_filter_keeps_every_role() -> None:
    memory = filled(5, 2)
    memory.append(MemoryRecord("tool", "t", 2))
    assert contents(memory.retrieve({"roles": []})) == ["fact 0", "fact 1", "t"]


def test_roles_filter_keeps_every_listed_role() -> None:
    memory = WindowMemory(5)
    for role in ("user", "tool", "assistant"):
        memory.append(MemoryRecord(role, role, 0))
    assert contents(memory.retrieve({"roles": ["tool", "assistant"]})) == ["tool", "assistant"]


def test_step_min_is_inclusive() -> None:
    assert contents(filled(5, 4).retrieve({"step_min": 2})) == ["fact 2", "fact 3"]


def test_roles_and_step_min_apply_together() -> None:
    memory = filled(10, 3)
    memory.append(MemoryRecord("tool", "late tool", 3))
    memory.append(MemoryRecord("tool", "early tool", 0))
    assert contents(memory.retrieve({"roles": ["tool"], "step_min": 1})) == ["late tool"]


def test_step_min_must_be_an_int() -> None:
    with pytest.raises(ValueError, match="'step_min' must be an int"):
        filled(3, 1).retrieve({"step_min": True})


def test_summarize_shows_the_newest_five_by_default_as_step_role_content_lines() -> None:
    memory = filled(10, 7)
    assert memory.summarize() == "\n".join(f"[{s}] user: fact {s}" for s in range(2, 7))


def test_summarize_reads_only_the_window() -> None:
    assert filled(2, 5).summarize(max_items=4) == "[3] user: fact 3\n[4] user: fact 4"


def test_summarize_with_a_window_of_zero_reads_every_record() -> None:
    assert filled(0, 3).summarize(max_items=10) == "[0] user: fact 0\n[1] user: fact 1\n[2] user: fact 2"


def test_summarize_of_one_item_is_the_newest_line() -> None:
    assert filled(5, 3).summarize(max_items=1) == "[2] user: fact 2"


@pytest.mark.parametrize("count", [0, -1])
def test_summarize_of_no_items_is_empty(count: int) -> None:
    assert filled(5, 3).summarize(max_items=count) == ""


def test_summarize_cuts_content_at_120_characters_and_renders_data_as_json() -> None:
    memory = WindowMemory(5)
    memory.append(MemoryRecord("user", "a" * 130, 0))
    memory.append(MemoryRecord("tool", {"k": 1}, 1))
    assert memory.summarize() == f"[0] user: {'a' * 120}\n" + '[1] tool: {"k": 1}'


def test_evict_drops_what_is_older_than_the_window_and_counts_it() -> None:
    memory = filled(2, 5)
    assert memory.evict() == 3
    assert contents(memory.records) == ["fact 3", "fact 4"]
    assert memory.evict() == 0


def test_evict_of_a_single_extra_record_drops_it() -> None:
    memory = filled(2, 3)
    assert memory.evict() == 1
    assert contents(memory.records) == ["fact 1", "fact 2"]


def test_evict_with_an_unbounded_window_keeps_everything() -> None:
    memory = filled(0, 3)
    assert memory.evict() == 0
    assert len(memory.records) == 3


def test_evict_within_the_window_keeps_everything() -> None:
    memory = filled(5, 3)
    assert memory.evict() == 0
    assert len(memory.records) == 3


def test_reset_forgets_every_record() -> None:
    memory = filled(5, 3)
    memory.reset("run-2")
    assert memory.records == [] and memory.retrieve() == []


def test_append_refuses_non_records_and_keeps_nothing() -> None:
    memory = WindowMemory(3)
    with pytest.raises(TypeError):
        memory.append({"role": "user"})  # type: ignore[arg-type]
    assert memory.records == []


def test_events_carry_the_window_namespace_the_chars_and_the_given_query(events: list) -> None:
    memory = WindowMemory(3)
    memory.append(MemoryRecord("tool", {"k": 1}, 2, record_id="w1"))
    memory.retrieve({"roles": ["tool"], "step_min": 0})
    assert events == [
        (
            "memory_append",
            {"record_id": "w1", "role": "tool", "step_id": 2, "namespace": "window", "chars": 8},
        ),
        (
            "memory_recall",
            {
                "namespace": "window",
                "query": {"roles": ["tool"], "step_min": 0},
                "record_ids": ["w1"],
                "records": [{"record_id": "w1", "role": "tool", "content": {"k": 1}}],
            },
        ),
    ]


def test_namespace_can_be_named(events: list) -> None:
    memory = WindowMemory(3, namespace="scratch")
    memory.append(MemoryRecord("user", "x", 0))
    memory.retrieve()
    assert [payload["namespace"] for _, payload in events] == ["scratch", "scratch"]


def test_evict_with_a_window_of_one_keeps_only_the_newest() -> None:
    memory = filled(1, 3)
    assert memory.evict() == 2
    assert contents(memory.records) == ["fact 2"]


def test_summarize_with_a_window_of_one_reads_only_the_newest() -> None:
    assert filled(1, 3).summarize(max_items=5) == "[2] user: fact 2"


def test_summarize_with_a_negative_window_reads_every_record() -> None:
    assert filled(-2, 3).summarize(max_items=5) == "[0] user: fact 0\n[1] user: fact 1\n[2] user: fact 2"
