"""Pane: what every run-screen pane does, and LinePane: a pane drawn from lines it caches.

A pane has a title, the run's store and the selected step pushed down by the run screen ("show
step N"). Most panes are LinePanes: their content (a Rich renderable, or blocks of it) is rendered
into lines once per change and served through the line API (``render_line``), so showing another
step re-renders one pane's lines and never asks the whole screen for a new layout: navigation
stays fast on big traces. A pane that holds widgets of its own (the disk browsers) or draws its
rows itself (the event timeline) derives from Pane alone.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Hashable, Iterator
from functools import partial
from types import FunctionType, MethodType
from typing import Any, ClassVar, NamedTuple, Protocol, cast

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from tui.panes.render_block import render_block
from tui.store import RunStore, StepSummary
from tui.widgets.render_pass import PassValue
from tui.widgets.scroll_gutter import GUTTER_CSS, GutterScrolling, thumb_rows
from tui.widgets.scrolling import set_virtual_size
from tui.widgets.tones import Toned

__all__ = [
    "GUTTER_COLUMNS",
    "LINE_CACHE_BLOCKS",
    "Block",
    "BoundPane",
    "Blocks",
    "LinePane",
    "Pane",
    "PaneFactory",
    "render_block",
]

# Rendered blocks kept per pane, least recently used dropped first: the steps around the selected
# one, the first, the last and one being typed after `g` (see prepare) all fit.
LINE_CACHE_BLOCKS = 256


class Block(NamedTuple):
    """A piece of a pane's content: lines rendered once per ``key`` (None: always rendered), then
    ``style`` (e.g. dim) laid over them, which is cheap next to rendering them again.

    The content is a renderable, or a function that builds it: a keyed block whose lines are
    cached is then never built again (building may mean reading events back from the trace)."""

    key: Hashable | None
    content: RenderableType | Callable[[], RenderableType]
    style: Style | None = None

    @property
    def renderable(self) -> RenderableType:
        """The content, built now when it was given as a function."""
        content = self.content
        # A builder is a function, method or partial, never another callable: the rest is renderable.
        return (
            content()
            if isinstance(content, FunctionType | MethodType | partial)
            else cast(RenderableType, content)
        )


class Blocks:
    """Blocks as one renderable (for plain text and tests); functions are built as it renders."""

    def __init__(self, blocks: list[Block]) -> None:
        self.blocks = blocks

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for block in self.blocks:
            yield block.renderable


GUTTER_COLUMNS = 2  # right of a LinePane's content: a blank column, then the scroll gutter


class Pane(Widget, Toned, can_focus=True, inherit_bindings=False):
    """A titled pane of the run screen showing the step the screen selected (see ``show``)."""

    TITLE: ClassVar[str] = ""
    DEFAULT_CSS = (
        # Titles in the theme's text colour, readable on every pane (the muted one was a dim grey
        # on black); the focused pane's title takes the focus colour, bold: colour for state.
        "Pane { border: round $border-blurred; padding: 0 0 0 1; height: 1fr;"
        " border-title-color: $foreground; border-subtitle-color: $text-muted; }"
        " Pane:focus { border: round $border; border-title-color: $text-primary;"
        " border-title-style: bold; }"
    )

    selected: reactive[int] = reactive(0, repaint=False)
    """Position of the selected step in the store, pushed down by the run screen."""
    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped by the run screen whenever the store has folded new events."""
    active_pane: reactive[int] = reactive(0, repaint=False)
    """Which pane the tabs show (small terminals); this one is shown when it is its own index."""

    def __init__(self, store: RunStore, *, index: int = 0, id: str | None = None) -> None:
        # The class given here, not set afterwards: setting one restyles the widget at once.
        super().__init__(id=id, classes="-active" if index == 0 else None)
        self.store = store
        self.index = index
        self.border_title = self.TITLE
        self.shown: RenderableType = Text("")
        """What the pane shows now, as one renderable (``plain`` prints it)."""

    def on_mount(self) -> None:
        self.show()

    def on_resize(self) -> None:
        self.show()

    def watch_active_pane(self, active: int) -> None:
        self.set_class(active == self.index, "-active")
        self.call_after_refresh(self.show)  # display follows the class once styles are updated

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

    def show(self) -> None:
        """Bring what the pane shows up to the selected step and the store; every pane overrides this."""
        raise NotImplementedError(f"{type(self).__name__} must implement show")

    def content(self, step: StepSummary) -> RenderableType:
        """What the pane shows for ``step``, as one renderable; every pane overrides this."""
        raise NotImplementedError(f"{type(self).__name__} must implement content")

    def prepare(self, pos: int) -> Iterator[None]:
        """Work ahead for the step at ``pos``, one piece per iteration, so that idle time can be
        used a little at a time (see LinePane); a pane that draws itself has nothing to prepare."""
        return iter(())

    def plain(self, width: int = 100) -> str:
        """What the pane shows now, as plain text (for tests and the e2e checks)."""
        console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
        console.print(self.shown)
        return console.export_text()


class PaneFactory(Protocol):
    """What the run screen builds a pane from: a Pane class, or one with arguments bound."""

    @property
    def TITLE(self) -> str:  # noqa: N802 - the Pane classes' own name for it
        """The pane's title (its tab and its border)."""
        ...

    def __call__(self, store: RunStore, *, index: int = 0, id: str | None = None) -> Pane:
        """A new pane over ``store``."""
        ...


class BoundPane(partial[Pane]):
    """A Pane class with some of its arguments bound (``functools.partial``), keeping its TITLE,
    for panes that need more than the store (a memory root, a skill database)."""

    @property
    def TITLE(self) -> str:  # noqa: N802 - the Pane classes' own name for it
        """The bound class's title."""
        func: Any = self.func
        return str(func.TITLE)


class LinePane(Pane, GutterScrolling, inherit_bindings=False):
    """A scrolling pane of lines rendered from its content, re-rendered when the step or the store
    changes; rendered blocks are kept in an LRU cache (dropped when the theme changes)."""

    RENDERS_BLOCKS: ClassVar[bool] = False
    """Whether render_step returns Blocks keyed by the pane itself; otherwise the whole content is
    one block keyed by the step's view key (rendered once per step and width)."""
    DEFAULT_CSS = "LinePane { " + GUTTER_CSS + " }"

    # Only vertical scrolling: ←/→/Home/End stay the screen's step navigation even here.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    def __init__(self, store: RunStore, *, index: int = 0, id: str | None = None) -> None:
        super().__init__(store, index=index, id=id)
        self._key: tuple[object, ...] | None = None
        self._lines: list[Strip] = []
        self._lines_width: int | None = None  # the width _lines were rendered for
        self._style = Style()
        self._line_cache: LRUCache[tuple[Hashable, int], list[Strip]] = LRUCache(LINE_CACHE_BLOCKS)
        # The base style and theme the cached lines were drawn with (tones come from the theme).
        self._cache_style: tuple[Style, str] | None = None
        # The first line shown and the width, worked out once per render_lines.
        self._pass_lines = PassValue(lambda: (self.first_shown_line(), self.content_width))

    def on_resize(self) -> None:
        self.show()
        self.after_show()  # a height change (a status line came or went) moves the end too

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.call_later(self._restyle)  # once every ancestor has its new styles too

    def _restyle(self) -> None:
        # A new theme changes the background the lines were drawn over and the tones: drop the
        # cached lines and draw them again. Focus and hover change neither.
        if self._cache_style is not None and self._style_key() != self._cache_style:
            self._line_cache.clear()
            self._cache_style = None
            if self._lines_width is not None:
                self._key = None
                self.show()

    def _style_key(self) -> tuple[Style, str]:
        return self.rich_style, self.app.theme  # rich_style walks every ancestor: looked up once

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        """What the pane's content depends on; the pane re-renders only when this changes."""
        if step is None:
            return (None, self.size.width)
        return (step.step, step.last, step.ok, self.size.width)

    def show(self) -> None:
        """Render the selected step into lines (skipped when nothing it depends on changed)."""
        if not self.is_mounted or not self.display:
            return  # a pane in a hidden tab renders when its tab is shown (watch_active_pane)
        # While a big trace folds in the background the store changes many times a second; a
        # pane whose step did not change must not pay for re-rendering every time.
        key = self.view_key(self.step)
        if key == self._key:
            return
        self._key = key
        if self.scrollable_content_region.width <= GUTTER_COLUMNS:
            # Not laid out yet. The first frame after a layout is drawn before the Resize event
            # arrives, so render_line renders then, at the real width (at width 0 it would be a
            # column of single characters).
            self._lines_width = None
            return
        self._build(repaint=True)
        self.after_show()

    def _build(self, *, repaint: bool) -> None:
        step = self.step
        self.shown = self.content(step) if step is not None else Text("no events yet", style="dim")
        self._render_lines(repaint=repaint)

    def content(self, step: StepSummary) -> RenderableType:
        """What is shown for ``step``, as blocks whose lines are cached (built only on a miss)."""
        if self.RENDERS_BLOCKS:
            return self.render_step(step)
        # The view key names everything the content depends on: a step seen (or prepared)
        # before is shown without building or rendering anything.
        return Blocks([Block(("view", *self.view_key(step)), partial(self.render_step, step))])

    def after_show(self) -> None:
        """Called after new content was laid out; panes adjust their scroll position here."""

    def blocks(self) -> list[Block]:
        """The content as blocks; a block with a key has its rendered lines cached under that key."""
        shown = self.shown
        return shown.blocks if isinstance(shown, Blocks) else [Block(None, shown)]

    def _render_context(self, width: int) -> tuple[Console, ConsoleOptions, Style]:
        console = self.app.console
        options = console.options.update(width=width, min_width=width, max_width=width, height=None)
        key = self._style_key()
        if key != self._cache_style:
            self._line_cache.clear()  # the lines were drawn over another base style (a new theme)
            self._cache_style = key
        return console, options, key[0]

    def _block_lines(
        self, block: Block, width: int, context: tuple[Console, ConsoleOptions, Style]
    ) -> list[Strip]:
        """``block`` rendered at ``width``: from the cache when its key was rendered before."""
        key = block.key
        console, options, style = context
        if key is not None:
            cached = self._line_cache.get((key, width))  # and now the most recently used
            if cached is not None:
                return cached
        lines = [Strip(line, width) for line in render_block(console, block.renderable, options, style)]
        if key is not None:
            self._line_cache.set((key, width), lines)  # the least recently used goes when full
        return lines

    def prepare(self, pos: int) -> Iterator[None]:
        """Render the cached blocks of the step at ``pos`` ahead of time, one block per iteration
        (so that idle time can be used a little at a time): showing that step later finds them."""
        width = self._lines_width
        steps = self.store.steps
        if width is None or not self.is_mounted or not self.display or not isinstance(self.shown, Blocks):
            return
        if not 0 <= pos < len(steps):
            return
        content = self.content(steps[pos])
        if not isinstance(content, Blocks):
            return
        for block in content.blocks:
            if block.key is not None and (block.key, width) not in self._line_cache:
                yield
                if width != self._lines_width:
                    return  # resized meanwhile: these lines would never be asked for
                self._block_lines(block, width, self._render_context(width))

    @property
    def content_width(self) -> int:
        """The width the content is rendered at: the pane's, less the scroll gutter."""
        return max(1, self.scrollable_content_region.width - GUTTER_COLUMNS)

    def gutter_thumb(self) -> range:
        """The thumb's rows, from the first line shown (which may run ahead of the scroll position)."""
        return thumb_rows(self.scrollable_content_region.height, len(self._lines), self.first_shown_line())

    def _render_lines(self, *, repaint: bool) -> None:
        width = self.content_width
        self._lines_width = width
        context = self._render_context(width)
        style = context[2]
        out: list[Strip] = []
        for block in self.blocks():
            cached = self._block_lines(block, width, context)
            out.extend(
                cached if block.style is None else [strip.apply_style(block.style) for strip in cached]
            )
        shown_from = self.first_shown_line() if repaint else 0  # before the lines change
        thumb = self.gutter_thumb() if repaint else range(0)
        previous, self._lines = self._lines, out
        virtual_size = Size(self.scrollable_content_region.width, len(out))
        if not repaint:
            # Rendered while the screen is being drawn: this frame shows the new lines already;
            # the scrollbar follows right after it.
            self._style = style
            if virtual_size != self.virtual_size:
                self.call_later(set_virtual_size, self, virtual_size)
            return
        if style != self._style or (
            virtual_size != self.virtual_size and set_virtual_size(self, virtual_size)
        ):
            self._style = style
            self.refresh()  # a new base style, or a new layout
            return
        # Stepping often changes a few lines of a pane (a bar, a figure), even a far jump (most
        # panes keep their first lines): redraw only those. Each redrawn line costs Textual a fresh
        # strip per widget layer, so this is most of a key's cost. What is on screen is the old
        # lines from where they were shown; the new ones are shown from where the new length and
        # scroll position put them.
        first = self.first_shown_line()
        for y in range(self.scrollable_content_region.height):
            old, new = _line_or_none(previous, shown_from + y), _line_or_none(out, first + y)
            if old is not new and old != new:
                self.refresh_row(y)
        self.refresh_gutter(thumb)

    def first_shown_line(self) -> int:
        """The content line drawn at the top of the pane (the scroll position, for most panes)."""
        return int(self.scroll_offset.y)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._ensure_rendered()
        # What every line of one pass shares, looked up once (a far jump draws every line).
        with self._pass_lines.during():
            return super().render_lines(crop)

    def _ensure_rendered(self) -> None:
        if self._lines_width != self.content_width:
            # A new layout (the first one, or a resize) is being drawn before its Resize event
            # arrived: render at the width on screen now, not one frame later.
            self._key = self.view_key(self.step)
            self._build(repaint=False)
            self.call_later(self.after_show)

    def render_line(self, y: int) -> Strip:
        if not self._pass_lines.in_pass:
            self._ensure_rendered()
        first, width = self._pass_lines.get()
        line = self.line_at(y + first, width)
        return Strip([*line, Segment(" ", self._style), self.gutter_cell(y)], width + GUTTER_COLUMNS)

    def line_at(self, index: int, width: int | None = None) -> Strip:
        """Content line ``index``, fitted to ``width`` (the content width; blank past the end)."""
        width = self.content_width if width is None else width
        if 0 <= index < len(self._lines):
            return self._lines[index].crop_extend(0, width, self._style)
        return Strip([Segment(" " * width, self._style)], width)

    def render_step(self, step: StepSummary) -> RenderableType:
        """What the pane shows for ``step`` (Blocks when RENDERS_BLOCKS); every pane overrides this."""
        raise NotImplementedError(f"{type(self).__name__} must implement render_step")


def _line_or_none(lines: list[Strip], index: int) -> Strip | None:
    return lines[index] if 0 <= index < len(lines) else None
