"""The directories a Memdir writes through are held open: they must follow the paths, sweep, and close.

An append writes through descriptors on records/ and the root that the instance keeps open (one
``lstat`` a write checks they are still the directories at those paths), instead of opening each
directory twice a write.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory import atomic, flush
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


def _spy_on_flushes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record every data flush, rename and fsync from now on as (what, which file)."""
    calls: list[tuple[str, str]] = []

    def described(fd: int) -> str:
        return os.readlink(f"/proc/self/fd/{fd}")

    real_range, real_sync, real_fsync, real_replace = (
        flush._sync_file_range,
        flush._sync_data,
        os.fsync,
        os.replace,
    )

    def sync_file_range(fd: int, offset: int, count: int, flags: int) -> int:
        result = real_range(fd, offset, count, flags)
        calls.append(("write out" if result == 0 else "write out refused", described(fd)))
        return result

    def sync_data(fd: int) -> None:
        calls.append(("sync data", described(fd)))
        real_sync(fd)

    def fsync(fd: int) -> None:
        calls.append(("fsync", described(fd)))
        real_fsync(fd)

    def replace(src, dst, **kwargs):  # type: ignore[no-untyped-def]  # a spy: the real rename runs
        calls.append(("rename", f"{src} -> {dst}"))
        real_replace(src, dst, **kwargs)

    if real_range is not None:
        monkeypatch.setattr(flush, "_sync_file_range", sync_file_range)
    monkeypatch.setattr(flush, "_sync_data", sync_data)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls


def _append_and_check_the_order(memory: MemdirMemory, monkeypatch: pytest.MonkeyPatch) -> str:
    """One append's flushes: data once, then the rename, then the directory; return the data flush."""
    memory.append(MemoryRecord("user", "warm up", 0))  # the first write also sweeps and fills the book
    calls = _spy_on_flushes(monkeypatch)
    memory.append(MemoryRecord("user", "kept", 1, record_id="kept"))
    calls[:] = [call for call in calls if call[0] != "write out refused"]
    kinds = [kind for kind, _ in calls]
    assert kinds[1:3] == ["rename", "fsync"], calls
    assert atomic.TEMP_PREFIX in calls[0][1] and calls[1][1].endswith(f"-> {record_filename('kept')}"), calls
    assert calls[2][1] == str(memory.records_dir)
    # One flush of the data and one of the directory: MEMORY.md, being derived, is never flushed.
    assert len([k for k in kinds if k in ("write out", "sync data")]) == 1 and kinds.count("fsync") == 1
    assert memory.get("kept") is not None
    return kinds[0]


def test_an_append_writes_the_record_out_then_renames_it_then_flushes_the_directory(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crash-safety order of an append: the record's bytes reach the disk before its name does,
    and its name (with, on ext4, the data's metadata) before append returns."""
    used = _append_and_check_the_order(memdir, monkeypatch)
    one_commit = flush._sync_file_range is not None and flush._one_commit_here(os.stat(memdir.root).st_dev)
    assert used == ("write out" if one_commit else "sync data")


def test_off_ext4_an_append_fdatasyncs_the_record_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a directory fsync is not known to carry the data's metadata (tmpfs here), the record
    is fdatasynced before its rename: the textbook order."""
    shm = Path("/dev/shm")
    if (
        not shm.is_dir()
        or flush.filesystem_of(os.stat(shm).st_dev, Path("/proc/self/mountinfo").read_text()) != "tmpfs"
    ):
        pytest.skip("needs a tmpfs at /dev/shm")
    root = Path(tempfile.mkdtemp(dir=shm))
    try:
        assert _append_and_check_the_order(MemdirMemory(str(root), create=True), monkeypatch) == "sync data"
    finally:
        shutil.rmtree(root)


def test_a_failing_write_out_falls_back_to_fdatasync(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sync_file_range refused (a sandbox without it, say): the record is fdatasynced instead."""
    monkeypatch.setattr(flush, "_sync_file_range", lambda fd, offset, count, flags: -1)
    assert _append_and_check_the_order(memdir, monkeypatch) == "sync data"


MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
40 27 254:0 /srv /mnt/with\\040space rw,relatime shared:3 master:1 - ext4 /dev/vda rw
41 27 0:45 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw
42 27 8:17 / /data rw - xfs /dev/sdb1 rw,attr2
"""


def test_the_filesystem_of_a_device_is_read_from_mountinfo() -> None:
    """Matched by major:minor, past the optional fields; an unknown device has no type."""
    assert flush.filesystem_of(os.makedev(254, 0), MOUNTINFO) == "ext4"
    assert flush.filesystem_of(os.makedev(0, 45), MOUNTINFO) == "tmpfs"
    assert flush.filesystem_of(os.makedev(8, 17), MOUNTINFO) == "xfs"
    assert flush.filesystem_of(os.makedev(9, 9), MOUNTINFO) is None
    assert flush.filesystem_of(os.makedev(254, 0), "garbage line\n\n254:0 - \n") is None
    assert flush.ONE_COMMIT_FILESYSTEMS == {"ext4"}  # xfs and the rest keep the textbook order
