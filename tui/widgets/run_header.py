"""RunHeader and StatusBar: the run's one-line identity, and why it is paused or what was skipped."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui.failures import error_line
from tui.store import RunStore
from tui.text import inert
from tui.widgets.tones import BOLD, ITALIC, Toned

STATUS_TONES = {
    "live": "good",
    "paused": "warn",
    "finished": "info",
    "failed": "bad",
    "interrupted": "stop",
    "stopped": "stop",
}
"""The tone of each run status (tui.widgets.tones); drawn bold."""


class RunHeader(Static, Toned):
    """Status (live, paused, finished, stopped, failed, interrupted), step id, tokens, model, run id."""

    DEFAULT_CSS = """
    RunHeader { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    selected: reactive[int] = reactive(0)
    """Position of the selected step."""
    revision: reactive[int] = reactive(0)
    """Bumped whenever the store changes."""
    progress: reactive[str] = reactive("")
    """Background work in progress (the replay fold), shown at the end of the line."""
    following: reactive[bool] = reactive(False)
    """A replay that follows its trace as another process writes it (shown beside the status)."""
    prompt: reactive[str | None] = reactive(None)
    """The step id being typed after `g` (None: not going anywhere); shown at the end of the line."""

    def __init__(self, store: RunStore, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.store = store

    def render(self) -> Text:
        # Most essential first, so that a narrow terminal (80 columns) cuts only the run id at the
        # end: status, the selected step's recorded id, a `g` being typed, tokens, model, run id.
        store = self.store
        status = store.display_status
        line = Text()
        tone = STATUS_TONES.get(status)
        status_style = self.tone(tone, BOLD) if tone else BOLD
        line.append_text(inert(f"● {status}", status_style))  # a manifest may say anything
        if self.following:
            line.append(" (following)", style=status_style)
        steps = store.steps
        if steps:
            # The recorded step id, as the step list, `g`, Budget and export use it (ids count from
            # 0 and may have gaps), with the range of ids in the run.
            step = steps[max(0, min(self.selected, len(steps) - 1))]
            line.append(f"  step {step.step}", style="bold")
            line.append(f" ({steps[0].step}–{steps[-1].step})", style="dim")
        else:
            line.append("  no steps yet", style="dim")
        if self.prompt is not None:
            line.append("  go to step: ", style="bold reverse")
            line.append(f"{self.prompt}▏", style="bold reverse")
            line.append(" Enter goes, Esc cancels", style="dim")
        line.append(f"  {store.tokens} tok", style="dim")
        # Model and run ids come from the trace: inert.
        line.append_text(inert(f"  {store.model_id or 'model ?'}"))
        line.append_text(inert(f"  {store.run_id or '(no run id yet)'}", "bold"))
        if self.progress:
            line.append_text(inert(f"  {self.progress}", self.tone("warn", ITALIC)))
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line


class StatusBar(Static, Toned):
    """Why the run is paused (own request or the agent's policy) and its pending action; notices."""

    DEFAULT_CSS = """
    StatusBar { height: auto; max-height: 4; padding: 0 0 0 1; background: $warning 20%; display: none; }
    StatusBar.-shown { display: block; }
    """

    revision: reactive[int] = reactive(0)
    """Bumped whenever the store changes."""
    note: reactive[str] = reactive("")
    """A transient line from the screen (pause requested, export written, ...)."""

    def __init__(
        self,
        store: RunStore,
        notices: list[str] | None = None,
        *,
        resumable: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__("", id=id)
        self.store = store
        self.notices = notices if notices is not None else []  # the screen's own list: it grows later
        # Only a live run can be resumed from here; a replay (even of a run paused in another
        # process) never offers keys that would do nothing.
        self.resumable = resumable
        self._last: Text | None = None

    def on_mount(self) -> None:
        self._refresh_content()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            # A new theme has new tones: the bar's text is built again (and only then updated).
            self.call_later(self._refresh_content)

    def _refresh_content(self) -> None:
        # A hidden widget is never rendered, so whether to show is decided here, not in render.
        content = self.content()
        if content == self._last:
            return  # updating relayouts the screen: only when the text really changed
        self._last = content
        self.set_class(bool(content), "-shown")
        self.update(content)

    def content(self) -> Text:  # type: ignore[override]  # shadows Static.content (a property since Textual 8): a rename is the widget owner's call
        """The bar's text: the pause, reader notices, the latest note; empty when there is nothing."""
        out = Text()
        store = self.store
        if store.display_status == "failed" and store.failure is not None:
            # The cause stays on screen, under the header, once the run has failed (the dialog
            # that said so first can be closed).
            where = f" at step {store.failure_step}" if store.failure_step is not None else ""
            out.append(f"✗ failed{where}: ", style=self.tone("bad", BOLD))
            out.append_text(inert(error_line(store.failure)))
        pause = self.store.pause
        if pause is not None and self.store.display_status == "paused":
            from tui.widgets.pause_banner import pause_line  # a replay's first frame has no pause

            if out:
                out.append("\n")
            # One line at 80 columns (pause_banner says what gives way first); it wraps only on
            # a narrower screen.
            out.append_text(
                pause_line(pause, self._width(), resumable=self.resumable, paused=self.tone("warn", BOLD))
            )
        if self.store.last_decision:
            # The latest ruling on a pause (who, verdict, arguments, reason): agent and model text, inert.
            out.append_text(inert(("\n" if out else "") + f"⚖ {self.store.last_decision}", "italic"))
        for notice in self.notices[:3]:
            out.append_text(inert(("\n" if out else "") + f"⚠ {notice}", self.tone("warn")))
        if len(self.notices) > 3:
            out.append(f"\n  … {len(self.notices) - 3} more notices")
        if self.note:
            out.append_text(inert(("\n" if out else "") + self.note, "italic"))
        return out

    def _width(self) -> int:
        """The cells a line of the bar has (the screen's, less the padding, before the first layout)."""
        return self.content_region.width or self.app.size.width - 1

    def on_resize(self) -> None:
        self._refresh_content()  # how much of the pause fits on its line depends on the width

    def watch_revision(self) -> None:
        self._refresh_content()

    def watch_note(self) -> None:
        self._refresh_content()
