"""TraceReader: upstream samples, our own runs, damaged files, interrupted runs and follow mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qitos.trace import reader as reader_module
from qitos.trace.errors import TraceError
from qitos.trace.events import KNOWN_KINDS, RunEvent
from qitos.trace.reader import MALFORMED_PHASE, TraceReader
from qitos.trace.writer import TraceWriter


def write_run(tmp_path: Path, n: int = 5, *, finalize: bool = True) -> TraceWriter:
    w = TraceWriter(tmp_path, run_id="run", clock=lambda: "2026-01-01T00:00:00+00:00")
    for i in range(n):
        w.write_event(
            RunEvent("run", i // 2, "DECIDE", payload={"stage": "model_output", "i": i}, ts=w.clock())
        )
    for s in range((n + 1) // 2):
        w.write_step({"step_id": s, "decision": {"mode": "act"}})
    if finalize:
        w.finalize(status="completed", summary={"stop_reason": "final"})
    return w


def test_reads_every_upstream_sample(upstream_trace_dirs: list[Path]) -> None:
    for run_dir in upstream_trace_dirs:
        manifest = json.loads((run_dir / "manifest.json").read_text())
        with TraceReader(run_dir) as reader:
            assert reader.run_id == manifest["run_id"] == run_dir.name
            assert reader.status == "completed"
            assert len(reader) == manifest["event_count"]
            events = list(reader.events())
            assert all(e.phase in KNOWN_KINDS for e in events)
            assert events[0].phase == "toolset_setup_start"
            assert any(e.stage == "model_output" and "Thought:" in e.payload["raw_output"] for e in events)
            assert [s["step_id"] for s in reader.steps()] == list(range(manifest["step_count"]))
            assert reader.notices == []


def test_round_trip_of_our_own_run(tmp_path: Path) -> None:
    w = write_run(tmp_path)
    reader = TraceReader(w.run_dir)
    assert reader.status == "completed"
    assert len(reader) == 5
    assert [e.payload["i"] for e in reader.events()] == [0, 1, 2, 3, 4]
    assert reader.event(-1) == RunEvent(
        "run", 2, "DECIDE", True, {"stage": "model_output", "i": 4}, None, "2026-01-01T00:00:00+00:00"
    )
    assert reader.event(3) is reader.event(3)  # cached
    assert [e.payload["i"] for e in reader.events(1, 3)] == [1, 2]
    with pytest.raises(IndexError, match="out of range"):
        reader.event(5)
    assert [s["step_id"] for s in reader.steps()] == [0, 1, 2]


def test_truncated_last_line_is_skipped_then_picked_up_when_complete(tmp_path: Path) -> None:
    w = write_run(tmp_path, 3)
    events = w.run_dir / "events.jsonl"
    line = RunEvent("run", 9, "END", payload={"stop_reason": "final"}).to_json()
    with events.open("a") as fh:
        fh.write(line[:20])
    reader = TraceReader(w.run_dir)
    assert len(reader) == 3
    assert any("incomplete last line" in n for n in reader.notices)
    assert reader.refresh() == 0  # still incomplete: not indexed
    with events.open("a") as fh:
        fh.write(line[20:] + "\n")
    assert reader.refresh() == 1
    assert reader.event(3).phase == "END"
    assert not any("incomplete" in n for n in reader.notices)


def test_malformed_lines_become_raw_events_with_notices(tmp_path: Path) -> None:
    w = write_run(tmp_path, 2)
    events = w.run_dir / "events.jsonl"
    good = events.read_text().splitlines()
    lines = [
        good[0],
        "",  # a blank line is skipped, but line numbers still count it
        '{"run_id": "run", "step_id": 7, "phase": "ACT", "payload": {oops}',
        "[1, 2, 3]",
        "<INVALID-UTF8>",
        good[1],
        '{"run_id": "run", "step_id": "3", "phase": "SOMETHING_NEW", "payload": "scalar"}',
    ]
    data = ("\n".join(lines) + "\n").encode().replace(b"<INVALID-UTF8>", b"{\xff\xfe not utf8}")
    events.write_bytes(data)
    reader = TraceReader(events.parent)
    assert len(reader) == 6
    phases = [e.phase for e in reader.events()]
    assert phases == ["DECIDE", MALFORMED_PHASE, MALFORMED_PHASE, MALFORMED_PHASE, "DECIDE", "SOMETHING_NEW"]
    bad = reader.event(1)
    assert bad.ok is False and bad.step_id == 7  # the step id is recovered from the damaged text
    assert bad.payload == {"line": 3, "text": lines[2]}
    assert reader.event(2).payload["line"] == 4
    assert reader.event(3).payload["text"].startswith("{\ufffd")  # undecodable bytes shown, not lost
    assert any("line 3" in n for n in reader.notices)
    assert any("line 4" in n for n in reader.notices)
    unknown = reader.event(5)
    assert unknown.kind is None and unknown.step_id == 3 and unknown.payload == {"value": "scalar"}


def test_not_a_run_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="no such directory"):
        TraceReader(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(TraceError, match="not a directory"):
        TraceReader(tmp_path / "file.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TraceError, match="not a run directory"):
        TraceReader(tmp_path / "empty")


def test_missing_or_broken_manifest_is_a_notice(tmp_path: Path) -> None:
    w = write_run(tmp_path, 2)
    (w.run_dir / "manifest.json").write_text("{not json")
    reader = TraceReader(w.run_dir)
    assert reader.manifest == {} and reader.status == "unknown" and len(reader) == 2
    assert any("manifest.json is unreadable" in n for n in reader.notices)
    (w.run_dir / "manifest.json").unlink()
    reader = TraceReader(w.run_dir)
    assert reader.run_id == "run" and any("manifest.json is missing" in n for n in reader.notices)


def test_running_run_without_writer_is_interrupted(tmp_path: Path) -> None:
    w = write_run(tmp_path, 2, finalize=False)
    assert TraceReader(w.run_dir).status == "running"  # the writer holds the lock
    w.close()  # the writer is gone (and its lock file with it), the manifest still says running
    assert not (w.run_dir / "writer.lock").exists()
    assert TraceReader(w.run_dir).status == "interrupted"


@pytest.mark.slow
def test_run_killed_mid_write_reads_as_interrupted(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "from qitos.trace.writer import TraceWriter\n"
        "from qitos.trace.events import RunEvent\n"
        "w = TraceWriter(sys.argv[1], run_id='killed')\n"
        "for i in range(10):\n"
        "    w.write_event(RunEvent('killed', i, 'ACT', payload={'i': i}))\n"
        'w._events.write(\'{"run_id": "killed", "step_id": 10, "pha\')\n'
        "w._events.flush()\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False, timeout=60)
    reader = TraceReader(tmp_path / "killed")
    assert reader.status == "interrupted"
    assert len(reader) == 10
    assert [e.payload["i"] for e in reader.events()] == list(range(10))
    assert any("incomplete last line" in n for n in reader.notices)


def test_follow_mode_refresh_sees_appended_events_and_final_status(tmp_path: Path) -> None:
    w = write_run(tmp_path, 2, finalize=False)
    reader = TraceReader(w.run_dir)
    assert len(reader) == 2 and reader.refresh() == 0
    for i in range(3):
        w.write_event(RunEvent("run", 5, "ACT", payload={"i": 10 + i}))
    assert reader.refresh() == 3
    assert [e.payload["i"] for e in reader.events(2)] == [10, 11, 12]
    w.finalize(status="completed", summary={"stop_reason": "final"})
    reader.refresh()
    assert reader.status == "completed" and reader.manifest["summary"]["stop_reason"] == "final"


def test_follow_mode_on_a_run_that_has_no_events_file_yet(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"run_id": "r", "status": "running"}))
    reader = TraceReader(run)
    assert len(reader) == 0 and any("events.jsonl is missing" in n for n in reader.notices)
    (run / "events.jsonl").write_text(RunEvent("r", 0, "INIT").to_json() + "\n")
    assert reader.refresh() == 1 and reader.event(0).phase == "INIT"


def test_replaced_events_file_is_reindexed(tmp_path: Path) -> None:
    w = write_run(tmp_path, 4)
    reader = TraceReader(w.run_dir)
    events = w.run_dir / "events.jsonl"
    replacement = events.with_suffix(".new")
    replacement.write_text(RunEvent("run", 0, "INIT").to_json() + "\n")
    os.replace(replacement, events)
    assert reader.refresh() == 1
    assert len(reader) == 1 and reader.event(0).phase == "INIT"
    assert any("re-indexed" in n for n in reader.notices)


def test_steps_with_damage_keep_raw_records(tmp_path: Path) -> None:
    w = write_run(tmp_path, 2)
    steps = w.run_dir / "steps.jsonl"
    steps.write_text(
        '{"step_id": "0", "decision": {}}\n{"step_id": 1, "decision": \n{"step_id": "x"}\n{"step_id": 3, "dec'
    )
    reader = TraceReader(w.run_dir)
    records = reader.steps()
    assert records[0] == {"step_id": 0, "decision": {}}
    assert records[1]["malformed"] is True and records[1]["step_id"] == 1 and records[1]["line"] == 2
    assert records[2]["step_id"] == 0
    assert len(records) == 3
    assert any("steps.jsonl: incomplete last line" in n for n in reader.notices)
    assert any("steps.jsonl line 3" in n for n in reader.notices)


def test_index_is_the_same_whatever_the_chunk_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = write_run(tmp_path, 9)
    with (w.run_dir / "events.jsonl").open("a") as fh:
        fh.write('\n{"run_id": "run", "step_id": 4, "phase": "END"}\n{"partial')
    expected = [e.to_dict() for e in TraceReader(w.run_dir).events()]
    for chunk in (7, 64, 300):  # smaller than one line, a few lines, many lines
        monkeypatch.setattr(reader_module, "_CHUNK", chunk)
        reader = TraceReader(w.run_dir)
        assert [e.to_dict() for e in reader.events()] == expected
        assert reader.line_number(len(reader) - 1) == 11  # the blank line 10 is counted
        assert any("incomplete last line (9 bytes)" in n for n in reader.notices)


@pytest.mark.slow
def test_killed_at_random_instants_always_leaves_a_readable_trace(tmp_path: Path) -> None:
    """SIGKILL a writing process at several instants: every complete line reads back, nothing is fatal."""
    script = (
        "import sys\n"
        "from qitos.trace.writer import TraceWriter\n"
        "from qitos.trace.events import RunEvent\n"
        "w = TraceWriter(sys.argv[1], run_id='victim')\n"
        "i = 0\n"
        "while True:\n"
        "    w.write_event(RunEvent('victim', i, 'tool_result', payload={'i': i, 'blob': 'x' * (i % 9000)}))\n"
        "    if i % 50 == 0:\n"
        "        w.update_manifest(note=i)\n"
        "    if i == 100:\n"
        "        print('ready', flush=True)  # 101 events and three manifests are on disk: a kill now counts\n"
        "    i += 1\n"
    )
    for trial, delay in enumerate((0.05, 0.13, 0.31)):
        folder = tmp_path / str(trial)
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(folder)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(
            delay
        )  # the behaviour under test, not synchronisation: how far past "ready" the kill lands
        proc.kill()
        proc.wait(10)
        reader = TraceReader(folder / "victim")
        assert reader.status == "interrupted"
        assert reader.manifest["run_id"] == "victim"  # the atomic manifest is never half-written
        events = list(reader.events())
        assert len(events) > 100  # at least what was on disk at "ready"
        assert [e.payload["i"] for e in events] == list(range(len(events)))
        assert all(e.phase == "tool_result" for e in events)
