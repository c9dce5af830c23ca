"""Getting a durable write's bytes to the disk before its name: one journal commit on ext4, two elsewhere.

The textbook crash-safe write is: write a temp file, fdatasync it, rename it over the target,
fsync the directory. On a journalling filesystem each flush is a journal commit, and an append
paid two (0.25 ms each on a quiet disk here, 1-3 ms when others share it).

On ext4 the first commit is not needed for the guarantee. :func:`write_out` writes the data and
waits until it is on the device and its blocks are mapped (``sync_file_range`` with WAIT_BEFORE,
WRITE and WAIT_AFTER; under ``dioread_nolock`` a page leaves writeback only once its extent is
converted to written), without a commit. The block mapping and the file size are then metadata of
the running journal transaction (or of one before it), the rename joins the same transaction or a
later one, and the directory fsync that follows commits that transaction and every one before it
in order, after a cache flush that covers the data already written. So the rename never becomes
durable without the data and the size it needs, and after the directory fsync both are durable:
the state the textbook order reaches, with one commit instead of two.

That reasoning is ext4's (an ordered, single journal whose commits include every earlier
metadata change; data=ordered, writeback or journal alike, since the data is written before the
rename). Any other filesystem, a kernel without ``sync_file_range`` or a failing call gets
fdatasync, the textbook order.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

__all__ = ["filesystem_of", "flush_data", "write_out"]

# sync_file_range(2): wait for writeback already under way, start it, and wait for it to finish.
_WAIT_BEFORE, _WRITE, _WAIT_AFTER = 1, 2, 4
_WRITE_AND_WAIT = _WAIT_BEFORE | _WRITE | _WAIT_AFTER
#: Filesystems where a directory fsync after write_out makes the data durable with the rename.
ONE_COMMIT_FILESYSTEMS = frozenset({"ext4"})

_sync_file_range: Callable[[int, int, int, int], int] | None
try:
    _sync_file_range = ctypes.CDLL(None, use_errno=True).sync_file_range
    _sync_file_range.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    _sync_file_range.restype = ctypes.c_int
except (OSError, AttributeError):  # not Linux, or a libc without it
    _sync_file_range = None

# fdatasync is Linux's (and most Unixes'); where Python lacks it, fsync does the same and more.
_sync_data = getattr(os, "fdatasync", os.fsync)

_one_commit_by_device: dict[int, bool] = {}
#: Where the mounts (and their filesystem types) are listed.
MOUNTINFO = "/proc/self/mountinfo"


def flush_data(fd: int, dir_fd: int) -> str:
    """Make a temp file's data safe to rename into ``dir_fd``; say how ("write out" or "sync data").

    After "write out" the caller's directory fsync is what makes the data durable (see the module
    docstring): it must follow the rename, as it does in every durable write.
    """
    if write_out(fd, dir_fd):
        return "write out"
    _sync_data(fd)
    return "sync data"


def write_out(fd: int, dir_fd: int) -> bool:
    """On ext4, write ``fd``'s data to the device and wait for it (no commit); False elsewhere."""
    if _sync_file_range is None or not _one_commit_here(os.fstat(dir_fd).st_dev):
        return False
    return bool(_sync_file_range(fd, 0, 0, _WRITE_AND_WAIT) == 0)


def _one_commit_here(device: int) -> bool:
    """Whether the filesystem on ``device`` is one where write_out plus a directory fsync suffices."""
    known = _one_commit_by_device.get(device)
    if known is None:
        try:
            # A mount point's name may hold any bytes; they never matter for the device field.
            with open(MOUNTINFO, encoding="utf-8", errors="replace") as f:
                fstype = filesystem_of(device, f.read())
        except OSError:  # no /proc: say no, and fdatasync
            fstype = None
        known = _one_commit_by_device[device] = fstype in ONE_COMMIT_FILESYSTEMS
    return known


def filesystem_of(device: int, mountinfo: str) -> str | None:
    """The filesystem type mounted from ``device`` (an ``st_dev``), read from /proc/self/mountinfo text."""
    wanted = f"{os.major(device)}:{os.minor(device)}"
    found = None
    for line in mountinfo.splitlines():
        # "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": field 3 is the device;
        # the type is the first field after the " - " that ends the optional fields.
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if sep and len(fields) >= 3 and fields[2] == wanted and right.split():
            found = right.split()[0]  # a later mount of the same device is the same filesystem
    return found
