"""StepList: a virtual list of a run's steps that renders only the rows on screen."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from tui.action_brief import actions_brief
from tui.store import ANSWER, FINAL, RunStore, StepSummary
from tui.text import inert_line, pause_mark
from tui.widgets.line_list import LineList
from tui.widgets.render_pass import PassValue
from tui.widgets.scroll_gutter import GUTTER_CSS

MIN_WIDTH = 26
"""The list's least width (borders included): ``‖ 12 write_file calc.py`` at 80 columns."""
CHROME = 3  # the two borders and the scroll gutter's column
MEASURE_ROWS = 1000  # rows measured for the list's width in one turn of the UI (a few ms)
MEASURE_PAUSE = 0.01  # seconds between two such turns
_SILENT_PHASES = frozenset({"ACT", "END", ""})  # where a step that acted ends: no news in a row


def step_cost(s: StepSummary) -> str:
    """A step's tokens and latency in a few characters (``170t 6ms``), blank when it has neither."""
    parts = []
    if s.tokens:
        parts.append(f"{s.tokens / 1000:.1f}kt" if s.tokens >= 1000 else f"{s.tokens}t")
    if s.latency_ms:
        ms = s.latency_ms
        parts.append(f"{ms / 1000:.1f}s" if ms >= 1000 else f"{ms:.0f}ms")
    return " ".join(parts)


class StepList(LineList, inherit_bindings=False):
    """One line per step (mark, step, its action in brief, cost); a LineList so 100k steps cost nothing.

    Its width: the share of the screen the stylesheet gives it, capped at what its widest row needs
    (kept up to date as rows come in), never below MIN_WIDTH."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step-list--cursor",
        "step-list--error",
        "step-list--match",
        "step-list--dim",
    }
    DEFAULT_CSS = (
        f"StepList {{ background: $surface; overflow-x: hidden; min-width: {MIN_WIDTH}; "
        + GUTTER_CSS
        + " }"
        + """
    StepList > .step-list--cursor { background: $accent 40%; text-style: bold; }
    StepList:focus > .step-list--cursor { background: $accent; color: $text; }
    StepList > .step-list--error { color: $error; }
    StepList > .step-list--match { color: $warning; }
    StepList > .step-list--dim { color: $text-muted; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev step", show=False),
        Binding("down,j", "move(1)", "Next step", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
    ]
    # Scroll bindings are not inherited: ←/→/Home/End belong to the screen's step navigation.

    SHOWS_GUTTER = True
    TRACK_WHEN_IT_FITS = False  # a short run's list shows no scroll track
    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)
    """The selected row, pushed down by the run screen."""
    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped by the run screen whenever the store has folded new events."""

    class Selected(Message):
        """The user picked a row (keys or mouse)."""

        def __init__(self, pos: int) -> None:
            super().__init__()
            self.pos = pos

    def __init__(self, store: RunStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.matches: set[int] = set()
        self._events_seen = 0  # the store's event count when the rows were last brought up to date
        self._rows_seen = 0
        self._digits = 0  # width of the step column
        self._widest = 0  # the widest row seen so far, less its step column
        self._measured = 0  # rows counted in _widest (the last of them may change: counted again)
        self._measuring = False  # more rows are to be measured in a later turn
        self._wanted = 0  # the width the list last asked for
        self._row_styles: dict[tuple[bool, str], tuple[Style, Style, Style, Style]] = {}
        self._pass = PassValue(self._styles_for_rows)

    def row_count(self) -> int:
        """One row per step folded so far."""
        return len(self.store.steps)

    def pick(self, row: int) -> None:
        """Ask the screen to select ``row``: the screen owns the selection and pushes it down."""
        self.post_message(self.Selected(row))

    def watch_revision(self) -> None:
        thumb = self.gutter_thumb()
        self.sync_size()
        self.refresh_gutter(thumb)  # more rows: a smaller thumb
        steps = self.store.steps
        seen, self._events_seen = self._events_seen, self.store.event_count
        rows_seen, self._rows_seen = self._rows_seen, len(steps)
        digits = len(str(steps[-1].step)) if steps else 0
        widened = digits != self._digits
        self._digits = digits
        self._measured = min(self._measured, max(0, rows_seen - 1))  # the last row seen may have changed
        self._measure_rows()
        if widened:
            self.refresh()  # the step column widened: every row moves
            return
        # Only rows that are new, or that an event folded since the last look touched (a step's
        # summary records its last event), are drawn again; a big replay folding in the
        # background appends rows below the visible ones and redraws nothing.
        top = int(self.scroll_offset.y)
        for row in range(top, min(len(steps), top + self.scrollable_content_region.height)):
            if row >= rows_seen or steps[row].last >= seen:
                self.refresh_line(row)

    def notify_style_update(self) -> None:
        self._row_styles.clear()  # the CSS changed
        super().notify_style_update()

    def _styles_for_rows(self) -> tuple[Style, Style, Style, Style]:
        """Base, error, match and cursor styles: looked up once per focus and theme, not per row."""
        key = (self.has_focus, self.app.theme)
        styles = self._row_styles.get(key)
        if styles is None:
            get = self.get_component_rich_style
            styles = self._row_styles[key] = (
                self.rich_style,
                get("step-list--error"),
                get("step-list--match"),
                get("step-list--cursor"),
            )
        return styles

    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles every row of one pass shares, looked up once (a far jump draws every row).
        with self._pass.during():
            return super().render_lines(crop)

    def _mark(self, row: int, s: StepSummary) -> tuple[str, str]:
        """The row's mark and text: ✗ failed, ↻ retried, ‖ paused before its action, … still
        running, ✓ done; a paused step shows its pending action, never a blank as if done."""
        store = self.store
        last = row == len(store.steps) - 1
        if not s.ok:
            return "✗", self._with_phase(s, s.action or s.error or "")
        pause = store.pause
        if last and pause is not None and pause.step == s.step and store.display_status == "paused":
            # The ‖ says where it stopped: no phase; the action it would take, in brief.
            return pause_mark(), actions_brief(pause.pending_actions) or "paused before deciding"
        if last and store.display_status == "live":
            # What a running step is doing now is its phase.
            return "…", f"{s.phase} {s.action or 'running'}" if s.phase else s.action or "running"
        if s.retries:
            action = self._with_phase(s, s.action)
            return "↻", f"{action} (retried {s.retries}×)" if action else f"retried {s.retries}×"
        return "✓", self._with_phase(s, s.action)

    @staticmethod
    def _with_phase(s: StepSummary, action: str) -> str:
        """``action`` with the step's phase before it where the phase says something: a step
        that called no tool, or stopped before acting on the tool it chose."""
        if not action:
            return s.phase
        if s.phase in _SILENT_PHASES or action.startswith((ANSWER, FINAL)):
            return action
        return f"{s.phase} {action}"

    def _row_parts(self, row: int) -> tuple[str, str, str]:
        """Row ``row`` as its text without the cost (inert), and its cost (blank where it has none
        or is still going: a pending action keeps its room)."""
        steps = self.store.steps
        s = steps[row]
        mark, action = self._mark(row, s)
        digits = self._digits or len(str(steps[-1].step))
        # Phase, action and error come from the trace; the row is drawn as a raw segment.
        text = inert_line(f"{mark} {s.step:>{digits}} {action}")
        return mark, text, step_cost(s) if mark in "✓✗↻" else ""

    def _measure_rows(self) -> None:
        """Count up to MEASURE_ROWS more of the rows seen into the widest, and the rest in later
        turns: a big replay's flush brings ten thousand rows and more at once, and measuring them
        in one go held a key's frame back for tens of ms (Right into the 1 GB fold: the slowest
        of a dozen presses 37-50 ms in six rounds this way, 50-129 ms that way). Meanwhile the
        list may be narrower than its widest row, never wider."""
        start = self._measured
        stop = min(self._rows_seen, len(self.store.steps), start + MEASURE_ROWS)
        if stop > start:
            self._note_widths(start, stop)
            self._measured = stop
        if stop < self._rows_seen and not self._measuring:
            self._measuring = True
            # A timer, not call_later: a key that comes meanwhile goes first (call_later would
            # queue the rest ahead of it in this widget's messages).
            self.set_timer(MEASURE_PAUSE, self._measure_more)

    def _measure_more(self) -> None:
        """The next rows, once the pause after the last ones is over."""
        self._measuring = False
        self._measure_rows()

    def _note_widths(self, start: int, stop: int) -> None:
        """Bring the widest row up to date with rows ``start`` to ``stop``, and cap the list's width
        at it (the stylesheet gives the list its share of the screen; the content says what it
        needs)."""
        widest = self._widest
        digits = self._digits  # the step column's width when these rows were seen, as drawn
        for row in range(start, stop):
            _, text, cost = self._row_parts(row)
            # The step column is counted apart: a wider step number widens every row at once.
            # The mark is one cell; the rest is ASCII nearly always, and then its length is its
            # width (cell_len walks a non-ASCII string a character at a time: most of the cost).
            rest = text[2:]
            need = 2 + (len(rest) if rest.isascii() else cell_len(rest)) - digits
            if cost:
                need += len(cost) + 2
            if need > widest:
                widest = need
        self._widest = widest
        wanted = max(MIN_WIDTH, widest + digits + CHROME)
        if wanted != self._wanted:  # a new width lays the screen out again: only on a change
            self._wanted = wanted
            self.styles.max_width = wanted

    def blank_row(self, width: int) -> Strip:
        return Strip([Segment(" " * width, self._pass.get()[0])], width)

    def render_row(self, row: int, width: int) -> Strip:
        base, error, match, cursor = self._pass.get()
        s = self.store.steps[row]
        _, text, cost = self._row_parts(row)
        # Tokens and latency at the right edge of every row, or of none: when every row has room
        # for them, or the list is wide enough that the text may give way to them.
        if cost and (width >= self._widest + self._digits or width >= 24 + len(cost)):
            text = set_cell_size(text, width - len(cost) - 1) + " " + cost
        style = base
        if not s.ok:
            style += error
        elif row in self.matches:
            style += match
        if row == self.cursor:
            style += cursor
        return Strip([Segment(set_cell_size(text, width), style)], width)
