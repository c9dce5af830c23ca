"""The retrieval query every kit memory understands: a small dict of filters, validated strictly.

Keys (all optional): ``role`` (str or list of str), ``step_id`` (int), ``since_step`` (int, step_id
>= it), ``text`` (case-insensitive substring of the content), ``record_ids`` (list of ids),
``limit`` (keep the newest N after filtering). Unknown keys are an error, not silently ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from qitos.core.memory import MemoryRecord

QUERY_KEYS = frozenset({"role", "step_id", "since_step", "text", "record_ids", "limit"})


def validate_query(query: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return a normalised copy of ``query``; raise ValueError naming the first bad key or value."""
    if query is None:
        return {}
    if not isinstance(query, Mapping):
        raise ValueError(f"query must be a mapping or None, got {type(query).__name__}")
    unknown = sorted(str(key) for key in query if key not in QUERY_KEYS)
    if unknown:
        raise ValueError(f"unknown memory query key(s): {', '.join(unknown)}; known: {sorted(QUERY_KEYS)}")
    out: dict[str, Any] = {}
    if "role" in query and query["role"] is not None:
        role = query["role"]
        roles = [role] if isinstance(role, str) else list(role) if isinstance(role, list | tuple) else None
        if roles is None or not all(isinstance(r, str) for r in roles):
            raise ValueError("query 'role' must be a str or a list of str")
        out["role"] = frozenset(roles)
    for key in ("step_id", "since_step", "limit"):
        if key in query and query[key] is not None:
            value = query[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"query {key!r} must be an int")
            if key == "limit" and value < 0:
                raise ValueError("query 'limit' must be >= 0")
            out[key] = value
    if "text" in query and query["text"] is not None:
        if not isinstance(query["text"], str):
            raise ValueError("query 'text' must be a str")
        out["text"] = query["text"].casefold()
    if "record_ids" in query and query["record_ids"] is not None:
        ids = query["record_ids"]
        if isinstance(ids, str) or not all(isinstance(i, str) for i in ids):
            raise ValueError("query 'record_ids' must be a list of str")
        out["record_ids"] = frozenset(ids)
    return out


def filter_records(records: Iterable[MemoryRecord], query: Mapping[str, Any]) -> list[MemoryRecord]:
    """Apply a validated query to records in order (oldest first); ``limit`` keeps the newest."""
    if not query:
        return list(records)
    roles = query.get("role")
    step = query.get("step_id")
    since = query.get("since_step")
    text = query.get("text")
    ids = query.get("record_ids")
    kept: list[MemoryRecord] = []
    for record in records:
        if roles is not None and record.role not in roles:
            continue
        if step is not None and record.step_id != step:
            continue
        if since is not None and record.step_id < since:
            continue
        if ids is not None and record.record_id not in ids:
            continue
        if text is not None and text not in str(record.content).casefold():
            continue
        kept.append(record)
    limit = query.get("limit")
    if limit is not None:
        kept = kept[-limit:] if limit else []
    return kept


def jsonable_query(query: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The query as it goes into a ``memory_recall`` event payload (sets become sorted lists)."""
    if query is None:
        return None
    out: dict[str, Any] = {}
    for key, value in query.items():
        out[str(key)] = sorted(value) if isinstance(value, set | frozenset) else value
    return out
