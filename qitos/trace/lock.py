"""The writer lock of a run directory: held by the live writer, probed by readers."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "writer.lock"


def acquire(run_dir: Path) -> int | None:
    """Take the exclusive writer lock of ``run_dir``; the locked fd, or None if another writer has it."""
    fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def release(fd: int) -> None:
    """Release a lock taken with :func:`acquire` (closing the fd drops the flock)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def writer_alive(run_dir: Path) -> bool:
    """Whether a writer holds ``run_dir``'s lock right now; False when there is no lock file."""
    try:
        # Never follow a link or wait on a FIFO: a copied run directory is untrusted.
        fd = os.open(run_dir / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        # A shared lock conflicts with the writer's exclusive one; getting it means nobody writes.
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False
