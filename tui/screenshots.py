"""Screenshots of the real app: the demo live, the demo paused by its policy, and a replay.

Run: ``python -m tui.screenshots [--out screenshots] [--upstream RUN_DIR]``. Runs the bundled demo
agent offline in a temporary folder, live in the app (headless Textual), and saves:

- ``demo-live.svg``: the demo running, held inside a model call so the frame is stable;
- ``demo-paused.svg``: the demo paused by its own policy before writing a file;
- ``replay-upstream.svg``: a replay of an upstream QitOS run directory (``--upstream``), or of the
  demo's own trace when none is given;
- ``events-timeline.svg``: the demo's trace with the Events pane filtered to tool calls;
- ``run-diff.svg``: ``qitos-tui diff`` of two synthetic runs that diverge.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qitos.models.base import Model, ModelResponse
from tui.app import QitosApp, make_app
from tui.live import LiveRun

if TYPE_CHECKING:
    from qitos.engine.engine import Engine
    from qitos.trace.writer import TraceWriter

SIZE = (160, 45)
FIXED_TS = "2026-01-01T00:00:00+00:00"


async def wait_held(pilot: Any, model: HeldModel, timeout: float = 20.0) -> None:
    """Let the app run until the model is held (never block the event loop: the run starts on it)."""
    deadline = time.monotonic() + timeout
    while not model.reached.is_set():
        if time.monotonic() > deadline:
            raise RuntimeError("the run never reached the held model call")
        await pilot.pause(0.02)
    # Then until the screen has folded every event the run emitted before it was held.
    store = pilot.app.screen.store
    while store.event_count < len(store.source):
        if time.monotonic() > deadline:
            raise RuntimeError("the screen never caught up with the held run")
        await pilot.pause(0.02)


class HeldModel(Model):
    """Wraps a model and holds its ``hold_at``-th call until released (for stable live frames)."""

    def __init__(self, inner: Model, hold_at: int) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.max_input_units = inner.max_input_units
        self.hold_at = hold_at
        self.calls = 0
        self.reached = threading.Event()
        self.gate = threading.Event()

    def complete(self, messages: Sequence[Any], *, tools: Any = None) -> ModelResponse:
        """Delegate, holding the chosen call until the gate opens (at most 30 s)."""
        self.calls += 1
        if self.calls == self.hold_at:
            self.reached.set()
            self.gate.wait(30)
        return self.inner.complete(messages, tools=tools)


def demo_live(base: Path, *, hold_at: int | None = None) -> LiveRun:
    """A LiveRun of the demo agent under ``base`` with a fixed run id and clock."""
    from qitos.demo import TASK, build_agent

    agent = build_agent(workspace=base / "ws", memory_dir=base / "memory", skills_db=base / "skills.db")
    if hold_at is not None:
        agent.llm = HeldModel(agent.llm, hold_at)
    return LiveRun(
        agent,
        TASK,
        trace_dir=base / "runs",
        run_id="demo_run",
        clock=lambda: FIXED_TS,
        configure=_tick_clock,
    )


class TickClock:
    """A clock that moves one millisecond each time it is read: latencies in the trace then depend
    on the code path only, not on how busy the machine is (snapshots show them)."""

    def __init__(self) -> None:
        self.ticks = 0

    def __call__(self) -> float:
        self.ticks += 1
        return self.ticks / 1000


def _tick_clock(engine: Engine[Any, Any, Any], writer: TraceWriter) -> None:
    engine.clock = TickClock()


async def shoot(app: QitosApp, path: Path, before: Callable[[Any], Awaitable[None]]) -> None:
    """Run ``app`` headless, wait with ``before``, and save its screen as SVG to ``path``."""
    async with app.run_test(size=SIZE) as pilot:
        await before(pilot)
        path.write_text(app.export_screenshot(title="qitos-tui"), encoding="utf-8")


async def settle(pilot: Any, timeout: float = 30.0) -> None:
    """Let the app run until its Engine (if any) has returned and every worker has finished."""
    from tui.screens.run import RunScreen

    deadline = time.monotonic() + timeout
    # The real condition: the run has answered (a check of "not running" alone passed before the
    # screen had even started the Engine, and a snapshot caught the run half way: issue 12).
    while isinstance(pilot.app.screen, RunScreen) and not pilot.app.screen.engine_answered:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the run did not return within {timeout} s")
        await pilot.pause(0.02)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def make_all(out: Path, upstream: Path | None) -> list[Path]:
    """Write the screenshots into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="qitos-shots-") as tmp:
        live = demo_live(Path(tmp) / "live", hold_at=6)
        model = live.agent.llm

        async def held(pilot: Any) -> None:
            await wait_held(pilot, model)
            await pilot.pause(0.3)

        try:
            await shoot(make_app(live=live), out / "demo-live.svg", held)
        finally:
            model.gate.set()
        written.append(out / "demo-live.svg")

        paused = demo_live(Path(tmp) / "paused")
        await shoot(make_app(live=paused), out / "demo-paused.svg", settle)
        written.append(out / "demo-paused.svg")

        target = upstream or Path(tmp) / "paused" / "runs" / "demo_run"

        async def replayed(pilot: Any) -> None:
            await settle(pilot)
            await pilot.press("right")
            await pilot.pause(0.2)

        await shoot(make_app(replay=target), out / "replay-upstream.svg", replayed)
        written.append(out / "replay-upstream.svg")

        async def timeline(pilot: Any) -> None:
            from tui.panes.events import EventsPane

            await settle(pilot)
            await pilot.press("right", "right", "7")
            pilot.app.screen.query_one(EventsPane).focus()
            await pilot.press("t", "t", "t", "t")  # tool calls
            await pilot.pause(0.2)

        demo_run = Path(tmp) / "paused" / "runs" / "demo_run"
        await shoot(make_app(replay=demo_run), out / "events-timeline.svg", timeline)
        written.append(out / "events-timeline.svg")

        async def compared(pilot: Any) -> None:
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("n")  # from the missing step to the changed arguments
            await pilot.pause(0.2)

        run_a, run_b = diverging_runs(Path(tmp) / "diff")
        await shoot(make_app(diff=(run_a, run_b)), out / "run-diff.svg", compared)
        written.append(out / "run-diff.svg")
    return written


def diverging_runs(base: Path) -> tuple[Path, Path]:
    """Two synthetic runs: B skips A's step 3 and calls step 5's tool on another file."""
    from qitos.trace.events import EventKind, RunEvent
    from tui.synthetic import synthetic_events, write_trace

    def other_file(event: RunEvent) -> RunEvent:
        if event.step_id != 5 or event.phase not in (EventKind.MODEL_RESPONSE, EventKind.TOOL_CALL):
            return event
        payload = dict(event.payload)
        if event.phase == EventKind.TOOL_CALL:
            payload["args"] = {"path": "other.py"}
        else:
            payload["tool_calls"] = [{**payload["tool_calls"][0], "args": {"path": "other.py"}}]
        return RunEvent(event.run_id, event.step_id, event.phase, event.ok, payload, event.error, event.ts)

    run_a, run_b = base / "run_a", base / "run_b"
    write_trace(run_a, synthetic_events(8, run_id="run_a", pause_at=None))
    b_events = synthetic_events(8, run_id="run_b", pause_at=None)
    write_trace(run_b, (other_file(e) for e in b_events if e.step_id != 3))
    return run_a, run_b


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write the screenshots and list them."""
    parser = argparse.ArgumentParser(prog="python -m tui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", default="screenshots", help="folder for the SVG files (default: screenshots)"
    )
    parser.add_argument("--upstream", help="an upstream QitOS run directory to show replayed")
    args = parser.parse_args(argv)
    upstream = Path(args.upstream) if args.upstream else None
    if upstream is not None and not upstream.is_dir():
        print(f"python -m tui.screenshots: {upstream}: not a directory", file=sys.stderr)
        return 2
    for path in asyncio.run(make_all(Path(args.out), upstream)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
