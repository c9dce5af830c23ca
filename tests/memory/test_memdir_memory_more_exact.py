"""More exact tests of MemdirMemory: its defaults, refusal messages, the order of records whose
files' times disagree with their seq, global records in summaries, and index lines read back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord, MemoryResourceError
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory


def _line_of(memory: MemdirMemory, record_id: str) -> str:
    """MEMORY.md's line for ``record_id`` ("" if it lists none)."""
    text = memory.index_path.read_text(encoding="utf-8")
    return next((line for line in text.splitlines() if f"`{record_id}`" in line), "")


def test_the_default_memory_dir_is_dot_qitos_memory_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    memory = MemdirMemory(create=True)
    memory.append(MemoryRecord("user", "fact", 0, record_id="r0"))
    assert (tmp_path / ".qitos" / "memory" / "MEMORY.md").is_file()
    assert (tmp_path / ".qitos" / "memory" / "records" / record_filename("r0")).is_file()


def test_the_index_limits_default_to_two_hundred_entries_and_25000_characters(tmp_path: Path) -> None:
    memory = MemdirMemory(str(tmp_path / "m"), create=True)
    assert (memory.max_index_entries, memory.max_index_chars) == (200, 25000)


def test_appending_what_is_not_a_record_names_its_type(tmp_path: Path) -> None:
    memory = MemdirMemory(str(tmp_path / "m"), create=True)
    with pytest.raises(TypeError) as caught:
        memory.append("a plain string")  # type: ignore[arg-type]
    assert str(caught.value) == "append expects a MemoryRecord, got str"


def test_deleting_a_record_whose_file_is_a_directory_is_refused_by_name(tmp_path: Path) -> None:
    memory = MemdirMemory(str(tmp_path / "m"), create=True)
    name = record_filename("r0")
    (memory.records_dir / name).mkdir()
    with pytest.raises(MemoryResourceError) as caught:
        memory.delete("r0")
    assert str(caught.value) == f"refusing to delete {name}: not a regular file"


def test_records_keep_their_append_order_whatever_their_files_times_say(tmp_path: Path) -> None:
    root = str(tmp_path / "m")
    writer = MemdirMemory(root, create=True)
    for i in range(3):
        writer.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    # The oldest record's file is touched last (a backup restore, an editor saving it again).
    for i, when in enumerate((3_000_000_000, 2_000_000_000, 1_000_000_000)):
        path = writer.records_dir / record_filename(f"r{i}")
        os.utime(path, ns=(when, when))
    fresh = MemdirMemory(root)  # no cached parses: the order comes from the files
    assert [r.record_id for r in fresh.retrieve()] == ["r0", "r1", "r2"]


def test_a_summary_shows_the_global_records_too(tmp_path: Path) -> None:
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    shared.append(MemoryRecord("user", "a shared fact", 0, record_id="g0"))
    memory = MemdirMemory(str(tmp_path / "local"), create=True, global_memory_dir=str(tmp_path / "global"))
    memory.append(MemoryRecord("user", "a local fact", 1, record_id="l0"))
    summary = memory.summarize()
    assert "a shared fact" in summary and "a local fact" in summary


def test_an_index_line_read_back_links_its_own_record_file(tmp_path: Path) -> None:
    root = str(tmp_path / "m")
    writer = MemdirMemory(root, create=True, max_index_entries=1)
    for i in range(3):
        writer.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    memory = MemdirMemory(root, max_index_entries=1)
    memory.append(MemoryRecord("user", "fact 3", 3, record_id="r3"))  # scans: r2 in view, r1/r0 not
    memory.delete("r3")
    memory.delete("r2")  # r1 comes into view: its line is read back from its file
    assert f"(records/{record_filename('r1')})" in _line_of(memory, "r1")


def test_a_record_gone_before_it_comes_into_view_is_left_out_of_the_index(tmp_path: Path) -> None:
    root = str(tmp_path / "m")
    writer = MemdirMemory(root, create=True, max_index_entries=1)
    for i in range(3):
        writer.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    memory = MemdirMemory(root, max_index_entries=1)
    memory.append(MemoryRecord("user", "fact 3", 3, record_id="r3"))  # scans: r2 in view, r1/r0 not
    (memory.records_dir / record_filename("r1")).unlink()  # removed by hand after the scan
    memory.delete("r3")
    memory.delete("r2")  # r1 would come into view, but its file is gone: r0 does
    assert _line_of(memory, "r1") == ""
    assert _line_of(memory, "r0") != ""
