"""Exact MemorySourceAdapter behaviour: argument errors word for word, the query copy, the revision
count, the recall path per memory kind (global Memdir, kit memory, foreign memory) and the text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.adapter import MemorySourceAdapter, render_records
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.memory.window_memory import WindowMemory


class ListMemory(Memory):
    """A plain Memory from outside the kit that remembers the queries it was asked."""

    def __init__(self, records: list[MemoryRecord] | None = None) -> None:
        self.records = list(records or [])
        self.queries: list[Any] = []

    def append(self, record: MemoryRecord) -> None:
        self.records.append(record)

    def retrieve(self, query: Any = None, state: Any = None, observation: Any = None) -> list[MemoryRecord]:
        self.queries.append(query)
        return list(self.records)

    def summarize(self, max_items: int = 5) -> str:
        return ""

    def evict(self) -> int:
        return 0

    def reset(self, run_id: str | None = None) -> None:
        return None


class GlobalRootedMemory(ListMemory):
    """A foreign memory that has a ``global_root`` attribute but no ``scan``: it recalls by retrieve()."""

    global_root = "/elsewhere"


class ScanningMemory(ListMemory):
    """A foreign memory with a ``scan`` of its own and no global root: ``scan`` is none of the adapter's business."""

    def scan(self, **kw: Any) -> None:
        raise AssertionError("the adapter must not call scan() on a memory without a global root")


def message_of(error: type[Exception], call: Any) -> str:
    with pytest.raises(error) as caught:
        call()
    return str(caught.value)


def test_non_memory_is_refused_naming_its_type() -> None:
    text = message_of(TypeError, lambda: MemorySourceAdapter(object(), namespace="p"))  # type: ignore[arg-type]
    assert text == "memory must be a qitos Memory, got object"


@pytest.mark.parametrize("namespace", ["", "   ", 5, None])
def test_blank_or_non_text_namespace_is_refused(namespace: Any) -> None:
    text = message_of(ValueError, lambda: MemorySourceAdapter(ListMemory(), namespace=namespace))
    assert text == "namespace must be a non-empty string (a label)"


def test_non_bool_required_is_refused() -> None:
    text = message_of(TypeError, lambda: MemorySourceAdapter(ListMemory(), namespace="p", required=1))  # type: ignore[arg-type]
    assert text == "required must be a bool"


@pytest.mark.parametrize("priority", [True, "1", 1.0])
def test_bool_or_non_int_priority_is_refused(priority: Any) -> None:
    text = message_of(TypeError, lambda: MemorySourceAdapter(ListMemory(), namespace="p", priority=priority))
    assert text == "priority must be an int"


def test_defaults_are_optional_priority_zero_and_no_query() -> None:
    source = MemorySourceAdapter(ListMemory([MemoryRecord("user", "x", 0)]), namespace="p")
    assert (source.required, source.priority, source.query, source.revision) == (False, 0, None, 0)
    [item] = source.contribute(None)
    assert (item.required, item.priority) == (False, 0)


def test_negative_priority_is_kept() -> None:
    assert MemorySourceAdapter(ListMemory(), namespace="p", priority=-3).priority == -3


def test_query_is_copied_at_construction_and_passed_to_retrieve() -> None:
    memory = ListMemory([MemoryRecord("user", "x", 0)])
    query = {"role": "user"}
    source = MemorySourceAdapter(memory, namespace="p", query=query)
    query["role"] = "tool"
    source.contribute(None)
    assert memory.queries == [{"role": "user"}]
    assert source.query == {"role": "user"} and source.query is not query


def test_without_query_retrieve_gets_none() -> None:
    memory = ListMemory()
    MemorySourceAdapter(memory, namespace="p").contribute(None)
    assert memory.queries == [None]


def test_revision_counts_every_recall_even_empty_ones() -> None:
    memory = ListMemory()
    source = MemorySourceAdapter(memory, namespace="p")
    assert source.contribute(None) == ()
    memory.append(MemoryRecord("user", "x", 0))
    source.contribute(None)
    source.contribute(None)
    assert source.revision == 3 and len(memory.queries) == 3


def test_contribution_value_is_the_rendered_records() -> None:
    records = [MemoryRecord("user", "a", 0), MemoryRecord("tool", {"n": 2}, 3)]
    [item] = MemorySourceAdapter(ListMemory(records), namespace="ns").contribute(None)
    assert item.value == render_records("ns", records)
    assert item.value == 'Recalled memory (ns):\n- [user @ step 0] a\n- [tool @ step 3] {"n": 2}'


def test_render_records_without_records_is_the_heading_alone() -> None:
    assert render_records("ns", []) == "Recalled memory (ns):"


def test_global_memdir_recall_applies_the_query_to_the_local_root(tmp_path: Path, events: list) -> None:
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    shared.append(MemoryRecord("tool", "global-tool", 0, record_id="g"))
    local = MemdirMemory(str(tmp_path / "local"), global_memory_dir=str(tmp_path / "global"), create=True)
    local.append(MemoryRecord("user", "local-user", 0, record_id="u"))
    local.append(MemoryRecord("tool", "local-tool", 1, record_id="t"))
    events.clear()
    source = MemorySourceAdapter(local, namespace="project", query={"role": "tool"})
    [item] = source.contribute(None)
    assert item.value == "Recalled memory (project):\n- [tool @ step 1] local-tool"
    assert events == [
        (
            "memory_recall",
            {
                "namespace": "project",
                "query": {"role": "tool"},
                "record_ids": ["t"],
                "records": [{"record_id": "t", "role": "tool", "content": "local-tool"}],
            },
        )
    ]


def test_memory_with_global_root_but_no_scan_recalls_through_retrieve(events: list) -> None:
    memory = GlobalRootedMemory([MemoryRecord("user", "x", 0, record_id="f")])
    [item] = MemorySourceAdapter(memory, namespace="ext", query={"limit": 1}).contribute(None)
    assert memory.queries == [{"limit": 1}]
    assert item.value == "Recalled memory (ext):\n- [user @ step 0] x"
    assert [(kind, payload["namespace"]) for kind, payload in events] == [("memory_recall", "ext")]


def test_kit_memory_recall_event_is_its_own_relabelled_one(events: list) -> None:
    memory = WindowMemory(5)
    memory.append(MemoryRecord("user", "x", 0, record_id="w"))
    events.clear()
    MemorySourceAdapter(memory, namespace="project").contribute(None)
    assert events == [
        (
            "memory_recall",
            {
                "namespace": "project",
                "query": None,
                "record_ids": ["w"],
                "records": [{"record_id": "w", "role": "user", "content": "x"}],
            },
        )
    ]


def test_foreign_memory_recall_event_carries_the_adapter_query(events: list) -> None:
    memory = ListMemory([MemoryRecord("user", "x", 0, record_id="f")])
    MemorySourceAdapter(memory, namespace="ext", query={"role": "user"}).contribute(None)
    assert events == [
        (
            "memory_recall",
            {
                "namespace": "ext",
                "query": {"role": "user"},
                "record_ids": ["f"],
                "records": [{"record_id": "f", "role": "user", "content": "x"}],
            },
        )
    ]


def test_label_is_cleared_after_the_adapter_recalls(events: list) -> None:
    memory = WindowMemory(5)
    memory.append(MemoryRecord("user", "x", 0))
    MemorySourceAdapter(memory, namespace="project").contribute(None)
    events.clear()
    memory.retrieve()
    assert [payload["namespace"] for _, payload in events] == ["window"]


def test_memory_with_scan_but_no_global_root_recalls_through_retrieve() -> None:
    memory = ScanningMemory([MemoryRecord("user", "x", 0)])
    [item] = MemorySourceAdapter(memory, namespace="ext", query={"limit": 1}).contribute(None)
    assert memory.queries == [{"limit": 1}]
    assert item.value == "Recalled memory (ext):\n- [user @ step 0] x"


def test_memdir_without_global_root_recalls_through_its_own_retrieve(
    memdir: MemdirMemory, events: list
) -> None:
    memdir.append(MemoryRecord("user", "x", 0, record_id="m"))
    events.clear()
    [item] = MemorySourceAdapter(memdir, namespace="project").contribute(None)
    assert item.value == "Recalled memory (project):\n- [user @ step 0] x"
    assert [(kind, payload["namespace"], payload["record_ids"]) for kind, payload in events] == [
        ("memory_recall", "project", ["m"])
    ]
