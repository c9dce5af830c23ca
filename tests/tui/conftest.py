"""Fixtures for the TUI tests: deterministic run directories written from synthetic events."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from qitos.models.base import Model, ModelResponse
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


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests here in a fresh event loop (no asyncio plugin in the test stack)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True


FIXED_TS = "2026-01-01T00:00:00+00:00"


class GatedModel(Model):
    """Wraps a model and blocks its ``block_at``-th call until the test opens the gate."""

    def __init__(self, inner: Model, block_at: int) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.max_input_units = inner.max_input_units
        self.block_at = block_at
        self.calls = 0
        self.reached = threading.Event()
        self.gate = threading.Event()

    def complete(self, messages: Sequence[Any], *, tools: Any = None) -> ModelResponse:
        """Delegate, holding the chosen call until the gate opens."""
        self.calls += 1
        if self.calls == self.block_at:
            self.reached.set()
            self.gate.wait(30)
        return self.inner.complete(messages, tools=tools)


@pytest.fixture
def demo_live(tmp_path: Path) -> Callable[..., LiveRun]:
    """Builds a LiveRun of the bundled demo agent in tmp_path with a fixed run id and clock."""

    def build(*, step_delay: float = 0.0, gate_at: int | None = None) -> LiveRun:
        from qitos.demo import TASK, build_agent

        agent = build_agent(
            workspace=tmp_path / "ws", memory_dir=tmp_path / "memory", skills_db=tmp_path / "skills.db"
        )
        if gate_at is not None:
            agent.llm = GatedModel(agent.llm, gate_at)
        return LiveRun(
            agent,
            TASK,
            trace_dir=tmp_path / "runs",
            step_delay=step_delay,
            run_id="demo_run",
            clock=lambda: FIXED_TS,
        )

    return build
