"""Pilot tests: every key of the run screen on a replayed run, and the run list."""

from __future__ import annotations

import json
from pathlib import Path

from textual import events

from tui.app import make_app
from tui.panes.base import Pane
from tui.panes.exchanges import ExchangesPane
from tui.screens.dialogs import ConfirmDialog, ErrorScreen, HelpScreen, PromptDialog
from tui.screens.run import RunScreen
from tui.screens.run_list import RunListScreen
from tui.widgets.pane_tabs import PaneTabs
from tui.widgets.run_header import RunHeader, StatusBar
from tui.widgets.step_list import StepList


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_arrow_keys_vim_keys_home_end_move_the_selection(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        assert screen.selected == 0
        await pilot.press("right", "l")
        assert screen.selected == 2
        await pilot.press("left")
        assert screen.selected == 1
        await pilot.press("h", "h")  # clamps at the first step
        assert screen.selected == 0
        await pilot.press("end")
        assert screen.selected == 5
        await pilot.press("right")
        assert screen.selected == 5
        await pilot.press("home")
        assert screen.selected == 0
        await pilot.press("down", "down")  # the focused step list moves too
        assert screen.selected == 2
        assert screen.query_one(StepList).cursor == 2
        assert all(p.selected == 2 for p in screen.query(Pane))
        assert "step 2 (0–5)" in screen.query_one(RunHeader).render().plain  # the recorded id


async def test_g_goes_to_a_step_and_rejects_unknown_ones(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        header = screen.query_one(RunHeader)
        await pilot.press("g")
        assert app.screen is screen  # typed in the header line, no dialog
        assert "go to step: ▏" in header.render().plain
        await pilot.press("4")
        assert "go to step: 4▏" in header.render().plain
        await pilot.press("enter")
        assert screen.selected == 4 and header.prompt is None
        assert "go to step" not in header.render().plain
        await pilot.press("g", "9", "9", "enter")
        await pilot.pause()
        assert screen.selected == 4
        assert any("no step 99" in str(n.message) for n in app._notifications)
        await pilot.press("g", "5", "backspace", "2", "enter")  # digits are not pane keys here
        assert screen.selected == 2 and screen.active_pane == 0
        await pilot.press("g", "3", "x", "escape")  # other keys are ignored; Esc cancels
        assert screen.selected == 2 and header.prompt is None
        await pilot.press("right")  # and the keys work as before afterwards
        assert screen.selected == 3
        # Typed faster than the app handles them (as a terminal delivers "g5⏎" pasted or typed
        # quickly): the digits still go to the step id, not to the pane keys.
        for key, character in (("g", "g"), ("5", "5"), ("enter", "\r")):
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert screen.selected == 5 and screen.active_pane == 0


async def test_search_finds_tool_results_and_n_N_cycle(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        await pilot.press("slash")
        assert isinstance(app.screen, PromptDialog)
        for ch in "assertionerror":
            await pilot.press(ch)
        await pilot.press("enter")
        await _settle(pilot)
        # Only step 2's tool result failed with an AssertionError.
        assert [pos for pos, _ in screen.matches] == [2]
        assert screen.selected == 2
        assert screen.query_one(ExchangesPane).search_text == "assertionerror"
        await pilot.press("slash", *"calc.py", "enter")  # the old query is selected: typing replaces it
        await _settle(pilot)
        assert len(screen.matches) == 6
        start = screen.selected
        await pilot.press("n")
        assert screen.selected == (start + 1) % 6
        await pilot.press("N", "N")
        assert screen.selected == (start - 1) % 6
        assert "of 6" in screen.query_one(StatusBar).note


async def test_e_exports_the_selected_request_as_json(synthetic_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "exports"
    app = make_app(replay=synthetic_run, export_dir=out)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        await pilot.press("right", "right", "right", "e")
        files = list(out.glob("*.json"))
        assert [f.name for f in files] == ["synthetic_run-step3-ex-0003.json"]
        data = json.loads(files[0].read_text(encoding="utf-8"))
        assert data["request"]["payload"]["request_id"] == "ex-0003"
        assert data["request"]["payload"]["view"]["budget"]["max_units"] == 4000
        assert data["response"]["payload"]["tool_calls"] == [
            {"name": "read_file", "args": {"path": "calc.py"}}
        ]
        assert str(files[0]) in app.screen.query_one(StatusBar).note


async def test_x_expands_and_v_shows_raw_json(tmp_path: Path) -> None:
    from tui.synthetic import synthetic_events, write_trace

    run = tmp_path / "long"
    write_trace(run, synthetic_events(3, payload_pad=2000, pause_at=None))
    app = make_app(replay=run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        pane = app.screen.query_one(ExchangesPane)
        assert "folded" in pane.plain()
        await pilot.press("x")
        assert pane.expanded and "folded" not in pane.plain() and "x" * 2000 in pane.plain(width=3000)
        await pilot.press("x", "v")
        assert pane.raw and '"phase": "model_request"' in pane.plain()


async def test_number_keys_switch_panes_and_question_mark_lists_bindings(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        shown = [p.TITLE for p in screen.query(Pane) if p.display and p.has_class("-active")]
        assert shown == ["Exchanges"]
        await pilot.press("3")
        assert [p.TITLE for p in screen.query(Pane) if p.has_class("-active")] == ["Budget"]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert (
            keys["← / h"] == "Prev"
            and keys["→ / l"] == "Next"
            and keys["home"] == "First"
            and keys["g"] == "Go to"
            and keys["/"] == "Search"
        )
        await pilot.press("escape")
        assert app.screen is screen


async def test_clicking_a_tab_shows_its_pane_and_the_shown_tab_stays_in_view(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        tabs = screen.query_one(PaneTabs)
        start, _ = tabs.spans()[1]
        await pilot.click(PaneTabs, offset=(tabs.styles.padding.left + start + 2, 0))
        assert screen.active_pane == 1 and tabs.active == 1
        assert [p.TITLE for p in screen.query(Pane) if p.has_class("-active")] == ["Context"]
        # Picking "6 Skill" keeps it in view (the row scrolls when a label lies past the edge).
        await pilot.press("6")
        assert "6 Skill" in tabs.render().renderables[0].plain  # type: ignore[attr-defined]
        start, _ = tabs.spans()[5]
        await pilot.click(PaneTabs, offset=(tabs.styles.padding.left + start - tabs.shift() - 1, 0))
        assert screen.active_pane == 5  # the gap before a label picks nothing
        await pilot.click(PaneTabs, offset=(tabs.styles.padding.left + start - tabs.shift() - 5, 0))
        assert screen.active_pane == 4  # "5 Mem", where it is drawn now


async def test_all_panes_visible_at_160x48_and_tabs_at_80x24(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await _settle(pilot)
        panes = list(app.screen.query(Pane))
        assert [p.border_title for p in panes] == [
            "Exchanges",
            "Context",
            "Budget",
            "Compaction",
            "Memory",
            "Skills",
            "Events",
        ]
        assert all(p.region.area > 0 for p in panes)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert [p.TITLE for p in panes if p.region.area > 0] == ["Exchanges"]


async def test_q_quits_a_replay_without_asking(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
    assert app.return_code == 0


async def test_run_list_opens_a_run_and_escape_returns(runs_folder: Path) -> None:
    app = make_app(replay=runs_folder)
    async with app.run_test(size=(100, 24)) as pilot:
        await _settle(pilot)
        assert isinstance(app.screen, RunListScreen)
        assert len(app.screen.runs) == 2
        row = [r.run_id for r in app.screen.runs].index("run_b")
        await pilot.press(*["down"] * row, "enter")
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.store.run_id == "run_b"
        # The truncated last line is skipped and said so; the readable events are shown.
        assert any("truncated" in n or "incomplete" in n for n in screen.notices)
        assert len(screen.store.steps) == 5
        assert screen.store.display_status == "failed"
        await pilot.press("escape")
        assert isinstance(app.screen, RunListScreen)


async def test_missing_path_shows_error_panel_not_traceback(tmp_path: Path) -> None:
    app = make_app(replay=tmp_path / "nope")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert "no such file" in app.screen.detail
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 2  # as --headless exits for bad input


async def test_upstream_trace_opens_with_steps_actions_and_tokens(upstream_trace_dirs: list[Path]) -> None:
    app = make_app(replay=upstream_trace_dirs[0])
    async with app.run_test(size=(160, 48)) as pilot:
        await _settle(pilot)
        screen = app.screen
        manifest = json.loads((upstream_trace_dirs[0] / "manifest.json").read_text(encoding="utf-8"))
        assert [s.step for s in screen.store.steps] == list(range(manifest["step_count"]))
        assert screen.store.model_id == manifest["model_id"]
        assert screen.store.tokens == manifest["summary"]["token_usage"]
        assert screen.store.display_status == "finished"


async def test_the_search_count_is_the_number_of_places_highlighted(synthetic_run: Path) -> None:
    """The status line counts steps as steps; the Exchanges pane says how many places it
    highlights, and exactly that many are highlighted in it."""
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await _settle(pilot)
        screen = app.screen
        await pilot.press("slash", *"calc.py", "enter")
        await _settle(pilot)
        pane = screen.query_one(ExchangesPane)
        assert "'calc.py' is in 6 steps; this is" in screen.query_one(StatusBar).note
        seen = []
        for _ in range(4):
            highlighted = sum(
                len(seg.text) for line in pane._lines for seg in line if seg.style and seg.style.reverse
            )
            hits = pane.highlight_count()
            seen.append(hits)
            assert hits >= 1 and highlighted == hits * len("calc.py")
            places = "place" if hits == 1 else "places"
            assert pane.border_subtitle == f"{hits} {places} highlighted for 'calc.py'"
            await pilot.press("n")
            await _settle(pilot)
        assert max(seen) > 1  # later steps show earlier exchanges too: several places
