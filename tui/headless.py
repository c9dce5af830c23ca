"""Run an agent to the end without the TUI: write its trace and print a short summary (scripts, CI)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from qitos.trace.errors import TraceError
from qitos.trace.writer import TraceWriter
from tui.text import inert_str

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.core.task import Task
    from qitos.engine.engine import Engine

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def run_headless(
    agent: AgentModule[Any, Any, Any],
    task: str | Task,
    *,
    trace_dir: str | Path = "./runs",
    run_id: str | None = None,
    prefix: str | None = None,
    source: str | Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    hooks: list[Any] | None = None,
    configure: Callable[[Engine[Any, Any, Any], TraceWriter], None] | None = None,
) -> int:
    """Run ``agent`` on ``task`` to the end, resuming through any pause, and return an exit code.

    0: the run finished; 2: the agent raised (the Engine records it as a failed run), or could not
    be built into an Engine. The trace is finalised in every case.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    label = str(source) if source is not None else type(agent).__name__
    try:
        writer = TraceWriter(trace_dir, run_id=run_id, prefix=prefix)
    except (OSError, TraceError, ValueError) as exc:
        _say(f"qitos-tui: cannot write traces to {trace_dir}: {exc}", file=err)
        return EXIT_BAD_INPUT
    try:
        # Extra Engine hooks (the OTLP export) see every event as it is emitted.
        engine = agent.build_engine(trace_writer=writer, **({"hooks": list(hooks)} if hooks else {}))
        if configure is not None:
            configure(engine, writer)  # e.g. a fork: put a recorded run back before going live
    except Exception as exc:  # noqa: BLE001 - a bad configuration is the user's error to see
        writer.finalize(status="failed", summary={"error": f"{type(exc).__name__}: {exc}"})
        _say(f"qitos-tui: {label}: cannot build the engine: {type(exc).__name__}: {exc}", file=err)
        return EXIT_BAD_INPUT
    try:
        result = engine.run(task)
        while result.status == "paused" and result.snapshot is not None:
            snap = result.snapshot
            pending = ", ".join(_action_name(a) for a in snap.pending_actions) or "nothing pending"
            _say(
                f"paused at step {snap.step_id} ({snap.boundary}) by {snap.policy_id}: {snap.reason}; "
                f"pending: {pending} — resuming (headless)",
                file=out,
            )
            result = engine.resume(snap)
    except Exception as exc:  # noqa: BLE001 - the Engine finalised the trace; report one line
        _say(f"qitos-tui: {label}: the agent raised {type(exc).__name__}: {exc}", file=err)
        _say(f"trace: {writer.run_dir}", file=err)
        return EXIT_BAD_INPUT
    finally:
        writer.close()
    _print_summary(result, writer.run_dir, out)
    if result.status == "failed":
        _say(f"qitos-tui: {label}: the run failed: {_error_text(result.error)}", file=err)
        return EXIT_BAD_INPUT
    return EXIT_OK


def _say(text: str, *, file: TextIO) -> None:
    """Print one message; the model's answer, errors and ids in it cannot drive the terminal."""
    print(inert_str(text), file=file)


def _error_text(error: Any) -> str:
    """A run's recorded error as one line (the Engine keeps it as RuntimeErrorInfo data)."""
    if isinstance(error, dict):
        return str(error.get("message") or error)
    message = getattr(error, "message", None)
    return str(message or error).splitlines()[0] if (message or error) else "unknown error"


def _action_name(action: Any) -> str:
    """A pending action's tool name, for the pause line."""
    return str(getattr(action, "name", None) or (action.get("name") if isinstance(action, dict) else action))


def _print_summary(result: Any, run_dir: Path, out: TextIO) -> None:
    """A few lines: status, steps, stop reason, tokens, the final answer and where the trace is."""
    _say(f"run {result.run_id}: {result.status}", file=out)
    _say(
        f"  steps: {result.step_count}   stop reason: {result.stop_reason}   tokens: {result.token_usage}",
        file=out,
    )
    if result.final_result:
        _say(f"  result: {result.final_result}", file=out)
    if result.error:
        _say(f"  error: {_error_text(result.error)}", file=out)
    _say(f"  trace: {run_dir}", file=out)
