"""Live source: run an agent's Engine in a worker thread, tap its events, pause it through a policy.

The TUI pauses a run only through :class:`TuiPausePolicy`, a LifecyclePolicy installed in the agent's
composition config (an extension factory plus its name in ``lifecycle``). A pause makes
``Engine.run`` return with a snapshot; resuming calls ``engine.resume(snapshot)``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qitos.engine.hooks import EngineHook
from qitos.engine.runtime import LifecyclePolicy, RuntimeSnapshotContext
from qitos.trace.events import RunEvent
from tui.store import RunStore

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.core.task import Task
    from qitos.engine.approval import PauseDecision
    from qitos.engine.engine import Engine
    from qitos.engine.result import EngineResult
    from qitos.engine.runtime import RuntimeSnapshot
    from qitos.trace.writer import TraceWriter

POLICY_NAME = "qitos_tui_pause"


class TuiPausePolicy(LifecyclePolicy):
    """The TUI's own pause: at the next boundary on request, or after the current step when stepping."""

    policy_id = RunStore.own_policy_id

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pause_next = False
        self._after_step: int | None = None

    def request_pause(self) -> None:
        """Pause at the next step boundary the Engine asks about."""
        with self._lock:
            self._pause_next = True

    def request_step(self, step_id: int) -> None:
        """Let step ``step_id`` finish, then pause before the next step decides."""
        with self._lock:
            self._after_step = step_id

    @property
    def pending(self) -> bool:
        """Whether a pause has been asked for and not yet taken."""
        with self._lock:
            return self._pause_next or self._after_step is not None

    def should_pause(self, context: RuntimeSnapshotContext) -> bool:
        """Called by the Engine's thread at each boundary."""
        with self._lock:
            if self._pause_next:
                self._pause_next = False
                self._after_step = None
                return True
            if (
                self._after_step is not None
                and context.step_id > self._after_step
                and context.boundary == "before_decide"
            ):
                self._after_step = None
                return True
        return False


def install_pause_policy(agent: AgentModule[Any, Any, Any], policy: TuiPausePolicy) -> None:
    """Add the policy to the agent's composition config: an extension factory and its lifecycle name."""
    install_policy(agent, POLICY_NAME, policy)


def install_policy(agent: AgentModule[Any, Any, Any], name: str, policy: LifecyclePolicy) -> None:
    """Add a lifecycle policy to the agent's composition config under ``name`` (last in the list)."""
    config = getattr(agent, "config", None)
    if not isinstance(config, dict):
        raise TypeError(f"{type(agent).__name__} has no composition config (AgentModule(**config) sets one)")
    extensions = dict(config.get("extensions") or {})
    extensions[name] = lambda *args, **kwargs: policy
    config["extensions"] = extensions
    lifecycle = [n for n in config.get("lifecycle") or [] if n != name]
    config["lifecycle"] = [*lifecycle, name]


class LiveTap(EngineHook):
    """EngineHook whose ``on_event`` hands every event to the UI (called on the Engine's thread)."""

    def __init__(self, sink: Callable[[RunEvent], None]) -> None:
        super().__init__()
        self._sink = sink

    def on_event(self, event: RunEvent, state: Any = None, record: Any = None, engine: Any = None) -> None:
        """Forward one event; the sink is thread-safe (the rest is not needed)."""
        self._sink(event)


class LiveRun:
    """One live run of an agent: the engine, its pause policy, and the snapshot while paused."""

    def __init__(
        self,
        agent: AgentModule[Any, Any, Any],
        task: str | Task,
        *,
        trace_dir: str | Path = "./runs",
        step_delay: float = 0.0,
        run_id: str | None = None,
        clock: Callable[[], str] | None = None,
        hooks: list[Any] | None = None,
        configure: Callable[[Engine[Any, Any, Any], TraceWriter], None] | None = None,
    ) -> None:
        self.agent = agent
        self.configure = configure  # called with (engine, writer) once built, e.g. to make a fork
        self.extra_hooks = list(hooks or [])  # more Engine hooks, e.g. the OTLP export
        self.task = task
        self.trace_dir = Path(trace_dir)
        self.step_delay = step_delay
        self.run_id = run_id
        self.clock = clock
        self.policy = TuiPausePolicy()
        self.snapshot: RuntimeSnapshot | None = None
        self.decision: PauseDecision | None = None  # what the next resume carries (a/d/c)
        self.engine: Engine[Any, Any, Any] | None = None
        self.writer: TraceWriter | None = None
        self.engine_seconds = 0.0  # wall time spent inside Engine.run / resume (not paused)
        install_pause_policy(agent, self.policy)

    def export_notice(self) -> str | None:
        """What an exporting hook has to say (spans lost and why), or None while all is well."""
        for hook in self.extra_hooks:
            notice = getattr(hook, "notice", None)
            line = notice() if callable(notice) else None
            if line:
                return str(line)
        return None

    def build(self, sink: Callable[[RunEvent], None]) -> Engine[Any, Any, Any]:
        """Build the Engine with a trace writer and the event tap; a bad configuration still finalises the trace."""
        from qitos.trace.writer import TraceWriter

        writer = self.writer = TraceWriter(self.trace_dir, run_id=self.run_id, clock=self.clock)
        hooks: list[Any] = [LiveTap(sink), *self.extra_hooks]
        if self.step_delay > 0:
            hooks.append(_StepDelay(self.step_delay))
        try:
            engine = self.engine = self.agent.build_engine(trace_writer=writer, hooks=hooks)
            if self.configure is not None:
                self.configure(engine, writer)
        except Exception as exc:
            writer.finalize(status="failed", summary={"error": f"{type(exc).__name__}: {exc}"})
            writer.close()
            raise
        return engine

    def start(self) -> EngineResult[Any]:
        """Run from the beginning (blocking; call from a worker thread); returns the EngineResult."""
        assert self.engine is not None, "build() the engine first"
        began = time.perf_counter()
        try:
            return self._settle(self.engine.run(self.task))
        finally:
            self.engine_seconds += time.perf_counter() - began

    def resume(self) -> EngineResult[Any]:
        """Continue from the paused snapshot (blocking; call from a worker thread)."""
        snapshot, self.snapshot = self.snapshot, None
        decision, self.decision = self.decision, None
        if snapshot is None or self.engine is None:
            raise RuntimeError("the run is not paused: nothing to resume")
        began = time.perf_counter()
        try:
            if decision is None:
                return self._settle(self.engine.resume(snapshot))
            return self._settle(self.engine.resume(snapshot, decision=decision))
        finally:
            self.engine_seconds += time.perf_counter() - began

    def stop_paused(self) -> EngineResult[Any] | None:
        """End the paused run where it stands (nothing more runs): stopped, its trace finalised.

        Quitting the app while paused calls this, so the manifest never says "paused" for a run
        that nothing can resume any more. None when the run is not paused."""
        snapshot, self.snapshot = self.snapshot, None
        if snapshot is None or self.engine is None:
            return None
        return self._settle(self.engine.stop_paused(snapshot))

    def cancel(self) -> None:
        """Ask the Engine to stop at the next boundary (used when quitting a live run)."""
        if self.engine is not None and hasattr(self.engine, "request_cancel"):
            self.engine.request_cancel()

    def _settle(self, result: EngineResult[Any]) -> EngineResult[Any]:
        self.snapshot = getattr(result, "snapshot", None)
        if self.snapshot is None and self.writer is not None:
            self.writer.close()  # the run is over: release the trace's writer lock
        return result


class _StepDelay(EngineHook):
    """Slows each step down so a person can follow the demo."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self._wake = threading.Event()

    def on_after_step(self, ctx: Any, engine: Any) -> None:
        """Wait a little at the end of every step."""
        self._wake.wait(self.seconds)
