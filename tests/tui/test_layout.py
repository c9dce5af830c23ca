"""Issue 18's layout: the step list sized from the width and its rows, compact step rows, the pause
banner on one line at 80 columns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.color import Color
from waits import wait_until

from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.panes.base import Pane
from tui.panes.context import ContextPane
from tui.screens.run import RunScreen
from tui.store import PauseInfo, RunStore
from tui.widgets.pause_banner import KEY, pause_line
from tui.widgets.run_header import StatusBar
from tui.widgets.step_list import CHROME, MEASURE_ROWS, MIN_WIDTH, StepList, step_cost

DEMO_PAUSE = PauseInfo(
    policy_id="demo.review-writes",
    reason="a file write waits for a person",
    step=5,
    boundary="before_act",
    pending_actions=[{"name": "write_file", "args": {"path": "calc.py", "content": "a\nb\n"}}],
)


def _rows(steps: StepList) -> list[str]:
    return [steps.render_line(k).text for k in range(steps.row_count())]


async def test_the_step_list_takes_its_share_of_the_width_and_no_more_than_its_rows_need(
    demo_live: Callable[..., LiveRun],
) -> None:
    """80 columns: the least width, the panes the rest; 160 (the grid): a quarter, the widest row
    cut; 200: every row whole, the list as wide as its widest row; back to 80 on a resize."""
    app = make_app(live=demo_live())
    async with app.run_test(size=(80, 24)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        steps = screen.query_one(StepList)
        assert steps.outer_size.width == MIN_WIDTH
        assert screen.query_one("#pane-area").outer_size.width == 80 - MIN_WIDTH
        assert _rows(steps)[5].startswith("‖ 5 write_file calc.py")

        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert steps.outer_size.width == 160 // 4  # the remember row wants more than a quarter
        assert not _rows(steps)[4].startswith(f"✓ 4 {screen.store.steps[4].action}")

        await pilot.resize_terminal(200, 50)
        await pilot.pause()
        rows = _rows(steps)
        for s, row in zip(screen.store.steps[:5], rows, strict=False):
            # Mark, step, the action whole, then its tokens and latency at the right edge.
            assert row.startswith(f"✓ {s.step} {s.action}") and row.rstrip().endswith(step_cost(s)), row
        widest = max(len(f"✓ {s.step} {s.action}  {step_cost(s)}") for s in screen.store.steps[:5])
        assert steps.outer_size.width == widest + CHROME <= 200 // 4

        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert steps.outer_size.width == MIN_WIDTH
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


def _step_list(events: list[dict[str, Any]]) -> StepList:
    store = RunStore(run_id="r")
    store.apply(events)
    return StepList(store)


def _ev(step: int, phase: str, payload: dict[str, Any], ok: bool = True) -> dict[str, Any]:
    return {"run_id": "r", "step_id": step, "phase": phase, "ok": ok, "payload": payload}


def test_a_row_shows_the_phase_only_where_it_says_something() -> None:
    """A step that acted, or answered, shows no phase; one that chose a tool and stopped before
    acting on it says where it stopped, and one that never chose anything shows its phase alone."""
    write = {"name": "write_file", "args": {"path": "calc.py", "content": "x\n"}}
    steps = _step_list(
        [
            _ev(0, "INIT", {"task": "t"}),
            _ev(0, "DECIDE", {"stage": "decision_ready", "actions": [write]}),
            _ev(0, "ACT", {"stage": "action_results"}),
            _ev(1, "DECIDE", {"stage": "decision_ready", "final_answer": "done"}),
            _ev(2, "DECIDE", {"stage": "decision_ready", "actions": [write]}),
            _ev(3, "OBSERVE", {"stage": "start"}),
            _ev(3, "run_end", {"status": "interrupted"}),
        ]
    )
    rows = [steps._row_parts(k)[1] for k in range(4)]
    assert rows == [
        "✓ 0 write_file calc.py",
        "✓ 1 final: done",
        "✓ 2 DECIDE write_file calc.py",
        "✓ 3 OBSERVE",
    ]


def test_a_row_is_inert_and_one_line_whatever_the_trace_holds() -> None:
    hostile = {"name": "[bold]x[/]\x1b]52;c;AAAA\x07", "args": {"path": "a\u202eb.py"}}
    steps = _step_list(
        [
            _ev(0, "DECIDE", {"stage": "decision_ready", "actions": [hostile]}),
            _ev(0, "run_end", {"status": "failed"}),
        ]
    )
    _, text, _ = steps._row_parts(0)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert text.startswith("✓ 0 DECIDE [bold]x[/]␛]52;c;AAAA␇ a<U+202E>b.py")


def _keys(line: Text) -> str:
    """The letters the line marks as keys."""
    return "".join(line.plain[span.start : span.end] for span in line.spans if span.style == KEY)


def test_the_banner_is_one_line_at_80_columns() -> None:
    """At 80 columns (79 cells beside the padding): the policy, the action in brief, a/d/c/i."""
    line = pause_line(DEMO_PAUSE, 79, resumable=True)
    assert line.plain == "‖ paused by demo.review-writes: write_file calc.py  approve deny change inspect"
    assert _keys(line) == "adci"


def test_a_wide_banner_says_everything_and_a_narrow_one_wraps() -> None:
    wide = pause_line(DEMO_PAUSE, 200, resumable=True)
    assert wide.plain == (
        "‖ paused by the agent's policy demo.review-writes at step 5 before_act: a file write waits for a"
        " person · pending write_file calc.py · approve · deny · change · inspect · resume · step"
    )
    assert _keys(wide) == "adcirs"
    # Between the two: the wording gives way before the keys, the keys r and s before a/d/c/i.
    middle = pause_line(DEMO_PAUSE, 100, resumable=True)
    assert middle.cell_len <= 100 and _keys(middle) == "adcirs"
    assert middle.plain.startswith("‖ paused by demo.review-writes: write_file calc.py")
    narrow = pause_line(DEMO_PAUSE, 60, resumable=True)
    assert narrow.cell_len > 60 and narrow.plain == pause_line(DEMO_PAUSE, 79, resumable=True).plain


def test_the_banner_offers_only_the_keys_that_apply() -> None:
    own = PauseInfo("qitos-tui.pause", "", 3, "before_decide", [], own=True)
    assert (
        pause_line(own, 79, resumable=True).plain
        == "‖ paused by the TUI's request (p/s) at step 3 before_decide · resume · step"
    )
    replayed = pause_line(DEMO_PAUSE, 79, resumable=False)
    assert replayed.plain == "‖ paused by demo.review-writes: write_file calc.py  its own process resumes it"
    assert _keys(replayed) == ""
    two = PauseInfo(
        "p", "", 1, "before_act", [*DEMO_PAUSE.pending_actions, {"name": "run_tests", "args": {}}]
    )
    assert "write_file calc.py +1 more" in pause_line(two, 79, resumable=True).plain


def test_the_banner_shows_hostile_ids_and_reasons_as_text() -> None:
    pause = PauseInfo(
        "[@click=app.quit]p\x1b[2J", "[red]why\x1b]0;t\x07", 1, "before_act", DEMO_PAUSE.pending_actions
    )
    line = pause_line(pause, 300, resumable=True)
    assert "[@click=app.quit]p␛[2J" in line.plain and "[red]why␛]0;t␇" in line.plain
    assert "\x1b" not in line.plain and "\x07" not in line.plain


async def test_the_bar_is_one_line_at_80_columns_and_wraps_only_narrower(
    demo_live: Callable[..., LiveRun],
) -> None:
    app = make_app(live=demo_live())
    async with app.run_test(size=(80, 24)) as pilot:
        await screenshots.settle(pilot)
        bar = app.screen.query_one(StatusBar)
        assert bar.size.height == 1 and "approve deny change inspect" in bar.content().plain
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        await pilot.pause()
        assert bar.size.height == 2
        await pilot.press("q", "y")
        await screenshots.settle(pilot)


async def test_pane_titles_take_the_text_colour_and_the_focused_one_the_focus_colour(
    synthetic_run: Path,
) -> None:
    """Unfocused titles in the theme's text colour (not the muted grey), the focused one bold in
    $text-primary, in the dark and the light theme alike."""
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        await pilot.press("2")  # Context focused
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            variables = app.get_css_variables()
            for pane in app.screen.query(Pane):
                styles = pane.styles
                if pane is app.focused:
                    assert styles.border_title_color == Color.parse(variables["text-primary"]), theme
                    assert styles.border_title_style.bold, theme
                else:
                    assert styles.border_title_color == Color.parse(variables["foreground"]), (theme, pane)
                    assert not styles.border_title_style.bold, (theme, pane)
            assert isinstance(app.focused, ContextPane)


async def test_a_big_fold_measures_the_list_width_a_thousand_rows_a_turn() -> None:
    """Ten thousand rows shown at once: the first turn measures MEASURE_ROWS of them (the rest
    come on a timer, for keys to get in between), and the list ends with the width one measure
    of every row gives."""
    count, widest_at = 10_000, 9_990

    def action(k: int) -> dict[str, Any]:
        path = "p" * (50 if k == widest_at else k % 20)
        return {"name": "read_file", "args": {"path": path}}

    events = [_ev(k, "DECIDE", {"stage": "decision_ready", "actions": [action(k)]}) for k in range(count)]
    reference = StepList(RunStore(run_id="r"))
    reference.store.apply(events)
    reference._digits, reference._rows_seen = len(str(count - 1)), count
    reference._note_widths(0, count)  # every row at once
    store = RunStore(run_id="r")

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield StepList(store)

    async with Host().run_test(size=(200, 50)) as pilot:
        steps = pilot.app.query_one(StepList)
        store.apply(events)  # folded while the list is on screen, then shown at once
        steps.revision += 1
        assert steps._measured == MEASURE_ROWS  # the rest in later turns
        await wait_until(lambda: steps._measured == count, what="every row measured")
        assert steps._wanted == reference._wanted > MIN_WIDTH
        assert steps.styles.max_width is not None and steps.styles.max_width.value == reference._wanted
