"""The replay's head (tui.replay.HeadSource): the first events, read only as far as they go, with
the reader's indices and events, whatever the lines."""

from __future__ import annotations

import json
from pathlib import Path

from qitos.trace.reader import TraceReader
from tui.replay import HEAD_BYTES, HEAD_CHUNK, HeadSource


def write_lines(run_dir: Path, lines: list[bytes]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "events.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))


def line(step: int, pad: int = 0) -> bytes:
    return json.dumps(
        {"run_id": "r", "step_id": step, "phase": "OBSERVE", "payload": {"p": "x" * pad}}
    ).encode()


def test_the_head_stops_at_its_limit_in_a_long_trace_and_reads_as_the_reader(tmp_path: Path) -> None:
    # More than one chunk of lines before the limit: the head reads on until it has them all.
    lines = [line(k, pad=HEAD_CHUNK // 300) for k in range(1000)]
    write_lines(tmp_path, lines)
    head = HeadSource(tmp_path, limit=400, run_id="r")
    reader = TraceReader(tmp_path)
    assert len(head) == 400 and not head.complete
    assert [repr(e) for e in head.events()] == [repr(e) for e in reader.events(0, 400)]
    assert repr(head.event(-1)) == repr(reader.event(399))
    assert [r["step_id"] for r in head.records()] == list(range(400))


def test_a_short_trace_is_whole_in_the_head_blank_and_damaged_lines_counted_as_the_reader_does(
    tmp_path: Path,
) -> None:
    lines = [line(0), b"", line(1), b"{not json", b"", b"[1, 2]", line(2)]
    write_lines(tmp_path, lines)
    reader = TraceReader(tmp_path)
    head = HeadSource(tmp_path, limit=400, run_id=reader.run_id)  # the run's id for damaged lines
    assert head.complete and len(head) == len(reader) == 5
    assert [repr(e) for e in head.events()] == [repr(e) for e in reader.events()]
    records = list(head.records())
    assert [r["phase"] for r in records] == ["OBSERVE", "OBSERVE", "<malformed>", "<malformed>", "OBSERVE"]
    assert records[2]["payload"]["line"] == 4  # the file's line, blank lines counted


def test_a_first_line_longer_than_the_head_leaves_it_empty_for_the_reader(tmp_path: Path) -> None:
    write_lines(tmp_path, [line(0, pad=HEAD_BYTES + 10), line(1)])
    head = HeadSource(tmp_path, limit=400, run_id="r")
    assert len(head) == 0 and not head.complete  # the background fold reads it all
    assert len(TraceReader(tmp_path)) == 2


def test_an_incomplete_last_line_is_left_to_the_reader(tmp_path: Path) -> None:
    (tmp_path / "events.jsonl").write_bytes(line(0) + b"\n" + line(1)[:10])
    head = HeadSource(tmp_path, limit=400, run_id="r")
    assert len(head) == 1 and head.complete
