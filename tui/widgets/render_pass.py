"""PassValue: what every line of one ``render_lines`` pass shares, worked out once for the pass."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class PassValue(Generic[T]):
    """A value computed once per render pass (a far jump draws every line, each asking for it);
    outside a pass, :meth:`get` computes it afresh."""

    def __init__(self, compute: Callable[[], T]) -> None:
        self._compute = compute
        self._value: T | None = None
        self._in_pass = False

    @property
    def in_pass(self) -> bool:
        """Whether a pass is being drawn."""
        return self._in_pass

    @contextmanager
    def during(self) -> Iterator[T]:
        """Compute the value, keep it while the pass draws, forget it after."""
        self._value, self._in_pass = self._compute(), True
        try:
            yield self._value
        finally:
            self._value, self._in_pass = None, False

    def get(self) -> T:
        """The pass's value, or the value now when no pass is drawing."""
        if self._in_pass:
            return cast(T, self._value)  # during a pass it holds the computed T (None is a T then)
        return self._compute()
