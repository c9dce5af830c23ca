"""TraceWriter: upstream file layout and field names, flushing, atomic manifest, the writer lock."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from qitos.trace.errors import TraceError
from qitos.trace.events import RunEvent
from qitos.trace.lock import writer_alive
from qitos.trace.reader import TraceReader
from qitos.trace.writer import TraceWriter

UPSTREAM_EVENT_KEYS = {"run_id", "step_id", "phase", "ok", "payload", "error", "ts"}


def fixed_clock() -> str:
    return "2026-01-01T00:00:00+00:00"


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_construction_creates_run_dir_and_running_manifest(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="run_1", clock=fixed_clock)
    try:
        assert w.run_dir == tmp_path / "run_1"
        manifest = json.loads((w.run_dir / "manifest.json").read_text())
        assert manifest["run_id"] == "run_1"
        assert manifest["schema_version"] == "v1"
        assert manifest["status"] == "running"
        assert manifest["updated_at"] == "2026-01-01T00:00:00+00:00"
        assert manifest["event_count"] == 0 and manifest["step_count"] == 0
        assert (w.run_dir / "events.jsonl").exists() and (w.run_dir / "steps.jsonl").exists()
    finally:
        w.close()


def test_generated_run_id_uses_prefix_and_timestamp(tmp_path: Path) -> None:
    with TraceWriter(tmp_path, prefix="coding") as w:
        assert re.fullmatch(r"coding_\d{8}_\d{6}_\d{6}", w.run_id)
    with TraceWriter(tmp_path) as w:
        assert re.fullmatch(r"qitos_\d{8}_\d{6}_\d{6}", w.run_id)


@pytest.mark.parametrize("bad", ["../escape", "a/b", "", ".", "..", "-dash", "x" * 300])
def test_unsafe_run_ids_are_rejected(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="invalid run id"):
        TraceWriter(tmp_path, run_id=bad)
    assert not (tmp_path.parent / "escape").exists()


def test_events_are_one_flushed_line_each_with_upstream_fields(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r", clock=fixed_clock)
    try:
        w.write_event(RunEvent("r", 0, "INIT", payload={"task": "t"}, ts=w.clock()))
        w.write_event(
            RunEvent("r", 0, "DECIDE", payload={"stage": "model_output", "raw_output": "Thought: hi"})
        )
        # Read while the writer is still open: every line must already be on disk.
        lines = read_lines(w.run_dir / "events.jsonl")
        assert [e["phase"] for e in lines] == ["INIT", "DECIDE"]
        assert all(set(e) == UPSTREAM_EVENT_KEYS for e in lines)
        assert lines[0]["ts"] == "2026-01-01T00:00:00+00:00"
        assert lines[1]["payload"]["raw_output"] == "Thought: hi"
        assert w.event_count == 2
    finally:
        w.close()


def test_steps_and_manifest_updates(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r", clock=fixed_clock)
    w.write_step({"step_id": 0, "observation": {}, "decision": {"mode": "act"}, "actions": []})
    w.write_step({"step_id": 1, "observation": {}, "decision": {"mode": "final"}, "actions": []})
    w.update_manifest(model_id="scripted", summary={"stop_reason": None})
    w.update_manifest(summary={"steps": 2})
    manifest = json.loads((w.run_dir / "manifest.json").read_text())
    assert manifest["model_id"] == "scripted"
    assert manifest["summary"] == {"stop_reason": None, "steps": 2}  # summaries merge key by key
    assert manifest["step_count"] == 2
    assert [s["step_id"] for s in read_lines(w.run_dir / "steps.jsonl")] == [0, 1]
    with pytest.raises(ValueError, match="step_id"):
        w.write_step({"observation": {}})
    with pytest.raises(TypeError):
        w.write_event({"phase": "INIT"})  # type: ignore[arg-type]
    w.close()


def test_finalize_writes_summary_and_releases_lock(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r", clock=fixed_clock)
    w.write_event(RunEvent("r", 0, "END", payload={"stop_reason": "final"}))
    assert writer_alive(w.run_dir)
    with pytest.raises(ValueError, match="final status"):
        w.finalize(status="running", summary={})
    w.finalize(
        status="completed",
        summary={"stop_reason": "final", "final_result": "42", "token_usage": 120},
    )
    assert not writer_alive(w.run_dir)
    manifest = json.loads((w.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "completed"
    assert manifest["summary"] == {
        "stop_reason": "final",
        "final_result": "42",
        "token_usage": 120,
        "steps": 0,
    }
    assert manifest["token_usage"] == 120
    assert manifest["event_count"] == 1
    # The manifest was replaced atomically: no temporary file is left behind (nor the lock).
    assert sorted(p.name for p in w.run_dir.iterdir()) == ["events.jsonl", "manifest.json", "steps.jsonl"]
    w.close()


def test_second_writer_on_a_live_run_is_refused(tmp_path: Path) -> None:
    first = TraceWriter(tmp_path, run_id="r")
    with pytest.raises(TraceError, match="another writer"):
        TraceWriter(tmp_path, run_id="r")
    first.write_event(RunEvent("r", 0, "INIT"))
    first.finalize(status="stopped", summary={"stop_reason": "cancelled_immediate"})
    # Once released, the run can be continued by a new writer (a resumed run); counts carry on.
    second = TraceWriter(tmp_path, run_id="r")
    assert second.event_count == 1
    second.write_event(RunEvent("r", 1, "OBSERVE"))
    second.finalize(status="completed", summary={})
    assert json.loads((second.run_dir / "manifest.json").read_text())["event_count"] == 2
    assert len(read_lines(second.run_dir / "events.jsonl")) == 2


def test_a_pause_is_not_a_final_status(tmp_path: Path) -> None:
    """A paused run goes on in the same files: it keeps its writer and lock, so followers go on."""
    w = TraceWriter(tmp_path, run_id="r")
    w.write_event(RunEvent("r", 0, "lifecycle_pause", payload={"policy_id": "p"}))
    with pytest.raises(ValueError, match="final status"):
        w.finalize(status="paused", summary={})
    w.update_manifest(status="paused")  # how the Engine records a pause
    assert writer_alive(w.run_dir)
    assert TraceReader(w.run_dir).status == "paused"
    w.close()
    # A paused run whose writer is gone can never resume: it reads as interrupted.
    assert TraceReader(w.run_dir).status == "interrupted"


def test_writing_after_finalize_retakes_the_lock(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r")
    w.write_event(RunEvent("r", 0, "END", payload={}))
    w.finalize(status="stopped", summary={})
    assert not writer_alive(w.run_dir)
    w.write_event(RunEvent("r", 0, "lifecycle_resume", payload={"policy_id": "p"}))
    assert writer_alive(w.run_dir)
    assert json.loads((w.run_dir / "manifest.json").read_text())["status"] == "running"
    w.finalize(status="completed", summary={})
    w.close()
    with pytest.raises(TraceError, match="closed"):
        w.write_event(RunEvent("r", 1, "END"))


def test_concurrent_writers_threads_never_interleave_lines(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r")
    big = "x" * 20_000  # larger than the io buffer, so a torn write would show

    def work(n: int) -> None:
        for i in range(50):
            w.write_event(RunEvent("r", i, "tool_result", payload={"thread": n, "result": big}))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    w.close()
    lines = read_lines(w.run_dir / "events.jsonl")
    assert len(lines) == 200 == w.event_count
    assert all(line["payload"]["result"] == big for line in lines)


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no")


def test_unicode_and_odd_values_survive(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r")
    payload = {"text": "héllo 📄", "lone": "\ud83d", "obj": Unprintable(), "when": Path("/a/b")}
    w.write_event(RunEvent("r", 0, "ACT", payload=payload))
    w.close()
    (event,) = read_lines(w.run_dir / "events.jsonl")
    assert event["payload"]["text"] == "héllo 📄"
    assert event["payload"]["lone"] == "\ud83d"  # written as a JSON escape, read back the same
    assert event["payload"]["obj"].startswith("<unprintable Unprintable")
    assert event["payload"]["when"] == "/a/b"


def test_no_writer_lock_is_left_once_the_run_ends(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="r")
    assert (w.run_dir / "writer.lock").exists() and writer_alive(w.run_dir)
    w.write_event(RunEvent("r", 0, "END", payload={}))
    w.finalize(status="completed", summary={})
    assert sorted(p.name for p in w.run_dir.iterdir()) == ["events.jsonl", "manifest.json", "steps.jsonl"]
    assert TraceReader(w.run_dir).status == "completed"
    w.close()
    assert not (w.run_dir / "writer.lock").exists()


def test_the_lock_stays_exclusive_when_its_file_goes_away_mid_acquire(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Releasing removes the lock file: a writer that opened the old file just before it went
    must not believe it holds the lock while another one holds the new file's."""
    import os

    from qitos.trace import lock

    run_dir = tmp_path / "r"
    run_dir.mkdir()
    first = lock.acquire(run_dir)
    assert first is not None
    real_open = os.open
    others: list[int | None] = []

    def racing_open(path, flags, mode=0o777):  # type: ignore[no-untyped-def]
        fd = real_open(path, flags, mode)
        if not others:  # between this open and its flock: the holder leaves, a third comes
            others.append(None)
            lock.release(first, run_dir)
            others[0] = lock.acquire(run_dir)
        return fd

    monkeypatch.setattr(os, "open", racing_open)
    assert others == [] and lock.acquire(run_dir) is None  # the third holds the lock
    monkeypatch.setattr(os, "open", real_open)
    assert others[0] is not None and writer_alive(run_dir)
    lock.release(others[0], run_dir)
    assert not writer_alive(run_dir) and not (run_dir / "writer.lock").exists()
