"""Taking text out (issue 15, part 6): `y` copies the focused pane's text, `o` opens it in $EDITOR."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hostile import hostile_run, unsafe

from tui.app import make_app
from tui.panes.events import HEADER, EventsPane
from tui.panes.exchanges import ExchangesPane
from tui.screens.dialogs import HelpScreen
from tui.screens.run import RunScreen
from tui.take_text import pane_text

SIZES = [(80, 24), (160, 48)]


async def _opened(pilot) -> RunScreen:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, RunScreen)
    return screen


def _messages(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.message for n in app._notifications]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_y_copies_the_focused_panes_text(synthetic_run: Path, size: tuple[int, int]) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=size) as pilot:
        screen = await _opened(pilot)
        assert app.clipboard == ""  # nothing is copied until the user asks
        await pilot.press("right", "right", "1", "y")
        await pilot.pause()
        exchanges = screen.query_one(ExchangesPane)
        assert screen.focused is exchanges
        assert app.clipboard == pane_text(exchanges)[0] and "step 2" in app.clipboard
        assert any(m.startswith("copied the Exchanges pane's text (") for m in _messages(app))
        await pilot.press("7", "y")  # the Events timeline: every row the filters leave
        await pilot.pause()
        events = screen.query_one(EventsPane)
        lines = app.clipboard.splitlines()
        assert lines[0] == HEADER and len(lines) == 1 + len(events.rows) == 1 + screen.store.event_count


async def test_copied_text_of_a_hostile_trace_is_inert(tmp_path: Path) -> None:
    run = hostile_run(tmp_path / "hostile")
    app = make_app(replay=run)
    async with app.run_test(size=(160, 48)) as pilot:
        await _opened(pilot)
        for key in ("1", "2", "7"):
            await pilot.press(key, "y")
            await pilot.pause()
            bad = set().union(*(unsafe(line) for line in app.clipboard.splitlines()))
            assert app.clipboard and not bad, (key, bad)
        await pilot.press("1", "y")
        await pilot.pause()
        assert "[link=https://evil.example/]link[/link]" in app.clipboard  # markup as text, never applied


async def test_o_without_an_editor_says_how(synthetic_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _opened(pilot)
        await pilot.press("o")
        await pilot.pause()
        assert any("set $EDITOR (or $VISUAL)" in m for m in _messages(app))


async def test_o_with_an_editor_that_cannot_run_says_so(
    synthetic_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "editor-that-does-not-exist-here")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _opened(pilot)
        await pilot.press("o")
        await pilot.pause()
        assert any("could not run 'editor-that-does-not-exist-here'" in m for m in _messages(app))
        assert isinstance(app.screen, RunScreen)  # still there, nothing lost


async def test_the_help_lists_y_and_o(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(100, 48)) as pilot:
        await _opened(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.screen.rows)
        assert rows["y"] == "Copy the pane's text" and rows["o"] == "Open the pane's text in $EDITOR"


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_copied(snap_compare, synthetic_run: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The Context pane focused and copied: the notification says what and how much."""

    async def opened(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(
        make_app(replay=synthetic_run), press=["2", "y"], terminal_size=size, run_before=opened
    )


EDITOR_SCRIPT = """
import shutil, sys
shutil.copy(sys.argv[-1], sys.argv[1])
sys.exit(int(sys.argv[2]))
"""


@pytest.mark.e2e
@pytest.mark.slow
def test_o_opens_the_pane_in_the_editor_in_a_real_terminal(tmp_path: Path, synthetic_run: Path) -> None:
    """In tmux: `o` suspends the app for $EDITOR on a file holding the pane's text (the editor, a
    script, keeps a copy); an editor that fails is said, and the app comes back either way."""
    from test_e2e_tmux import Terminal

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT, encoding="utf-8")
    seen = tmp_path / "seen.txt"
    for status in (0, 3):
        editor = f"{sys.executable} {script} {seen} {status}"
        command = ["env", f"EDITOR={editor}", sys.executable, "-m", "tui.cli", "replay", str(synthetic_run)]
        term = Terminal(command, tmp_path, size=(120, 40))
        try:
            term.wait_for("● finished")
            term.keys("2", "o")
            if status == 0:
                term.wait_for("the Context pane is unchanged")
                text = seen.read_text(encoding="utf-8")
                assert "units" in text and "\x1b" not in text
            else:
                term.wait_for("exited with status 3")
            term.keys("q")
            term.wait_for("EXIT=0")
        finally:
            term.close()
