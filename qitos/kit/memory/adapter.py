"""MemorySourceAdapter: recall a bound Memory freshly for every request, as user-level context data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from qitos.core.context import ContextContribution
from qitos.core.memory import Memory, MemoryRecord
from qitos.kit.memory.events import emit_recall, labelled_recall
from qitos.kit.memory.memdir_format import content_text
from qitos.kit.memory.query import filter_records, validate_query

__all__ = ["MemorySourceAdapter"]


class MemorySourceAdapter:
    """Recall a factory-bound namespace as user-level context data.

    Namespace is a logical label, not a directory selector or an authorization.
    The factory must bind the correct Memory resource. No global memory is read
    by this adapter. Every request recalls fresh data, including after restore;
    revision is provenance, never a permanent suppression cache.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        namespace: str,
        query: Mapping[str, Any] | None = None,
        required: bool = False,
        priority: int = 0,
    ) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"memory must be a qitos Memory, got {type(memory).__name__}")
        if not isinstance(namespace, str) or not namespace.strip():
            raise ValueError("namespace must be a non-empty string (a label)")
        if not isinstance(required, bool):
            raise TypeError("required must be a bool")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError("priority must be an int")
        validate_query(query)  # a bad query fails at composition, not in the middle of a run
        self.memory = memory
        self.namespace = namespace
        self.query: dict[str, Any] | None = dict(query) if query is not None else None
        self.required = required
        self.priority = priority
        #: How many recalls this adapter made; provenance, never a reason to skip a recall.
        self.revision = 0

    @property
    def contributor_id(self) -> str:
        """The identity of this adapter's contribution."""
        return f"memory.{self.namespace}"

    def contribute(self, request: Any) -> Sequence[ContextContribution]:
        """Recall now and return one contribution of the records (none when nothing is recalled)."""
        records = self._recall()
        self.revision += 1
        if not records:
            return ()
        return (
            ContextContribution(
                contribution_id=self.contributor_id,
                source=f"memory:{self.namespace}",
                value=render_records(self.namespace, records),
                priority=self.priority,
                requested_placement="user",
                required=self.required,
            ),
        )

    def _recall(self) -> list[MemoryRecord]:
        """The bound namespace's records matching the query; a memory's global part is never read."""
        memory = self.memory
        scan = getattr(memory, "scan", None)
        if getattr(memory, "global_root", None) is not None and callable(scan):
            # A Memdir bound to a global root recalls both through retrieve(); this adapter reads
            # the bound namespace alone, so it lists the local root and applies the query itself.
            records = filter_records(scan(include_global=False).records, validate_query(self.query))
            emit_recall(records, namespace=self.namespace, query=self.query)
            return records
        with labelled_recall(self.namespace):
            records = list(memory.retrieve(query=self.query))
        if not getattr(memory, "emits_recall_events", False):
            emit_recall(records, namespace=self.namespace, query=self.query)
        return records

    def reset(self, run_id: str | None = None) -> None:
        """No owned state; never reset the borrowed memory."""

    def close(self) -> None:
        """No owned resources; never close the borrowed memory."""


def render_records(namespace: str, records: Sequence[MemoryRecord]) -> str:
    """The text the model reads: a labelled list of recalled records, oldest first."""
    lines = [f"Recalled memory ({namespace}):"]
    for record in records:
        lines.append(f"- [{record.role} @ step {record.step_id}] {content_text(record.content)}")
    return "\n".join(lines)
