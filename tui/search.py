"""Search across every event of a run, and export of one request: plain functions over a store."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from qitos.trace.fields import as_text
from qitos.trace.payloads import payload_of, request_id
from tui.store import RunStore

# Printable ASCII that JSON writers leave as it is (not a quote, a backslash or a slash).
_PLAIN_ASCII = re.compile(r"[ !#-.0-\[\]-~]+")
NAME_LIMIT = 120  # characters of an export's file name before its digest: well under NAME_MAX (255)


def event_text(event: RunEvent) -> str:
    """The searchable text of any event: every string and number in its payload, and its error."""
    parts: list[str] = [event.error] if isinstance(event.error, str) else []
    stack: list[Any] = [payload_of(event)]
    while stack:  # the payload's nesting is bounded by the reader (MAX_DEPTH): no recursion
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, dict):
            stack.extend(reversed(node.values()))
        elif isinstance(node, list | tuple):
            stack.extend(reversed(node))
        elif node is not None and not isinstance(node, bool):
            parts.append(as_text(node))
    return "\n".join(parts)


MAX_DEPTH = 32  # nesting followed when collecting an event's text (a hostile trace nests deeper)


def all_text(event: RunEvent) -> str:
    """The text of any event for the Events pane's filter: its kind, error, and every string,
    key and number in its payload."""
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


@dataclass(frozen=True)
class SearchResult:
    """Where a search found its text, and how much of the run it looked at."""

    matches: list[tuple[int, int]]  # (step position, event index), one per step, in step order
    searched: int  # events looked at: those folded when the search began
    total: int  # events in the run (more than ``searched`` while a replay is still folding)

    @property
    def partial(self) -> bool:
        """Whether only the part folded so far was searched."""
        return self.searched < self.total


def search(
    store: RunStore,
    query: str,
    *,
    kinds: Collection[str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[tuple[int, int]]:
    """Steps (position, event index) with an event whose text contains ``query`` (case-insensitive)."""
    return search_run(store, query, kinds=kinds, cancelled=cancelled).matches


def search_run(
    store: RunStore,
    query: str,
    *,
    kinds: Collection[str] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> SearchResult:
    """Search every folded event (of ``kinds`` only, when given) for ``query``, case-insensitive.

    A trace is searched in its raw bytes first, a block at a time, and only the lines found there
    are parsed and checked; an in-memory (live) run's events are checked one by one."""
    needle = query.casefold()
    searched = store.event_count  # a stable bound while the UI thread keeps folding
    source = store.source
    total = max(searched, len(source))
    if not needle:
        return SearchResult([], searched, total)
    finder = getattr(source, "lines_containing", None)
    candidates = (
        finder(_raw_patterns(query), 0, searched, cancelled) if finder is not None else range(searched)
    )
    matches: list[tuple[int, int]] = []
    seen: set[int] = set()
    for index in candidates:
        if cancelled():
            break
        event = _read(store, index)
        if kinds is not None and event.phase not in kinds:
            continue
        pos = store.step_pos.get(event.step_id)
        if pos is None or pos in seen:
            continue
        if needle in event_text(event).casefold():
            seen.add(pos)
            matches.append((pos, index))
    matches.sort()
    return SearchResult(matches, searched, total)


def _raw_patterns(query: str) -> set[bytes]:
    """What a trace line holding ``query`` must hold (lower-cased as the reader lowers lines): its
    longest stretch of plain ASCII, spelled alike by every JSON writer and in any letter case; or,
    for text with none, its UTF-8 and ``\\u`` spellings in the usual letter cases."""
    stretches = _PLAIN_ASCII.findall(query)
    if stretches:
        return {max(stretches, key=len).lower().encode("ascii")}
    found: set[bytes] = set()
    for text in {query, query.lower(), query.upper(), query.casefold()}:
        found.add(text.encode("utf-8", "surrogatepass").lower())
        found.add(json.dumps(text)[1:-1].encode("ascii").lower())
    return found


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
        import hashlib  # loads OpenSSL: only for a name this long, never for the first frame

        safe = f"{safe[:NAME_LIMIT]}-{hashlib.sha256(safe.encode()).hexdigest()[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    return path
