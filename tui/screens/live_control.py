"""LiveControlScreen: runs a live Engine on a worker thread; pause, resume and step it.

Pausing goes through the TUI's own LifecyclePolicy (``LiveRun.policy``) and nothing else: a pause
takes effect at the next step boundary, and the Engine returns a snapshot that ``r`` resumes.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

from textual import on, work

from tui.failures import error_sentences
from tui.gc_tuning import app_tuning
from tui.messages import RunCrashed, RunReturned
from tui.screens.dialogs import ErrorScreen
from tui.screens.feeding import FeedingScreen
from tui.store import ListSource

if TYPE_CHECKING:
    from qitos.trace.events import RunEvent

EXPORT_NOTICE_SECONDS = 1.0


class LiveControlScreen(FeedingScreen):
    """A FeedingScreen that can run its live Engine and pause, resume or single-step it."""

    _engine_running = False
    _export_notice: str | None = None
    _answers = 0  # how often the live Engine has returned (finished, paused) or crashed

    def start_engine(self) -> None:
        """Start the live run once the screen is up (the first frame would compete with it)."""
        self._engine_running = True
        self.call_after_refresh(self._start_engine)
        if self.live is not None and self.live.extra_hooks:
            # An export (OTLP) runs beside the run: its losses show in the status bar as they happen.
            self.set_interval(EXPORT_NOTICE_SECONDS, self._check_export)

    def _check_export(self) -> None:
        line = self.live.export_notice() if self.live is not None else None
        if line is None or line == self._export_notice:
            return
        if self._export_notice in self.notices:
            self.notices.remove(self._export_notice)
        self._export_notice = line
        self.notices.insert(0, line)
        self.revision += 1

    def _sink(self, event: RunEvent) -> None:
        assert isinstance(self.store.source, ListSource)
        self.store.source.append(event)
        self.feed.push([event])

    def _start_engine(self) -> None:
        # The app's widgets live as long as the run: freeze them out of the cyclic GC, which the
        # Engine's allocations would otherwise make walk the whole UI again and again.
        app_tuning(self.app).spare_long_lived()
        self.run_engine(resume=False)

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="running the agent")
    def run_engine(self, resume: bool) -> None:
        """Run (or resume) the Engine on this worker thread; report how it returned."""
        live = self.live
        assert live is not None
        try:
            if not resume:
                live.build(self._sink)
            result = live.resume() if resume else live.start()
        except Exception as exc:  # the agent raised out of the Engine: show it, do not crash the UI
            detail = "".join(traceback.format_exception(exc))
            title = f"The agent raised {type(exc).__name__}: {exc}"
            # The message may quote a credential (a URL with a key, a rejected token): masked like
            # the run's events are.
            redactor = getattr(live.writer, "redactor", None)
            if redactor is not None:
                title, detail = redactor.redact_text(title), redactor.redact_text(detail)
            self.post_message(RunCrashed(title, detail))
            return
        status = str(getattr(result, "status", "") or "")
        stop = getattr(result, "stop_reason", None)
        self.post_message(RunReturned(status, live.snapshot, str(stop) if stop is not None else None))

    @on(RunReturned)
    def _returned(self, message: RunReturned) -> None:
        self._engine_running = False
        self._answers += 1
        self._drain()
        self._flush_now()
        self.refresh_bindings()
        # The run answered the last request (resume, step or pause): its state now speaks for itself.
        self.note = ""
        if message.snapshot is None and self.store.display_status == "failed":
            self.app.push_screen(ErrorScreen("The run failed", self._failure_text()))

    def _failure_text(self) -> str:
        """What went wrong, in sentences (never a repr of the error's details)."""
        store = self.store
        if store.failure is not None:
            return error_sentences(store.failure, store.failure_step)
        for step in reversed(store.steps):
            if step.error:
                return f"Step {step.step} failed: {step.error}"
        return f"The run stopped: {store.stop_reason or 'no reason was recorded'}."

    @on(RunCrashed)
    def _crashed(self, message: RunCrashed) -> None:
        self._engine_running = False
        self._answers += 1
        self._drain()
        self._flush_now()
        if self.store.status == "running":
            self.store.status = "failed"
        self.refresh_bindings()
        self.app.push_screen(ErrorScreen(message.title, message.detail))

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, description="stopping the run")
    def stop_paused_run(self) -> None:
        """Stop the paused run (its trace is finalised as stopped), then quit the app."""
        assert self.live is not None
        try:
            self.live.stop_paused()
        finally:
            self.app.call_from_thread(self.app.exit)

    @property
    def engine_running(self) -> bool:
        """Whether the Engine is running (asked to start, or resumed) and has not returned yet."""
        return self._engine_running

    @property
    def engine_answered(self) -> bool:
        """Whether the live run has been started and has answered since (returned: finished or
        paused; or crashed) and is not running again; always True for a replay. Waiting for
        "not running" alone is not enough: before the screen starts the Engine, it is not running
        either."""
        return self.live is None or (self._answers > 0 and not self._engine_running)

    @property
    def is_live(self) -> bool:
        """Whether a live run is still going or paused (not yet finished)."""
        return self.live is not None and (self._engine_running or self.live.snapshot is not None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the live-only keys in a replay and once the run is over; grey out those that do
        not apply right now (Textual asks again on refresh_bindings)."""
        if action in ("pause", "resume", "single_step"):
            if self.live is None or not self.is_live:
                return False
            paused = self.live.snapshot is not None
            if action == "resume":
                return True if paused else None
            if action == "pause":
                return True if self._engine_running else None
            return True if (paused or self._engine_running) else None
        return True

    def action_pause(self) -> None:
        """Ask the TUI's lifecycle policy to pause at the next step boundary."""
        if self.live is None or not self._engine_running:
            return
        self.live.policy.request_pause()
        self.note = "pause requested: the run stops at the next step boundary"

    def action_resume(self) -> None:
        """Resume the paused run from its snapshot."""
        if self.live is None or self.live.snapshot is None:
            self.notify("nothing to resume: the run is not paused", severity="warning", markup=False)
            return
        self._start_resume("resumed")

    def action_single_step(self) -> None:
        """Run one step and pause again."""
        if self.live is None:
            return
        pause = self.store.pause
        current = pause.step if pause is not None else (self.store.steps[-1].step if self.store.steps else 0)
        self.live.policy.request_step(current)
        if self.live.snapshot is not None:
            self._start_resume(f"running step {current}, then pausing")
        else:
            self.note = f"pausing after step {current}"

    def _start_resume(self, note: str) -> None:
        self._engine_running = True
        self._tail = True
        self.note = note
        self.refresh_bindings()
        self.run_engine(resume=True)
