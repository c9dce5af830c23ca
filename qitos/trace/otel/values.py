"""Untrusted payload values made into valid span attribute values, and trace timestamps into nanoseconds."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ts_ns(ts: Any) -> int | None:
    """An ISO-8601 trace timestamp as Unix nanoseconds; None when it is not one (naive means UTC)."""
    if not isinstance(ts, str) or not ts:
        return None
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    # Integer arithmetic: a float of seconds since 1970 cannot hold nanoseconds exactly.
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def scalar(value: Any) -> str | bool | int | float | None:
    """A value OTLP can carry as one attribute: ints outside int64 and non-scalars become text; None stays None."""
    if value is None:
        return None
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        # The protobuf encoder rejects ints beyond int64, which would lose the whole batch.
        return value if _INT64_MIN <= value <= _INT64_MAX else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return text(value)


def number(value: Any) -> int | float | None:
    """A finite int or float from an untrusted field (bools and text are not numbers), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, int) and not _INT64_MIN <= value <= _INT64_MAX:
        return None
    return value


def integer(value: Any) -> int | None:
    """A non-negative whole number from an untrusted field (token counts, units), else None."""
    n = number(value)
    if n is None or n < 0:
        return None
    return int(n) if float(n).is_integer() else None


def strings(value: Any) -> list[str]:
    """A list of texts from an untrusted list (anything else gives an empty list)."""
    if not isinstance(value, list | tuple):
        return []
    return [item if isinstance(item, str) else text(item) for item in value]


def text(value: Any) -> str:
    """Any value as text: strings as they are, data as compact JSON, the rest through ``str``."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return str(value)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (payload fields are untrusted)."""
    return value if isinstance(value, Mapping) else {}


def name_part(value: Any, fallback: str) -> str:
    """A short single-line piece of a span name (a model or tool name); ``fallback`` when empty."""
    if not isinstance(value, str):
        value = "" if value is None else str(value)
    value = " ".join(value.split())[:120]
    return value or fallback
