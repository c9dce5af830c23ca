"""The status bar's notices as the Feeder gathers them: the reader's, the fold's and its own, each once."""

from __future__ import annotations

from pathlib import Path

from qitos.trace.reader import TraceReader
from tui.screens.feeding import Feeder
from tui.store import RunStore

RAW = "; shown as a raw event"


class _Screen:
    """The one thing the Feeder asks of its screen when a notice is added: show it."""

    def show_folded(self, newest: int | None) -> None:
        """Nothing to draw here."""


def test_each_notice_shows_once_in_the_order_it_was_found(tmp_path: Path) -> None:
    """Syncs after each part of the fold take only what is new, and a text the reader and the fold
    both give (a damaged line), or one added twice, shows once; a replaced notice goes."""
    run = tmp_path / "r"
    run.mkdir()
    lines = [
        b'{"phase": "INIT", "payload": {}}',
        b"[1]",
        b'{"phase": "shiny", "payload": {}}',
        b"x}",
        b'{"step_id": 1, "phase": "ACT", "payload": {oops}}',
    ]
    (run / "events.jsonl").write_bytes(b"\n".join(lines) + b'\n{"cut')
    (run / "manifest.json").write_text('{"status": "completed"}', encoding="utf-8")
    reader = TraceReader(run)
    store = RunStore(reader)
    feeder = Feeder(_Screen(), store, replay=run)  # type: ignore[arg-type]
    feeder.reader = reader
    feeder.add_notice("own")
    store.apply(reader.events(0, 3), 0)
    feeder._sync_notices()
    store.apply(reader.events(3), 3)  # reading line 5 makes the reader notice it, as the fold does
    feeder._sync_notices()
    feeder._sync_notices()  # nothing new
    feeder.add_notice("own")
    feeder.put_notice_first("export: 1 span", replacing=None)
    feeder.put_notice_first("export: 2 spans", replacing="export: 1 span")
    assert feeder.notices == [
        "export: 2 spans",
        "own",
        f"events.jsonl line 2: a JSON list, not an object{RAW}",
        f"events.jsonl line 4: invalid JSON (Expecting value: line 1 column 1 (char 0)){RAW}",
        "events.jsonl: incomplete last line (5 bytes) skipped — the run was cut off mid-write or is"
        " still writing it",
        "unknown event kind 'shiny' (first at event 3): shown as raw events",
        "events.jsonl line 5: invalid JSON (Expecting property name enclosed in double quotes:"
        f" line 1 column 44 (char 43)){RAW}",
    ]


def test_a_notice_found_as_the_cut_off_tail_moves_is_not_missed(tmp_path: Path) -> None:
    """Following a file, the reader takes its cut-off-tail notice out when the tail changes: a
    damaged line noticed in the same refresh, which moves into its place, still shows."""
    run = tmp_path / "r"
    run.mkdir()
    events = run / "events.jsonl"
    events.write_bytes(b'{"phase": "INIT", "payload": {}}\n{"cu')
    (run / "manifest.json").write_text('{"status": "running"}', encoding="utf-8")
    reader = TraceReader(run)
    feeder = Feeder(_Screen(), RunStore(reader), replay=run)  # type: ignore[arg-type]
    feeder.reader = reader
    feeder._sync_notices()
    cut = "events.jsonl: incomplete last line ({} bytes) skipped — the run was cut off mid-write or is still writing it"
    assert feeder.notices == [cut.format(4)]
    with events.open("ab") as f:
        f.write(b't": 1\n{"a')  # the cut line ends, damaged (its closing brace never came); a new tail
    reader.refresh()
    assert reader.notices == [
        f"events.jsonl line 2: invalid JSON (Expecting ',' delimiter: line 1 column 10 (char 9)){RAW}",
        cut.format(3),
    ]
    feeder._sync_notices()
    assert feeder.notices == [cut.format(4), *reader.notices]
