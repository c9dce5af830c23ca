"""A trace cut short where it lies (same inode) is noticed: by TraceReader.refresh and by a follower."""

from __future__ import annotations

import asyncio
from pathlib import Path

from qitos.trace.events import RunEvent
from qitos.trace.reader import TraceReader
from qitos.trace.writer import TraceWriter
from tui.follow import follow_run


def _running_run(tmp_path: Path, n: int) -> tuple[TraceWriter, Path]:
    """A run still being written (its writer holds the lock), with ``n`` events on disk."""
    writer = TraceWriter(tmp_path, run_id="run", clock=lambda: "2026-01-01T00:00:00+00:00")
    for i in range(n):
        writer.write_event(RunEvent("run", i, "DECIDE", payload={"i": i}, ts=writer.clock()))
    return writer, writer.run_dir / "events.jsonl"


def _cut_in_place(events: Path, keep_lines: int) -> None:
    """Truncate the file to its first ``keep_lines`` lines without replacing it (the inode stays)."""
    data = events.read_bytes()
    cut = sum(len(line) for line in data.splitlines(keepends=True)[:keep_lines])
    inode = events.stat().st_ino
    with events.open("r+b") as fh:
        fh.truncate(cut)
    assert events.stat().st_ino == inode  # the same file, only shorter


def test_a_file_truncated_in_place_is_reindexed(tmp_path: Path) -> None:
    """Cut in place (not replaced): refresh drops what no longer exists and says so."""
    writer, events = _running_run(tmp_path, 6)
    reader = TraceReader(writer.run_dir)
    assert len(reader) == 6
    _cut_in_place(events, 2)
    reader.refresh()
    assert len(reader) == 2
    assert [e.payload["i"] for e in reader.events()] == [0, 1]
    assert any("truncated on disk; re-indexed" in n for n in reader.notices)
    writer.finalize(status="completed", summary={})


def test_a_file_truncated_in_place_then_appended_reads_the_new_lines(tmp_path: Path) -> None:
    """Cut to one line, then two new lines: the reader shows exactly what the file now holds."""
    writer, events = _running_run(tmp_path, 6)
    reader = TraceReader(writer.run_dir)
    _cut_in_place(events, 1)
    with events.open("ab") as fh:
        fh.write(RunEvent("run", 7, "ACT", payload={"i": 70}).to_json().encode() + b"\n")
    reader.refresh()
    assert [e.payload["i"] for e in reader.events()] == [0, 70]
    writer.finalize(status="completed", summary={})


def test_a_follower_stops_with_a_problem_when_the_trace_shrinks(tmp_path: Path) -> None:
    """Following from event 6 of a trace cut to 3 in place: the follow ends, naming the shrink."""
    writer, events = _running_run(tmp_path, 6)
    reader = TraceReader(writer.run_dir)
    assert len(reader) == 6
    _cut_in_place(events, 3)
    delivered: list[tuple[int, int]] = []

    async def follow() -> object:
        return await follow_run(
            reader,
            6,
            deliver=lambda batch, first: delivered.append((first, len(batch))),
            on_status=lambda _status: None,
            stop_event=asyncio.Event(),
        )

    end = asyncio.run(asyncio.wait_for(follow(), 10))
    assert getattr(end, "problem", None) == "the trace shrank to 3 events while followed (6 shown)"
    assert getattr(end, "status", None) == "running"
    assert delivered == []  # nothing is delivered from a trace that no longer holds what was shown
    writer.finalize(status="completed", summary={})
