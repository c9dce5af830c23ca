"""Crash safety: a writer killed with SIGKILL at random instants never leaves a half-written record.

The writer is a real forked process appending (large, self-verifying) records and deleting some;
it says "ready" on a pipe once its first records are on disk, and only then does the parent pick a
random moment to kill it, so every trial kills a writer that has written. A fresh instance then
checks that every recalled record is complete, nothing was rejected, and the index is consistent
or rebuilt.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
from waits import wait_for_ready

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_memory import MemdirMemory

TRIALS = 60
READY_AFTER = 3  # appends on disk before the writer says "ready"
KEEP_AT_MOST = 40  # records; past this the writer deletes, so sixty trials of writing stay quick to check


def expected_content(record_id: str, size: int) -> str:
    """Deterministic content derived from the id, so completeness can be verified after a crash."""
    body = (record_id * (size // len(record_id) + 1))[:size]
    return f"BEGIN {record_id} {size}\n---\nrole: fake\n---\n{body}\nEND {record_id}"


def _writer(root: str, seed: int, ready: Connection) -> None:
    """Append and delete forever (until killed); say "ready" once the first appends are on disk."""
    rng = random.Random(seed)
    memory = MemdirMemory(root)
    held = [record.record_id for record in memory.retrieve()]  # what earlier trials left
    appended = 0
    while True:
        if held and (rng.random() < 0.3 or len(held) > KEEP_AT_MOST):
            memory.delete(held.pop(rng.randrange(len(held))))
            continue
        record_id = f"{seed:04d}{rng.getrandbits(64):016x}"
        size = rng.choice([10, 1_000, 50_000, 400_000])
        memory.append(MemoryRecord("user", expected_content(record_id, size), seed, record_id=record_id))
        held.append(record_id)
        appended += 1
        if appended == READY_AFTER:
            ready.send("ready")


def _check(root: Path) -> bool:
    """Verify a crashed root; return whether the index needed a rebuild."""
    memory = MemdirMemory(str(root))
    scan = memory.scan()
    assert scan.rejected == [], f"rejected after crash: {scan.rejected}"
    for record in memory.retrieve():
        size = int(str(record.content).split(" ", 3)[2].split("\n")[0])
        assert record.content == expected_content(record.record_id, size), "half-written record recalled"
    index = memory.index_path.read_text(encoding="utf-8")
    assert index.startswith("# Memory index"), "torn index"
    if memory.index_is_current():
        return False
    memory.rebuild_index()
    assert memory.index_is_current()
    return True


@pytest.mark.slow
def test_sigkill_during_appends_and_deletes_never_tears_a_record(tmp_path: Path) -> None:
    """≥50 SIGKILLs at random instants: no torn record is recalled, the index is consistent or rebuilt."""
    root = tmp_path / "mem"
    MemdirMemory(str(root), create=True, max_index_entries=50)
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(20261130)
    rebuilt = 0
    for trial in range(TRIALS):
        reader, writer_end = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_writer, args=(str(root), trial, writer_end), daemon=True)
        proc.start()
        writer_end.close()  # the child's copy stays open: EOF here means the child died
        wait_for_ready(reader, what=f"trial {trial}: the writer")
        # The sleep is the behaviour under test, not synchronisation: it picks the random instant
        # of the kill among the appends and deletes that follow "ready".
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(proc.pid, 9)
        proc.join(5)
        assert proc.exitcode == -9, f"trial {trial}: writer was not killed (exit {proc.exitcode})"
        rebuilt += _check(root)
    # Each trial left at least its READY_AFTER appends on disk, less what later deletes removed.
    assert len(MemdirMemory(str(root)).retrieve()) > 0
    print(f"{TRIALS} kills, index rebuilt after {rebuilt}")
