"""The bundled demo: it runs offline, fills every pane's events, pauses once, and is reproducible."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from qitos.demo import TASK, build_agent
from qitos.demo.workspace import FIXED_SOURCE
from qitos.trace.writer import TraceWriter


def fixed_clock() -> Any:
    """A clock that ticks one second per call from a fixed instant."""
    counter = itertools.count()
    return lambda: f"2026-01-01T00:00:{next(counter) % 60:02d}+00:00"


def run_demo(root: Path, run_id: str = "demo-fixed") -> tuple[Any, Path]:
    """Run the demo to the end in ``root`` (resuming its one pause) and return (result, run dir)."""
    agent = build_agent(workspace=root / "ws", memory_dir=root / "memory", skills_db=root / "skills.db")
    writer = TraceWriter(root / "runs", run_id=run_id, clock=fixed_clock())
    engine = agent.build_engine(trace_writer=writer)
    ticks = itertools.count()
    engine.clock = lambda: next(ticks) / 1000  # durations in the trace come from this clock
    result = engine.run(TASK)
    pauses = 0
    while result.status == "paused":
        pauses += 1
        result = engine.resume(result.snapshot)
    writer.close()
    assert pauses == 1
    return result, writer.run_dir


def events(run_dir: Path) -> list[dict[str, Any]]:
    """Every event of a run, parsed."""
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, Path]:
    """One demo run shared by the checks below."""
    root = tmp_path_factory.mktemp("demo")
    result, run_dir = run_demo(root)
    return result, run_dir, root


def test_demo_finishes_with_a_verified_fix(demo_run: tuple[Any, Path, Path]) -> None:
    """The demo fixes the bug, stops on its final answer, and takes 8-15 steps."""
    result, run_dir, root = demo_run
    assert result.status == "completed"
    assert result.stop_reason == "final"
    assert 8 <= result.step_count <= 15
    assert (root / "ws" / "calc.py").read_text() == FIXED_SOURCE
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "completed" and manifest["model_id"] == "scripted-demo"


def test_demo_pauses_once_through_its_policy_before_writing(demo_run: tuple[Any, Path, Path]) -> None:
    """Exactly one pause, by demo.review-writes, before the write_file action; then a resume."""
    _, run_dir, _ = demo_run
    pauses = [e for e in events(run_dir) if e["phase"] == "lifecycle_pause"]
    resumes = [e for e in events(run_dir) if e["phase"] == "lifecycle_resume"]
    assert len(pauses) == 1 and len(resumes) == 1
    payload = pauses[0]["payload"]
    assert payload["policy_id"] == "demo.review-writes"
    assert payload["boundary"] == "before_act"
    assert [a["name"] for a in payload["pending_actions"]] == ["write_file"]


def test_demo_drops_optional_context_and_compacts_exchanges(demo_run: tuple[Any, Path, Path]) -> None:
    """Some request drops the optional style guide, and some request carries a compaction receipt."""
    _, run_dir, _ = demo_run
    views = [e["payload"]["view"] for e in events(run_dir) if e["phase"] == "model_request"]
    dropped = [c for v in views for c in v["contributions"] if not c["selected"]]
    assert any(c["contribution_id"] == "notes.style" and c["reason"] for c in dropped)
    assert all(c["required"] is False for c in dropped)
    receipts = [r for v in views for r in v["receipts"]]
    assert receipts and all(r["input_exchange_ids"] and r["declared_losses"] for r in receipts)
    assert all(v["budget"]["available_units"] >= 0 for v in views)


def test_demo_remembers_recalls_and_publishes_two_skill_versions(demo_run: tuple[Any, Path, Path]) -> None:
    """Memory appends land on disk and are recalled later; the skill goes v1 then v2."""
    _, run_dir, root = demo_run
    evs = events(run_dir)
    appended = [e["payload"]["record_id"] for e in evs if e["phase"] == "memory_append"]
    assert len(appended) == 2
    recalled = {rid for e in evs if e["phase"] == "memory_recall" for rid in e["payload"]["record_ids"]}
    assert appended[0] in recalled
    published = [
        (e["payload"]["name"], e["payload"]["version"]) for e in evs if e["phase"] == "skill_publish"
    ]
    assert published == [("fix-failing-check", 1), ("fix-failing-check", 2)]
    assert len(list((root / "memory" / "records").iterdir())) == 2
    # The run's end folded the database's write-ahead log in: the file alone holds both versions.
    conn = sqlite3.connect(f"file:{root / 'skills.db'}?mode=ro&immutable=1", uri=True)
    try:
        assert conn.execute("SELECT count(*) FROM skill_versions").fetchone()[0] == 2
    finally:
        conn.close()


def test_demo_trace_is_reproducible(tmp_path: Path) -> None:
    """Two demo runs with a fixed run id and clocks write byte-identical events and step records."""
    _, first = run_demo(tmp_path / "a")
    _, second = run_demo(tmp_path / "b")
    for name in ("events.jsonl", "steps.jsonl"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_running_the_demo_again_publishes_no_identical_version(tmp_path: Path) -> None:
    """A second demo run over the same skill library finds both procedures already there: the
    library still holds two versions, and the second run's trace publishes nothing."""
    run_demo(tmp_path, run_id="first")
    _, again = run_demo(tmp_path, run_id="second")
    assert not [e for e in events(again) if e["phase"] == "skill_publish"]
    results = [
        e["payload"]
        for e in events(again)
        if e["phase"] == "tool_result" and e["payload"]["tool"] == "publish_skill"
    ]
    assert [r["result"] for r in results] == [
        "already published as fix-failing-check v1 (identical)",
        "already published as fix-failing-check v2 (identical)",
    ]
    conn = sqlite3.connect(f"file:{tmp_path / 'skills.db'}?mode=ro&immutable=1", uri=True)
    try:
        assert conn.execute("SELECT count(*) FROM skill_versions").fetchone()[0] == 2
    finally:
        conn.close()
