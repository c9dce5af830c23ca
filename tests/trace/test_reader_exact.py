"""qitos.trace.reader to the letter: records block by block and the lines they read the total way,
the search's candidates, step records and their notices, line numbers around blank lines, what
refresh reports, and a closed reader's file descriptor.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a caller relies on (a fold that sees every line once, a search hit per line, a notice
that names the right line), not the mutant.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from qitos.trace.errors import TraceError
from qitos.trace.events import MALFORMED_PHASE, RunEvent
from qitos.trace.reader import TraceReader

ODD = "; shown as a raw event"


def line(step: int, **payload: Any) -> bytes:
    """One well-formed event line of run ``r``."""
    return json.dumps({"run_id": "r", "step_id": step, "phase": "ACT", "payload": payload}).encode()


def run(tmp_path: Path, data: bytes, steps: bytes | None = None) -> Path:
    """A run directory holding ``data`` as its events.jsonl (and ``steps`` as steps.jsonl)."""
    run_dir = tmp_path / "r"
    run_dir.mkdir(exist_ok=True)
    (run_dir / "events.jsonl").write_bytes(data)
    if steps is not None:
        (run_dir / "steps.jsonl").write_bytes(steps)
    return run_dir


def all_records(reader: TraceReader, *args: Any, **kw: Any) -> list[dict[str, Any]]:
    return [record for _, block in reader.records(*args, **kw) for record in block]


# -- records --------------------------------------------------------------------------------------


def test_records_are_the_line_objects_a_block_at_a_time(tmp_path: Path) -> None:
    lines = [line(i, n=i) for i in range(5)]
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))
    assert all_records(reader) == [json.loads(raw) for raw in lines]
    # One line per block when a block is smaller than a line: each block says where it starts.
    assert [(at, len(block)) for at, block in reader.records(block_size=1)] == [(i, 1) for i in range(5)]
    assert all_records(reader, 1, 3) == [json.loads(raw) for raw in lines[1:3]]
    assert all_records(reader, -2, 99) == [json.loads(raw) for raw in lines]
    assert all_records(reader, 0, 0) == [] and all_records(reader, 4, 2) == []


@pytest.mark.parametrize("block_size", [1, 64, 1 << 18])
def test_a_line_with_an_integer_json_alone_keeps_exact_is_read_the_total_way(
    tmp_path: Path, block_size: int
) -> None:
    big = 12345678901234567890123  # beyond 64 bits: a fast reader would round it
    plain = [line(i, n=big if i % 2 else 123456789012345678) for i in range(7)]
    reader = TraceReader(run(tmp_path, b"\n".join(plain) + b"\n"))
    records = all_records(reader, block_size=block_size)
    for i in (1, 3, 5):
        assert records[i] == reader.event(i).to_dict() and records[i]["payload"]["n"] == big
    # The others are the line objects as they stand (no fields filled in).
    assert [records[i] for i in (0, 2, 4, 6)] == [json.loads(plain[i]) for i in (0, 2, 4, 6)]


def test_many_shallow_lines_and_one_with_64_braces_are_read_as_they_stand(tmp_path: Path) -> None:
    # Nesting is bounded per line: braces are counted in the line itself, not the block before it.
    lines = [line(i, a={"b": {"c": i}}) for i in range(40)]
    lines.append(json.dumps({"run_id": "r", "payload": {"t": "{" * 62}}).encode())  # 64 braces in all
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))
    assert all_records(reader) == [json.loads(raw) for raw in lines]


def test_a_deep_or_damaged_line_is_a_malformed_record_and_noticed(tmp_path: Path) -> None:
    deep = b'{"a": ' + b'{"a": ' * 70 + b"1" + b"}" * 71
    braces = json.dumps({"run_id": "r", "phase": "ACT", "payload": {"t": "{" * 80}}).encode()
    data = b"\n".join([line(0), deep, b"{not json}", braces, b"[1, 2]"]) + b"\n"
    reader = TraceReader(run(tmp_path, data))
    records = all_records(reader)
    assert [r["phase"] for r in records] == ["ACT", "<malformed>", "<malformed>", "ACT", "<malformed>"]
    assert records[1]["error"] == "malformed trace line 2: nested deeper than 64 levels"
    assert records[3] == RunEvent.from_dict(json.loads(braces)).to_dict()  # many braces, shallow
    assert records[4]["error"] == "malformed trace line 5: a JSON list, not an object"
    assert (
        f"events.jsonl line 3: invalid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1)){ODD}"
        in reader.notices
    )


def test_a_block_orjson_reads_whole_still_sends_each_line_it_refuses_the_total_way(tmp_path: Path) -> None:
    # No blank line, long digits or deep line: the block goes to orjson line after line, and a line
    # it refuses (a lone surrogate) or reads as no object comes from the total parse instead.
    surrogate = b'{"run_id": "r", "step_id": 1, "phase": "ACT", "payload": {"t": "\\ud800"}}'
    lines = [line(0, n=0), surrogate, b"[1, 2]", line(3, n=3)]
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))
    records = all_records(reader)
    assert records[0] == json.loads(lines[0]) and records[3] == json.loads(lines[3])
    assert records[1] == reader.event(1).to_dict() and records[1]["payload"]["t"] == "\ufffd"
    assert records[2]["phase"] == "<malformed>" and records[2]["step_id"] == 0
    assert records[2]["error"] == "malformed trace line 3: a JSON list, not an object"


def test_digits_joined_only_once_letters_are_dropped_keep_the_line_as_it_stands(tmp_path: Path) -> None:
    # Ten digits, letters, nine digits: a long run only without the letters. The block goes line by
    # line, where the run is looked for in the line as written: none, so the line object stands.
    lines = [line(0, t="1234567890abc123456789"), line(1, n=1)]
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))
    assert all_records(reader) == [json.loads(raw) for raw in lines]


def test_a_block_reads_the_same_twice_and_keeps_its_lines_when_the_file_is_indexed_anew(
    tmp_path: Path,
) -> None:
    lines = [line(i, n=i) for i in range(4)]
    run_dir = run(tmp_path, b"\n".join(lines) + b"\n")
    reader = TraceReader(run_dir)
    [(start, block)] = list(reader.records())
    assert start == 0 and len(block) == 4 and list(block) == list(block)
    replaced = run_dir / "events.new"
    replaced.write_bytes(b"\n" * 3 + line(9, n=9) + b"\n")
    os.replace(replaced, run_dir / "events.jsonl")
    assert reader.refresh() == 1  # indexed anew: one line, at another offset
    assert list(block) == [json.loads(raw) for raw in lines]  # what was read is what it parses


# -- the search's candidates --------------------------------------------------------------------------


def test_lines_containing_gives_each_line_with_a_pattern_once(tmp_path: Path) -> None:
    lines = [line(0, t="Alpha"), line(1, t="beta"), line(2, t="none"), line(3, t="alpha beta alpha"), line(4)]
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))
    assert list(reader.lines_containing([b"alpha", b"beta"])) == [0, 1, 3]
    assert list(reader.lines_containing([b'{"run_id"'])) == [0, 1, 2, 3, 4]  # a hit at a line's start
    assert list(reader.lines_containing([b'{"run_id"'], 1)) == [1, 2, 3, 4]
    assert list(reader.lines_containing([b"alpha"], 1, 3)) == []
    assert list(reader.lines_containing([b"alpha"], 0, 0)) == []
    assert list(reader.lines_containing([b"\n"])) == []  # the newline after a line is no line's text
    assert list(reader.lines_containing([b""])) == []
    assert list(reader.lines_containing([b"alpha"], cancelled=lambda: True)) == []


def test_lines_containing_goes_on_past_the_first_block(tmp_path: Path) -> None:
    lines = [line(i, t="x" * 200 + ("needle" if i % 100 == 7 else "")) for i in range(2000)]
    reader = TraceReader(run(tmp_path, b"\n".join(lines) + b"\n"))  # ~500 KB: two scan blocks
    assert list(reader.lines_containing([b"needle"])) == list(range(7, 2000, 100))


# -- events, line numbers, notices at open ---------------------------------------------------------


def test_an_index_past_the_end_is_refused_with_the_count(tmp_path: Path) -> None:
    reader = TraceReader(run(tmp_path, line(0) + b"\n" + line(1) + b"\n"))
    with pytest.raises(IndexError) as info:
        reader.event(2)
    assert str(info.value) == "event index 2 out of range (trace has 2 events)"
    assert reader.event(-2).step_id == 0
    assert list(reader.events(0, 0)) == [] and [e.step_id for e in reader.events(1)] == [1]


def test_damaged_lines_are_noticed_at_open_by_their_line_number(tmp_path: Path) -> None:
    data = (
        b"\n".join([b"", line(0), b"x}", b"", b"{y", b"z", line(1) + b"\r", b"w}\r", b"\r", line(2)]) + b"\n"
    )
    reader = TraceReader(run(tmp_path, data))
    expecting = "invalid JSON (Expecting value: line 1 column 1 (char 0))"
    assert reader.notices[1:] == [
        f"events.jsonl line 3: {expecting}{ODD}",
        f"events.jsonl line 5: invalid JSON (Expecting property name enclosed in double quotes:"
        f" line 1 column 2 (char 1)){ODD}",
        f"events.jsonl line 6: {expecting}{ODD}",
        f"events.jsonl line 8: {expecting}{ODD}",
        f"events.jsonl line 9: invalid JSON (Expecting value: line 1 column 2 (char 1)){ODD}",
    ]
    assert len(reader) == 8
    assert [reader.line_number(i) for i in range(len(reader))] == [2, 3, 5, 6, 7, 8, 9, 10]
    assert reader.event(4).step_id == 1 and reader.event(4).phase == "ACT"  # a CRLF line reads
    list(reader.events())
    assert len(reader.notices) == 6  # each damaged line noticed once


def test_a_span_reads_its_lines_as_the_reader_that_indexed_them_without_indexing_them(
    tmp_path: Path,
) -> None:
    """Every span of a trace with blank and damaged lines reads, as a trace of its own, the same
    events at the same line numbers, and notices a damaged line only where the whole trace's
    reader would have (the ones it noticed when indexing are not noticed again); it survives
    pickling, as a worker process gets it."""
    deep = b'{"phase": "ACT", "payload": ' + b"[" * 70 + b"]" * 70 + b"}"
    lines = [b"", line(0), b"x}", b"", deep, b"", b"", line(1) + b"\r", deep, b"{y", line(2)]
    run_dir = run(tmp_path, b"\n".join(lines) + b"\n")
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": "r", "status": "completed"}))
    whole = TraceReader(run_dir)
    noticed_at_open = whole.noticed_lines()
    assert sorted(noticed_at_open) == [3, 10]
    events = [e.to_dict() for e in whole.events()]
    numbers = [whole.line_number(i) for i in range(len(whole))]
    assert numbers == [2, 3, 5, 8, 9, 10, 11]
    noticed = sorted(whole.noticed_lines())  # now the deep lines too, noticed as they were read
    assert noticed == [3, 5, 9, 10]
    for start in range(len(whole)):
        for stop in range(start + 1, len(whole) + 1):
            span = pickle.loads(pickle.dumps(whole.span_of(start, stop)))
            part = TraceReader(run_dir, span=span)
            assert len(part) == stop - start
            assert [part.line_number(i) for i in range(len(part))] == numbers[start:stop]
            assert part.noticed_lines() == {n for n in noticed_at_open if n in numbers[start:stop]}
            assert part.notices == []  # what indexing them noticed, the whole trace's reader has
            assert [e.to_dict() for e in part.events()] == events[start:stop]
            read = {n for n in noticed if n in numbers[start:stop]}
            assert part.noticed_lines() == read
            assert part.notices == [
                n for n in whole.notices if any(f" line {k}:" in n for k in read - noticed_at_open)
            ]


def test_only_a_crlf_lines_one_carriage_return_is_taken_off_before_its_closing_brace(tmp_path: Path) -> None:
    """A CRLF object line is not noticed, whatever precedes its closing brace; a line with a byte
    after its closing brace is noticed even where the byte before that one is a brace."""
    data = b"\n".join([b'{"a": 1}\r', b'{"a": 1}x', line(0)]) + b"\n"
    reader = TraceReader(run(tmp_path, data))
    assert reader.notices[1:] == [
        f"events.jsonl line 2: invalid JSON (Extra data: line 1 column 9 (char 8)){ODD}"
    ]
    assert len(reader) == 3


def test_an_object_with_spaces_or_a_byte_order_mark_around_it_is_not_noticed(tmp_path: Path) -> None:
    """``{...}`` with spaces or a byte order mark around it is an event like any other: not parsed
    when indexed, nor noticed as a raw one."""
    padded = [b"  " + line(0), b"\xef\xbb\xbf" + line(1), line(2) + b" \r", b"\t" + line(3) + b"\t"]
    reader = TraceReader(run(tmp_path, b"\n".join([*padded, b" {oops} "]) + b"\n"))
    assert reader.notices[1:] == [] and reader.noticed_lines() == frozenset()  # none parsed yet
    events = list(reader.events())
    assert [(e.step_id, e.phase) for e in events[:4]] == [(k, "ACT") for k in range(4)]
    # One that looks like an object but is not one is noticed when read, as a plain {...} line is.
    assert events[4].phase == MALFORMED_PHASE and reader.noticed_lines() == frozenset({5})
    assert reader.notices[1:] == [
        f"events.jsonl line 5: invalid JSON (Expecting property name enclosed in double quotes:"
        f" line 1 column 3 (char 2)){ODD}"
    ]


def test_an_incomplete_line_after_a_blank_one_is_noticed_with_its_own_length(tmp_path: Path) -> None:
    run_dir = run(tmp_path, line(0) + b"\n")
    reader = TraceReader(run_dir)
    with (run_dir / "events.jsonl").open("ab") as fh:
        fh.write(b"\n" + b'{"par')
    assert reader.refresh() == 0
    assert reader.notices[-1] == (
        "events.jsonl: incomplete last line (5 bytes) skipped — the run was cut off mid-write or is still writing it"
    )


# -- refresh -----------------------------------------------------------------------------------------


def test_refresh_counts_only_new_lines(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text("{}")
    reader = TraceReader(run_dir)  # no events yet
    assert reader.refresh() == 0
    (run_dir / "events.jsonl").write_bytes(line(0) + b"\n" + line(1) + b"\n")
    assert reader.refresh() == 2 and reader.refresh() == 0
    (run_dir / "events.jsonl").unlink()
    assert reader.refresh() == 0 and len(reader) == 2


def test_a_file_replaced_on_disk_is_indexed_again_with_its_blank_lines(tmp_path: Path) -> None:
    run_dir = run(tmp_path, b"\n".join(line(i) for i in range(3)) + b"\n")
    reader = TraceReader(run_dir)
    replacement = run_dir / "new.jsonl"
    replacement.write_bytes(line(7) + b"\n\n" + line(8) + b"\n")
    os.replace(replacement, run_dir / "events.jsonl")
    assert reader.refresh() == 2
    assert [e.step_id for e in reader.events()] == [7, 8] and reader.line_number(1) == 3


def test_a_file_replaced_by_a_link_keeps_what_was_read(tmp_path: Path) -> None:
    run_dir = run(tmp_path, line(0) + b"\n")
    reader = TraceReader(run_dir)
    (tmp_path / "other.jsonl").write_bytes(line(1) + b"\n" + line(2) + b"\n")
    (run_dir / "events.jsonl").unlink()
    (run_dir / "events.jsonl").symlink_to(tmp_path / "other.jsonl")
    assert reader.refresh() == 0 and [e.step_id for e in reader.events()] == [0]


# -- steps ---------------------------------------------------------------------------------------------


def test_step_records_are_read_field_by_field_with_exact_notices(tmp_path: Path) -> None:
    long_id = "9" * 30 + "x" * 20
    steps = b"\n".join(
        [
            b'{"step_id": "3", "a": 1}',
            b"",
            b'{"b": 2}',
            b"{bad \xff",
            json.dumps({"step_id": long_id}).encode(),
            b'{"step_id": 4}',
        ]
    )
    reader = TraceReader(run(tmp_path, line(0) + b"\n", steps + b"\n" + b'{"step_id": 5'))
    assert reader.steps() == [
        {"step_id": 3, "a": 1},
        {"step_id": 0, "b": 2},
        {
            "step_id": 0,
            "malformed": True,
            "line": 4,
            "text": "{bad \ufffd",
            "reason": reader.steps()[2]["reason"],
        },
        {"step_id": 0},
        {"step_id": 4},
    ]
    assert reader.steps()[2]["reason"].startswith("invalid JSON")
    assert reader.notices[1:] == [
        "steps.jsonl: incomplete last line (13 bytes) skipped",
        f"steps.jsonl line 4: {reader.steps()[2]['reason']}; kept raw",
        f"steps.jsonl line 5: step_id {long_id[:40]} is not a usable number; read as 0",
    ]


def test_step_records_are_copies_and_follow_the_file(tmp_path: Path) -> None:
    run_dir = run(tmp_path, line(0) + b"\n", b'{"step_id": 1}\n')
    reader = TraceReader(run_dir)
    first = reader.steps()
    first[0]["step_id"] = 99
    assert reader.steps() == [{"step_id": 1}]  # what a caller changes is its own copy
    with (run_dir / "steps.jsonl").open("ab") as fh:
        fh.write(b'{"step_id": 2, "more": "text"}\n')
    assert reader.steps() == [{"step_id": 1}, {"step_id": 2, "more": "text"}]


# -- lifetime ------------------------------------------------------------------------------------------


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_closing_a_reader_lets_its_file_go(tmp_path: Path) -> None:
    run_dir = run(tmp_path, line(0) + b"\n")
    before = open_fds()
    reader = TraceReader(run_dir)
    assert open_fds() == before + 1
    reader.close()
    assert open_fds() == before
    reader.close()  # twice is fine
    with pytest.raises(TraceError) as info:
        reader.event(0)
    assert str(info.value) == f"trace reader for {run_dir} is closed"
    with pytest.raises(TraceError) as info:
        list(reader.events())
    assert str(info.value) == f"trace reader for {run_dir} is closed"


def test_the_run_id_comes_from_the_manifest_and_fills_lines_without_one(tmp_path: Path) -> None:
    run_dir = run(tmp_path, b'{"phase": "ACT"}\n{bad\n')
    (run_dir / "manifest.json").write_text('{"run_id": "abc"}')
    reader = TraceReader(run_dir)
    assert reader.run_id == "abc"
    assert [(e.phase, e.run_id) for e in reader.events()] == [("ACT", "abc"), ("<malformed>", "abc")]
    for unusable in ('""', "5", "null"):
        (run_dir / "manifest.json").write_text(f'{{"run_id": {unusable}}}')
        assert TraceReader(run_dir).run_id == "r"  # the directory's name


def test_a_reader_that_failed_to_open_leaves_nothing_to_complain_about(tmp_path: Path) -> None:
    unraisable: list[Any] = []
    old, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        with pytest.raises(TraceError):
            TraceReader(tmp_path / "missing")
        gc.collect()
    finally:
        sys.unraisablehook = old
    assert unraisable == []
