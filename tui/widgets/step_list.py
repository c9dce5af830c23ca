"""StepList: a virtual list of a run's steps that renders only the rows on screen."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.panes.base import quantize
from tui.store import RunStore


class StepList(ScrollView, can_focus=True, inherit_bindings=False):
    """One line per step (step, phase, action, ok / error); a ScrollView so 100k steps cost nothing."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "step-list--cursor",
        "step-list--error",
        "step-list--match",
        "step-list--dim",
    }
    DEFAULT_CSS = """
    StepList { background: $surface; }
    StepList > .step-list--cursor { background: $accent 40%; text-style: bold; }
    StepList:focus > .step-list--cursor { background: $accent; color: $text; }
    StepList > .step-list--error { color: $error; }
    StepList > .step-list--match { color: $warning; }
    StepList > .step-list--dim { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev step", show=False),
        Binding("down,j", "move(1)", "Next step", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
    ]
    # Scroll bindings are not inherited: ←/→/Home/End belong to the screen's step navigation.

    cursor: reactive[int] = reactive(0, always_update=True)
    """The selected row, pushed down by the run screen."""
    revision: reactive[int] = reactive(0)
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

    def _sync_size(self) -> None:
        # Rounded up: a growing run must not ask the whole screen for a new layout at every step.
        # While every row fits, scrolling (and its scrollbar) is off instead.
        rows = len(self.store.steps)
        fits = rows <= self.scrollable_content_region.height
        overflow = "hidden" if fits else "auto"
        if self.styles.overflow_y != overflow:
            self.styles.overflow_y = overflow
        self.virtual_size = Size(self.size.width, quantize(rows, 64))

    def watch_revision(self) -> None:
        self._sync_size()
        self.refresh()

    def watch_cursor(self, cursor: int) -> None:
        self._sync_size()
        # Keep the cursor visible without animating: navigation must answer immediately.
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        if cursor < top:
            self.scroll_to(y=cursor, animate=False, immediate=True)
        elif cursor >= top + height:
            self.scroll_to(y=cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def on_resize(self) -> None:
        self._sync_size()

    def action_move(self, delta: int) -> None:
        """Ask the screen to move the selection by ``delta`` rows."""
        if self.store.steps:
            self.post_message(self.Selected(max(0, min(len(self.store.steps) - 1, self.cursor + delta))))

    def on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_offset.y)
        if 0 <= row < len(self.store.steps):
            self.post_message(self.Selected(row))

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        steps = self.store.steps
        base = self.rich_style
        if row >= len(steps):
            return Strip.blank(width, base)
        s = steps[row]
        mark = "✗" if not s.ok else "✓"
        digits = len(str(steps[-1].step))
        text = (
            f"{mark} {s.step:>{digits}} {s.phase[:7]:<7} {s.error if not s.ok and not s.action else s.action}"
        )
        style = base
        if not s.ok:
            style += self.get_component_rich_style("step-list--error")
        elif row in self.matches:
            style += self.get_component_rich_style("step-list--match")
        if row == self.cursor:
            style += self.get_component_rich_style("step-list--cursor")
        segments = [Segment(text[:width].ljust(width), style)]
        return Strip(segments, width)
