"""Exact tests of how a durable write's data reaches the disk: written out on ext4, fdatasynced
elsewhere, the filesystem read once per device from mountinfo."""

from __future__ import annotations

import builtins
import ctypes
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from qitos.kit.memory import flush

MOUNTINFO_PATH = Path("/proc/self/mountinfo")


def _fstype(path: Path) -> str | None:
    """The filesystem type at ``path``, by the real mountinfo."""
    return flush.filesystem_of(os.stat(path).st_dev, MOUNTINFO_PATH.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def fresh_device_book(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no device's filesystem known, and leaves the real book untouched."""
    monkeypatch.setattr(flush, "_one_commit_by_device", {})


@pytest.fixture
def ext4_dir(tmp_path: Path) -> Path:
    """A directory on ext4 (the test is skipped elsewhere)."""
    if flush._sync_file_range is None or _fstype(tmp_path) != "ext4":
        pytest.skip("needs the temp directory on ext4 and sync_file_range")
    return tmp_path


@pytest.fixture
def tmpfs_dir() -> Iterator[Path]:
    """A directory on tmpfs (the test is skipped without a tmpfs at /dev/shm)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or _fstype(shm) != "tmpfs":
        pytest.skip("needs a tmpfs at /dev/shm")
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        yield Path(folder)


def _written_file(folder: Path, data: bytes) -> tuple[int, int]:
    """(fd, dir_fd) of a new file in ``folder`` holding ``data``, not yet flushed."""
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fd = os.open(folder / "data", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, data)
    return fd, dir_fd


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _CacheStat(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("cache", "dirty", "writeback", "evicted", "recent")]


_CACHESTAT = 451  # the syscall number on every architecture (Linux 6.5 and later)


def _dirty_pages(fd: int) -> int | None:
    """Pages of ``fd`` dirty or under writeback (cachestat(2)); None where the kernel lacks it."""
    libc = ctypes.CDLL(None, use_errno=True)
    found = _CacheStat()
    if libc.syscall(_CACHESTAT, fd, ctypes.byref(_Range(0, 0)), ctypes.byref(found), 0) != 0:
        return None
    return int(found.dirty + found.writeback)


def test_on_ext4_the_data_is_written_out_not_synced(ext4_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(flush, "_sync_data", synced.append)  # a spy: must not be reached here
    fd, dir_fd = _written_file(ext4_dir, b"x" * (1 << 20))
    try:
        assert flush.flush_data(fd, dir_fd) == "write out"
        assert synced == []
        dirty = _dirty_pages(fd)
        if dirty is not None:
            assert dirty == 0  # every page went to the device, none waits for the flusher
    finally:
        os.close(fd)
        os.close(dir_fd)


def test_off_ext4_the_data_is_fdatasynced(tmpfs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_sync = flush._sync_data

    def sync_data(fd: int) -> None:
        synced.append(fd)
        real_sync(fd)

    monkeypatch.setattr(flush, "_sync_data", sync_data)
    fd, dir_fd = _written_file(tmpfs_dir, b"data")
    try:
        assert flush.write_out(fd, dir_fd) is False
        assert flush.flush_data(fd, dir_fd) == "sync data"
        assert synced == [fd]
    finally:
        os.close(fd)
        os.close(dir_fd)


def test_a_refused_write_out_says_so(ext4_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flush, "_sync_file_range", lambda fd, offset, count, flags: -1)
    fd, dir_fd = _written_file(ext4_dir, b"data")
    try:
        assert flush.write_out(fd, dir_fd) is False
        assert flush.flush_data(fd, dir_fd) == "sync data"
    finally:
        os.close(fd)
        os.close(dir_fd)


def test_write_out_asks_for_the_whole_file_written_and_waited_on(
    ext4_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, int, int, int]] = []
    real_range = flush._sync_file_range
    assert real_range is not None

    def sync_file_range(fd: int, offset: int, count: int, flags: int) -> int:
        asked.append((fd, offset, count, flags))
        return real_range(fd, offset, count, flags)

    monkeypatch.setattr(flush, "_sync_file_range", sync_file_range)
    fd, dir_fd = _written_file(ext4_dir, b"data")
    try:
        assert flush.write_out(fd, dir_fd) is True
    finally:
        os.close(fd)
        os.close(dir_fd)
    # offset 0 and count 0: to the end of the file; WAIT_BEFORE | WRITE | WAIT_AFTER.
    assert asked == [(fd, 0, 0, 1 | 2 | 4)]


def test_without_sync_file_range_nothing_is_written_out(
    ext4_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flush, "_sync_file_range", None)
    fd, dir_fd = _written_file(ext4_dir, b"data")
    try:
        assert flush.write_out(fd, dir_fd) is False
        assert flush.flush_data(fd, dir_fd) == "sync data"
    finally:
        os.close(fd)
        os.close(dir_fd)


def test_the_filesystem_of_a_device_is_read_once(ext4_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]  # a spy: the real open runs
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    device = os.stat(ext4_dir).st_dev
    assert flush._one_commit_here(device) is True
    assert flush._one_commit_here(device) is True
    book = dict(flush._one_commit_by_device)
    monkeypatch.setattr(builtins, "open", real_open)
    assert opened == [flush.MOUNTINFO]
    assert book == {device: True}


def test_a_device_on_another_filesystem_is_not_one_commit(tmpfs_dir: Path) -> None:
    device = os.stat(tmpfs_dir).st_dev
    assert flush._one_commit_here(device) is False
    assert flush._one_commit_by_device == {device: False}


def test_a_device_in_no_mount_is_not_one_commit() -> None:
    device = os.makedev(4095, 1_000_000)  # no mount has this major:minor
    assert flush._one_commit_here(device) is False


def test_only_a_line_with_the_device_and_a_type_names_the_filesystem() -> None:
    device = os.makedev(254, 0)
    assert flush.filesystem_of(device, "1 2 254:0 - ext4\n") == "ext4"  # three fields suffice
    assert flush.filesystem_of(device, "1 2 254:0 / / rw - \n") is None  # no type after the dash
    assert flush.filesystem_of(device, "1 254:0 - ext4\n") is None  # too few fields: no device field
    assert flush.filesystem_of(device, "1 2 254:0 / / rw ext4\n") is None  # no ' - ' separator
    assert flush.filesystem_of(device, "1 2 254:0 / / rw - ext4 /dev/vda rw - xfs\n") == "ext4"


def test_the_last_mount_of_a_device_names_its_filesystem() -> None:
    device = os.makedev(8, 1)
    mountinfo = (
        "1 2 8:1 / / rw - ext4 /dev/sda1 rw\n3 4 9:9 / /x rw - xfs /dev/x rw\n5 6 8:1 /a /b rw - btrfs x rw\n"
    )
    assert flush.filesystem_of(device, mountinfo) == "btrfs"


def test_a_mountinfo_with_undecodable_names_still_gives_the_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = tmp_path / "mountinfo"
    listing.write_bytes(b"1 2 254:7 / /mnt/caf\xe9 rw - ext4 /dev/vdb rw\n")
    monkeypatch.setattr(flush, "MOUNTINFO", str(listing))
    assert flush._one_commit_here(os.makedev(254, 7)) is True


def test_without_a_readable_mountinfo_no_device_is_one_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flush, "MOUNTINFO", str(tmp_path / "absent"))
    assert flush._one_commit_here(os.stat(tmp_path).st_dev) is False
    assert flush._one_commit_by_device == {os.stat(tmp_path).st_dev: False}
