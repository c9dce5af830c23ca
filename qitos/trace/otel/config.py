"""Where spans go and what they may carry: OTLP endpoint and content opt-in, from flags or the standard env vars."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

TRACES_PATH = "/v1/traces"
ENV_ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
ENV_CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
# Values of the capture variable that turn content on: the boolean spellings, and the newer
# conventions' modes that put content on spans.
_CONTENT_ON = frozenset({"1", "true", "yes", "on", "span_only", "span_and_event"})


class EndpointError(ValueError):
    """An OTLP endpoint that is not an http(s) URL with a host."""


def traces_url(url: str) -> str:
    """The OTLP/HTTP traces URL for ``url``: a base URL gets ``/v1/traces``, a full one is kept.

    ``http://collector:4318`` and ``http://collector:4318/v1/traces`` both mean the collector's
    traces endpoint (the spec appends the signal path to ``OTEL_EXPORTER_OTLP_ENDPOINT``).
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise EndpointError(f"{url!r} is not a URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError(f"{url!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:4318")
    if parts.path.rstrip("/").endswith(TRACES_PATH):
        return text
    return text.rstrip("/") + TRACES_PATH


def shown_url(url: str) -> str:
    """``url`` fit to print: a user name or password in it is masked (summaries, the status bar)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"***@{host}" + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl()


def endpoint_from_env(env: Mapping[str, str] | None = None) -> str | None:
    """The traces URL the standard variables name, or None: the traces-specific one is used as it is."""
    env = os.environ if env is None else env
    specific = env.get(ENV_TRACES_ENDPOINT, "").strip()
    if specific:
        return specific
    base = env.get(ENV_ENDPOINT, "").strip()
    return traces_url(base) if base else None


def content_from_env(env: Mapping[str, str] | None = None) -> bool:
    """Whether the user opted in to message content through the GenAI conventions' variable."""
    env = os.environ if env is None else env
    return env.get(ENV_CAPTURE_CONTENT, "").strip().lower() in _CONTENT_ON
