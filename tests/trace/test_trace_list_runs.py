"""list_runs: the run picker's view of a folder of runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qitos.trace.errors import TraceError
from qitos.trace.events import RunEvent
from qitos.trace.reader import list_runs, scan_runs
from qitos.trace.writer import TraceWriter


def make_run(folder: Path, run_id: str, when: str, *, status: str | None = "completed", **summary) -> Path:
    w = TraceWriter(folder, run_id=run_id, clock=lambda: when)
    w.write_event(RunEvent(run_id, 0, "INIT"))
    w.write_step({"step_id": 0})
    w.update_manifest(model_id="scripted-demo")
    if status is None:
        w.close()  # left "running" with no writer: an interrupted run
    else:
        w.finalize(status=status, summary=summary)
    return w.run_dir


def test_lists_runs_newest_first_and_skips_other_folders(tmp_path: Path) -> None:
    make_run(tmp_path, "old", "2026-01-01T00:00:00+00:00", stop_reason="final", token_usage=50)
    make_run(
        tmp_path,
        "new",
        "2026-01-02T00:00:00+00:00",
        status="failed",
        stop_reason="unrecoverable_error",
        token_usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    )
    make_run(tmp_path, "cut", "2026-01-03T00:00:00+00:00", status=None)
    (tmp_path / "notes").mkdir()
    (tmp_path / ".cache").mkdir()
    (tmp_path / "stray.txt").write_text("not a folder")
    runs, skipped = scan_runs(tmp_path)
    assert [r.run_id for r in runs] == ["cut", "new", "old"]
    cut, new, old = runs
    assert cut.status == "interrupted" and cut.steps == 1
    assert new.status == "failed" and new.tokens == 15 and new.stop_reason == "unrecoverable_error"
    assert old.status == "completed" and old.tokens == 50 and old.model_id == "scripted-demo"
    assert old.updated_at == "2026-01-01T00:00:00+00:00" and old.event_count == 1
    assert old.path == tmp_path / "old"
    assert {(s.path.name, s.reason.split(":")[0]) for s in skipped} == {
        ("notes", "not a run"),
        (".cache", "hidden folder"),
    }
    assert [r.run_id for r in list_runs(tmp_path)] == ["cut", "new", "old"]


def test_run_with_broken_manifest_is_listed_with_its_problem(tmp_path: Path) -> None:
    run = tmp_path / "broken"
    run.mkdir()
    (run / "manifest.json").write_text("[1, 2]")
    (run / "steps.jsonl").write_text('{"step_id": 0}\n{"step_id": 1}\n')
    (summary,) = list_runs(tmp_path)
    assert summary.run_id == "broken" and summary.status == "unknown" and summary.steps == 2
    assert summary.problem == "manifest.json is not a JSON object (it holds a JSON list)"
    assert summary.updated_at is not None  # from the files' modification time


def test_upstream_folder(upstream_trace_dirs: list[Path]) -> None:
    folder = upstream_trace_dirs[0].parent
    runs = {r.run_id: r for r in list_runs(folder)}
    for run_dir in upstream_trace_dirs:
        manifest = json.loads((run_dir / "manifest.json").read_text())
        r = runs[run_dir.name]
        assert (r.status, r.steps, r.tokens, r.model_id) == (
            "completed",
            manifest["step_count"],
            manifest["summary"]["token_usage"],
            manifest["model_id"],
        )
        assert r.stop_reason == "final_result"


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="no such folder"):
        list_runs(tmp_path / "nope")
    (tmp_path / "f").write_text("")
    with pytest.raises(TraceError, match="not a folder"):
        list_runs(tmp_path / "f")
