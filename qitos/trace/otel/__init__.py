"""OpenTelemetry export of run events (the ``otel`` extra): GenAI-convention spans over OTLP/HTTP.

Nothing here imports ``opentelemetry`` at import time: :func:`require` checks the extra is
installed and says how to install it, and only then should ``spans``, ``pipeline`` or
``exporters`` be imported.
"""

from __future__ import annotations

INSTALL_HINT = "pip install 'qitos-tui[otel]'"


class OtelMissing(ImportError):
    """The ``otel`` extra (opentelemetry-sdk and its OTLP/HTTP exporter) is not installed."""


def require() -> None:
    """Raise :class:`OtelMissing` with an install hint unless the OpenTelemetry SDK and exporter import."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise OtelMissing(
            f"OpenTelemetry export needs the `otel` extra ({exc.name or exc} is missing): {INSTALL_HINT}"
        ) from exc
