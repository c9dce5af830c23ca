"""Engine hooks with upstream QitOS's methods and signatures, and the dispatch the Engine uses.

An upstream agent's hook (``on_before_decide(ctx, engine)``, ``on_run_start(task, state, engine)``,
``on_event(event, state, record, engine)`` ...) is called here exactly as upstream calls it. An
``on_event`` that takes the event alone (the TUI's live tap, the AsyncEngine's stream) keeps being
called with just the event.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from qitos.engine.runtime import RuntimePhase

__all__ = [
    "EngineHook",
    "HookContext",
    "call_on_event",
    "hook_method",
    "hook_method_names",
    "phase_hook_name",
]

# Which upstream per-phase hook pair a phase calls (OBSERVE has none upstream).
_PHASE_HOOKS = {
    "DECIDE": "decide",
    "ACT": "act",
    "REDUCE": "reduce",
    "CRITIC": "critic",
    "CHECK_STOP": "check_stop",
}


@dataclass
class HookContext:
    """What a step/phase hook sees, with upstream's fields."""

    task: str
    step_id: int
    phase: RuntimePhase | str
    state: Any = None
    env_view: dict[str, Any] | None = None
    observation: Any = None
    decision: Any = None
    action_results: list[Any] = field(default_factory=list)
    record: Any = None
    payload: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None
    stop_reason: str | None = None
    run_id: str = ""
    ts: str = ""


class EngineHook:
    """Base engine hook: a no-op for every upstream lifecycle callback; override the ones you need."""

    # Run lifecycle
    def on_run_start(self, task: str, state: Any, engine: Any) -> None:
        """Called once the state is initialised and the run may start, before the first step."""

    def on_run_end(self, result: Any, engine: Any) -> None:
        """Called once when the run ends or pauses, with its EngineResult."""

    # Step lifecycle
    def on_before_step(self, ctx: HookContext, engine: Any) -> None:
        """Called at the start of each step."""

    def on_after_step(self, ctx: HookContext, engine: Any) -> None:
        """Called at the end of each step (``ctx.record`` is the step record)."""

    # Phases
    def on_before_decide(self, ctx: HookContext, engine: Any) -> None:
        """Called before DECIDE (``ctx.observation`` is the step's observation)."""

    def on_after_decide(self, ctx: HookContext, engine: Any) -> None:
        """Called after DECIDE with ``ctx.decision``."""

    def on_before_act(self, ctx: HookContext, engine: Any) -> None:
        """Called before ACT with ``ctx.decision``."""

    def on_after_act(self, ctx: HookContext, engine: Any) -> None:
        """Called after ACT with ``ctx.action_results``."""

    def on_before_reduce(self, ctx: HookContext, engine: Any) -> None:
        """Called before REDUCE."""

    def on_after_reduce(self, ctx: HookContext, engine: Any) -> None:
        """Called after REDUCE (``ctx.payload["state_diff"]``)."""

    def on_before_critic(self, ctx: HookContext, engine: Any) -> None:
        """Called before the critics run."""

    def on_after_critic(self, ctx: HookContext, engine: Any) -> None:
        """Called after the critics ran (``ctx.payload["verdict"]``)."""

    def on_before_check_stop(self, ctx: HookContext, engine: Any) -> None:
        """Called before the stop checks."""

    def on_after_check_stop(self, ctx: HookContext, engine: Any) -> None:
        """Called after the stop checks (``ctx.stop_reason`` when the run stops here)."""

    # Errors
    def on_recover(self, ctx: HookContext, engine: Any) -> None:
        """Called for each runtime error (``ctx.error``; ``ctx.payload`` is its info, with ``retrying``)."""

    # Event stream
    def on_event(self, event: Any, state: Any = None, record: Any = None, engine: Any = None) -> None:
        """Called for every RunEvent the Engine emits, in order."""

    def on_step_end(self, record: Any, state: Any, engine: Any) -> None:
        """Called after each step with its StepRecord."""


def phase_hook_name(when: str, phase: str) -> str | None:
    """The upstream hook called ``when`` ("before"/"after") ``phase``; None for a phase without one."""
    suffix = _PHASE_HOOKS.get(phase)
    return f"on_{when}_{suffix}" if suffix else None


# The Engine's hook points and the methods each calls, in order, besides the per-phase pairs.
_POINT_METHODS = {
    "on_run_start": ("on_run_start",),
    "on_run_end": ("on_run_end",),
    "on_step_start": ("on_before_step",),
    "on_step_end": ("on_after_step", "on_step_end"),
}


def hook_method_names(point: str, phase: str) -> tuple[str, ...]:
    """The hook methods the Engine calls at ``point`` in ``phase``, in order (``on_before_phase`` at
    DECIDE calls ``on_before_decide``; any other point is an error, which calls ``on_recover``)."""
    if point in ("on_before_phase", "on_after_phase"):
        name = phase_hook_name("before" if point == "on_before_phase" else "after", phase)
        return (name,) if name is not None else ()
    return _POINT_METHODS.get(point, ("on_recover",))


# EngineHook's own methods, which do nothing: a hook that inherits one has nothing to call there.
_NO_OPS = {name: fn for name, fn in vars(EngineHook).items() if name.startswith("on_") and callable(fn)}


def hook_method(hook: Any, name: str) -> Any:
    """``hook``'s method ``name``, or None when it has none or only EngineHook's no-op."""
    method = getattr(hook, name, None)
    if method is None:
        return None
    no_op = _NO_OPS.get(name)
    if no_op is not None and getattr(method, "__func__", None) is no_op:
        return None
    return method


@lru_cache(maxsize=256)
def _takes_event_only(fn: Any) -> bool:
    """Whether an ``on_event`` function takes just the event (ours) rather than upstream's four values."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD or p.kind is p.VAR_POSITIONAL for p in params):
        return False
    return not any(p.name in ("state", "record", "engine") for p in params)


def call_on_event(on_event: Any, event: Any, state: Any, record: Any, engine: Any) -> None:
    """Call a hook's ``on_event`` the way it is written: ``(event)``, or upstream's four keywords."""
    fn = getattr(on_event, "__func__", on_event)
    try:
        event_only = _takes_event_only(fn)
    except TypeError:  # unhashable callable: inspect it every time
        event_only = _takes_event_only.__wrapped__(fn)
    if event_only:
        on_event(event)
    else:
        on_event(event=event, state=state, record=record, engine=engine)
