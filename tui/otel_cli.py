"""The CLI's OpenTelemetry side: `qitos-tui export`, and `--otlp` / `--otlp-file` on `run` and `demo`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from qitos.trace.otel.pipeline import OtelExport

EXIT_OK = 0
EXIT_LOST = 1
EXIT_BAD_INPUT = 2
CLOSE_TIMEOUT_SECONDS = 5.0


class OtlpSetupError(Exception):
    """The export asked for cannot be set up (bad URL, missing extra, unwritable file)."""


def add_export_parser(sub: Any) -> None:
    """The `export` subcommand: send a recorded run to an OTLP collector or an OTLP JSON file."""
    export = sub.add_parser(
        "export",
        help="send a recorded run to an OpenTelemetry collector (OTLP/HTTP) or an OTLP JSON file",
        description="Send a recorded run (ours or upstream QitOS's) as OpenTelemetry spans that follow "
        "the GenAI semantic conventions (OpenInference span kinds alongside, e.g. for Arize Phoenix). "
        "Needs the otel extra: pip install 'qitos-tui[otel]'.",
    )
    export.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to export")
    add_otlp_args(export)
    export.add_argument(
        "--otlp-timeout",
        type=float,
        default=CLOSE_TIMEOUT_SECONDS,
        metavar="S",
        help=f"seconds to wait for the collector per request (default {CLOSE_TIMEOUT_SECONDS:g})",
    )


def add_otlp_args(p: argparse.ArgumentParser) -> None:
    """--otlp URL, --otlp-file PATH and --otlp-content."""
    p.add_argument(
        "--otlp",
        metavar="URL",
        help="export spans to this OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318 (/v1/traces is added "
        "to a base URL); default: $OTEL_EXPORTER_OTLP_ENDPOINT when set",
    )
    p.add_argument(
        "--otlp-file",
        metavar="PATH",
        help="write the spans as OTLP JSON lines to PATH (with or without --otlp)",
    )
    p.add_argument(
        "--otlp-content",
        action="store_true",
        help="include message content (prompts, replies, tool arguments and results, memory text) in "
        "the spans; off unless asked (or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)",
    )


def _targets(args: argparse.Namespace) -> tuple[str | None, str | None, bool]:
    """The URL (flag, else the standard env vars), the file, and whether the URL came from a flag."""
    from qitos.trace.otel.config import endpoint_from_env, traces_url

    url = getattr(args, "otlp", None)
    explicit = bool(url) or bool(getattr(args, "otlp_file", None))
    if url:
        url = traces_url(url)
    else:
        url = endpoint_from_env()
    return url, getattr(args, "otlp_file", None), explicit


def _content(args: argparse.Namespace) -> bool:
    from qitos.trace.otel.config import content_from_env

    return bool(getattr(args, "otlp_content", False)) or content_from_env()


def open_live(args: argparse.Namespace, agent: object, err: TextIO | None = None) -> OtelExport | None:
    """The live-export hook the flags (or env) ask for, or None; raises OtlpSetupError when they cannot work."""
    from qitos.trace.otel import OtelMissing, require
    from qitos.trace.otel.config import EndpointError

    err = err or sys.stderr
    try:
        url, path, explicit = _targets(args)
    except EndpointError as exc:
        raise OtlpSetupError(f"--otlp: {exc}") from exc
    if not url and not path:
        return None
    try:
        require()
    except OtelMissing as exc:
        if explicit:
            raise OtlpSetupError(str(exc)) from exc
        # Only the environment asked: say why nothing is exported, and run anyway.
        print(f"qitos-tui: OTEL_EXPORTER_OTLP_ENDPOINT is set but not used: {exc}", file=err)
        return None
    from qitos.trace.otel.setup import live_export

    try:
        return live_export(
            otlp_url=url, otlp_file=path, capture_content=_content(args), agent_name=type(agent).__name__
        )
    except (OSError, ValueError) as exc:
        raise OtlpSetupError(f"cannot export spans: {exc}") from exc


def close_live(export: OtelExport | None, out: TextIO | None = None) -> None:
    """Send what is left (bounded wait), then print the one-line summary with any loss."""
    if export is None:
        return
    stats = export.close(timeout=CLOSE_TIMEOUT_SECONDS)
    print(stats.summary(), file=out or sys.stdout)


def export_command(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """`qitos-tui export RUN_DIR`: 0 when every span arrived, 1 when some were lost, 2 for bad input."""
    from qitos.trace.otel import OtelMissing, require
    from qitos.trace.otel.config import EndpointError

    out, err = out or sys.stdout, err or sys.stderr
    try:
        url, path, _ = _targets(args)
    except EndpointError as exc:
        print(f"qitos-tui export: --otlp: {exc}", file=err)
        return EXIT_BAD_INPUT
    if not url and not path:
        print(
            "qitos-tui export: nowhere to send the run: give --otlp URL or --otlp-file PATH "
            "(or set OTEL_EXPORTER_OTLP_ENDPOINT)",
            file=err,
        )
        return EXIT_BAD_INPUT
    if args.otlp_timeout <= 0:
        print("qitos-tui export: --otlp-timeout must be a positive number of seconds", file=err)
        return EXIT_BAD_INPUT
    try:
        require()
    except OtelMissing as exc:
        print(f"qitos-tui export: {exc}", file=err)
        return EXIT_BAD_INPUT
    from qitos.trace.errors import TraceError
    from qitos.trace.otel.setup import export_run

    try:
        stats, notices = export_run(
            Path(args.run_dir),
            otlp_url=url,
            otlp_file=path,
            capture_content=_content(args),
            timeout=args.otlp_timeout,
        )
    except (TraceError, OSError, ValueError) as exc:
        print(f"qitos-tui export: {exc}", file=err)
        return EXIT_BAD_INPUT
    for notice in notices:
        print(f"qitos-tui export: {args.run_dir}: {notice}", file=err)
    print(stats.summary(), file=out)
    return EXIT_OK if stats.lossless else EXIT_LOST
