"""StepPositions: step id -> position in the step list, without a table for the usual numbering.

A run numbers its steps 0, 1, 2, ... in order, so position and id agree; a 1 GB trace has a hundred
thousand steps, and a dict of them costs about 6 MB. The map keeps that prefix as one count and a
dict only for the steps after the first that breaks it (upstream traces, forks, hostile ids).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar, overload

_MISSING = object()
_T = TypeVar("_T")


class StepPositions(Mapping[int, int]):
    """A read-only mapping (as a dict would be) that the fold extends with :meth:`add`."""

    __slots__ = ("_dense", "_sparse")

    def __init__(self) -> None:
        self._dense = 0  # ids 0 .. _dense-1 sit at the positions of the same number
        self._sparse: dict[int, int] = {}

    def add(self, step_id: int, pos: int) -> None:
        """Record a new step (positions are given in order: 0, 1, 2, ...)."""
        if not self._sparse and step_id == pos and type(step_id) is int:
            self._dense += 1
        else:
            self._sparse[step_id] = pos

    @overload
    def get(self, key: int, /) -> int | None: ...
    @overload
    def get(self, key: int, default: int, /) -> int: ...
    @overload
    def get(self, key: int, default: _T, /) -> int | _T: ...

    def get(self, key: object, default: object = None, /) -> object:
        """The position of step ``key``, or ``default``; keys compare as a dict's do (1.0 is 1)."""
        if type(key) is int:
            if 0 <= key < self._dense:
                return key
            return self._sparse.get(key, default)
        if isinstance(key, int | float) and key == key and int(key) == key and 0 <= key < self._dense:
            return int(key)  # True or 3.0, which a dict would find under 1 or 3
        return self._sparse.get(key, default)  # type: ignore[call-overload]

    def __getitem__(self, key: int) -> int:
        pos = self.get(key, _MISSING)
        if pos is _MISSING:
            raise KeyError(key)
        return pos  # type: ignore[return-value]

    def __iter__(self) -> Iterator[int]:
        yield from range(self._dense)
        yield from self._sparse

    def __len__(self) -> int:
        return self._dense + len(self._sparse)

    def __repr__(self) -> str:
        return f"StepPositions(dense={self._dense}, sparse={self._sparse!r})"
