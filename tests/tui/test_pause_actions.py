"""Acting on the demo's pause before it writes a file: a approves, d denies, c changes (valid, invalid)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TextArea

from qitos.demo.workspace import BUGGY_SOURCE
from qitos.trace.events import EventKind
from qitos.trace.reader import TraceReader
from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.pending import pending_text
from tui.screens.pause_dialogs import ChangeDialog, DenyDialog, PendingDialog
from tui.screens.run import RunScreen
from tui.widgets.run_header import StatusBar

RUN = Path("runs") / "demo_run"


@pytest.fixture(autouse=True)
def _no_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot tests use the inline editor; the $EDITOR path is covered end to end in tmux."""
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)


def _events(tmp_path: Path, kind: str) -> list[Any]:
    return [e for e in TraceReader(tmp_path / RUN).events() if e.phase == kind]


async def _paused(pilot: Any) -> RunScreen:
    await screenshots.settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen) and screen.live is not None and screen.live.snapshot is not None
    assert screen.live.snapshot.pending_actions[0].name == "write_file"
    return screen


async def test_a_approves_and_the_write_runs(demo_live: Callable[..., LiveRun], tmp_path: Path) -> None:
    app = make_app(live=demo_live())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _paused(pilot)
        await pilot.press("a")
        await screenshots.settle(pilot)
        assert screen.store.display_status == "finished"
        assert "approved by person (qitos-tui): write_file" in screen.query_one(StatusBar).content().plain
    (ruling,) = _events(tmp_path, EventKind.LIFECYCLE_DECISION)
    assert ruling.payload["verdict"] == "approved" and ruling.payload["policy_id"] == "demo.review-writes"
    assert (tmp_path / "ws" / "calc.py").read_text() != BUGGY_SOURCE  # the fix was written


async def test_d_denies_with_a_reason_the_agent_then_reads(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    app = make_app(live=demo_live())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _paused(pilot)
        step = screen.live.snapshot.step_id
        await pilot.press("d")
        dialog = app.screen
        assert isinstance(dialog, DenyDialog)
        assert "def add" in dialog.query_one("#pending-full", Static).render().plain  # shown in full
        dialog.query_one(Input).value = "keep calc.py as it is"
        await pilot.press("enter")
        await screenshots.settle(pilot)
        assert screen.store.display_status in ("finished", "failed", "paused")
    assert (tmp_path / "ws" / "calc.py").read_text() == BUGGY_SOURCE  # nothing was written
    (ruling,) = _events(tmp_path, EventKind.LIFECYCLE_DECISION)
    assert ruling.payload["verdict"] == "denied" and ruling.payload["reason"] == "keep calc.py as it is"
    assert not [e for e in _events(tmp_path, EventKind.TOOL_CALL) if e.step_id == step]
    # The agent's next model request carries the denial and the reason.
    later = [e for e in _events(tmp_path, EventKind.MODEL_REQUEST) if e.step_id == step + 1]
    assert later and "keep calc.py as it is" in json.dumps(later[0].payload["messages"])


async def test_c_changes_the_arguments_inline_and_the_changed_write_runs(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    app = make_app(live=demo_live())
    async with app.run_test(size=(120, 36)) as pilot:
        await _paused(pilot)
        await pilot.press("c")
        dialog = app.screen
        assert isinstance(dialog, ChangeDialog)
        editor = dialog.query_one(TextArea)
        args = json.loads(editor.text)
        assert set(args) == {"path", "content"}
        changed = {"path": "calc.py", "content": args["content"] + "\n# reviewed\n"}
        editor.text = json.dumps(changed)
        await pilot.press("ctrl+s")
        await screenshots.settle(pilot)
    assert (tmp_path / "ws" / "calc.py").read_text().endswith("# reviewed\n")
    (ruling,) = _events(tmp_path, EventKind.LIFECYCLE_DECISION)
    assert ruling.payload["verdict"] == "changed"
    assert ruling.payload["actions"][0]["args"] == args
    assert ruling.payload["changed_actions"][0]["args"] == changed
    call = next(e for e in _events(tmp_path, EventKind.TOOL_CALL) if e.payload["tool"] == "write_file")
    assert call.payload["args"] == changed


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"path": "calc.py", "content": 5}', "'content' must be string, got integer"),
        ('{"path": "calc.py"}', "missing required argument 'content'"),
        ('{"path": "calc.py", "content": "x", "mode": "w"}', "unknown argument 'mode'"),
        ("{not json", "not valid JSON"),
    ],
)
async def test_c_refuses_an_invalid_change_and_nothing_changes(
    demo_live: Callable[..., LiveRun], tmp_path: Path, document: str, message: str
) -> None:
    live = demo_live()
    app = make_app(live=live)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _paused(pilot)
        snapshot = live.snapshot
        events_before = len(screen.store.source)
        await pilot.press("c")
        dialog = app.screen
        assert isinstance(dialog, ChangeDialog)
        dialog.query_one(TextArea).text = document
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog  # still open, saying why
        assert message in dialog.query_one("#change-problem", Static).render().plain
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and live.snapshot is snapshot and not screen.engine_running
        assert len(screen.store.source) == events_before and live.decision is None
    assert _events(tmp_path, EventKind.LIFECYCLE_DECISION) == []
    assert (tmp_path / "ws" / "calc.py").read_text() == BUGGY_SOURCE


async def test_i_shows_the_pending_write_in_full_as_a_diff(
    demo_live: Callable[..., LiveRun], tmp_path: Path
) -> None:
    app = make_app(live=demo_live())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _paused(pilot)
        await pilot.press("i")
        dialog = app.screen
        assert isinstance(dialog, PendingDialog)
        shown = dialog.query_one("#pending-full", Static).render().plain
        assert (
            "diff against the workspace file" in shown
            and "-    return a - b" in shown
            and "+    return a + b" in shown
        )
        await pilot.press("a")  # approves from the dialog
        await screenshots.settle(pilot)
        assert screen.store.display_status == "finished"


def test_pending_write_is_shown_as_a_diff_against_the_workspace_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    shown = pending_text(
        [{"name": "write_file", "args": {"path": "notes.txt", "content": "one\nTWO\n"}}], [tmp_path]
    ).plain
    assert "-two" in shown and "+TWO" in shown and "diff against the workspace file" in shown
    long = pending_text([{"name": "say", "args": {"text": 'line one\nline "two"\n'}}]).plain
    assert 'line "two"' in long and "\\n" not in long  # text, not escaped JSON
