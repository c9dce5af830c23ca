"""The browser panes inside the real run screen, replaying a real demo run (as the lead will wire them)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from browser_builders import run_writer, wait_until

import tui.screens.run as run_screen
from qitos.demo import TASK, build_agent
from tui.app import make_app
from tui.browsers.memory_model import RecallStatus
from tui.browsers.panes import MemoryBrowserPane, SkillsBrowserPane, run_panes
from tui.browsers.virtual_list import VirtualList
from tui.headless import run_headless
from tui.panes.base import BoundPane


@pytest.fixture
def demo_dirs(tmp_path: Path) -> Path:
    """A finished demo run with its memory root and skill database under tmp_path."""
    agent = build_agent(
        workspace=tmp_path / "ws", memory_dir=tmp_path / "memory", skills_db=tmp_path / "skills.db"
    )
    assert run_headless(agent, TASK, trace_dir=tmp_path / "runs", run_id="demo", out=io.StringIO()) == 0
    return tmp_path


def test_panes_need_their_paths() -> None:
    """The classes refuse to build without their paths (memory_pane / skills_pane bind them)."""
    with pytest.raises(TypeError, match="memory_dir"):
        MemoryBrowserPane(None)  # type: ignore[arg-type, call-arg]
    with pytest.raises(TypeError, match="db_path"):
        SkillsBrowserPane(None)  # type: ignore[arg-type, call-arg]


def test_run_panes_swap_only_memory_and_skills() -> None:
    """run_panes keeps the six titles in order and binds only the stores it is given."""
    panes = run_panes(memory_dir="m", skills_db="s.db", namespace="demo")
    assert [p.TITLE for p in panes] == [p.TITLE for p in run_screen.PANES]
    memory, skills = panes[4], panes[5]
    assert isinstance(memory, BoundPane) and memory.func is MemoryBrowserPane
    assert memory.keywords["memory_dir"] == Path("m")
    assert isinstance(skills, BoundPane) and skills.func is SkillsBrowserPane
    assert skills.keywords == {"db_path": Path("s.db"), "namespace": "demo"}
    assert run_panes(memory_dir="m")[5] is run_screen.PANES[5]


async def test_memory_and_skills_panes_follow_the_selected_step(demo_dirs: Path) -> None:
    """Stepping through the replay marks each step's recalls; the run's published versions are starred."""
    app = make_app(
        replay=demo_dirs / "runs" / "demo", memory_dir=demo_dirs / "memory", skills_db=demo_dirs / "skills.db"
    )
    async with app.run_test(size=(160, 48)) as pilot:
        # Panes may mount lazily (after the first frame): wait for them.
        await wait_until(lambda: app.screen.query(MemoryBrowserPane) and app.screen.query(SkillsBrowserPane))
        memory = app.screen.query_one(MemoryBrowserPane)
        skills = app.screen.query_one(SkillsBrowserPane)
        await wait_until(
            lambda: memory.browser.loads >= 1 and skills.browser.revision >= 1, what="the browsers"
        )
        # They fill their grid cells (the Pane base is a scroll container: 1fr must still resolve).
        await wait_until(
            lambda: memory.browser.size.height > 8 and skills.browser.size.height > 8, what="layout"
        )
        assert skills.browser.published == {("fix-failing-check", 1), ("fix-failing-check", 2)}
        assert not isinstance(app.focused, VirtualList)  # embedded browsers leave the screen's focus alone
        recall_steps = []
        for _ in range(len(app.screen.store.steps)):
            if memory.browser.marks:
                recall_steps.append(memory.browser.recall_step)
            await pilot.press("right")
        await pilot.pause()
        assert recall_steps, "the demo recalls memory at some step"
        while memory.browser.recall_step != recall_steps[-1]:
            await pilot.press("left")
        record_id = next(iter(memory.browser.marks))
        assert memory.browser.marks[record_id].status is RecallStatus.UNCHANGED
        run_writer("edit", demo_dirs / "memory", record_id, "changed after the run")
        await wait_until(
            lambda: memory.browser.marks[record_id].status is RecallStatus.CHANGED, what="changed"
        )
        assert f"step {recall_steps[-1]}:" in memory.plain()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_a_store_with_nothing_yet_is_an_empty_state_in_its_pane_not_a_toast(
    demo_dirs: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    """A fresh run's skill database does not exist yet: the Skills pane says so inside itself; no
    notification covers the other panes."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    app = make_app(replay=demo_dirs / "runs" / "demo", skills_db=fresh / "skills.db")
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (said.append(str(message)), notify(message, **kw))[1]  # type: ignore[method-assign]
    async with app.run_test(size=size) as pilot:
        await pilot.press("6")
        pane = app.screen.query_one(SkillsBrowserPane)
        await wait_until(lambda: pane.browser.empty_note is not None, what="the empty state")
        await pilot.pause()  # a notification sent with the empty state would be posted by now
        assert "no skills yet" in pane.browser.code_text() and "published" in pane.browser.code_text()
        assert "no skills yet" in str(pane.browser.query_one("#skills-summary").render())
        assert pane.browser.error is None
        assert said == [] and not app._notifications  # nothing over the panes
