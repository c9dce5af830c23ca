"""Pane: what every run-screen pane does — a title, a scrolling body, and "show step N"."""

from __future__ import annotations

import io
from typing import ClassVar

from rich.console import Console, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from tui.store import RunStore, StepSummary


class Pane(VerticalScroll, can_focus=True, inherit_bindings=False):
    """A titled, scrolling pane that re-renders when the selected step or the store changes."""

    TITLE: ClassVar[str] = ""
    DEFAULT_CSS = """
    Pane { border: round $border-blurred; padding: 0 1; height: 1fr; }
    Pane:focus-within { border: round $border; }
    Pane > .pane-body { width: 1fr; }
    """

    # Only vertical scrolling: ←/→/Home/End stay the screen's step navigation even here.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    selected: reactive[int] = reactive(0)
    """Position of the selected step in the store, pushed down by the run screen."""
    revision: reactive[int] = reactive(0)
    """Bumped by the run screen whenever the store has folded new events."""
    active_pane: reactive[int] = reactive(0)
    """Which pane the tabs show (small terminals); this one is shown when it is its own index."""

    def __init__(self, store: RunStore, *, index: int = 0, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.index = index
        self.set_class(index == 0, "-active")
        self.border_title = self.TITLE
        self._body = Static("", classes="pane-body", markup=False)
        self.shown: RenderableType = Text("")
        self._key: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        yield self._body

    def on_mount(self) -> None:
        self.show()

    def on_resize(self) -> None:
        self.show()

    def watch_active_pane(self, active: int) -> None:
        self.set_class(active == self.index, "-active")

    def watch_selected(self) -> None:
        self.show()

    def watch_revision(self) -> None:
        self.show()

    @property
    def step(self) -> StepSummary | None:
        """The selected step's summary, or None before any event arrived."""
        steps = self.store.steps
        if not steps:
            return None
        return steps[max(0, min(self.selected, len(steps) - 1))]

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        """What the pane's content depends on; the pane re-renders only when this changes."""
        if step is None:
            return (None, self.size.width)
        return (step.step, step.last, step.ok, self.size.width)

    def show(self) -> None:
        """Render the selected step into the body (skipped when nothing it depends on changed)."""
        if not self.is_mounted:
            return
        step = self.step
        # While a big trace folds in the background the store changes many times a second; a
        # pane whose step did not change must not pay for re-rendering every time.
        key = self.view_key(step)
        if key == self._key:
            return
        self._key = key
        self.shown = self.render_step(step) if step is not None else Text("no events yet", style="dim")
        self._body.update(self.shown)

    def plain(self, width: int = 100) -> str:
        """What the pane shows now, as plain text (for tests and the e2e checks)."""
        console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
        console.print(self.shown)
        return console.export_text()

    def render_step(self, step: StepSummary) -> RenderableType:
        """What the pane shows for ``step``; every pane overrides this."""
        raise NotImplementedError(f"{type(self).__name__} must implement render_step")


def kv(label: str, value: object, *, style: str = "") -> Text:
    """A ``label value`` line with the label dimmed."""
    line = Text(f"{label} ", style="dim")
    line.append(str(value), style=style)
    return line


def bar(used: int, total: int, width: int) -> Text:
    """A horizontal bar of ``used`` out of ``total`` in ``width`` cells."""
    width = max(4, width)
    filled = 0 if total <= 0 else max(0, min(width, round(width * used / total)))
    out = Text("█" * filled, style="bold")
    out.append("░" * (width - filled), style="dim")
    return out
