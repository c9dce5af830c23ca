"""Prefetcher: work done ahead of time, a small piece per turn of the event loop, dropped for newer work.

The run screen uses it to render the steps a user is likely to ask for next (the neighbours, the
first and the last step, the step whose id is being typed after `g`) while nothing else happens,
so that the key that asks for one finds its lines ready.

Each piece is short and runs as a callback of the event loop of its own, queued behind everything
that became ready meanwhile: a key, or the frame that shows it, waits for one piece at most. (As a
message to the screen instead, the pieces would run back to back, before the frame: a message pump
takes the messages already queued without giving the event loop a turn.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from functools import partial


def call_soon(callback: Callable[[], None]) -> None:
    """Run ``callback`` at the next turn of the running event loop."""
    asyncio.get_running_loop().call_soon(callback)


class Prefetcher:
    """Runs one iterable of pieces of work, one ``next()`` per turn of the event loop."""

    def __init__(self, schedule: Callable[[Callable[[], None]], object] = call_soon) -> None:
        self._schedule = schedule
        self._work: Iterator[None] | None = None
        self._generation = 0  # a callback of an older start finds a newer generation and stops

    @property
    def busy(self) -> bool:
        """Whether work is in hand."""
        return self._work is not None

    def start(self, work: Iterable[None]) -> None:
        """Drop the work in hand and do ``work`` instead, one piece per turn."""
        self._generation += 1
        self._work = iter(work)
        self._schedule(partial(self._next, self._generation))

    def stop(self) -> None:
        """Drop the work in hand."""
        self._generation += 1
        self._work = None

    def _next(self, generation: int) -> None:
        if generation != self._generation or self._work is None:
            return
        try:
            next(self._work)
        except StopIteration:
            self._work = None
            return
        except Exception:
            # Speculative work: a step that cannot be rendered fails when (if ever) it is shown,
            # not here, for a step nobody asked for.
            self._work = None
            return
        self._schedule(partial(self._next, generation))
