"""Search across the text of every event, and export of one request: plain functions over a store."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from qitos.trace.fields import as_int, as_text
from qitos.trace.payloads import Message, payload_of, request_id
from tui.store import RunStore

NAME_LIMIT = 120  # characters of an export's file name before its digest: well under NAME_MAX (255)

_SEARCHED_KEYS = (
    "messages",
    "text",
    "raw_output",
    "prepared",
    "result",
    "error",
    "action_results",
    "tool_calls",
)


def event_text(event: RunEvent) -> str:
    """The searchable text of an exchange event: messages, answers, tool calls and results."""
    p = payload_of(event)
    parts: list[str] = []
    for key in _SEARCHED_KEYS:
        value = p.get(key)
        if value is None:
            continue
        if key == "messages" and isinstance(value, list):
            parts.extend(as_text(Message.read(m).content) for m in value if isinstance(m, dict))
        else:
            parts.append(as_text(value))
    return "\n".join(parts)


MAX_DEPTH = 32  # nesting followed when collecting an event's text (a hostile trace nests deeper)


def all_text(event: RunEvent) -> str:
    """The text of any event: its kind, error, and every string, key and number in its payload."""
    parts: list[str] = [str(event.phase), str(event.error or "")]
    stack: list[tuple[Any, int]] = [(event.payload, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict) and depth < MAX_DEPTH:
            for k, v in value.items():
                parts.append(str(k))
                stack.append((v, depth + 1))
        elif isinstance(value, list) and depth < MAX_DEPTH:
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(str(value))
    return "\n".join(parts)


def matching_events(
    store: RunStore,
    query: str,
    indices: Iterable[int] | None = None,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[int]:
    """Indices of the events (all, or those of ``indices``) whose text contains ``query``, case-insensitive."""
    return [index for index, _ in _matches(store, query, indices, cancelled)]


def _matches(
    store: RunStore, query: str, indices: Iterable[int] | None, cancelled: Callable[[], bool]
) -> Iterator[tuple[int, RunEvent]]:
    needle = query.casefold()
    count = store.event_count  # a stable bound while the UI thread keeps folding
    if indices is None or (isinstance(indices, range) and indices.step == 1):
        # Sequential reads bypass the reader's cache, which the UI thread owns.
        start, stop = (0, count) if indices is None else (indices.start, min(indices.stop, count))
        numbered: Iterable[tuple[int, RunEvent]] = enumerate(store.source.events(start, stop), start)
    else:
        numbered = ((i, _read(store, i)) for i in indices if i < count)
    for n, (index, event) in enumerate(numbered):
        if n % 1024 == 0 and cancelled():
            return
        if needle in all_text(event).casefold():
            yield index, event


def search(
    store: RunStore, query: str, *, cancelled: Callable[[], bool] = lambda: False
) -> list[tuple[int, int]]:
    """Steps (position, first matching event index) with an event whose text contains ``query``."""
    if not query.casefold():
        return []
    matches: list[tuple[int, int]] = []
    last_pos = -1
    for index, event in _matches(store, query, None, cancelled):
        step_id = event.step_id if type(event.step_id) is int else (as_int(event.step_id) or 0)
        pos = store.step_pos.get(step_id)
        if pos is not None and pos != last_pos:
            matches.append((pos, index))
            last_pos = pos
    return matches


def _read(store: RunStore, index: int) -> RunEvent:
    # Sequential access bypasses the reader's cache, which the UI thread owns.
    return next(iter(store.source.events(index, index + 1)))


def export_request(store: RunStore, pos: int, folder: Path) -> Path:
    """Write the selected step's model request (with its response) as JSON into ``folder``; returns the file."""
    step = store.steps[pos]
    if not step.requests:
        raise ValueError(f"step {step.step} sent no model request to export")
    request = store.load(step.requests[-1])
    rid = request_id(payload_of(request)) or f"step{step.step}"
    response: dict[str, Any] | None = None
    for ex_pos in step.exchanges:
        ex = store.exchanges[ex_pos]
        if ex.request == step.requests[-1] and ex.response is not None:
            response = store.load(ex.response).to_dict()
    data = {"run_id": store.run_id, "step_id": step.step, "request": request.to_dict(), "response": response}
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{store.run_id}-step{step.step}-{rid}")
    if len(safe) > NAME_LIMIT:
        # Ids come from the trace: a long one is cut, and a digest keeps different ones apart.
        safe = f"{safe[:NAME_LIMIT]}-{hashlib.sha256(safe.encode()).hexdigest()[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    return path
