"""MemorySourceAdapter: fresh recall per request, namespace as a label, required/priority honoured."""

from __future__ import annotations

from typing import Any

import pytest

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    PriorityContextSelectionPolicy,
    StaticContextContributor,
)
from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.adapter import MemorySourceAdapter
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory


class CountingMemory(Memory):
    """A plain Memory (not from the kit) that counts calls, to check the adapter borrows it."""

    def __init__(self) -> None:
        self.records: list[MemoryRecord] = []
        self.retrieves = 0
        self.resets = 0
        self.closed = False

    def append(self, record: MemoryRecord) -> None:
        self.records.append(record)

    def retrieve(self, query: Any = None, state: Any = None, observation: Any = None) -> list[MemoryRecord]:
        self.retrieves += 1
        return list(self.records)

    def summarize(self, max_items: int = 5) -> str:
        return ""

    def evict(self) -> int:
        return 0

    def reset(self, run_id: str | None = None) -> None:
        self.resets += 1

    def close(self) -> None:
        self.closed = True


def test_every_request_recalls_fresh(memdir: MemdirMemory) -> None:
    """Each contribute() reads the memory again: an external edit shows in the next request."""
    memdir.append(MemoryRecord("user", "remembered-value=17", 0, record_id="v"))
    source = MemorySourceAdapter(memdir, namespace="project", required=True, priority=4)
    [first] = source.contribute(None)
    assert isinstance(first, ContextContribution)
    assert "remembered-value=17" in first.text
    path = memdir.records_dir / record_filename("v")
    path.write_text(path.read_text().replace("17", "18"))
    [second] = source.contribute(None)
    assert "remembered-value=18" in second.text and "17" not in second.text
    restored = MemorySourceAdapter(MemdirMemory(str(memdir.root)), namespace="project")
    assert "remembered-value=18" in restored.contribute(None)[0].text


def test_contribution_fields(memdir: MemdirMemory) -> None:
    """The contribution carries required/priority, user placement and the namespace as a label."""
    memdir.append(MemoryRecord("assistant", "fact", 2))
    source = MemorySourceAdapter(memdir, namespace="team notes", required=True, priority=7)
    [item] = source.contribute(object())
    assert item.required is True and item.priority == 7
    assert item.requested_placement == "user"
    assert item.contribution_id == "memory.team notes" and item.source == "memory:team notes"
    assert item.text == "Recalled memory (team notes):\n- [assistant @ step 2] fact"


def test_empty_memory_contributes_nothing(memdir: MemdirMemory) -> None:
    """No recalled records means no contribution (not an empty one)."""
    assert MemorySourceAdapter(memdir, namespace="p").contribute(None) == ()


def test_query_is_passed_through(memdir: MemdirMemory) -> None:
    """The adapter's query filters what is recalled; a bad query fails at construction."""
    memdir.append(MemoryRecord("user", "u", 0))
    memdir.append(MemoryRecord("tool", "t", 1))
    [item] = MemorySourceAdapter(memdir, namespace="p", query={"role": "tool"}).contribute(None)
    assert item.text.endswith("- [tool @ step 1] t")
    with pytest.raises(ValueError, match="unknown memory query key"):
        MemorySourceAdapter(memdir, namespace="p", query={"nope": 1})


def test_reset_and_close_never_touch_the_borrowed_memory() -> None:
    """reset/close are no-ops for the memory: it is neither reset nor closed."""
    memory = CountingMemory()
    memory.append(MemoryRecord("user", "x", 0))
    source = MemorySourceAdapter(memory, namespace="p")
    source.reset("run-1")
    source.close()
    assert memory.resets == 0 and memory.closed is False
    assert len(source.contribute(None)) == 1 and memory.retrieves == 1
    assert source.revision == 1


def test_bad_arguments() -> None:
    """Non-Memory, empty namespace, non-bool required, non-int priority are refused."""
    with pytest.raises(TypeError, match="Memory"):
        MemorySourceAdapter(object(), namespace="p")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="namespace"):
        MemorySourceAdapter(CountingMemory(), namespace=" ")
    with pytest.raises(TypeError, match="required"):
        MemorySourceAdapter(CountingMemory(), namespace="p", required=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="priority"):
        MemorySourceAdapter(CountingMemory(), namespace="p", priority="1")  # type: ignore[arg-type]


def test_required_memory_beats_optional_priority(memdir: MemdirMemory) -> None:
    """Under a tight budget a required memory contribution is kept over a higher-priority optional one."""
    memdir.append(MemoryRecord("user", "m" * 40, 0))
    [memory_item] = MemorySourceAdapter(memdir, namespace="p", required=True, priority=0).contribute(None)
    [optional] = StaticContextContributor("notes", "project", "n" * 40, priority=100).contribute(None)
    budget = ContextBudget(max_input_units=memory_item.units + 10)
    selection = PriorityContextSelectionPolicy().select([optional, memory_item], budget=budget)
    assert [d.contribution.contribution_id for d in selection.selected] == ["memory.p"]
    assert [d.contribution.contribution_id for d in selection.omitted] == ["notes"]
    with pytest.raises(ContextBudgetExceededError):
        PriorityContextSelectionPolicy().select([memory_item], budget=ContextBudget(max_input_units=5))


def test_recall_event_carries_the_adapter_label(memdir: MemdirMemory, events: list) -> None:
    """One memory_recall per request, labelled with the adapter namespace (not the directory)."""
    memdir.append(MemoryRecord("user", "x", 0, record_id="x1"))
    MemorySourceAdapter(memdir, namespace="project", query={"limit": 5}).contribute(None)
    recalls = [p for k, p in events if k == "memory_recall"]
    assert recalls == [
        {
            "namespace": "project",
            "query": {"limit": 5},
            "record_ids": ["x1"],
            "records": [{"record_id": "x1", "role": "user", "content": "x"}],
        }
    ]


def test_adapter_emits_recall_for_foreign_memories(events: list) -> None:
    """A Memory that does not emit its own recall events gets one from the adapter."""
    memory = CountingMemory()
    memory.append(MemoryRecord("user", "x", 0, record_id="f1"))
    MemorySourceAdapter(memory, namespace="ext").contribute(None)
    assert [(k, p["namespace"], p["record_ids"]) for k, p in events] == [("memory_recall", "ext", ["f1"])]


def test_adapter_reads_no_global_memory(tmp_path: Any) -> None:
    """The contract: "No global memory is read by this adapter" (the Memdir itself still sees both)."""
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    shared.append(MemoryRecord("user", "global-secret=1", 0, record_id="g"))
    local = MemdirMemory(str(tmp_path / "local"), global_memory_dir=str(tmp_path / "global"), create=True)
    local.append(MemoryRecord("user", "local-fact=2", 0, record_id="l"))
    assert {r.record_id for r in local.retrieve()} == {"g", "l"}
    source = MemorySourceAdapter(local, namespace="project", query={"role": "user"})
    [contribution] = source.contribute(None)
    assert "local-fact=2" in contribution.text and "global-secret" not in contribution.text
    only_global = MemdirMemory(
        str(tmp_path / "empty"), global_memory_dir=str(tmp_path / "global"), create=True
    )
    assert MemorySourceAdapter(only_global, namespace="p").contribute(None) == ()
