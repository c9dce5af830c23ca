"""Exact SummaryMemory behaviour: keep_last's bounds and default, max_items at 0, 1 and negative,
the folded summary lines (format, cut, what is folded), evict's count and reset, and its events."""

from __future__ import annotations

from typing import Any

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.summary_memory import SummaryMemory


def filled(keep_last: int, count: int) -> SummaryMemory:
    memory = SummaryMemory(keep_last=keep_last)
    for step in range(count):
        memory.append(MemoryRecord("user", f"fact {step}", step))
    return memory


def contents(records: list[MemoryRecord]) -> list[Any]:
    return [r.content for r in records]


@pytest.mark.parametrize("keep_last", [-1, True, 2.0, "3"])
def test_keep_last_must_be_a_non_negative_int(keep_last: Any) -> None:
    with pytest.raises(ValueError) as caught:
        SummaryMemory(keep_last=keep_last)
    assert str(caught.value) == f"SummaryMemory.keep_last must be an int >= 0, got {keep_last!r}"


def test_keep_last_zero_recalls_nothing_and_evict_folds_everything() -> None:
    memory = filled(0, 2)
    assert memory.retrieve() == []
    assert memory.evict() == 2
    assert memory.summaries == ["user:fact 0 | user:fact 1"]


def test_default_keeps_the_newest_ten() -> None:
    memory = SummaryMemory()
    for step in range(12):
        memory.append(MemoryRecord("user", f"fact {step}", step))
    assert contents(memory.retrieve()) == [f"fact {s}" for s in range(2, 12)]


def test_max_items_of_one_recalls_the_newest() -> None:
    assert contents(filled(3, 4).retrieve({"max_items": 1})) == ["fact 3"]


@pytest.mark.parametrize("count", [0, -2])
def test_max_items_of_zero_or_less_recalls_nothing(count: int) -> None:
    assert filled(3, 4).retrieve({"max_items": count}) == []


def test_max_items_must_be_an_int() -> None:
    with pytest.raises(ValueError, match="'max_items' must be an int"):
        filled(3, 1).retrieve({"max_items": "2"})


def test_summarize_folds_the_newest_five_by_default_and_keeps_the_line() -> None:
    memory = filled(10, 7)
    line = memory.summarize()
    assert line == " | ".join(f"user:fact {s}" for s in range(2, 7))
    assert memory.summaries == [line]
    assert len(memory.retrieve()) == 7  # summarising drops nothing


def test_summarize_of_one_item_folds_the_newest() -> None:
    assert filled(10, 3).summarize(max_items=1) == "user:fact 2"


@pytest.mark.parametrize("count", [0, -1])
def test_summarize_of_no_items_is_empty_and_keeps_no_line(count: int) -> None:
    memory = filled(10, 3)
    assert memory.summarize(max_items=count) == ""
    assert memory.summaries == []


def test_summarize_of_an_empty_memory_keeps_no_line() -> None:
    memory = SummaryMemory()
    assert memory.summarize() == ""
    assert memory.summaries == []


def test_fold_cuts_each_content_at_80_characters_and_renders_data_as_json() -> None:
    memory = SummaryMemory(keep_last=5)
    memory.append(MemoryRecord("user", "b" * 90, 0))
    memory.append(MemoryRecord("tool", {"k": 1}, 1))
    assert memory.summarize() == f"user:{'b' * 80} | " + 'tool:{"k": 1}'


def test_evict_folds_exactly_the_dropped_records_and_counts_them() -> None:
    memory = filled(2, 5)
    assert memory.evict() == 3
    assert memory.summaries == ["user:fact 0 | user:fact 1 | user:fact 2"]
    assert contents(memory.retrieve()) == ["fact 3", "fact 4"]


def test_evict_of_one_extra_record_folds_it() -> None:
    memory = filled(2, 3)
    assert memory.evict() == 1
    assert memory.summaries == ["user:fact 0"]
    assert contents(memory.retrieve({"max_items": 5})) == ["fact 1", "fact 2"]


@pytest.mark.parametrize("count", [2, 1])
def test_evict_within_keep_last_folds_nothing(count: int) -> None:
    memory = filled(2, count)
    assert memory.evict() == 0
    assert memory.summaries == []
    assert len(memory.retrieve()) == count


def test_summaries_is_a_copy() -> None:
    memory = filled(1, 2)
    memory.evict()
    memory.summaries.clear()
    assert memory.summaries == ["user:fact 0"]


def test_reset_forgets_records_and_summaries() -> None:
    memory = filled(1, 3)
    memory.evict()
    memory.reset("run-2")
    assert memory.retrieve({"max_items": 10}) == [] and memory.summaries == []


def test_append_refuses_non_records() -> None:
    memory = SummaryMemory()
    with pytest.raises(TypeError, match="append expects a MemoryRecord, got int"):
        memory.append(3)  # type: ignore[arg-type]
    assert memory.retrieve() == []


def test_events_carry_the_summary_namespace_the_chars_and_the_given_query(events: list) -> None:
    memory = SummaryMemory(keep_last=3)
    memory.append(MemoryRecord("tool", "four", 1, record_id="s1"))
    memory.retrieve({"max_items": 2})
    assert events == [
        (
            "memory_append",
            {"record_id": "s1", "role": "tool", "step_id": 1, "namespace": "summary", "chars": 4},
        ),
        (
            "memory_recall",
            {
                "namespace": "summary",
                "query": {"max_items": 2},
                "record_ids": ["s1"],
                "records": [{"record_id": "s1", "role": "tool", "content": "four"}],
            },
        ),
    ]


def test_namespace_can_be_named(events: list) -> None:
    memory = SummaryMemory(namespace="digest")
    memory.append(MemoryRecord("user", "x", 0))
    memory.retrieve()
    assert [payload["namespace"] for _, payload in events] == ["digest", "digest"]
