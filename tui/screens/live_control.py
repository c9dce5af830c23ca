"""LiveController: runs a live Engine on a worker thread; pause, resume and step it (p / r / s).

Pausing goes through the TUI's own LifecyclePolicy (``LiveRun.policy``) and nothing else: a pause
takes effect at the next step boundary, and the Engine returns a snapshot that ``r`` resumes.
The worker is declared on the screen (Textual's ``@work`` needs a DOM node); its body is here.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tui.failures import error_sentences
from tui.gc_tuning import app_tuning
from tui.messages import RunCrashed, RunReturned
from tui.store import ListSource

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.timer import Timer

    from qitos.trace.events import RunEvent
    from tui.live import LiveRun
    from tui.screens.feeding import Feeder

EXPORT_NOTICE_SECONDS = 1.0
ACTIONS = frozenset({"pause", "resume", "single_step"})  # the keys (p, r, s) a LiveController answers


class LiveHost(Protocol):
    """What a LiveController asks of its screen: timers, its engine worker, the note and the keys."""

    @property
    def app(self) -> App[object]: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def set_interval(self, interval: float, callback: Callable[[], object]) -> Timer: ...

    def refresh_bindings(self) -> None: ...

    def notify(self, message: str, *, severity: SeverityLevel = ..., markup: bool = ...) -> None: ...

    def run_engine(self, resume: bool) -> object:
        """Start the worker that runs (or resumes) the Engine (:meth:`LiveController.run`)."""

    def show_note(self, note: str) -> None:
        """Put a transient line in the status bar ("" clears it)."""

    def show_error(self, title: str, detail: str) -> None:
        """Show what went wrong in the error panel."""


class LiveController:
    """Runs a screen's live Engine and pauses, resumes or single-steps it."""

    def __init__(self, host: LiveHost, live: LiveRun | None, feeder: Feeder) -> None:
        self.host = host
        self.live = live
        self.feeder = feeder  # the events the Engine emits go to its feed
        self.store = feeder.store
        self.running = False  # asked to start, or resumed, and not returned yet
        self._export_notice: str | None = None
        self._answers = 0  # how often the live Engine has returned (finished, paused) or crashed

    def start(self) -> None:
        """Start the live run once the screen is up (the first frame would compete with it)."""
        self.running = True
        self.host.call_after_refresh(self._start_engine)
        if self.live is not None and self.live.extra_hooks:
            # An export (OTLP) runs beside the run: its losses show in the status bar as they happen.
            self.host.set_interval(EXPORT_NOTICE_SECONDS, self._check_export)

    def _check_export(self) -> None:
        line = self.live.export_notice() if self.live is not None else None
        if line is None or line == self._export_notice:
            return
        self.feeder.put_notice_first(line, replacing=self._export_notice)
        self._export_notice = line

    def _sink(self, event: RunEvent) -> None:
        assert isinstance(self.store.source, ListSource)
        self.store.source.append(event)
        self.feeder.feed.push([event])

    def _start_engine(self) -> None:
        # The app's widgets live as long as the run: freeze them out of the cyclic GC, which the
        # Engine's allocations would otherwise make walk the whole UI again and again.
        app_tuning(self.host.app).spare_long_lived()
        self.host.run_engine(False)

    def run(self, resume: bool) -> Message:
        """Run (or resume) the Engine (on the worker thread); the message that says how it returned."""
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
            return RunCrashed(title, detail)
        status = str(getattr(result, "status", "") or "")
        stop = getattr(result, "stop_reason", None)
        return RunReturned(status, live.snapshot, str(stop) if stop is not None else None)

    def returned(self, message: RunReturned) -> None:
        """The Engine returned (finished, failed or paused): show where it stands."""
        self.running = False
        self._answers += 1
        self.feeder.drain_and_show()
        self.host.refresh_bindings()
        # The run answered the last request (resume, step or pause): its state now speaks for itself.
        self.host.show_note("")
        if message.snapshot is None and self.store.display_status == "failed":
            self.host.show_error("The run failed", self._failure_text())

    def _failure_text(self) -> str:
        """What went wrong, in sentences (never a repr of the error's details)."""
        store = self.store
        if store.failure is not None:
            return error_sentences(store.failure, store.failure_step)
        for step in reversed(store.steps):
            if step.error:
                return f"Step {step.step} failed: {step.error}"
        return f"The run stopped: {store.stop_reason or 'no reason was recorded'}."

    def crashed(self, message: RunCrashed) -> None:
        """The agent raised out of the Engine: the run failed, and the error panel says why."""
        self.running = False
        self._answers += 1
        self.feeder.drain_and_show()
        if self.store.status == "running":
            self.store.status = "failed"
        self.host.refresh_bindings()
        self.host.show_error(message.title, message.detail)

    def stop_paused(self) -> None:
        """Stop the paused run: its trace is finalised as stopped (on a worker thread)."""
        assert self.live is not None
        self.live.stop_paused()

    @property
    def answered(self) -> bool:
        """Whether the live run has been started and has answered since (returned: finished or
        paused; or crashed) and is not running again; always True for a replay. Waiting for
        "not running" alone is not enough: before the screen starts the Engine, it is not running
        either."""
        return self.live is None or (self._answers > 0 and not self.running)

    @property
    def is_live(self) -> bool:
        """Whether a live run is still going or paused (not yet finished)."""
        return self.live is not None and (self.running or self.live.snapshot is not None)

    def check(self, action: str) -> bool | None:
        """p / r / s: hidden in a replay and once the run is over; greyed out when they do not apply."""
        if self.live is None or not self.is_live:
            return False
        paused = self.live.snapshot is not None
        if action == "resume":
            return True if paused else None
        if action == "pause":
            return True if self.running else None
        return True if (paused or self.running) else None

    def pause(self) -> None:
        """Ask the TUI's lifecycle policy to pause at the next step boundary."""
        if self.live is None or not self.running:
            return
        self.live.policy.request_pause()
        self.host.show_note("pause requested: the run stops at the next step boundary")

    def resume(self) -> None:
        """Resume the paused run from its snapshot."""
        if self.live is None or self.live.snapshot is None:
            self.host.notify("nothing to resume: the run is not paused", severity="warning", markup=False)
            return
        self.resume_with("resumed")

    def single_step(self) -> None:
        """Run one step and pause again."""
        if self.live is None:
            return
        pause = self.store.pause
        current = pause.step if pause is not None else (self.store.steps[-1].step if self.store.steps else 0)
        self.live.policy.request_step(current)
        if self.live.snapshot is not None:
            self.resume_with(f"running step {current}, then pausing")
        else:
            self.host.show_note(f"pausing after step {current}")

    def resume_with(self, note: str) -> None:
        """Resume the paused run (carrying whatever decision was set), the newest step selected."""
        self.running = True
        self.feeder.keep_newest()
        self.host.show_note(note)
        self.host.refresh_bindings()
        self.host.run_engine(True)
