"""``qitos-tui fork RUN_DIR --at N AGENT.py``: re-run a recorded run up to step N, then go on live.

The agent re-runs from the start with the recorded model responses and tool results put back (no
model call, no tool side effect) up to step N, checked against the record at every step; at N it
pauses in the UI (headless: goes on) and continues with the real model and tools. The fork is a
new run directory beside its parent whose manifest names ``parent_run_id`` and ``fork_step``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.text import inert_str

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.engine.engine import Engine
    from qitos.engine.replay import Recording, Replay
    from qitos.trace.writer import TraceWriter

DEMO = "demo"  # `fork RUN_DIR --at N demo` forks a run of the bundled demo agent


def add_fork_parser(sub: Any) -> None:
    """The ``fork`` sub-command."""
    fork = sub.add_parser(
        "fork",
        help="re-run a recorded run up to a step without model or tool calls, then go on live",
        description="Re-run RUN_DIR with AGENT.py: the recorded model responses and tool results are "
        "put back up to step N (no model call, no tool side effect), each step checked against the "
        "record; at step N the run pauses (headless: goes on) and continues live. The fork is a new "
        "run beside its parent that names it. AGENT.py may be `demo` for the bundled demo agent.",
    )
    fork.add_argument("run_dir", metavar="RUN_DIR", help="the recorded run to fork")
    fork.add_argument("--at", type=int, required=True, metavar="N", help="the step where the fork goes live")
    fork.add_argument("agent_file", metavar="AGENT.py", help="the agent to re-run (its current code)")
    fork.add_argument("--headless", action="store_true", help="no UI: go on from step N and print a summary")
    fork.add_argument("--trace-dir", help="where the fork is written (default: beside RUN_DIR)")
    fork.add_argument("--export-dir", help="where `e` writes exported requests (default: current folder)")


def load_fork_agent(agent_file: str, task: str) -> AgentModule[Any, Any, Any]:
    """A fresh agent to fork with: the demo (in a new workspace) or the one AGENT.py builds."""
    if agent_file == DEMO:
        from qitos.demo import build_agent

        return build_agent(workspace=tempfile.mkdtemp(prefix="qitos-fork-"))
    from tui.loader import load_agent_file

    return load_agent_file(agent_file, task).agent


def fork_agent_factory(agent_file: str | None) -> Callable[[str], AgentModule[Any, Any, Any]] | None:
    """What `f` builds a fresh agent with (from the run's task), or None without an agent file."""
    if agent_file is None:
        return None
    return lambda task: load_fork_agent(agent_file, task)


class ForkSetup:
    """Configures a freshly built Engine as a fork of ``recording`` at ``at`` (LiveRun and headless)."""

    def __init__(self, recording: Recording, at: int, *, pause: bool) -> None:
        self.recording = recording
        self.at = at
        self.pause = pause
        self.replay: Replay | None = None

    def __call__(self, engine: Engine[Any, Any, Any], writer: TraceWriter) -> None:
        from qitos.engine.replay import fork_engine

        self.replay = fork_engine(engine, self.recording, self.at, pause=self.pause, writer=writer)


def fork_command(args: argparse.Namespace, report_error: Any, run_app: Any) -> int:
    """Run the ``fork`` command; ``report_error``/``run_app`` are the CLI's own."""
    # Imported here: every launch of the CLI would otherwise load the Engine (a first screen's worth).
    from qitos.engine.replay import Recording, ReplayError, check_fork_step

    try:
        recording = Recording.load(args.run_dir)
        check_fork_step(recording, args.at)
    except ReplayError as exc:
        return report_error(args, f"Cannot fork {args.run_dir}", str(exc))
    from tui.loader import AgentLoadError

    try:
        agent = load_fork_agent(args.agent_file, recording.task)
    except AgentLoadError as exc:
        return report_error(args, f"Cannot load {args.agent_file}", str(exc))
    except Exception as exc:  # noqa: BLE001 - a broken agent setup is reported, not dumped
        return report_error(args, f"Cannot build {args.agent_file}", f"{type(exc).__name__}: {exc}")
    trace_dir = Path(args.trace_dir) if args.trace_dir else Path(args.run_dir).resolve().parent
    setup = ForkSetup(recording, args.at, pause=not args.headless)
    if args.headless:
        from tui.headless import run_headless

        code = run_headless(agent, recording.task, trace_dir=trace_dir, configure=setup)
        replay = setup.replay
        if replay is not None:
            # Run ids and recorded decisions come from the trace: printed inert.
            line = f"fork of {recording.run_id} at step {args.at}: {replay.model_calls} model responses"
            print(inert_str(f"{line} and {replay.tool_calls} tool results put back"), file=sys.stdout)
            if replay.divergence is not None:
                why = f"qitos-tui: the fork stopped: replay diverged at {replay.divergence}"
                print(inert_str(why), file=sys.stderr)
                return 1
        return code
    from tui.app import make_app
    from tui.live import LiveRun

    live = LiveRun(agent, recording.task, trace_dir=trace_dir, configure=setup)
    return run_app(
        make_app(live=live, export_dir=args.export_dir, fork_agent=fork_agent_factory(args.agent_file))
    )
