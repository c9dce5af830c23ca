"""StepList: a virtual list of a run's steps that renders only the rows on screen."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from tui.store import RunStore, StepSummary, format_action
from tui.text import inert_line, pause_mark
from tui.widgets.line_list import LineList
from tui.widgets.render_pass import PassValue
from tui.widgets.scroll_gutter import GUTTER_CSS


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
    """One line per step (step, phase, action, ok / error); a LineList so 100k steps cost nothing."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step-list--cursor",
        "step-list--error",
        "step-list--match",
        "step-list--dim",
    }
    DEFAULT_CSS = (
        "StepList { background: $surface; overflow-x: hidden; "
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
        if digits != self._digits:
            self._digits = digits  # the step column widened: every row moves
            self.refresh()
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
            return "✗", s.action or s.error or ""
        pause = store.pause
        if last and pause is not None and pause.step == s.step and store.display_status == "paused":
            pending = "; ".join(format_action(a) for a in pause.pending_actions)
            return pause_mark(), f"pending: {pending}" if pending else "paused before deciding"
        if last and store.display_status == "live":
            return "…", s.action or "running"
        if s.retries:
            return "↻", f"{s.action} (retried {s.retries}×)" if s.action else f"retried {s.retries}×"
        return "✓", s.action

    def blank_row(self, width: int) -> Strip:
        return Strip([Segment(" " * width, self._pass.get()[0])], width)

    def render_row(self, row: int, width: int) -> Strip:
        base, error, match, cursor = self._pass.get()
        steps = self.store.steps
        s = steps[row]
        mark, action = self._mark(row, s)
        digits = self._digits or len(str(steps[-1].step))
        # Phase, action and error come from the trace; the row is drawn as a raw segment.
        text = inert_line(f"{mark} {s.step:>{digits}} {s.phase[:7]:<7} {action}")
        cost = step_cost(s)
        if cost and mark in "✓✗↻" and width >= 24 + len(cost):  # a pending action keeps its room
            # Tokens and latency at the right edge; the action gives way to them.
            text = text[: width - len(cost) - 1].ljust(width - len(cost) - 1) + " " + cost
        style = base
        if not s.ok:
            style += error
        elif row in self.matches:
            style += match
        if row == self.cursor:
            style += cursor
        return Strip([Segment(text[:width].ljust(width), style)], width)
