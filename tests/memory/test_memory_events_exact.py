"""Exact memory event payloads: every key of memory_append / memory_recall / memory_delete, the
recall label an adapter sets, and what the emitters return inside and outside a run."""

from __future__ import annotations

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.events import emit_append, emit_delete, emit_recall, labelled_recall, recall_label


def test_append_event_payload_names_record_role_step_namespace_and_chars(events: list) -> None:
    record = MemoryRecord("tool", "ignored here", 7, record_id="a1")
    assert emit_append(record, namespace="notes", chars=12) is True
    assert events == [
        (
            "memory_append",
            {"record_id": "a1", "role": "tool", "step_id": 7, "namespace": "notes", "chars": 12},
        )
    ]


def test_recall_event_payload_lists_ids_and_records_with_the_jsonable_query(events: list) -> None:
    records = [
        MemoryRecord("user", "first", 0, record_id="r1"),
        MemoryRecord("assistant", {"k": 1}, 1, record_id="r2"),
    ]
    assert (
        emit_recall(records, namespace="window", query={"role": frozenset({"user", "assistant"}), "limit": 2})
        is True
    )
    assert events == [
        (
            "memory_recall",
            {
                "namespace": "window",
                "query": {"role": ["assistant", "user"], "limit": 2},
                "record_ids": ["r1", "r2"],
                "records": [
                    {"record_id": "r1", "role": "user", "content": "first"},
                    {"record_id": "r2", "role": "assistant", "content": {"k": 1}},
                ],
            },
        )
    ]


def test_recall_event_without_query_carries_none(events: list) -> None:
    emit_recall([], namespace="window", query=None)
    assert events == [
        ("memory_recall", {"namespace": "window", "query": None, "record_ids": [], "records": []})
    ]


def test_delete_event_payload_says_whether_anything_was_removed(events: list) -> None:
    assert emit_delete("d1", namespace="notes", removed=False) is True
    assert events == [("memory_delete", {"record_id": "d1", "namespace": "notes", "removed": False})]


def test_emitters_outside_a_run_record_nothing_and_return_false() -> None:
    record = MemoryRecord("user", "x", 0, record_id="o1")
    assert emit_append(record, namespace="n", chars=1) is False
    assert emit_recall([record], namespace="n", query=None) is False
    assert emit_delete("o1", namespace="n", removed=True) is False


def test_labelled_recall_names_the_adapter_namespace_inside_the_block_only(events: list) -> None:
    with labelled_recall("project"):
        assert recall_label.get() == "project"
        emit_recall([], namespace="memdir", query=None)
    assert recall_label.get() is None
    emit_recall([], namespace="memdir", query=None)
    assert [payload["namespace"] for _, payload in events] == ["project", "memdir"]


def test_labelled_recall_restores_the_outer_label_after_an_error() -> None:
    with labelled_recall("outer"):
        try:
            with labelled_recall("inner"):
                raise RuntimeError("recall failed")
        except RuntimeError:
            pass
        assert recall_label.get() == "outer"
    assert recall_label.get() is None
