"""Engine hooks: observers called at every phase and for every emitted run event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class HookContext:
    """What a hook sees: the run, the step, the phase and the objects of that moment."""

    run_id: str
    step_id: int
    phase: str
    state: Any = None
    decision: Any = None
    payload: dict[str, Any] = field(default_factory=dict)
    engine: Any = None


class EngineHook:
    """Base class with a no-op for every hook point; override the ones you need."""

    def on_run_start(self, ctx: HookContext) -> None:
        """Called once after the state is initialised, before the first step."""

    def on_step_start(self, ctx: HookContext) -> None:
        """Called at the start of each step."""

    def on_before_phase(self, ctx: HookContext) -> None:
        """Called before each phase (``ctx.phase`` names it)."""

    def on_after_phase(self, ctx: HookContext) -> None:
        """Called after each phase with the phase's result in ``ctx.payload``."""

    def on_step_end(self, ctx: HookContext) -> None:
        """Called after each step with the step record in ``ctx.payload["record"]``."""

    def on_error(self, ctx: HookContext) -> None:
        """Called when the run meets an error (``ctx.payload`` is the error info)."""

    def on_run_end(self, ctx: HookContext) -> None:
        """Called once when the run ends or pauses (``ctx.payload["result"]``)."""

    def on_event(self, event: Any) -> None:
        """Called for every RunEvent the Engine emits, in order."""
