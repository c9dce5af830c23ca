"""Where spans go: an OTLP/HTTP collector (the SDK's exporter), or a file of OTLP JSON lines."""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from qitos.trace.otel.config import traces_url

DEFAULT_TIMEOUT_SECONDS = 5.0
# OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping writes bytes as base64.
_ID_KEYS = frozenset({"traceId", "spanId", "parentSpanId"})


def otlp_http(
    url: str, *, timeout: float = DEFAULT_TIMEOUT_SECONDS, headers: Mapping[str, str] | None = None
) -> SpanExporter:
    """The SDK's OTLP/HTTP (protobuf) span exporter for ``url`` (a base URL gets ``/v1/traces``)."""
    return OTLPSpanExporter(endpoint=traces_url(url), timeout=timeout, headers=dict(headers or {}))


class JsonLinesExporter(SpanExporter):
    """Appends each batch to a file as one OTLP/JSON ``ExportTraceServiceRequest`` per line.

    The request is the one the OTLP exporter sends (the SDK's encoder), written with protobuf's
    JSON mapping and the OTLP/JSON rules on top (hex ids, enums as numbers), so a collector's
    ``otlpjsonfile`` receiver or :func:`read_json_lines` reads it back.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # Opened once, appended to: a live run's batches land one line at a time.
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in shutdown

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Write one line for the batch and flush it to disk."""
        line = json.dumps(
            _hex_ids(MessageToDict(encode_spans(spans), use_integers_for_enums=True)), separators=(",", ":")
        )
        with self._lock:
            if self._file.closed:
                return SpanExportResult.FAILURE
            self._file.write(line + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Close the file."""
        with self._lock:
            self._file.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Every line is flushed as it is written."""
        return True


def _hex_ids(node: Any) -> Any:
    """Rewrite base64 trace/span ids as the hex OTLP/JSON requires, everywhere in a request dict."""
    if isinstance(node, dict):
        return {
            k: (base64.b64decode(v).hex() if k in _ID_KEYS and isinstance(v, str) else _hex_ids(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    return node


def read_json_lines(path: str | Path) -> list[Any]:
    """Parse an OTLP JSON lines file back into ``ExportTraceServiceRequest`` messages (tests, tools)."""
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    requests = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            requests.append(ParseDict(_base64_ids(json.loads(line)), ExportTraceServiceRequest()))
    return requests


def _base64_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                base64.b64encode(bytes.fromhex(v)).decode()
                if k in _ID_KEYS and isinstance(v, str)
                else _base64_ids(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_base64_ids(item) for item in node]
    return node
