"""The memory contract: the abstract Memory adapter, the MemoryRecord unit and its resource error.

Memory is long-term recall an agent reads from and writes to; it is not a checkpoint store and not
the model's message history. Concrete adapters live in :mod:`qitos.kit.memory`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

__all__ = ["Memory", "MemoryRecord", "MemoryResourceError"]


class MemoryResourceError(RuntimeError):
    """A bound durable memory resource is missing or unavailable."""


@dataclass
class MemoryRecord:
    """One logical memory fact; independent equal facts receive distinct IDs.

    ``role`` says who stated the fact (``user``, ``assistant``, ``tool``, ...), ``content`` is the
    fact itself, ``step_id`` the engine step that produced it, ``metadata`` free-form annotations
    and ``record_id`` the stable identity (a fresh uuid4 hex unless given), which is what
    :meth:`qitos.kit.memory.memdir_memory.MemdirMemory.delete` forgets by.
    """

    role: str
    content: Any
    step_id: int
    metadata: dict[str, Any] = field(default_factory=dict)
    record_id: str = field(default_factory=lambda: uuid4().hex)


class Memory(ABC):
    """The abstract interface for long-term memory adapters."""

    @abstractmethod
    def append(self, record: MemoryRecord) -> None:
        """Store one record."""

    @abstractmethod
    def retrieve(
        self,
        query: dict[str, Any] | None = None,
        state: Any = None,
        observation: Any = None,
    ) -> Any:
        """Return the records matching ``query`` (all of them for no query), oldest first."""

    @abstractmethod
    def summarize(self, max_items: int = 5) -> str:
        """Render at most ``max_items`` recent records as text for a prompt."""

    @abstractmethod
    def evict(self) -> int:
        """Drop what the adapter keeps in process memory; return how many entries were dropped."""

    @abstractmethod
    def reset(self, run_id: str | None = None) -> None:
        """Forget per-run state before a new run (``run_id`` names it when known)."""
