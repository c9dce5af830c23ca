"""DiffScreen: two runs side by side — aligned steps, the first divergence, and how a pair differs."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.strip import Strip

from qitos.trace.errors import TraceError
from tui.run_diff import EventLoader, RunDiff, compare, pair_differences, scan_run
from tui.screens.dialogs import HelpScreen, binding_rows
from tui.store import short
from tui.structured import Tone
from tui.text import inert, inert_line
from tui.widgets.keys_footer import KeysFooter
from tui.widgets.scroll_gutter import GUTTER_CSS, GutterScrolling
from tui.widgets.scrolling import set_virtual_size
from tui.widgets.toned_static import TonedStatic
from tui.widgets.tones import BOLD, DIM

PROGRESS_SECONDS = 0.1  # the reading's progress is said at most this often
MARKS = {"same": "=", "changed": "≠", "only_a": "−", "only_b": "+"}


class PairList(GutterScrolling, can_focus=True, inherit_bindings=False):
    """One row per aligned pair of steps: A's step and action, a mark, B's step and action."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"pair-list--cursor", "pair-list--differs"}
    DEFAULT_CSS = (
        "PairList { background: $surface; overflow-x: hidden; "
        + GUTTER_CSS
        + " }"
        + """
    PairList > .pair-list--cursor { background: $accent 40%; text-style: bold; }
    PairList:focus > .pair-list--cursor { background: $accent; color: $text; }
    PairList > .pair-list--differs { color: $warning; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev pair", show=False),
        Binding("down,j", "move(1)", "Next pair", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)
    """The selected pair, pushed down by the screen."""

    class Picked(Message):
        """The user asked for this pair (keys or mouse)."""

        def __init__(self, pos: int) -> None:
            super().__init__()
            self.pos = pos

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: RunDiff | None = None

    def set_diff(self, diff: RunDiff) -> None:
        """Show the pairs of ``diff``."""
        self.diff = diff
        set_virtual_size(self, Size(self.size.width, len(diff.pairs)))
        self.refresh()

    def watch_cursor(self, cursor: int) -> None:
        top, height = int(self.scroll_y), max(1, self.scrollable_content_region.height)
        if cursor < top:
            self.scroll_to(y=cursor, animate=False, immediate=True)
        elif cursor >= top + height:
            self.scroll_to(y=cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def action_move(self, delta: int) -> None:
        """Ask the screen to move the selection by ``delta`` pairs."""
        if self.diff is not None and self.diff.pairs:
            self.post_message(self.Picked(max(0, min(len(self.diff.pairs) - 1, self.cursor + delta))))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.in_gutter(event) or self.diff is None:
            return
        row = offset.y + int(self.scroll_y)
        if 0 <= row < len(self.diff.pairs):
            self.post_message(self.Picked(row))

    def row_text(self, row: int, width: int) -> tuple[str, bool]:
        """Pair ``row`` as one line of ``width`` cells, and whether the two steps differ."""
        diff = self.diff
        assert diff is not None
        x, y = diff.pairs[row]
        half = max(4, (width - 3) // 2)
        left = self._side(diff.a.steps[x] if x is not None else None, half)
        right = self._side(diff.b.steps[y] if y is not None else None, half)
        if x is None:
            mark = MARKS["only_b"]
        elif y is None:
            mark = MARKS["only_a"]
        else:
            mark = MARKS["same"] if diff.same[row] else MARKS["changed"]
        return inert_line(f"{left} {mark} {right}")[:width].ljust(width), not diff.same[row]

    @staticmethod
    def _side(facts: object, width: int) -> str:
        if facts is None:
            return "·".ljust(width)
        step = getattr(facts, "step", "?")
        what = "; ".join(getattr(facts, "actions", [])) or getattr(facts, "decision", "") or "-"
        mark = "" if getattr(facts, "ok", True) else "✗ "
        return short(f"{step:>4} {mark}{what}", width).ljust(width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width - 1
        base = self.rich_style
        gutter = self.gutter_cell(y)
        row = y + int(self.scroll_y)
        if self.diff is None or row >= len(self.diff.pairs):
            return Strip([Segment(" " * width, base), gutter], width + 1)
        text, differs = self.row_text(row, width)
        style = base
        if differs:
            style += self.get_component_rich_style("pair-list--differs")
        if row == self.cursor:
            style += self.get_component_rich_style("pair-list--cursor")
        return Strip([Segment(text, style), gutter], width + 1)


class DiffScreen(Screen[None]):
    """Compare two runs: n / N go to the next / previous divergence, ↑ / ↓ move between pairs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "divergence(1)", "Next divergence"),
        Binding("N", "divergence(-1)", "Prev divergence"),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "back", "Back", show=False),
    ]
    DEFAULT_CSS = """
    DiffScreen #diff-header { height: auto; padding: 0 1; background: $panel; }
    DiffScreen #diff-body { height: 1fr; }
    DiffScreen #pairs { width: 1fr; border: round $border-blurred; }
    DiffScreen #pairs:focus { border: round $border; }
    DiffScreen #pair-detail { width: 1fr; border: round $border-blurred; padding: 0 1; }
    """

    selected: reactive[int] = reactive(0, repaint=False)
    """The aligned pair shown in detail."""

    class Compared(Message):
        """Both runs were read and aligned (or could not be: ``problem``)."""

        def __init__(self, diff: RunDiff | None, problem: str | None) -> None:
            super().__init__()
            self.diff, self.problem = diff, problem

    class Progress(Message):
        """How far reading the two runs got."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DiffScreen.Progress)

    def __init__(self, run_a: Path, run_b: Path, *, from_list: bool = False) -> None:
        super().__init__()
        self.run_a, self.run_b = run_a, run_b
        self.from_list = from_list
        self.diff: RunDiff | None = None
        # The events of the pair shown, read back from where the scan saw them.
        self._loaders: tuple[EventLoader, EventLoader] | None = None

    def compose(self) -> ComposeResult:
        reading = inert(f"comparing {self.run_a.name} with {self.run_b.name}: reading…")
        yield TonedStatic(lambda tone: reading, id="diff-header")
        with Horizontal(id="diff-body"):
            yield PairList(id="pairs")
            with VerticalScroll(id="pair-detail"):
                yield TonedStatic(lambda tone: Text("reading the two runs…", style=DIM), id="detail")
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(PairList).border_title = "A · step / action        B · step / action"
        self.query_one("#pair-detail").border_title = "How the pair differs"
        self.query_one(PairList).focus()
        self.read_runs()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False, description="comparing runs")
    def read_runs(self) -> None:
        """Read both runs' steps (with progress) and align them, off the UI thread."""
        facts = []
        said = [0.0]

        def progress(label: str, fraction: float) -> None:
            # Every tenth of a second at most: each repaint of the header slows the reading down.
            now = time.monotonic()
            if now - said[0] >= PROGRESS_SECONDS:
                said[0] = now
                self.post_message(self.Progress(f"reading run {label}: {fraction:.0%}"))

        for label, run_dir in (("A", self.run_a), ("B", self.run_b)):
            if not run_dir.is_dir():
                self.post_message(self.Compared(None, f"run {label}: {run_dir} is not a directory"))
                return
            run = scan_run(run_dir, partial(progress, label))
            if run.problem is not None:
                self.post_message(self.Compared(None, f"run {label}: {run.problem}"))
                return
            facts.append(run)
        self.post_message(self.Compared(compare(facts[0], facts[1]), None))

    @on(Progress)
    def _progress(self, message: DiffScreen.Progress) -> None:
        progress = inert(f"comparing {self.run_a.name} with {self.run_b.name}: {message.text}")
        self.query_one("#diff-header", TonedStatic).draw(lambda tone: progress)

    @on(Compared)
    def _compared(self, message: DiffScreen.Compared) -> None:
        header = self.query_one("#diff-header", TonedStatic)
        if message.diff is None:
            problem = message.problem or ""
            header.draw(lambda tone: inert(f"cannot compare: {problem}", BOLD + tone("bad")))
            self.query_one("#detail", TonedStatic).draw(lambda tone: inert(problem, tone("bad")))
            return
        diff = self.diff = message.diff
        self.query_one(PairList).set_diff(diff)
        header.draw(lambda tone: self._header(diff, tone))
        start = diff.first_divergence or 0
        self.selected = start
        self.watch_selected(start)

    def _header(self, diff: RunDiff, tone: Tone) -> RenderableType:
        head = Text()
        head.append_text(inert(f"A {diff.a.run_id}", "bold"))
        head.append(f" ({len(diff.a.steps)} steps)  vs  ", style="dim")
        head.append_text(inert(f"B {diff.b.run_id}", "bold"))
        head.append(f" ({len(diff.b.steps)} steps)  ", style="dim")
        changed = sum(1 for s in diff.same if not s)
        head.append(
            diff.headline(), style=BOLD + tone("warn" if diff.first_divergence is not None else "good")
        )
        head.append(f" · {changed} of {len(diff.pairs)} pairs differ", style="dim")
        lines: list[RenderableType] = [head]
        for sentence in diff.mismatches():
            lines.append(inert(f"⚠ {sentence}", BOLD + tone("bad")))
        task = diff.a.task if diff.a.task == diff.b.task else ""
        if task:
            lines.append(inert(f"task: {short(task, 150)}", "dim"))
        return Group(*lines)

    def watch_selected(self, pos: int) -> None:
        if self.diff is None or not self.diff.pairs:
            return
        self.query_one(PairList).cursor = pos
        self.query_one("#detail", TonedStatic).draw(lambda tone: self._detail(pos, tone))

    def _load(self, side: int) -> EventLoader:
        if self._loaders is None:
            assert self.diff is not None
            self._loaders = (EventLoader(self.diff.a), EventLoader(self.diff.b))
        return self._loaders[side]

    def _detail(self, pos: int, tone: Tone) -> RenderableType:
        diff = self.diff
        assert diff is not None
        try:
            left, right, differences = pair_differences(diff, pos, self._load(0), self._load(1))
        except (TraceError, OSError, IndexError) as exc:
            return inert(f"cannot read this pair's events: {exc}", tone("bad"))
        x, y = diff.pairs[pos]
        title = Text(f"pair {pos + 1} of {len(diff.pairs)}: ", style="bold")
        if left is None or right is None:
            # A missing side's event goes with a missing step (x or y None): mypy cannot see that.
            only, facts = ("A", diff.a.steps[x]) if right is None else ("B", diff.b.steps[y])  # type: ignore[index]
            title.append(f"step {facts.step} only in run {only} (the other run has no such step here)")
            details = left or right or {}
            return Group(title, *(self._field(k, v) for k, v in details.items()))
        title.append(f"A step {diff.a.steps[x].step} · B step {diff.b.steps[y].step}")  # type: ignore[index]  # both sides here
        if not differences:
            title.append(" · the same", style=tone("good"))
        # Field by field, A above B: readable at 80 columns, where a table's columns are too narrow.
        changed = {d.what for d in differences}
        lines: list[RenderableType] = [title]
        for what in left:
            differs = what in changed
            lines.append(
                Text(f"{'≠ ' if differs else ''}{what}", style=BOLD + tone("warn") if differs else BOLD)
            )
            style = "" if differs else "dim"
            for side, value in (("A", left[what]), ("B", right[what])):
                line = Text(f"  {side} ", style="bold")
                line.append_text(inert(value or "-", style))
                lines.append(line)
        return Group(*lines)

    @staticmethod
    def _field(what: str, value: str) -> Text:
        line = Text(f"{what}: ", style="dim")
        line.append_text(inert(value or "-"))
        return line

    @on(PairList.Picked)
    def _picked(self, message: PairList.Picked) -> None:
        self.selected = message.pos

    def action_divergence(self, delta: int) -> None:
        """Go to the next (1) or previous (-1) pair whose steps differ."""
        if self.diff is None:
            return
        same = self.diff.same
        order = range(self.selected + 1, len(same)) if delta > 0 else range(self.selected - 1, -1, -1)
        target = next((k for k in order if not same[k]), None)
        if target is None:
            self.notify("no further divergence that way", severity="warning", markup=False)
            return
        self.selected = target

    def action_help(self) -> None:
        """Show every key."""
        self.app.push_screen(HelpScreen(binding_rows(self)))

    def action_back(self) -> None:
        """Back to the run list this comparison was opened from."""
        if self.from_list:
            self.dismiss(None)

    def on_unmount(self) -> None:
        if self._loaders is not None:
            for loader in self._loaders:
                loader.close()
