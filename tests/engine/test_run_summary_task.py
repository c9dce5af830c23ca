"""Every run's manifest names its task and how long it ran, so a run list can show both."""

from __future__ import annotations

import json
from pathlib import Path

from engine_agents import ScriptAgent

from qitos import Decision, Engine, Task
from qitos.engine.outcome import TASK_LABEL_CHARS, task_label
from qitos.trace.runs import scan_runs
from qitos.trace.writer import TraceWriter


class Clock:
    """An Engine clock that moves 0.25 s per read: the elapsed time is known exactly."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def _run(tmp_path: Path, task: str | Task, run_id: str) -> dict:
    writer = TraceWriter(tmp_path, run_id=run_id)
    engine = Engine(ScriptAgent([Decision.final("done")]), trace_writer=writer)
    engine.clock = Clock()
    engine.run(task)
    return json.loads((tmp_path / run_id / "manifest.json").read_text())["summary"]


def test_a_plain_string_task_is_named_in_the_summary_and_the_run_list(tmp_path: Path) -> None:
    summary = _run(tmp_path, "\n  Fix the failing test in calc.py\nthen run the suite", "plain")
    assert summary["task"] == "Fix the failing test in calc.py"
    assert summary["elapsed_seconds"] > 0 and summary["elapsed_seconds"] % 0.25 == 0
    (run,), _skipped = scan_runs(tmp_path)
    assert run.task == "Fix the failing test in calc.py"
    assert run.duration == summary["elapsed_seconds"]
    assert run.errors == 0


def test_a_task_object_is_named_by_its_id(tmp_path: Path) -> None:
    summary = _run(tmp_path, Task(id="greet_fix", objective="Fix greet()"), "task")
    assert summary["task"] == "greet_fix"
    (run,), _skipped = scan_runs(tmp_path)
    assert run.task == "greet_fix"


def test_a_long_task_is_cut_to_one_short_label() -> None:
    label = task_label("x" * 1000)
    assert len(label) == TASK_LABEL_CHARS and label.endswith("…")
    assert task_label("   \n\n") == ""
