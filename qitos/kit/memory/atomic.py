"""Crash-safe file primitives for on-disk memory: atomic replace, directory fsync, no-follow reads.

A reader either sees the old file or the complete new one, never a torn write: the bytes go to a
temporary file in the same directory, are written to the disk (see :mod:`qitos.kit.memory.flush`),
renamed over the target, and the directory is fsynced so the rename itself survives a power cut.
"""

from __future__ import annotations

import ctypes
import os
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qitos.kit.memory.flush import flush_data

TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".part"


def fsync_dir(directory: Path) -> None:
    """Flush a directory's entries (renames, unlinks) to stable storage."""
    fd = open_dir(directory)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def open_dir(directory: Path, *, follow: bool = True) -> int:
    """A file descriptor on ``directory``, for the ``*_at`` calls; ``follow=False`` refuses a symlink."""
    return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | (0 if follow else os.O_NOFOLLOW))


def atomic_write(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that no reader ever sees a partial file (see atomic_write_at)."""
    dir_fd = open_dir(path.parent)
    try:
        atomic_write_at(dir_fd, path.name, data, durable=durable)
    finally:
        os.close(dir_fd)


def atomic_write_at(dir_fd: int, name: str, data: bytes, *, durable: bool = True) -> None:
    """Replace the entry ``name`` of the open directory ``dir_fd`` with ``data``, all or nothing.

    The bytes go to a temp file in that directory, reach the disk (``durable``: see
    :func:`~qitos.kit.memory.flush.flush_data`), are renamed over ``name``, and the directory is
    fsynced so the rename (and on ext4 the data's metadata with it) survives a power cut too.
    A writer that keeps ``dir_fd`` open saves opening the directory twice a write, and the temp
    file, the rename and the directory flush can only ever concern that one directory.

    ``durable=False`` skips both flushes: still atomic for every reader and against a killed
    process (the rename is), but a power cut may lose the write. Only for derived files that a
    rebuild recreates (the Memdir index), where the two flushes were half the cost of an append.
    It also swaps the new file in instead of renaming over the old one (see :func:`_swap_in`).
    """
    tmp = f"{TEMP_PREFIX}{os.urandom(16).hex()}{TEMP_SUFFIX}"
    # O_EXCL|O_NOFOLLOW: never write through a planted file or symlink at the temp name.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
            # The data and the size it needs to be read back (what fsync adds, the times, is not).
            flush_data(fd, dir_fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(tmp, dir_fd)
        raise
    os.close(fd)
    try:
        # rename replaces a symlink at the target itself; it never writes through it.
        if durable or not _swap_in(dir_fd, tmp, name):
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        _unlink_quietly(tmp, dir_fd)
        raise
    if durable:
        os.fsync(dir_fd)  # never skipped: on ext4 it is also the commit that makes the data durable


_RENAME_EXCHANGE = 2
_renameat2: Callable[..., int] | None
try:
    _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
except (OSError, AttributeError):  # not Linux, or a libc without renameat2
    _renameat2 = None


def _swap_in(dir_fd: int, tmp: str, name: str) -> bool:
    """Atomically exchange the entries ``tmp`` and an existing ``name``, then drop ``tmp`` (the old bytes).

    Renaming over an existing file makes ext4 write the new file's data out first (its
    auto_da_alloc guard against empty files after a crash): 0.2-0.45 ms here, as much as the
    record's own fsync. An exchange is not such a rename (0.02 ms). Only for non-durable, derived
    files. False (nothing done) where the exchange is unavailable: the caller renames instead. A
    kill between the exchange and the unlink leaves a temp file that sweep_stale_temps removes.
    """
    if _renameat2 is None:
        return False
    if _renameat2(dir_fd, os.fsencode(tmp), dir_fd, os.fsencode(name), _RENAME_EXCHANGE) != 0:
        return False  # ENOENT (no file yet), EINVAL/ENOSYS (filesystem or kernel without it)
    _unlink_quietly(tmp, dir_fd)
    return True


def read_no_follow(path: Path) -> bytes:
    """Read a regular file's bytes, refusing to follow a symlink at ``path``."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def sweep_stale_temps(directory: Path, *, older_than_s: float = 60.0) -> int:
    """Remove temp files a killed writer left behind; young ones may belong to a live writer."""
    cutoff = time.time() - older_than_s
    removed = 0
    with os.scandir(directory) as entries:
        for entry in entries:
            if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except FileNotFoundError:
                continue
    return removed


def is_temp_name(name: str) -> bool:
    """Whether a directory entry is an in-flight (or abandoned) atomic-write temp file."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def _unlink_quietly(name: str, dir_fd: int) -> None:
    """Remove a temp file on the error path; its absence is already the desired state."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return


class OpenDir:
    """A directory kept open for repeated ``*_at`` writes, reopened when its path names another one.

    Opening a directory twice per write (for the temp file's path and for the flush) is a third of
    an append's system calls; a writer keeps one open instead and checks, by a fresh ``lstat`` of
    the path it already makes, that the path still names the directory it holds.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # [fd, (st_dev, st_ino)] or [None, None]; a list so the finalizer can close what is open then.
        self._held: list[Any] = [None, None]
        weakref.finalize(self, _close_held, self._held)

    def fd(self, current: os.stat_result) -> int:
        """The descriptor of the directory ``current`` (an ``lstat`` of the path just made) describes."""
        held, ident = self._held
        if isinstance(held, int) and ident == (current.st_dev, current.st_ino):
            return held
        self.close()
        fd = open_dir(self.path, follow=False)
        opened = os.fstat(fd)
        self._held[:] = [fd, (opened.st_dev, opened.st_ino)]
        return fd

    def close(self) -> None:
        """Close the held descriptor, if any (the next ``fd`` call reopens)."""
        _close_held(self._held)


def _close_held(held: list[Any]) -> None:
    """Close an OpenDir's descriptor and forget it."""
    fd = held[0]
    held[:] = [None, None]
    if fd is not None:
        os.close(fd)
