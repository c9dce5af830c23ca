"""The `qitos-tui` command: run an agent file live, run the demo, or replay recorded runs."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from tui.approve import install_approval
from tui.fork import DEMO, add_fork_parser, fork_agent_factory, fork_command
from tui.gc_tuning import pause_for_launch, resume_after_launch
from tui.otel_cli import (
    OtlpSetupError,
    add_export_parser,
    add_otlp_args,
    close_live,
    export_command,
    open_live,
)

if TYPE_CHECKING:
    from textual.app import App

    from qitos.core.agent_module import AgentModule
    from qitos.core.task import Task

# Textual draws at most this many frames a second (its TEXTUAL_FPS, default 60). A key's frame
# waits for the next slot after the previous frame; at 120 that wait is at most ~8 ms, not ~17.
FRAMES_PER_SECOND = "120"
DEFAULT_TRACE_DIR = "./runs"
DEMO_MEMORY_DIR = ".qitos/memory"
DEMO_SKILLS_DB = ".qitos/skills.db"
DEMO_STEP_DELAY = 0.6
# The commands that open the QitosApp (which turns the collector back on at its first frame).
QITOS_APP_COMMANDS = frozenset({"run", "demo", "replay", "diff", "fork"})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qitos-tui",
        description="Run a QitOS agent live in a terminal UI, or replay a recorded run.",
        epilog="Keys inside the app: ←/→ step, g go to, / search, p pause, r resume, s step, ? help, q quit.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run",
        help="import AGENT.py, build its agent and run it live",
        description="Import AGENT.py, build its agent and run it live (the run is traced to --trace-dir).",
    )
    run.add_argument("agent_file", metavar="AGENT.py", help="a Python file that builds an agent (and a task)")
    run.add_argument("--task", help="the task to give the agent (overrides the file's TASK)")
    _common_run_args(run)
    _store_args(run)
    add_otlp_args(run)

    demo = sub.add_parser(
        "demo",
        help="run the bundled offline demo agent (no keys, no network)",
        description="Run the bundled demo agent: it fixes a bug in a small project, pauses once before "
        "writing a file (press r to resume), remembers why and publishes a skill.",
    )
    demo.add_argument(
        "--step-delay",
        type=float,
        default=None,  # None: not given (the default applies; --headless says nothing about it)
        metavar="S",
        help=f"seconds to wait after each step so the run can be followed (default {DEMO_STEP_DELAY}; "
        "0 for none; the live view only)",
    )
    demo.add_argument("--workspace", help="folder for the demo project (default: a fresh temporary folder)")
    _common_run_args(demo)
    _store_args(demo, memory_default=DEMO_MEMORY_DIR, skills_default=DEMO_SKILLS_DB)
    add_otlp_args(demo)

    replay = sub.add_parser(
        "replay",
        help="replay a recorded run, or pick one from a folder of runs",
        description="Open a run directory (manifest.json, events.jsonl, steps.jsonl) or a folder of runs, "
        "then pick one from the list.",
    )
    replay.add_argument("path", metavar="PATH", help="a run directory, or a folder holding run directories")
    replay.add_argument("--export-dir", help="where `e` writes exported requests (default: current folder)")
    replay.add_argument(
        "--follow",
        action="store_true",
        help="follow the run while another process writes it: new events show as they are written, "
        "until the run finishes (a run still being written is followed anyway)",
    )
    replay.add_argument(
        "--agent",
        metavar="AGENT.py",
        help="the agent `f` forks the run with, at the selected step (`demo` for the bundled demo)",
    )
    _store_args(replay)

    diff = sub.add_parser(
        "diff",
        help="compare two recorded runs side by side: aligned steps and the first divergence",
        description="Align the steps of two run directories on their actions and arguments, name the "
        "first divergence, and show how each aligned pair differs (decision, arguments, tool result, "
        "tokens, context).",
    )
    diff.add_argument("run_a", metavar="RUN_A", help="the first run directory")
    diff.add_argument("run_b", metavar="RUN_B", help="the second run directory")

    memory = sub.add_parser(
        "memory",
        help="browse a Memdir memory root live from disk; delete a wrong record",
        description="Browse the records of a Memdir memory root as they are on disk now (edits made "
        "elsewhere show at once); d deletes the selected record after a confirmation.",
    )
    memory.add_argument("memory_dir", metavar="DIR", help="the memory root, e.g. .qitos/memory")
    memory.add_argument(
        "--global", dest="global_dir", metavar="DIR", help="a global memory root, shown read-only"
    )

    skills = sub.add_parser(
        "skills",
        help="browse every skill version in a SQLite or PostgreSQL skill library, with diffs",
        description="Browse the skills of a SqliteToolLibrary file or a PostgresToolLibrary database: "
        "versions, sources, diffs, search; versions published by another process appear live.",
    )
    skills.add_argument(
        "db", metavar="DB", help="the skill database: a file (e.g. .qitos/skills.db) or a postgresql:// URL"
    )
    skills.add_argument("--namespace", help="the namespace to show (default: the only one, else asked)")
    add_export_parser(sub)
    add_fork_parser(sub)
    return parser


def _store_args(
    p: argparse.ArgumentParser, *, memory_default: str | None = None, skills_default: str | None = None
) -> None:
    """Where the Memory and Skills panes find the stores on disk (otherwise they show the events)."""
    p.add_argument(
        "--memory",
        metavar="DIR",
        default=memory_default,
        help="a Memdir memory root for the Memory pane to browse live"
        + (f" (default {memory_default})" if memory_default else ""),
    )
    p.add_argument("--global-memory", metavar="DIR", help="a global memory root, shown read-only")
    p.add_argument(
        "--skills",
        metavar="DB",
        default=skills_default,
        help="a skill database for the Skills pane to browse live"
        + (f" (default {skills_default})" if skills_default else ""),
    )
    p.add_argument("--namespace", help="the skill namespace (default: the only one, else asked)")


def _common_run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--headless", action="store_true", help="run to the end without the UI and print a summary"
    )
    p.add_argument(
        "--trace-dir",
        default=DEFAULT_TRACE_DIR,
        help=f"where run traces are written (default {DEFAULT_TRACE_DIR})",
    )
    p.add_argument("--export-dir", help="where `e` writes exported requests (default: current folder)")
    p.add_argument(
        "--approve",
        metavar="PATTERNS",
        help="pause before any tool call whose name matches (comma-separated globs, or 'all') so you "
        "can approve (a), deny (d) or change (c) it; needs the UI",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status.

    The last resort: whatever escapes a command becomes one line on stderr naming it and the log
    file holding its traceback (never a traceback, never local variables), and status 1."""
    try:
        return _command(argv)
    except KeyboardInterrupt:
        print("qitos-tui: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        from tui.crash import report_crash

        words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
        context = f"running `qitos-tui {words[0]}`" if words else "running qitos-tui"
        print(report_crash(exc, context), file=sys.stderr)
        return 1


def _command(argv: Sequence[str] | None) -> int:
    """Parse the arguments and run the command they name."""
    args = _parser().parse_args(argv)
    os.environ.setdefault("TEXTUAL_FPS", FRAMES_PER_SECOND)  # read when Textual is imported, below
    if args.command not in QITOS_APP_COMMANDS or getattr(args, "headless", False):
        return _run_command(args)
    # The collector is off from here to the app's first frame (tui.gc_tuning says why); on again
    # here at the latest, should the app end before it drew anything.
    pause_for_launch()
    try:
        return _run_command(args)
    finally:
        resume_after_launch()


def _run_command(args: argparse.Namespace) -> int:
    """Run the command ``args`` name."""
    if args.command == "export":
        return export_command(args)
    if args.command == "fork":
        return fork_command(args, _report_error, _run_app)
    if args.command == "memory":
        from tui.browsers import make_memory_app

        return _run_app(make_memory_app(args.memory_dir, global_dir=args.global_dir))
    if args.command == "skills":
        from tui.browsers import make_skills_app

        return _run_app(make_skills_app(args.db, namespace=args.namespace))
    if args.command == "diff":
        from tui.app import make_app

        return _run_app(make_app(diff=(args.run_a, args.run_b)))
    if args.command == "replay":
        from tui.app import make_app

        return _run_app(
            make_app(
                replay=args.path,
                export_dir=args.export_dir,
                follow=args.follow,
                fork_agent=fork_agent_factory(args.agent),
                **_store_options(args),
            )
        )
    if args.command == "demo":
        from qitos.demo import TASK, build_agent

        try:
            agent = build_agent(workspace=args.workspace, memory_dir=args.memory, skills_db=args.skills)
        except Exception as exc:  # a broken demo setup is reported, not dumped as a traceback
            return _report_error(args, "The demo agent could not be built", f"{type(exc).__name__}: {exc}")
        if args.headless and args.step_delay is not None:
            print(
                "qitos-tui: --step-delay paces the live view only; --headless runs at full speed",
                file=sys.stderr,
            )
        step_delay = DEMO_STEP_DELAY if args.step_delay is None else args.step_delay
        return _run_agent(args, agent, TASK, step_delay=step_delay, fork_with=DEMO)
    from tui.loader import AgentLoadError, load_agent_file

    try:
        loaded = load_agent_file(args.agent_file, args.task)
    except AgentLoadError as exc:
        return _report_error(args, f"Cannot load {args.agent_file}", exc.reason)  # names the file once
    return _run_agent(args, loaded.agent, loaded.task, step_delay=0.0, fork_with=args.agent_file)


def _run_agent(
    args: argparse.Namespace,
    agent: AgentModule[Any, Any, Any],
    task: str | Task,
    *,
    step_delay: float,
    fork_with: str,
) -> int:
    if getattr(args, "approve", None) is not None:
        problem = install_approval(agent, args.approve, headless=args.headless)
        if problem is not None:
            return _report_error(args, "Cannot use --approve", problem)
    try:
        otel = open_live(args, agent)
    except OtlpSetupError as exc:
        return _report_error(args, "Cannot export spans", str(exc))
    hooks = [otel] if otel is not None else []
    try:
        if args.headless:
            from tui.headless import run_headless

            return run_headless(agent, task, trace_dir=args.trace_dir, hooks=hooks)
        from tui.app import make_app
        from tui.live import LiveRun

        live = LiveRun(agent, task, trace_dir=args.trace_dir, step_delay=step_delay, hooks=hooks)
        return _run_app(
            make_app(
                live=live,
                export_dir=args.export_dir,
                fork_agent=fork_agent_factory(fork_with),
                **_store_options(args, agent),
            )
        )
    finally:
        # After the app has given the terminal back: what was sent, and what was lost.
        close_live(otel)
        # An agent that holds stores (the demo's skill library) closes them once the app is gone
        # (its browsers closed theirs on the way out): the last connection tidies up after SQLite.
        close = getattr(agent, "close", None)
        if callable(close):
            close()


class StoreOptions(TypedDict):
    """The stores make_app's Memory and Skills panes browse."""

    memory_dir: str | Path | None
    global_dir: str | Path | None
    skills_db: str | Path | None
    namespace: str | None


def _store_options(args: argparse.Namespace, agent: object = None) -> StoreOptions:
    """The stores the Memory and Skills panes browse: the flags, else the agent's own Memdir root."""
    memory = getattr(args, "memory", None)
    if memory is None and agent is not None:
        # An agent whose memory is a Memdir has a root on disk worth showing live.
        memory = getattr(getattr(agent, "memory", None), "root", None)
    return {
        "memory_dir": memory,
        "global_dir": getattr(args, "global_memory", None),
        "skills_db": getattr(args, "skills", None),
        "namespace": getattr(args, "namespace", None),
    }


def _report_error(args: argparse.Namespace, title: str, detail: str) -> int:
    """Headless: one line on stderr; otherwise the app's error panel."""
    if getattr(args, "headless", False):
        from tui.text import inert_str

        print(inert_str(f"qitos-tui: {title}: {detail}"), file=sys.stderr)
        return 2
    from tui.app import make_app

    return _run_app(make_app(error=(title, detail)))


def _run_app(app: App[int]) -> int:
    from tui.crash import print_crash_report

    app.run()
    print_crash_report(app)
    return int(app.return_code or 0)


if __name__ == "__main__":
    sys.exit(main())
