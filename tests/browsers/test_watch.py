"""The watch helper: filters, arming before the first read, fast delivery, and a prompt stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

from watchfiles import Change

from tui.browsers.watch import memory_filter, sqlite_filter, watch


def test_filters() -> None:
    """Memory: temp files and the derived index are ignored. SQLite: only the db and its journals."""
    assert memory_filter(Change.modified, "/m/records/0123456789abcdef0123456789abcdef.md")
    assert not memory_filter(Change.added, "/m/records/.tmp-abc.part")
    assert not memory_filter(Change.modified, "/m/MEMORY.md")
    keep = sqlite_filter(Path("/d/skills.db"))
    assert keep(Change.modified, "/d/skills.db") and keep(Change.modified, "/d/skills.db-wal")
    assert keep(Change.added, "/d/skills.db-journal")
    assert not keep(Change.modified, "/d/skills.db-shm") and not keep(Change.modified, "/d/other.db")


async def test_armed_then_changes_then_stop(tmp_path: Path) -> None:
    """A write made right after on_armed is reported; setting stop ends the iteration (how soon a
    change shows is measured by tests/benchmarks/bench_scale.py's `edit` row, not asserted here)."""
    stop = asyncio.Event()
    armed = asyncio.Event()
    target = tmp_path / "records" / "0123456789abcdef0123456789abcdef.md"
    target.parent.mkdir()

    async def consume() -> set[tuple[Change, str]]:
        async for changes in watch([tmp_path], memory_filter, stop, armed.set):
            return changes
        raise AssertionError("the watch ended without a change")

    task = asyncio.create_task(consume())
    await asyncio.wait_for(armed.wait(), 60)
    target.write_text("x", encoding="utf-8")
    changes = await asyncio.wait_for(task, 60)
    assert any(path == str(target) for _, path in changes)
    assert not stop.is_set()  # leaving one watch does not stop the caller's others

    rearmed = asyncio.Event()

    async def until_stopped() -> int:
        count = 0
        async for _ in watch([tmp_path], memory_filter, stop, rearmed.set):
            count += 1
        return count

    task2 = asyncio.create_task(until_stopped())
    await asyncio.wait_for(rearmed.wait(), 60)  # stopped while it watches, not before it started
    stop.set()
    assert (
        await asyncio.wait_for(task2, 60) == 0
    )  # the stop ends the watch (the 60 s is a bound, not a measure)
