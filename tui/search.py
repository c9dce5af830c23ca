"""Search across exchanges and tool results, and export of one request: plain functions over a store."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from qitos.trace.fields import as_text
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


def search(
    store: RunStore, query: str, *, cancelled: Callable[[], bool] = lambda: False
) -> list[tuple[int, int]]:
    """Steps (position, event index) whose exchanges or tool results contain ``query`` (case-insensitive)."""
    needle = query.casefold()
    if not needle:
        return []
    matches: list[tuple[int, int]] = []
    count = len(store.exchanges)  # a stable bound while the UI thread keeps folding
    last_pos = -1
    for n in range(count):
        if cancelled():
            break
        ex = store.exchanges[n]
        pos = store.step_pos.get(ex.step, 0)
        if pos == last_pos:
            continue
        indices = [*(i for i in (ex.request, ex.response) if i is not None), *ex.tool_results]
        for index in indices:
            if needle in event_text(_read(store, index)).casefold():
                matches.append((pos, index))
                last_pos = pos
                break
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
