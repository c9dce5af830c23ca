"""The core memory contract: record identity and the abstract adapter interface."""

from __future__ import annotations

import pytest

from qitos.core.memory import Memory, MemoryRecord, MemoryResourceError


def test_equal_independent_facts_get_distinct_ids() -> None:
    """Two records with identical fields still have different uuid4-hex identities."""
    first = MemoryRecord("user", "remembered-value=17", 0)
    second = MemoryRecord("user", "remembered-value=17", 0)
    assert first.record_id != second.record_id
    assert len(first.record_id) == 32 and int(first.record_id, 16) >= 0
    assert first.metadata == {} and first.metadata is not second.metadata


def test_record_id_can_be_given() -> None:
    """An explicit record_id is kept as the record's identity."""
    assert MemoryRecord("user", "x", 1, record_id="fixed-id").record_id == "fixed-id"


def test_memory_is_abstract() -> None:
    """Memory cannot be instantiated without implementing its five methods."""
    with pytest.raises(TypeError):
        Memory()  # type: ignore[abstract]


def test_memory_resource_error_is_a_runtime_error() -> None:
    """MemoryResourceError is catchable as RuntimeError and carries its message."""
    err = MemoryResourceError("root missing")
    assert isinstance(err, RuntimeError) and str(err) == "root missing"
