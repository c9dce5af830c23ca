"""Fixtures for the TUI tests: deterministic run directories written from synthetic events."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tui import screenshots
from tui.live import LiveRun
from tui.synthetic import synthetic_events, write_trace


@pytest.fixture
def synthetic_run(tmp_path: Path) -> Path:
    """A finished 6-step run with request views, receipts, memory, a skill and an agent pause."""
    run_dir = tmp_path / "runs" / "synthetic_run"
    write_trace(run_dir, synthetic_events(6))
    return run_dir


@pytest.fixture
def runs_folder(tmp_path: Path) -> Path:
    """A folder with two runs: one finished, one cut short (no run_end, truncated last line)."""
    folder = tmp_path / "many"
    write_trace(folder / "run_a", synthetic_events(4, run_id="run_a", pause_at=None))
    broken = folder / "run_b"
    write_trace(broken, synthetic_events(5, run_id="run_b", end=False), status="failed")
    with (broken / "events.jsonl").open("a", encoding="utf-8") as out:
        out.write('{"run_id": "run_b", "step_id": 4, "phase": "tool_res')  # killed mid-write
    return folder


@pytest.fixture
def demo_live(tmp_path: Path) -> Callable[..., LiveRun]:
    """Builds a LiveRun of the bundled demo agent in tmp_path with a fixed run id and clock."""

    def build(*, step_delay: float = 0.0, gate_at: int | None = None) -> LiveRun:
        live = screenshots.demo_live(tmp_path, hold_at=gate_at)
        live.step_delay = step_delay
        return live

    return build
