"""Builds the Engine behind ``AgentModule.run``: env from a workspace, tracing, rendering, overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qitos.engine.engine import Engine
from qitos.engine.runtime import RuntimeBudget


def assemble_engine(
    agent: Any,
    *,
    hooks: list[Any] | None,
    render_hooks: list[Any] | None,
    engine_kwargs: dict[str, Any] | None,
    workspace: str | None,
    max_steps: int | None,
    env: Any,
    parser: Any,
    search: Any,
    critics: list[Any] | None,
    stop_criteria: list[Any] | None,
    history_policy: Any,
    trace: Any,
    render: Any,
    trace_logdir: str,
    trace_prefix: str | None,
    theme: str,
) -> Engine[Any, Any, Any]:
    """An Engine configured from ``AgentModule.run``'s arguments (explicit arguments win)."""
    kwargs: dict[str, Any] = dict(engine_kwargs or {})
    owned_env = None
    if env is None and workspace is not None:
        from qitos.kit.env import HostEnv

        env = owned_env = HostEnv(workspace)
    overrides = {
        "env": env,
        "parser": parser,
        "search": search,
        "critics": critics,
        "stop_criteria": stop_criteria,
        "history_policy": history_policy,
    }
    kwargs.update({k: v for k, v in overrides.items() if v is not None})
    if max_steps is not None:
        base = kwargs.get("budget") or RuntimeBudget()
        kwargs["budget"] = RuntimeBudget(max_steps, base.max_runtime_seconds, base.max_tokens)
    if trace is not None and trace is not False:
        if trace is True:
            from qitos.trace.writer import TraceWriter

            Path(trace_logdir).mkdir(parents=True, exist_ok=True)
            kwargs["trace_writer"] = TraceWriter(trace_logdir, prefix=trace_prefix)
        elif hasattr(trace, "write_event"):
            kwargs["trace_writer"] = trace
        else:
            raise TypeError(f"trace must be True or a TraceWriter, got {type(trace).__name__}")
    all_hooks = list(kwargs.pop("hooks", None) or []) + list(hooks or [])
    all_render = list(kwargs.pop("render_hooks", None) or []) + list(render_hooks or [])
    if render:
        from qitos.engine.render import ConsoleRenderHook

        all_render.append(ConsoleRenderHook(theme=theme))
    engine = Engine(agent, hooks=all_hooks, render_hooks=all_render, **kwargs)
    engine.max_steps_override = max_steps
    engine.owned_env = owned_env
    return engine
