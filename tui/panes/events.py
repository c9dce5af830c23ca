"""Events pane: every event of the run in order — kind, step, time since start, latency, tokens —
filtered by kind and by text; Enter jumps to the event's step.

A virtual list: the rows are event indices (a ``range`` while nothing is filtered, so a 1M-event
run costs nothing), and only the rows on screen load their events from the trace.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from rich.segment import Segment
from rich.text import Text
from textual import events, on, work
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.worker import get_current_worker

from qitos.trace.events import EventKind, RunEvent
from qitos.trace.fields import as_float, as_int
from qitos.trace.payloads import ModelResponse, ToolCall, ToolResult, payload_of, response_usage
from tui.event_kinds import ERROR, FILTERS, RETRY
from tui.panes.base import GUTTER_COLUMNS, Pane
from tui.search import matching_events
from tui.store import StepSummary, format_action, short
from tui.text import inert_line
from tui.widgets.scroll_gutter import GUTTER_CSS, GutterScrolling, thumb_rows
from tui.widgets.scrolling import set_virtual_size

HEADER = "   event  step      +time  kind              latency  tokens  what"
STEP_ROWS = 50  # content(step) shows this many of the step's events at most


def _seconds(ts: object) -> float | None:
    """An ISO timestamp as seconds since the epoch, or None when it is not one."""
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts).timestamp()
    except ValueError:
        return None


def summary(event: RunEvent) -> str:
    """A few words on what the event says, by kind."""
    p = payload_of(event)
    phase = event.phase
    if phase == EventKind.MODEL_RESPONSE:
        response = ModelResponse.read(p)
        calls = "; ".join(format_action(c) for c in response.tool_calls)
        return calls or response.text
    if phase == EventKind.TOOL_CALL:
        call = ToolCall.read(p)
        return format_action({"name": call.tool, "args": call.args})
    if phase == EventKind.TOOL_RESULT:
        result = ToolResult.read(p)
        return f"{result.tool} {'ok' if result.ok else 'failed: ' + str(result.error)}"
    if not event.ok or event.error:
        return str(event.error or p.get("message") or "")
    for key in ("request_id", "stage", "reason", "name", "query", "record_id", "status", "message"):
        value = p.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return f"{key} {value}"
    return ""


class EventsPane(Pane, GutterScrolling, inherit_bindings=False):
    """The run's events as a filterable timeline; t cycles the kind filter, T filters by text."""

    TITLE = "Events"
    COMPONENT_CLASSES: ClassVar[set[str]] = {"events--cursor", "events--error", "events--head"}
    DEFAULT_CSS = (
        "EventsPane { "
        + GUTTER_CSS
        + " }"
        + """
    EventsPane > .events--cursor { background: $accent 40%; }
    EventsPane:focus > .events--cursor { background: $accent; color: $text; }
    EventsPane > .events--error { color: $error; }
    EventsPane > .events--head { color: $text-muted; text-style: bold; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Prev event", show=False),
        Binding("down", "move(1)", "Next event", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("enter", "jump", "Go to step"),
        Binding("t", "kind_filter", "Kind filter"),
        Binding("T", "text_filter", "Text filter"),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)
    """The highlighted row."""
    kind_filter: reactive[int] = reactive(0, repaint=False)
    """Index into FILTERS of the kinds shown."""
    text_filter: reactive[str] = reactive("", repaint=False)
    """Only events whose text contains this (case-insensitive); empty: no text filter."""

    class Jump(Message):
        """Go to the step at this position in the store."""

        def __init__(self, pos: int) -> None:
            super().__init__()
            self.pos = pos

    class Filtered(Message):
        """A text filter found these events (``start`` .. ``stop`` scanned), for ``query``."""

        # The field shadows Message.stop(), which Textual calls on a message its sender's parent
        # gets: harmless while the pane posts it to itself; renaming it is the pane owner's call.
        stop: int  # type: ignore[assignment]

        def __init__(self, query: str, kinds: int, start: int, stop: int, found: list[int]) -> None:
            super().__init__()
            self.query, self.kinds, self.start, self.stop, self.found = query, kinds, start, stop, found

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # the base class's arguments, passed on
        super().__init__(*args, **kwargs)
        self.rows: Sequence[int] = range(0)
        self._scanned = 0  # events the current text filter has looked at
        self._matched: list[int] = []
        self._kind_rows: tuple[int, int, list[int]] | None = None  # (filter, count, rows) cache
        self._start: float | None = None  # the first event's time
        self._start_known = False
        self.filtering = False
        self._cursor_at_step = True  # the cursor is where the selected step put it (not moved by hand)

    # ---- rows --------------------------------------------------------------------------------
    def _kind_indices(self, count: int) -> Sequence[int]:
        """Indices of the first ``count`` events of the kinds shown (all: a range)."""
        if self.kind_filter == 0:
            return range(count)
        cached = self._kind_rows
        if cached is not None and cached[0] == self.kind_filter and cached[1] == count:
            return cached[2]
        codes = FILTERS[self.kind_filter][1]
        pattern = re.compile(b"[" + re.escape(bytes(sorted(codes))) + b"]")
        found = [m.start() for m in pattern.finditer(self.store.categories, 0, count)]
        self._kind_rows = (self.kind_filter, count, found)
        return found

    def _update_rows(self) -> None:
        count = min(self.store.event_count, len(self.store.categories))
        if not self.text_filter:
            self.rows = self._kind_indices(count)
        else:
            self.rows = self._matched
            if self._scanned < count and not self.filtering:
                self._scan(self.text_filter, self.kind_filter, self._scanned, count)

    def show(self) -> None:
        """Bring the rows up to date with the store and the filters, and draw the ones on screen."""
        if not self.is_mounted or not self.display:
            return
        self._update_rows()
        set_virtual_size(self, Size(self.scrollable_content_region.width, len(self.rows) + 1))
        self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        self.border_subtitle = self._subtitle()
        self.refresh()

    def _subtitle(self) -> str:
        name = FILTERS[self.kind_filter][0]
        text = f" · text {self.text_filter!r}" if self.text_filter else ""
        busy = " · filtering…" if self.filtering else ""
        return inert_line(f"{len(self.rows)} of {self.store.event_count} · {name}{text}{busy}")

    def watch_selected(self) -> None:
        self.show()
        self._cursor_to_step()

    def _cursor_to_step(self) -> None:
        """The timeline follows the step list: the cursor goes to the selected step's first event
        (or the next one the filters show)."""
        step = self.step
        if step is not None and self.rows:
            cursor = min(len(self.rows) - 1, bisect_left(self.rows, step.first))
            # Where the view stands depends on the step alone, not on where the cursor or the
            # row count were before (a live run's events arrive in batches of any size): the
            # step's first event on the last row, or the first screenful.
            self.scroll_to(y=max(0, cursor - self._row_height() + 1), animate=False, immediate=True)
            self.cursor = cursor
            self._cursor_at_step = True
            self.refresh()

    def _row_height(self) -> int:
        """How many event rows the pane shows (its height less the header row)."""
        return max(1, self.scrollable_content_region.height - 1)

    def on_resize(self) -> None:
        self.show()
        # A new height (the first layout, a status line that came or went): the view stands
        # where the step puts it again, or, once the user moved the cursor, keeps it in view.
        if self._cursor_at_step:
            self._cursor_to_step()
        else:
            self.watch_cursor(self.cursor)

    def watch_kind_filter(self) -> None:
        self._restart_text_filter()
        self.show()

    def watch_text_filter(self) -> None:
        self._restart_text_filter()
        self.show()

    def watch_cursor(self, cursor: int) -> None:
        height = self._row_height()
        top = int(self.scroll_y)
        if cursor < top:
            self.scroll_to(y=cursor, animate=False, immediate=True)
        elif cursor >= top + height:
            self.scroll_to(y=cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def _restart_text_filter(self) -> None:
        self._scanned = 0
        self._matched = []
        self.filtering = False
        self.workers.cancel_group(self, "events-filter")

    def _scan(self, query: str, kinds: int, start: int, stop: int) -> None:
        """Filter events ``start`` .. ``stop`` by text in a thread; the rows follow when it answers."""
        self.filtering = True
        self._scan_worker(query, kinds, start, stop)

    @work(thread=True, exclusive=True, group="events-filter", exit_on_error=False, description="filtering")
    def _scan_worker(self, query: str, kinds: int, start: int, stop: int) -> None:
        """Find the events ``start`` .. ``stop`` of the kinds shown whose text holds ``query``."""
        worker = get_current_worker()
        codes = FILTERS[kinds][1]
        categories = self.store.categories
        candidates = (
            range(start, stop) if kinds == 0 else [i for i in range(start, stop) if categories[i] in codes]
        )
        found = matching_events(self.store, query, candidates, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(self.Filtered(query, kinds, start, stop, found))

    @on(Filtered)
    def _filtered(self, message: EventsPane.Filtered) -> None:
        if (message.query, message.kinds, message.start) != (
            self.text_filter,
            self.kind_filter,
            self._scanned,
        ):
            return  # an answer to a filter changed since
        fresh = not self._scanned
        self._matched.extend(message.found)
        self._scanned = message.stop
        self.filtering = False
        self.show()
        if fresh:
            self._cursor_to_step()

    # ---- keys --------------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        """Move the cursor by ``delta`` rows."""
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))
            self._cursor_at_step = False

    def action_jump(self) -> None:
        """Go to the step of the event under the cursor."""
        if not self.rows:
            return
        event = self.store.load(self.rows[self.cursor])
        step_id = event.step_id if type(event.step_id) is int else (as_int(event.step_id) or 0)
        pos = self.store.step_pos.get(step_id)
        if pos is not None:
            self.post_message(self.Jump(pos))

    def action_kind_filter(self) -> None:
        """Show the next kind of events: all, errors, retries, model calls, tool calls, memory, ..."""
        self.kind_filter = (self.kind_filter + 1) % len(FILTERS)
        self._cursor_to_step()

    def action_text_filter(self) -> None:
        """Ask for text the shown events must contain (empty: no text filter)."""
        from tui.screens.dialogs import PromptDialog  # the screens import the panes

        def done(answer: str | None) -> None:
            if answer is not None:
                self.text_filter = answer
                self._cursor_to_step()

        self.app.push_screen(
            PromptDialog("Show events containing (empty: all)", value=self.text_filter), done
        )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.in_gutter(event) or offset.y == 0:
            return
        row = offset.y - 1 + int(self.scroll_y)
        if 0 <= row < len(self.rows):
            self.cursor = row
            self._cursor_at_step = False

    # ---- drawing -----------------------------------------------------------------------------
    @property
    def content_width(self) -> int:
        """The width of a row: the pane's, less the scroll gutter."""
        return max(1, self.scrollable_content_region.width - GUTTER_COLUMNS)

    def gutter_thumb(self) -> range:
        return thumb_rows(self.scrollable_content_region.height, len(self.rows) + 1, self.scroll_y)

    def _start_time(self) -> float | None:
        if not self._start_known and self.store.event_count:
            self._start = _seconds(self.store.load(0).ts)
            self._start_known = True
        return self._start

    def row_text(self, index: int) -> tuple[str, bool]:
        """Row ``index``'s columns as one line, and whether it is an error."""
        event = self.store.load(index)
        p = payload_of(event)
        start, at = self._start_time(), _seconds(event.ts)
        since = f"{at - start:+10.3f}s" if start is not None and at is not None else " " * 11
        latency = as_float(p.get("latency_ms"))
        lat = f"{latency:>7.0f}ms" if latency is not None else " " * 9
        tokens = response_usage(p).total if event.phase == EventKind.MODEL_RESPONSE else 0
        tok = f"{tokens:>7}" if tokens else " " * 7
        step = event.step_id if isinstance(event.step_id, int) else "?"
        kind = short(str(event.phase), 16)
        code = self.store.categories[index] if index < len(self.store.categories) else 0
        text = f"{index + 1:>8} {step:>5} {since} {kind:<16} {lat}{tok}  {short(summary(event), 200)}"
        return inert_line(text), code in (ERROR, RETRY)

    def render_line(self, y: int) -> Strip:
        width = self.content_width
        base = self.rich_style
        gutter = [Segment(" ", base), self.gutter_cell(y)]
        if y == 0:
            head = self.get_component_rich_style("events--head")
            return Strip([Segment(HEADER[:width].ljust(width), base + head), *gutter], width + GUTTER_COLUMNS)
        row = y - 1 + int(self.scroll_y)
        if row >= len(self.rows):
            note = "no event matches these filters" if row == 0 and not self.filtering else ""
            return Strip([Segment(note[:width].ljust(width), base), *gutter], width + GUTTER_COLUMNS)
        text, bad = self.row_text(self.rows[row])
        style = base
        if bad:
            style += self.get_component_rich_style("events--error")
        if row == self.cursor:
            style += self.get_component_rich_style("events--cursor")
        return Strip([Segment(text[:width].ljust(width), style), *gutter], width + GUTTER_COLUMNS)

    def plain(self, width: int = 100) -> str:
        """The rows on screen as plain text (for tests)."""
        top = int(self.scroll_y)
        lines = [HEADER]
        for row in range(top, min(len(self.rows), top + max(1, self.scrollable_content_region.height - 1))):
            lines.append(self.row_text(self.rows[row])[0])
        return "\n".join(line[:width] for line in lines) + "\n"

    def content(self, step: StepSummary) -> Text:
        """The events of ``step`` as the timeline draws their rows (at most a screenful's worth)."""
        last = min(step.last, step.first + STEP_ROWS - 1, self.store.event_count - 1)
        rows = [self.row_text(index)[0] for index in range(step.first, last + 1)]
        return Text("\n".join([HEADER, *rows]))
