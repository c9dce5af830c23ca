"""Live runs of the demo agent: the event tap, the agent's own pause, and p / r / s / q."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from qitos.engine.runtime import RuntimeSnapshotContext
from tui import screenshots
from tui.app import make_app
from tui.live import POLICY_NAME, LiveRun, TuiPausePolicy, install_pause_policy
from tui.screens.dialogs import ConfirmDialog
from tui.screens.run import RunScreen
from tui.store import ListSource, RunStore
from tui.widgets.run_header import RunHeader, StatusBar


def _ctx(step: int, boundary: str = "before_decide") -> RuntimeSnapshotContext:
    return RuntimeSnapshotContext(run_id="r", step_id=step, boundary=boundary, state=None)  # type: ignore[arg-type]


def test_pause_policy_pauses_once_on_request_and_after_one_step() -> None:
    policy = TuiPausePolicy()
    assert not policy.should_pause(_ctx(0))
    policy.request_pause()
    assert policy.pending
    assert policy.should_pause(_ctx(0, "before_act")) and not policy.should_pause(_ctx(1))
    policy.request_step(3)
    assert not policy.should_pause(_ctx(3, "before_act"))  # step 3 still runs to its end
    assert not policy.should_pause(_ctx(4, "before_act"))  # only a step's start counts
    assert policy.should_pause(_ctx(4)) and not policy.pending


def test_install_adds_factory_and_lifecycle_name_keeping_the_agents_own() -> None:
    class Agent:
        config = {"extensions": {"mine": object()}, "lifecycle": ["mine"]}

    agent = Agent()
    policy = TuiPausePolicy()
    install_pause_policy(agent, policy)
    install_pause_policy(agent, policy)  # idempotent
    assert agent.config["lifecycle"] == ["mine", POLICY_NAME]
    assert agent.config["extensions"][POLICY_NAME]() is policy and "mine" in agent.config["extensions"]


async def test_demo_pauses_by_its_policy_r_resumes_and_live_equals_replay(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        store = screen.store
        assert store.display_status == "paused" and live.snapshot is not None
        assert (
            store.pause is not None and store.pause.policy_id == "demo.review-writes" and not store.pause.own
        )
        assert [a["name"] for a in store.pause.pending_actions] == ["write_file"]
        bar = screen.query_one(StatusBar).content().plain
        assert "paused by demo.review-writes: write_file calc.py" in bar
        # The trace on disk says paused too, while the UI waits.
        manifest = json.loads((tmp_path / "runs" / "demo_run" / "manifest.json").read_text())
        assert manifest["status"] == "paused"
        await pilot.press("r")
        await screenshots.settle(pilot)
        assert store.display_status == "finished" and live.snapshot is None
        assert "finished" in screen.query_one(RunHeader).render().plain
        assert screen.selected == len(store.steps) - 1  # the selection followed the run
    run_dir = tmp_path / "runs" / "demo_run"
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "completed"
    # What was seen live is what a replay of the written trace shows.
    from qitos.trace.reader import TraceReader

    reader = TraceReader(run_dir)
    replayed = RunStore(reader)
    replayed.apply(reader.events())
    assert len(reader) == len(store.source)
    view = [(s.step, s.phase, s.action, s.ok, s.tokens, s.used_units) for s in store.steps]
    assert view == [(s.step, s.phase, s.action, s.ok, s.tokens, s.used_units) for s in replayed.steps]
    assert replayed.total_tokens == store.total_tokens and replayed.skill_ops == store.skill_ops > 0


async def test_p_pauses_with_the_tuis_policy_and_s_runs_exactly_one_step(
    demo_live: Callable[..., LiveRun],
) -> None:
    live = demo_live(gate_at=2)
    model = live.agent.llm
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.wait_held(pilot, model)  # step 1 is deciding: the run is live
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.is_live
        await pilot.press("p")
        assert live.policy.pending and "pause requested" in screen.query_one(StatusBar).note
        model.gate.set()
        await screenshots.settle(pilot)
        store = screen.store
        assert store.pause is not None and store.pause.own
        assert store.pause.policy_id == "qitos-tui.pause"
        assert "paused by you (p/s)" in screen.query_one(StatusBar).content().plain
        first = store.pause.step
        await pilot.press("s")
        await screenshots.settle(pilot)
        assert store.pause is not None and store.pause.own and store.pause.step == first + 1
        assert store.pause.boundary == "before_decide"
        await pilot.press("r")
        await screenshots.settle(pilot)
        # The demo's own policy pauses it later, before writing.
        assert store.pause is not None and store.pause.policy_id == "demo.review-writes"


async def test_q_asks_while_live_and_n_keeps_running(demo_live: Callable[..., LiveRun]) -> None:
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's policy: still a live run
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        assert isinstance(app.screen, RunScreen)
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_code == 0


async def test_quitting_a_paused_run_finalises_it_as_stopped(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    """A run quit while paused is stopped where it stands: its manifest never stays "paused", no
    writer lock is left, and its events end with run_end (nothing more was run)."""
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)  # paused by the demo's policy before writing a file
        assert live.snapshot is not None
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmDialog) and "paused" in app.screen.question
        await pilot.press("y")
        await screenshots.settle(pilot)
    run_dir = tmp_path / "runs" / "demo_run"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "stopped"
    assert manifest["summary"]["stop_reason"] == "cancelled_immediate"
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert events[-1]["phase"] == "run_end" and events[-1]["payload"]["status"] == "stopped"
    assert not any(e["phase"] == "tool_call" and e["payload"].get("tool") == "write_file" for e in events)
    from qitos.trace.reader import TraceReader

    assert TraceReader(run_dir).status == "stopped"
    replayed = RunStore(TraceReader(run_dir))
    replayed.apply(TraceReader(run_dir).events())
    assert replayed.display_status == "stopped"  # not "finished": it was given up


async def test_replay_of_a_paused_run_never_offers_to_resume(
    demo_live: Callable[..., LiveRun], tmp_path: Path, shown_whole: Callable[..., Awaitable[None]]
) -> None:
    """Replaying a run paused by another process shows the pause, never the keys to go on (r, s)."""
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)  # paused: this process still holds the trace's writer
        assert "approve deny change inspect resume step" in app.screen.query_one(StatusBar).content().plain
        replay = make_app(replay=tmp_path / "runs" / "demo_run")
        async with replay.run_test(size=(100, 30)) as rpilot:
            await screenshots.settle(rpilot)
            await shown_whole(rpilot)  # the replay's trace folded and on screen, status bar included
            screen = replay.screen
            assert isinstance(screen, RunScreen) and screen.store.display_status == "paused"
            bar = screen.query_one(StatusBar).content().plain
            assert "paused by demo.review-writes" in bar and "its own process resumes it" in bar
            assert "approve" not in bar and "resume step" not in bar
            assert screen.check_action("resume", ()) is False
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


async def test_agent_that_raises_shows_error_panel_and_trace_is_finalised(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    live = demo_live()

    def broken(messages, *, tools=None):  # type: ignore[no-untyped-def]
        raise RuntimeError("model exploded")

    live.agent.llm.complete = broken
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)
        from tui.screens.dialogs import ErrorScreen

        assert isinstance(app.screen, ErrorScreen)
        assert "model exploded" in app.screen.detail
    manifest = json.loads((tmp_path / "runs" / "demo_run" / "manifest.json").read_text())
    assert manifest["status"] == "failed"


def test_list_source_is_a_stable_slice_while_appending() -> None:
    source = ListSource()
    for n in range(3):
        source.append(n)  # type: ignore[arg-type]
    chunk = source.events(1)
    source.append(3)  # type: ignore[arg-type]
    assert list(chunk) == [1, 2] and len(source) == 4


async def test_a_paused_step_shows_as_pending_not_finished(demo_live: Callable[..., LiveRun]) -> None:
    """The step a run is paused in is marked ‖ with its pending action, and its panes say its
    request is not sent yet rather than that it sent none."""
    from tui.panes.compaction import CompactionPane
    from tui.panes.context import ContextPane
    from tui.widgets.step_list import StepList

    live = demo_live(gate_at=2)
    model = live.agent.llm
    app = make_app(live=live)
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.wait_held(pilot, model)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await pilot.press("p")  # the TUI's pause: at the next boundary, before this step acts
        model.gate.set()
        await screenshots.settle(pilot)
        store = screen.store
        steps = screen.query_one(StepList)

        def last_row() -> str:
            return steps.render_line(len(store.steps) - 1 - int(steps.scroll_offset.y)).text

        assert store.pause is not None and store.pause.boundary == "before_act"
        assert last_row().startswith(f"‖ {store.pause.step}") and " read_file " in last_row()
        await pilot.press("s")  # one step, then paused before the next one decides
        await screenshots.settle(pilot)
        assert store.pause is not None and store.pause.boundary == "before_decide"
        assert store.steps[-1].step == store.pause.step and screen.selected == len(store.steps) - 1
        assert last_row().startswith(f"‖ {store.pause.step}") and "paused before deciding" in last_row()
        note = f"step {store.pause.step} is paused before deciding: its model request is not sent yet"
        assert note in screen.query_one(ContextPane).plain(200)
        assert note in screen.query_one(CompactionPane).plain(200)
        await pilot.press("r")
        await screenshots.settle(pilot)  # the demo's own policy pauses it before writing a file
        assert store.pause is not None and store.pause.policy_id == "demo.review-writes"
        assert last_row().startswith(f"‖ {store.pause.step}") and " write_file calc.py" in last_row()
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


async def test_settling_waits_for_the_run_to_answer_even_when_it_starts_late(
    demo_live: Callable[..., LiveRun], monkeypatch: Any
) -> None:
    """The flaky paused snapshot (issue 12): settling looked at "not running" before the screen
    had started the Engine, and the frame caught the run half way. On a loaded machine the start
    comes late; here it is made late on purpose, and settling still waits for the pause."""
    start = RunScreen.start_engine

    def late(screen: RunScreen) -> None:
        screen.set_timer(0.5, lambda: start(screen))

    monkeypatch.setattr(RunScreen, "start_engine", late)
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(80, 24)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        assert screen.store.display_status == "paused" and live.snapshot is not None
        assert screen.store.event_count == len(screen.store.source)
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


async def test_leaving_a_paused_run_any_other_way_still_finalises_it(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    """ctrl+q (Textual's own quit) skips the question: the paused run is stopped all the same."""
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(100, 30)) as pilot:
        await screenshots.settle(pilot)
        assert live.snapshot is not None
        await pilot.press("ctrl+q")
        await pilot.pause()
    manifest = json.loads((tmp_path / "runs" / "demo_run" / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and live.snapshot is None
    assert not (tmp_path / "runs" / "demo_run" / "writer.lock").exists()
