"""The directories a Memdir writes through are held open: they must follow the paths, sweep, and close.

An append writes through descriptors on records/ and the root that the instance keeps open (one
``lstat`` a write checks they are still the directories at those paths), instead of opening each
directory twice a write.
"""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory import atomic
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory


def _open_fds() -> int:
    """How many file descriptors this process has open now."""
    return len(os.listdir("/proc/self/fd"))


def test_a_records_dir_replaced_by_another_real_one_receives_the_next_append(
    memdir: MemdirMemory, tmp_path: Path
) -> None:
    """records/ moved away and a new one made in its place: the next append lands in the new one."""
    memdir.append(MemoryRecord("user", "before", 0, record_id="before"))
    memdir.records_dir.rename(tmp_path / "old-records")
    memdir.records_dir.mkdir()
    memdir.append(MemoryRecord("user", "after", 1, record_id="after"))
    assert (memdir.records_dir / record_filename("after")).is_file()
    assert not (tmp_path / "old-records" / record_filename("after")).exists()
    assert [r.record_id for r in memdir.retrieve()] == ["after"]


def test_a_root_replaced_by_another_real_one_gets_the_index(tmp_path: Path) -> None:
    """The whole root moved away and rebuilt at its path: the record and MEMORY.md go to the new one."""
    root = tmp_path / "mem"
    memory = MemdirMemory(str(root), create=True)
    memory.append(MemoryRecord("user", "before", 0, record_id="before"))
    root.rename(tmp_path / "moved")
    MemdirMemory(str(root), create=True)
    memory.append(MemoryRecord("user", "after", 1, record_id="after"))
    assert "`after`" in (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "`after`" not in (tmp_path / "moved" / "MEMORY.md").read_text(encoding="utf-8")


def test_a_deleted_record_goes_from_the_directory_at_the_path(memdir: MemdirMemory, tmp_path: Path) -> None:
    """delete removes the record from records/ as it is now, through the held directory."""
    memdir.append(MemoryRecord("user", "gone soon", 0, record_id="gone"))
    assert memdir.delete("gone") is True
    assert list(memdir.records_dir.iterdir()) == []
    assert "`gone`" not in memdir.index_path.read_text(encoding="utf-8")


def test_abandoned_index_temp_files_beside_memory_md_are_swept(memdir: MemdirMemory) -> None:
    """A temp file a killed writer left beside MEMORY.md (between its swap and unlink) is removed."""
    stale = memdir.root / f"{atomic.TEMP_PREFIX}{'ab' * 16}{atomic.TEMP_SUFFIX}"
    young = memdir.root / f"{atomic.TEMP_PREFIX}{'cd' * 16}{atomic.TEMP_SUFFIX}"
    stale.write_text("# Memory index\n\nold bytes\n", encoding="utf-8")
    young.write_text("a live writer's", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))
    memdir.append(MemoryRecord("user", "x", 0))
    assert not stale.exists()
    assert young.exists()  # young: it may belong to a writer still running


def test_instances_close_the_directories_they_hold(tmp_path: Path) -> None:
    """Opening, writing through and dropping many instances leaves no descriptor open."""
    root = tmp_path / "mem"
    MemdirMemory(str(root), create=True)
    gc.collect()
    before = _open_fds()
    for i in range(40):
        memory = MemdirMemory(str(root))
        memory.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
        memory.delete(f"r{i}")
        del memory
    gc.collect()
    assert _open_fds() == before


def test_the_held_directory_is_reopened_only_when_the_path_names_another(tmp_path: Path) -> None:
    """OpenDir gives the same descriptor while the path is unchanged, the new directory after a swap."""
    folder = tmp_path / "d"
    folder.mkdir()
    held = atomic.OpenDir(folder)
    first = held.fd(os.lstat(folder))
    open_now = _open_fds()
    assert held.fd(os.lstat(folder)) == first
    folder.rename(tmp_path / "d-old")
    folder.mkdir()
    second = held.fd(os.lstat(folder))
    assert os.fstat(second).st_ino == os.lstat(folder).st_ino != os.lstat(tmp_path / "d-old").st_ino
    assert _open_fds() == open_now  # the old one was closed, not leaked
    held.close()
    assert _open_fds() == open_now - 1


def test_a_durable_write_through_a_held_directory_leaves_only_the_target(tmp_path: Path) -> None:
    """atomic_write_at replaces the entry whole and leaves no temp file, durable or not."""
    dir_fd = atomic.open_dir(tmp_path)
    try:
        for durable in (True, False, True):
            atomic.atomic_write_at(dir_fd, "target.md", f"durable={durable}".encode(), durable=durable)
            assert (tmp_path / "target.md").read_bytes() == f"durable={durable}".encode()
    finally:
        os.close(dir_fd)
    assert [p.name for p in tmp_path.iterdir()] == ["target.md"]


def test_an_append_flushes_the_record_then_renames_it_then_flushes_the_directory(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crash-safety order of an append: the record's bytes reach the disk before its name does,
    and its name before append returns; the derived index is never flushed."""
    calls: list[tuple[str, str]] = []

    def described(fd: int) -> str:
        return os.readlink(f"/proc/self/fd/{fd}")

    real_sync, real_fsync, real_replace = atomic._sync_data, os.fsync, os.replace

    def sync_data(fd: int) -> None:
        calls.append(("sync data", described(fd)))
        real_sync(fd)

    def fsync(fd: int) -> None:
        calls.append(("fsync", described(fd)))
        real_fsync(fd)

    def replace(src, dst, **kwargs):  # type: ignore[no-untyped-def]  # a spy: the real rename runs
        calls.append(("rename", f"{src} -> {dst}"))
        real_replace(src, dst, **kwargs)

    memdir.append(MemoryRecord("user", "warm up", 0))  # the first write also sweeps and fills the book
    monkeypatch.setattr(atomic, "_sync_data", sync_data)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    memdir.append(MemoryRecord("user", "kept", 1, record_id="kept"))
    name = record_filename("kept")
    kinds = [kind for kind, _ in calls]
    assert kinds[:3] == ["sync data", "rename", "fsync"], calls
    assert atomic.TEMP_PREFIX in calls[0][1] and calls[1][1].endswith(f"-> {name}"), calls
    assert calls[2][1] == str(memdir.records_dir)
    assert kinds.count("sync data") == 1 and kinds.count("fsync") == 1  # MEMORY.md is not flushed
