"""Upstream's in-process memories and history: WindowMemory, SummaryMemory, VectorMemory, WindowHistory."""

from __future__ import annotations

import pytest

from qitos.core.history import HistoryMessage
from qitos.core.memory import MemoryRecord
from qitos.kit.history import WindowHistory
from qitos.kit.memory import SummaryMemory, VectorMemory, window_memory


def records(n: int, role: str = "user") -> list[MemoryRecord]:
    return [MemoryRecord(role, f"fact {i}", i) for i in range(n)]


def test_window_memory_recalls_the_window_with_role_and_step_filters() -> None:
    memory = window_memory(3)
    for record in records(5):
        memory.append(record)
    memory.append(MemoryRecord("assistant", "note", 5))
    assert [r.content for r in memory.retrieve()] == ["fact 3", "fact 4", "note"]
    assert [r.content for r in memory.retrieve({"roles": ["user"]})] == ["fact 3", "fact 4"]
    assert [r.content for r in memory.retrieve({"step_min": 4})] == ["fact 4", "note"]
    assert memory.evict() == 3 and len(memory.records) == 3
    memory.reset()
    assert memory.retrieve() == []
    with pytest.raises(TypeError):
        memory.append("not a record")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        memory.retrieve({"step_min": "4"})


def test_summary_memory_folds_what_it_evicts() -> None:
    memory = SummaryMemory(keep_last=2)
    for record in records(4):
        memory.append(record)
    assert [r.content for r in memory.retrieve()] == ["fact 2", "fact 3"]
    assert [r.content for r in memory.retrieve({"max_items": 3})] == ["fact 1", "fact 2", "fact 3"]
    assert memory.evict() == 2
    assert memory.summaries == ["user:fact 0 | user:fact 1"]
    assert [r.content for r in memory.retrieve({"max_items": 10})] == ["fact 2", "fact 3"]


def test_vector_memory_ranks_by_similarity_deterministically() -> None:
    memory = VectorMemory(top_k=2)
    for text in ("apples and pears", "zzzz zzzz", "apples and pears!"):
        memory.append(MemoryRecord("user", text, 0))
    best = memory.retrieve({"text": "apples and pears"})
    assert [r.content for r in best] == ["apples and pears!", "apples and pears"]
    assert [r.content for r in memory.retrieve()] == ["zzzz zzzz", "apples and pears!"]


def test_window_history_keeps_the_newest_messages_and_filters() -> None:
    history = WindowHistory(window_size=4)
    for step in range(3):
        history.append(HistoryMessage("user", f"q{step}", step))
        history.append(HistoryMessage("assistant", f"a{step}", step))
    assert [m.content for m in history.messages] == ["q1", "a1", "q2", "a2"]
    assert [m.content for m in history.retrieve({"roles": ["assistant"]})] == ["a1", "a2"]
    assert [m.content for m in history.retrieve({"step_min": 2})] == ["q2", "a2"]
    assert [m.content for m in history.retrieve({"max_items": 1})] == ["a2"]
    assert history.summarize(2) == "[2] user: q2\n[2] assistant: a2"
