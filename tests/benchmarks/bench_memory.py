"""Benchmark: MemdirMemory append, and fresh retrieve with 1,000 and 10,000 records.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_memory.py [--runs N]

Figures printed (medians of N runs):
- append: one record into a root of 0 / 1,000 / 10,000 records (atomic record write, fsyncs and
  the MEMORY.md rewrite from a fresh scan);
- retrieve, cold: a new instance parses every file;
- retrieve, fresh files: files written under 2.5 s ago are never served from the cache, so every
  recall re-reads them (the worst case right after a burst of writes);
- retrieve, warm: the steady state, one lstat per record plus the parse cache; every figure
  includes the stat of every file, so an edit by another process is seen by the next call
  (checked at the end by editing one record and recalling it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from qitos.core.memory import MemoryRecord
from qitos.kit.memory import memdir_memory
from qitos.kit.memory.memdir_format import record_filename, render_record
from qitos.kit.memory.memdir_memory import MemdirMemory

SIZES = (1_000, 10_000)


def populate(root: Path, n: int) -> MemdirMemory:
    """A root with ``n`` ~200-character records (written directly: setup, not measured)."""
    memory = MemdirMemory(str(root), create=True)
    base = time.time_ns()
    for i in range(n):
        record = MemoryRecord("user", f"fact {i}: " + "lorem ipsum dolor " * 10, i, record_id=f"rec{i:06d}")
        data, _ = render_record(record, created="2026-01-01T00:00:00+00:00", seq=base + i)
        (memory.records_dir / record_filename(record.record_id)).write_bytes(data)
    memory.rebuild_index()
    return memory


def median_ms(fn, runs: int) -> float:
    """Median wall time of ``fn`` over ``runs`` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bench_append(tmp: Path, runs: int) -> None:
    """One append into roots of growing size."""
    for n in (0, *SIZES):
        memory = populate(tmp / f"append{n}", n)
        memory.retrieve()  # warm the cache as a long-lived agent process would have it
        time.sleep(memdir_memory.RACY_MARGIN_NS / 1e9 + 0.1)
        memory.retrieve()
        ms = median_ms(lambda m=memory: m.append(MemoryRecord("user", "a new fact", 0)), runs)
        print(f"append into {n:>6} records: {ms:8.2f} ms")


def bench_retrieve(tmp: Path, runs: int) -> None:
    """Cold, fresh-file and warm recall of every record."""
    for n in SIZES:
        root = tmp / f"retrieve{n}"
        populate(root, n)
        cold = median_ms(lambda r=root: MemdirMemory(str(r)).retrieve(), max(3, runs // 2))
        memory = MemdirMemory(str(root))
        fresh = median_ms(memory.retrieve, max(3, runs // 2)) if _still_racy(root) else float("nan")
        time.sleep(memdir_memory.RACY_MARGIN_NS / 1e9 + 0.1)
        memory.retrieve()
        warm = median_ms(memory.retrieve, runs)
        assert len(memory.retrieve()) == n
        # Freshness check: an in-place edit by "another process" shows in the very next recall.
        edit_times = []
        for i in range(max(3, runs // 2)):
            record_id = f"rec{i:06d}"
            path = memory.records_dir / record_filename(record_id)
            fd = os.open(path, os.O_WRONLY)  # same inode, same size: the hardest edit to notice
            os.write(fd, path.read_bytes().replace(f"fact {i}:".encode(), f"FACT {i}:".encode()))
            os.close(fd)
            start = time.perf_counter()
            recalled = memory.retrieve()
            edit_times.append((time.perf_counter() - start) * 1000)
            assert recalled[i].content.startswith(f"FACT {i}:"), "stale recall"
        after_edit = statistics.median(edit_times)
        print(
            f"retrieve {n:>6} records: cold {cold:8.2f} ms | fresh files {fresh:8.2f} ms | "
            f"warm {warm:8.2f} ms | after an external edit {after_edit:8.2f} ms"
        )


def _still_racy(root: Path) -> bool:
    """Whether the populated files are still inside the racy window (so nothing is cached)."""
    newest = max(e.stat().st_ctime_ns for e in os.scandir(root / "records"))
    return time.time_ns() - newest < memdir_memory.RACY_MARGIN_NS


def main() -> None:
    """Run both benchmarks in a temporary directory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench_append(Path(tmp), args.runs)
        bench_retrieve(Path(tmp), args.runs)


if __name__ == "__main__":
    main()
