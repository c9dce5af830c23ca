"""The browsers embedded the way the run panes use them: fed from a RunStore of a real demo run."""

from __future__ import annotations

import io
from pathlib import Path
from typing import ClassVar

from browser_builders import run_writer, wait_until
from textual.app import App, ComposeResult

from qitos.demo import TASK, build_agent
from qitos.trace.reader import TraceReader
from tui.browsers import MemoryBrowser, SkillsBrowser
from tui.browsers.memory_model import RecallStatus
from tui.browsers.run_events import publishes, recalls_at
from tui.headless import run_headless
from tui.store import ListSource, RunStore
from tui.synthetic import synthetic_events


class Host(App[None]):
    """A stand-in for the run screen: both browsers side by side."""

    CSS: ClassVar[str] = "Horizontal { height: 1fr; }"

    def __init__(self, memory_dir: Path, skills_db: Path) -> None:
        super().__init__()
        self.memory_dir = memory_dir
        self.skills_db = skills_db

    def compose(self) -> ComposeResult:
        yield MemoryBrowser(self.memory_dir, id="memory")
        yield SkillsBrowser(self.skills_db, id="skills")


def test_store_helpers_on_a_synthetic_run() -> None:
    """recalls_at gives the step's recall payloads; publishes the run's (or up to a step)."""
    events = list(synthetic_events(6))
    store = RunStore(ListSource(events))
    store.apply(events)
    assert recalls_at(RunStore(ListSource([])), 0) == (None, [])
    step, payloads = recalls_at(store, 1)
    assert step == 1 and [p["record_ids"] for p in payloads] == [["mem-001"]]
    assert recalls_at(store, 2) == (2, [])
    assert [(p["name"], p["version"]) for p in publishes(store)] == [("fix_sign_bug", 2)]
    assert publishes(store, upto=3) == []


async def test_browsers_fed_from_a_demo_run(tmp_path: Path) -> None:
    """The demo's recalled records are marked at their step; its published versions are starred."""
    agent = build_agent(
        workspace=tmp_path / "ws", memory_dir=tmp_path / "memory", skills_db=tmp_path / "skills.db"
    )
    assert run_headless(agent, TASK, trace_dir=tmp_path / "runs", run_id="demo", out=io.StringIO()) == 0
    reader = TraceReader(tmp_path / "runs" / "demo")
    store = RunStore(reader, run_id=reader.run_id)
    store.apply(reader.events(), 0)
    recall_pos = max(pos for pos, s in enumerate(store.steps) if recalls_at(store, pos)[1])
    step, payloads = recalls_at(store, recall_pos)
    app = Host(tmp_path / "memory", tmp_path / "skills.db")
    async with app.run_test(size=(160, 40)) as pilot:
        memory = app.query_one(MemoryBrowser)
        skills = app.query_one(SkillsBrowser)
        await wait_until(
            lambda: memory.loads >= 1 and memory.live and skills.revision >= 1 and skills.versions
        )
        memory.show_recall(step, payloads)
        skills.mark_published(publishes(store))
        await pilot.pause()
        recalled = payloads[0]["record_ids"]
        assert recalled and all(memory.marks[r].status is RecallStatus.UNCHANGED for r in recalled)
        assert skills.published == {("fix-failing-check", 1), ("fix-failing-check", 2)}
        run_writer("edit", tmp_path / "memory", recalled[0], "rewritten by hand")
        await wait_until(
            lambda: memory.marks[recalled[0]].status is RecallStatus.CHANGED, what="changed mark"
        )
