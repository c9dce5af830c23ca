"""Property tests: any text content survives a Memdir round trip byte for byte."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_memory import MemdirMemory

FRONT_MATTER_LIKE = st.builds(
    lambda head, key, tail: f"{head}---\n{key}: x\nrecord_id: other\n---\n{tail}\n---\n",
    st.text(max_size=20),
    st.sampled_from(["role", "step_id", "record_id", "metadata", "seq"]),
    st.text(max_size=20),
)
LINES = st.lists(st.text(max_size=30), max_size=10).map(lambda parts: "\n".join(parts))
CRLF = st.lists(st.text(max_size=10), max_size=10).map(lambda parts: "\r\n".join(parts) + "\r")
VERY_LONG = st.text(min_size=1, max_size=12).map(lambda s: s * (200_000 // len(s) + 1))
CONTENT = st.one_of(st.text(), LINES, CRLF, FRONT_MATTER_LIKE, VERY_LONG, st.just(""), st.just("---\n---\n"))


@pytest.fixture(scope="module")
def shared_memdir() -> Iterator[MemdirMemory]:
    """One Memdir for all examples (each example uses its own record id)."""
    with tempfile.TemporaryDirectory() as tmp:
        yield MemdirMemory(tmp + "/mem", create=True, max_index_entries=5)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=CONTENT, role=st.sampled_from(["user", "assistant", "tool", "sys.note"]), step=st.integers())
def test_content_round_trips(shared_memdir: MemdirMemory, content: str, role: str, step: int) -> None:
    """What is appended is what a fresh instance recalls: same text, role, step and identity."""
    record = MemoryRecord(role, content, step, metadata={"note": content[:50]})
    shared_memdir.append(record)
    reopened = MemdirMemory(str(shared_memdir.root))
    back = reopened.get(record.record_id)
    assert back == record
    assert reopened.retrieve({"record_ids": [record.record_id]}) == [record]
    assert shared_memdir.delete(record.record_id) is True
    assert reopened.get(record.record_id) is None
