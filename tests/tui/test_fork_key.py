"""`f` forks a finished or replayed run at the selected step; the run list shows forks under parents."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qitos.demo import build_agent
from qitos.trace.events import EventKind
from qitos.trace.reader import TraceReader
from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.run_tree import with_forks
from tui.screens.run import RunScreen
from tui.screens.run_list import RunListScreen


def _factory(tmp_path: Path, built: list[Any]) -> Callable[[str], Any]:
    def make(task: str) -> Any:
        n = len(built)
        agent = build_agent(
            workspace=tmp_path / f"fork{n}" / "ws",
            memory_dir=tmp_path / f"fork{n}" / "mem",
            skills_db=tmp_path / f"fork{n}" / "s.db",
        )
        built.append(agent)
        return agent

    return make


async def test_f_forks_the_finished_run_at_the_selected_step(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    built: list[Any] = []
    app = make_app(live=demo_live(), fork_agent=_factory(tmp_path, built))
    async with app.run_test(size=(120, 36)) as pilot:
        await screenshots.settle(pilot)
        parent = app.screen
        assert isinstance(parent, RunScreen)
        await pilot.press("f")  # paused, still live: nothing to fork yet
        assert app.screen is parent
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert parent.store.display_status == "finished"
        parent.selected = 3
        await pilot.press("f")
        await screenshots.settle(pilot)
        fork = app.screen
        assert isinstance(fork, RunScreen) and fork is not parent
        assert fork.live is not None and fork.live.snapshot is not None
        assert fork.live.snapshot.policy_id == "qitos.fork" and fork.live.snapshot.step_id == 3
        assert built[0].llm.calls == 0  # steps 0-2 came from the record
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert fork.live.snapshot.policy_id == "demo.review-writes"  # live now: the demo's own pause
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert fork.store.display_status == "finished"
        assert built[0].llm.calls > 0
        fork_dir = Path(fork.live.writer.run_dir)
    manifest = json.loads((fork_dir / "manifest.json").read_text())
    assert manifest["parent_run_id"] == "demo_run" and manifest["fork_step"] == 3
    assert fork_dir.parent == tmp_path / "runs"
    tool_steps = {e.step_id for e in TraceReader(fork_dir).events() if e.phase == EventKind.TOOL_CALL}
    assert min(tool_steps) == 0  # the replayed steps are in the fork's trace too (results put back)


async def test_run_list_shows_forks_under_their_parent(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for run_id, parent in (("a_parent", None), ("b_other", None), ("c_fork", "a_parent")):
        (runs / run_id).mkdir(parents=True)
        manifest: dict[str, Any] = {"run_id": run_id, "status": "completed", "step_count": 2}
        if parent:
            manifest.update(parent_run_id=parent, fork_step=1)
        (runs / run_id / "manifest.json").write_text(json.dumps(manifest))
        (runs / run_id / "events.jsonl").write_text("")
    app = make_app(replay=runs)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, RunListScreen)
        view = app.screen.view
        labels = [view.label(i) for i in range(len(view.shown))]
    fork_row = labels.index("↳ c_fork (fork @ step 1)")
    assert labels[fork_row - 1] == "a_parent"


def test_with_forks_survives_manifests_naming_each_other() -> None:
    class R:
        def __init__(self, run_id: str, parent: str | None) -> None:
            self.run_id, self.parent_run_id, self.fork_step = run_id, parent, 1

    runs = [R("x", "y"), R("y", "x"), R("z", "z")]
    assert sorted(r.run_id for r, _ in with_forks(runs)) == ["x", "y", "z"]
