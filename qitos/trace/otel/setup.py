"""The two ways in: export a recorded run directory, or build the hook that exports a live run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from qitos.trace.events import RunEvent
from qitos.trace.otel.config import shown_url, traces_url
from qitos.trace.otel.exporters import DEFAULT_TIMEOUT_SECONDS, JsonLinesExporter, otlp_http
from qitos.trace.otel.pipeline import Batcher, Destination, ExportStats, OtelExport, export_events
from qitos.trace.redact import Redactor


def destinations(
    otlp_url: str | None, otlp_file: str | Path | None, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> list[Destination]:
    """A destination per target given: the collector's traces URL and/or an OTLP JSON lines file."""
    out: list[Destination] = []
    if otlp_url:
        out.append(Destination(shown_url(traces_url(otlp_url)), otlp_http(otlp_url, timeout=timeout)))
    if otlp_file:
        out.append(Destination(str(otlp_file), JsonLinesExporter(otlp_file)))
    if not out:
        raise ValueError("nowhere to export to: give an OTLP URL or an OTLP JSON file")
    return out


def export_run(
    run_dir: str | Path,
    *,
    otlp_url: str | None = None,
    otlp_file: str | Path | None = None,
    capture_content: bool = False,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> tuple[ExportStats, list[str]]:
    """Send a recorded run (ours or upstream's) as spans; returns the stats and the reader's notices."""
    from qitos.trace.reader import TraceReader

    with TraceReader(run_dir) as reader:
        batcher = Batcher(destinations(otlp_url, otlp_file, timeout=timeout), capture_content=capture_content)
        stats = export_events(redacted(reader.events()), batcher)
        return stats, list(reader.notices)


def redacted(events: Iterable[RunEvent], redactor: Redactor | None = None) -> Iterator[RunEvent]:
    """The events with secrets masked: a trace on disk may predate redaction (upstream QitOS writes none).

    Our own traces were masked when written; masking again changes nothing in them.
    """
    redactor = redactor or Redactor()
    for event in events:
        try:
            payload = redactor.redact(event.payload)
        except RecursionError:
            payload = {"value": "<too deeply nested to export>"}
        error = redactor.redact(event.error) if isinstance(event.error, str) else event.error
        yield replace(
            event, payload=payload if isinstance(payload, dict) else {"value": payload}, error=error
        )


def live_export(
    *,
    otlp_url: str | None = None,
    otlp_file: str | Path | None = None,
    capture_content: bool = False,
    agent_name: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> OtelExport:
    """An Engine hook exporting a live run as it happens (pass it in ``hooks=``; ``close()`` at the end)."""
    batcher = Batcher(
        destinations(otlp_url, otlp_file, timeout=timeout),
        capture_content=capture_content,
        agent_name=agent_name,
    )
    return OtelExport(batcher)
