"""The incremental MEMORY.md index: a write never rescans records/, yet the index equals a full rebuild."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qitos.core.memory import MemoryRecord
from qitos.kit.memory import atomic
from qitos.kit.memory.memdir_memory import MemdirMemory

# One operation: ("append", id number, text) or ("delete", id number, "").
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 12), st.text(max_size=40)),
        st.tuples(st.just("delete"), st.integers(0, 12), st.just("")),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, max_entries=st.integers(0, 5), max_chars=st.sampled_from([120, 400, 25_000]))
def test_incremental_index_equals_a_full_rebuild(
    ops: list[tuple[str, int, str]], max_entries: int, max_chars: int
) -> None:
    """After any appends, re-appends and deletes, MEMORY.md is exactly what a rescan renders."""
    with tempfile.TemporaryDirectory() as tmp:
        memory = MemdirMemory(
            tmp + "/m", create=True, max_index_entries=max_entries, max_index_chars=max_chars
        )
        memory.rebuild_index()  # create=True writes a bare header; start from a rendered index
        for op, number, text in ops:
            if op == "append":
                memory.append(MemoryRecord("user", text, number, record_id=f"r{number}"))
            else:
                memory.delete(f"r{number}")
            assert memory.index_path.read_text(encoding="utf-8") == memory.render_index()


def test_delete_brings_an_older_record_into_the_index(tmp_path: Path) -> None:
    """Deleting a listed record lists the next older one, read back from its file."""
    memory = MemdirMemory(str(tmp_path / "m"), create=True, max_index_entries=2)
    for i in range(5):
        memory.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    memory.delete("r4")
    memory.delete("r3")
    listed = [
        line.split("`")[1] for line in memory.index_path.read_text().splitlines() if line.startswith("- [")
    ]
    assert listed == ["r2", "r1"]
    assert memory.index_is_current()


def test_a_reopened_root_starts_its_index_from_the_disk(tmp_path: Path) -> None:
    """A new instance's first write lists the records earlier instances wrote (one scan, then none)."""
    first = MemdirMemory(str(tmp_path / "m"), create=True, max_index_entries=3)
    for i in range(4):
        first.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    second = MemdirMemory(str(tmp_path / "m"), max_index_entries=3)
    second.append(MemoryRecord("user", "fact 4", 4, record_id="r4"))
    assert second.index_is_current()
    assert "2 older record(s) not listed" in second.index_path.read_text()


def test_appends_do_not_list_the_records_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first write, an append or a delete never lists records/ (O(1), not O(records))."""
    memory = MemdirMemory(str(tmp_path / "m"), create=True)
    memory.append(MemoryRecord("user", "first", 0, record_id="first"))
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path):  # a spy: the real call still runs
        listed.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    for i in range(20):
        memory.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    memory.delete("r3")
    assert listed == []
    monkeypatch.undo()
    assert memory.index_is_current()


def test_rebuild_index_repairs_what_the_book_missed(tmp_path: Path) -> None:
    """An external addition is not in the incremental index until rebuild_index rescans the disk."""
    memory = MemdirMemory(str(tmp_path / "m"), create=True)
    memory.append(MemoryRecord("user", "ours", 0, record_id="ours"))
    other = MemdirMemory(str(tmp_path / "m"))
    other.append(MemoryRecord("user", "theirs", 0, record_id="theirs"))
    memory.append(MemoryRecord("user", "ours again", 1, record_id="ours2"))
    assert "`theirs`" not in memory.index_path.read_text()
    memory.rebuild_index()
    assert "`theirs`" in memory.index_path.read_text() and memory.index_is_current()
    memory.append(MemoryRecord("user", "after", 2, record_id="after"))
    assert memory.index_is_current()


@pytest.mark.parametrize("exchange", [True, False])
def test_derived_writes_swap_in_whole_and_leave_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool
) -> None:
    """A non-durable write replaces the file whole (by exchange where the kernel has it, else by
    rename) and leaves no temp file; the first write, with no file to exchange, renames."""
    if not exchange:
        monkeypatch.setattr(atomic, "_renameat2", None)
    target = tmp_path / "MEMORY.md"
    atomic.atomic_write(target, b"first", durable=False)
    for n in range(3):
        atomic.atomic_write(target, f"version {n}".encode() * 100, durable=False)
        assert target.read_bytes() == f"version {n}".encode() * 100
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]
