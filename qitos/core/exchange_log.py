"""The exchange log of a run: append-only exchanges with stable ids, open while their step runs.

It is the run's conversation truth; :class:`qitos.core.request_view.RequestView` derives each model
request from it and never modifies it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qitos.core.context import ContextError, canonical_json, sha256_text

__all__ = ["Exchange", "ExchangeItem", "ExchangeLog", "non_empty_text"]

_ROLES = frozenset({"user", "assistant"})


def non_empty_text(value: Any, name: str) -> str:
    """``value`` if it is a non-blank string; a ContextError naming ``name`` otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise ContextError(f"{name} must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class ExchangeItem:
    """One message inside an exchange (a user turn, an assistant answer, an observation)."""

    item_id: str
    exchange_id: str
    role: str
    content: str
    kind: str = "message"
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, canonical JSON args) as the model asked

    def to_dict(self) -> dict[str, Any]:
        """The item's projection as JSON data (what the request view selects and digests)."""
        data: dict[str, Any] = {
            "item_id": self.item_id,
            "exchange_id": self.exchange_id,
            "role": self.role,
            "kind": self.kind,
            "content": self.content,
        }
        if self.tool_calls:
            data["tool_calls"] = [{"name": n, "args": json.loads(a)} for n, a in self.tool_calls]
        return data


@dataclass(frozen=True)
class Exchange:
    """A snapshot of one exchange: its id, the step it belongs to, its items, whether it is closed."""

    exchange_id: str
    step_id: int
    items: tuple[ExchangeItem, ...]
    closed: bool


class _Record:
    """Mutable bookkeeping of one exchange inside the log (items only ever appended)."""

    __slots__ = (
        "exchange_id", "step_id", "items", "item_json", "item_ids", "kinds", "tool_names", "chars", "closed", "_digest"
    )  # fmt: skip

    def __init__(self, exchange_id: str, step_id: int) -> None:
        self.exchange_id = exchange_id
        self.step_id = step_id
        self.items: list[ExchangeItem] = []
        self.item_json: list[str] = []  # canonical JSON per item, computed once at append time
        self.item_ids: list[str] = []
        self.kinds: set[str] = set()
        self.tool_names: list[str] = []  # names of the tool calls the model made in this exchange
        self.chars = 0
        self.closed = False
        self._digest: str | None = None

    def digest(self) -> str:
        """SHA-256 of this exchange's canonical projection; cached once closed (it never changes)."""
        if self._digest is not None:
            return self._digest
        header = canonical_json(
            {"exchange_id": self.exchange_id, "step_id": self.step_id, "closed": self.closed}
        )
        value = sha256_text("\n".join([header, *self.item_json]))
        if self.closed:
            self._digest = value
        return value


class ExchangeLog:
    """Append-only exchanges with stable ids; each open while its step runs, then closed for good."""

    def __init__(self, log_id: str = "exchange-log") -> None:
        self.log_id = non_empty_text(log_id, "log_id")
        self._records: list[_Record] = []
        self._by_id: dict[str, _Record] = {}

    def __len__(self) -> int:
        return len(self._records)

    def open(self, *, step_id: int) -> str:
        """Start a new exchange for ``step_id`` and return its id (``ex-000001``, ``ex-000002``...)."""
        if not isinstance(step_id, int) or isinstance(step_id, bool) or step_id < 0:
            raise ContextError(f"step_id must be a non-negative int, got {step_id!r}")
        exchange_id = f"ex-{len(self._records) + 1:06d}"
        record = _Record(exchange_id, step_id)
        self._records.append(record)
        self._by_id[exchange_id] = record
        return exchange_id

    def _record(self, exchange_id: str) -> _Record:
        record = self._by_id.get(exchange_id)
        if record is None:
            raise ContextError(f"exchange {exchange_id!r} is not in log {self.log_id!r}")
        return record

    def append(
        self,
        exchange_id: str,
        *,
        role: str,
        content: str,
        kind: str = "message",
        tool_calls: Sequence[Mapping[str, Any]] = (),
    ) -> ExchangeItem:
        """Append one item to an open exchange; a closed exchange never changes again."""
        record = self._record(exchange_id)
        if record.closed:
            raise ContextError(f"exchange {exchange_id!r} is closed; the log is append-only")
        if role not in _ROLES:
            raise ContextError(f"item role must be one of {sorted(_ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise ContextError(f"item content must be a string, got {type(content).__name__}")
        non_empty_text(kind, "kind")
        calls = tuple(
            (
                non_empty_text(c.get("name"), "tool call name"),
                canonical_json(c.get("args", {}), "tool call args"),
            )
            for c in tool_calls
        )
        item = ExchangeItem(f"{exchange_id}/{len(record.items)}", exchange_id, role, content, kind, calls)
        record.items.append(item)
        record.item_json.append(canonical_json(item.to_dict(), "exchange item"))
        record.item_ids.append(item.item_id)
        record.kinds.add(kind)
        record.tool_names.extend(name for name, _ in calls)
        record.chars += len(content)
        return item

    def close(self, exchange_id: str) -> None:
        """Mark an exchange closed (idempotent); only closed exchanges can ever be compacted."""
        self._record(exchange_id).closed = True

    def is_closed(self, exchange_id: str) -> bool:
        """Whether the exchange is closed."""
        return self._record(exchange_id).closed

    def get(self, exchange_id: str) -> Exchange:
        """A snapshot of one exchange."""
        r = self._record(exchange_id)
        return Exchange(r.exchange_id, r.step_id, tuple(r.items), r.closed)

    @property
    def exchanges(self) -> tuple[Exchange, ...]:
        """Snapshots of every exchange in log order."""
        return tuple(Exchange(r.exchange_id, r.step_id, tuple(r.items), r.closed) for r in self._records)

    def summaries(self) -> list[tuple[str, int, bool]]:
        """``(exchange_id, step_id, closed)`` of every exchange in log order (no item copies)."""
        return [(r.exchange_id, r.step_id, r.closed) for r in self._records]

    @property
    def last_exchange_id(self) -> str | None:
        """The newest exchange's id, or None for an empty log."""
        return self._records[-1].exchange_id if self._records else None

    def digest(self) -> str:
        """SHA-256 over the log id and every exchange's projection digest, in order.

        Each closed exchange's digest is computed once, so digesting a long log costs one short
        hash per exchange; the result is identical in every process (canonical JSON throughout).
        """
        header = canonical_json({"log_id": self.log_id, "schema": "qitos.exchange_log/v1"})
        return sha256_text("\n".join([header, *(r.digest() for r in self._records)]))
