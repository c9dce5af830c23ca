"""Crash safety: a writer killed with SIGKILL at random instants never leaves a half-written record.

The writer is a real forked process appending (large, self-verifying) records and deleting some;
the parent kills it at a random moment, then checks with a fresh instance that every recalled
record is complete, nothing was rejected, and the index is consistent or rebuilt.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_memory import MemdirMemory

TRIALS = 60


def expected_content(record_id: str, size: int) -> str:
    """Deterministic content derived from the id, so completeness can be verified after a crash."""
    body = (record_id * (size // len(record_id) + 1))[:size]
    return f"BEGIN {record_id} {size}\n---\nrole: fake\n---\n{body}\nEND {record_id}"


def _writer(root: str, seed: int) -> None:
    """Append and delete forever (until killed)."""
    rng = random.Random(seed)
    memory = MemdirMemory(root)
    while True:
        if rng.random() < 0.3:
            current = memory.retrieve()
            if current:
                memory.delete(rng.choice(current).record_id)
                continue
        record_id = f"{seed:04d}{rng.getrandbits(64):016x}"
        size = rng.choice([10, 1_000, 50_000, 400_000])
        memory.append(MemoryRecord("user", expected_content(record_id, size), seed, record_id=record_id))


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
    started = time.monotonic()
    for trial in range(TRIALS):
        proc = ctx.Process(target=_writer, args=(str(root), trial), daemon=True)
        proc.start()
        time.sleep(rng.uniform(0.002, 0.06))
        os.kill(proc.pid, 9)
        proc.join(5)
        assert proc.exitcode == -9, f"trial {trial}: writer was not killed (exit {proc.exitcode})"
        rebuilt += _check(root)
    assert len(MemdirMemory(str(root)).retrieve()) > 0
    assert time.monotonic() - started < 60
    print(f"{TRIALS} kills, index rebuilt after {rebuilt}")
