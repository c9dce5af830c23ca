"""Indices: a fold field that reads as a tuple of event indices but keeps one index as a bare int.

Most steps and exchanges point at one event of each sort (one request, one tool call, one result),
and a 1 GB trace folds a hundred thousand of each: a one-item tuple is 48 bytes more than the int
it holds, so the fold keeps ``()`` for none, the int itself for one, and a tuple only for more.
"""

from __future__ import annotations

from typing import Any, overload

Compact = int | tuple[int, ...]
"""What the slot behind an :class:`Indices` field holds: ``()``, one index, or a tuple of two or more."""


def with_index(kept: Compact, index: int) -> Compact:
    """``kept`` with ``index`` added at the end, in the compact form (the fold's hot path)."""
    if type(kept) is int:
        return (kept, index)
    return kept + (index,) if kept else index  # type: ignore[operator]


def compact(indices: tuple[int, ...]) -> Compact:
    """The compact form of ``indices``."""
    return indices[0] if len(indices) == 1 else indices


def expand(kept: Compact) -> tuple[int, ...]:
    """The tuple that the compact form ``kept`` stands for."""
    return (kept,) if type(kept) is int else kept  # type: ignore[return-value]


class Indices:
    """A tuple-of-indices attribute read from (and written to) the compact slot ``_<name>``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Indices: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> tuple[int, ...]: ...

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return expand(getattr(obj, self.slot))

    def __set__(self, obj: object, value: tuple[int, ...]) -> None:
        setattr(obj, self.slot, compact(tuple(value)))
