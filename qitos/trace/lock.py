"""The writer lock of a run directory: held by the live writer, probed by readers."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "writer.lock"


def acquire(run_dir: Path) -> int | None:
    """Take the exclusive writer lock of ``run_dir``; the locked fd, or None if another writer has it."""
    path = run_dir / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        # A writer that released the lock removes its file (see release): if that happened between
        # our open and our flock, we hold a lock on a file no one else can find. Try the new one.
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(fd).st_ino:
            return fd
        os.close(fd)


def release(fd: int, run_dir: Path | None = None) -> None:
    """Release a lock taken with :func:`acquire`; with ``run_dir``, remove the lock file too (while
    still holding the lock, so that no other writer can be holding it), leaving no trace of it."""
    try:
        if run_dir is not None:
            try:
                (run_dir / LOCK_NAME).unlink()
            except FileNotFoundError:
                pass
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
