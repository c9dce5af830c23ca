"""OTLP export figures: spans per second exporting a generated 100k-event trace, beside reading it alone.

Run: ``python tests/benchmarks/bench_otel.py [--runs N] [--steps S] [--work DIR]`` (needs the otel extra).

Each figure is the median of N runs over the same run directory:

- floor: reading every event with the TraceReader (what any export must do first);
- spans built: the SpanBuilder and the SDK's Tracer, spans collected and dropped (no encoding);
- encoded: the same, each batch encoded to the OTLP protobuf request (the exporter's own encoder);
- OTLP JSON file: `--otlp-file`, one request a line;
- OTLP/HTTP: the SDK's exporter to a loopback HTTP server that reads each request and answers 200;
- the `qitos-tui export` path: the same, with every event's secrets masked first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult  # noqa: E402

from qitos.trace.otel.pipeline import Batcher, Destination, export_events  # noqa: E402
from qitos.trace.otel.setup import destinations, redacted  # noqa: E402
from qitos.trace.reader import TraceReader  # noqa: E402
from tui.synthetic import synthetic_events, write_trace  # noqa: E402

STEPS_100K = 11330  # -> ~100k events with the synthetic run's mix of kinds


class _Discard(SpanExporter):
    """Takes a batch and forgets it (``encode``: after building the protobuf request)."""

    def __init__(self, encode: bool) -> None:
        self.encode = encode
        self.bytes = 0

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        if self.encode:
            self.bytes += len(encode_spans(spans).SerializeToString())
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class _Sink(BaseHTTPRequestHandler):
    """A collector stand-in: read the request, answer 200 with an empty response."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _median(runs: int, once: Callable[[], tuple[float, int]]) -> tuple[float, int]:
    results = [once() for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1]


def main() -> int:
    """Generate (or reuse) the trace, time each stage, print a table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=STEPS_100K)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "qitos-bench-otel")
    args = parser.parse_args()
    run_dir = args.work / f"otel_{args.steps}"
    if not (run_dir / "manifest.json").is_file():
        print(f"generating {run_dir} ({args.steps} steps)…", flush=True)
        write_trace(run_dir, synthetic_events(args.steps, run_id=run_dir.name, pause_at=None))
    with TraceReader(run_dir) as reader:
        count = len(reader)
    size = (run_dir / "events.jsonl").stat().st_size
    print(f"trace: {count} events, {size / 1e6:.1f} MB ({run_dir})")

    def read_only() -> tuple[float, int]:
        began = time.perf_counter()
        with TraceReader(run_dir) as reader:
            n = sum(1 for _ in reader.events())
        return time.perf_counter() - began, n

    def export_to(
        make: Callable[[], list[Destination]], mask: bool = False
    ) -> Callable[[], tuple[float, int]]:
        def once() -> tuple[float, int]:
            dests = make()
            began = time.perf_counter()
            with TraceReader(run_dir) as reader:
                events = redacted(reader.events()) if mask else reader.events()
                stats = export_events(events, Batcher(dests))
            elapsed = time.perf_counter() - began
            assert stats.lossless, stats.summary()
            return elapsed, stats.spans

        return once

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    file = args.work / "spans.jsonl"

    def to_file() -> list[Destination]:
        file.unlink(missing_ok=True)
        return destinations(None, file)

    rows = [
        ("floor: read every event", read_only, "events"),
        ("spans built (no encoding)", export_to(lambda: [Destination("discard", _Discard(False))]), "spans"),
        ("spans built + OTLP protobuf", export_to(lambda: [Destination("encode", _Discard(True))]), "spans"),
        ("OTLP JSON lines file", export_to(to_file), "spans"),
        ("OTLP/HTTP to loopback", export_to(lambda: destinations(url, None, timeout=30)), "spans"),
        (
            "`export` path: redact + OTLP/HTTP",
            export_to(lambda: destinations(url, None, timeout=30), True),
            "spans",
        ),
    ]
    print(f"{'stage':36} {'median s':>9} {'items':>8} {'items/s':>10}")
    floor = None
    for label, once, unit in rows:
        seconds, items = _median(args.runs, once)
        floor = floor or seconds
        print(
            f"{label:36} {seconds:9.2f} {items:8d} {items / seconds:10.0f} {unit}/s  ({seconds / floor:.1f}x floor)"
        )
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
