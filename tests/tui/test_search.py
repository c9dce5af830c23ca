"""Search covers every event of a run, in a trace's raw bytes first; a partial fold is searched as far as it goes."""

from __future__ import annotations

import json
from pathlib import Path

from qitos.trace.events import EventKind, RunEvent
from qitos.trace.reader import TraceReader
from tui.search import search, search_run
from tui.store import ListSource, RunStore
from tui.synthetic import synthetic_events, write_trace

ODD_TEXT = 'He said "naïve"\n\tthen: Ünïcode'


def _events() -> list[RunEvent]:
    events = list(synthetic_events(6))
    # Text no exchange holds: a memory record's content and the run's end, at steps 4 and 5.
    events.insert(
        -3,
        RunEvent("synthetic_run", 4, EventKind.MEMORY_RECALL, payload={"records": [{"content": ODD_TEXT}]}),
    )
    return events


def _folded(run_dir: Path, until: int | None = None) -> tuple[RunStore, TraceReader]:
    reader = TraceReader(run_dir)
    store = RunStore(reader, run_id=reader.run_id)
    store.apply(reader.events(0, until), 0)
    return store, reader


def test_every_kind_of_event_is_searched_in_a_trace_and_a_live_run(tmp_path: Path) -> None:
    events = _events()
    write_trace(tmp_path / "run", iter(events))
    store, reader = _folded(tmp_path / "run")
    live = RunStore(ListSource(events))
    live.apply(events)
    for folded in (store, live):
        # The run_end's stop reason, in no exchange and no tool result.
        assert [pos for pos, _ in search(folded, "FINAL_RESULT")] == [5]
        # JSON-escaped in the file (quotes, newline, tab, non-ASCII): found as the text reads.
        assert [pos for pos, _ in search(folded, 'said "NAÏVE"\n\tthen')] == [4]
        assert [pos for pos, _ in search(folded, "ünïcode")] == [4]
        # Key names are not text: every line has "payload", no event says it.
        assert search(folded, "payload") == []
        # The kind filter.
        assert search(folded, "calc.py", kinds={EventKind.TOOL_RESULT}) == []
        assert len(search(folded, "calc.py", kinds={EventKind.MODEL_REQUEST})) == 6
    reader.close()


def test_a_partial_fold_is_searched_as_far_as_it_goes_and_says_so(tmp_path: Path) -> None:
    events = _events()
    write_trace(tmp_path / "run", iter(events))
    store, reader = _folded(tmp_path / "run", until=len(events) // 2)
    early = search_run(store, "calc.py")
    assert early.partial and early.searched == len(events) // 2 and early.total == len(events)
    assert early.matches and max(pos for pos, _ in early.matches) < 5
    assert search_run(store, "final_result").matches == []  # the run's end is not folded yet
    store.apply(reader.events(len(events) // 2), len(events) // 2)
    whole = search_run(store, "final_result")
    assert not whole.partial and [pos for pos, _ in whole.matches] == [5]
    reader.close()


def test_the_raw_scan_finds_each_line_once_and_no_other(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    lines = [
        {"run_id": "r", "step_id": 0, "phase": "OBSERVE", "payload": {"note": "needle needle"}},
        {"run_id": "r", "step_id": 0, "phase": "OBSERVE", "payload": {"note": "hay"}},
        {"run_id": "r", "step_id": 1, "phase": "OBSERVE", "payload": {"note": "NEEDLE"}},
    ]
    # A blank line and a damaged one between them: the scan maps hits to the right events.
    body = json.dumps(lines[0]) + "\n\n" + json.dumps(lines[1]) + "\n{needle\n" + json.dumps(lines[2]) + "\n"
    (run / "events.jsonl").write_text(body, encoding="utf-8")
    with TraceReader(run) as reader:
        assert list(reader.lines_containing([b"needle"])) == [0, 2, 3]
        assert list(reader.lines_containing([b"needle"], 1, 3)) == [2]
        assert list(reader.lines_containing([b"absent"])) == []
