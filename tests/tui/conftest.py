"""Fixtures for the TUI tests: deterministic run directories written from synthetic events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from waits import wait_until

from tui import screenshots
from tui.live import LiveRun
from tui.synthetic import synthetic_events, write_trace


@pytest.fixture(autouse=True)
def utf8_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """A UTF-8 locale, whatever the shell's: the marks drawn (tui.text.pause_mark) follow it, and
    snapshots must not depend on where the suite runs. A test of the ASCII fallback sets its own."""
    for name in ("LC_ALL", "LC_CTYPE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture
def synthetic_run(tmp_path: Path) -> Path:
    """A finished 6-step run with request views, receipts, memory, a skill and an agent pause."""
    run_dir = tmp_path / "runs" / "synthetic_run"
    write_trace(run_dir, synthetic_events(6))
    return run_dir


@pytest.fixture
def long_run(tmp_path: Path) -> Path:
    """A finished 60-step run: longer than the step list at 80x24 (moving the cursor scrolls it),
    with far-away steps no pane has rendered yet."""
    run_dir = tmp_path / "long_run"
    write_trace(run_dir, synthetic_events(60, run_id="long_run"))
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


async def _shown_whole(pilot: Any, timeout: float = 30.0) -> None:
    """Wait until a replay has folded every event of its trace and shown the result (the background
    fold and the paced flushes after it are done): on a loaded machine that takes a while."""
    from tui.widgets.step_list import StepList

    await pilot.app.workers.wait_for_complete()
    screen = pilot.app.screen
    await wait_until(
        lambda: (
            screen.reader is not None
            and screen.store.event_count >= len(screen.reader)
            and not screen.fold_progress
            and screen.query_one(StepList).virtual_size.height == len(screen.store.steps)
        ),
        timeout=timeout,
        what="the replay to be folded and shown",
    )
    await pilot.pause()


@pytest.fixture
def shown_whole() -> Callable[..., Awaitable[None]]:
    """``await shown_whole(pilot)``: every event of the replay folded and on screen."""
    return _shown_whole
