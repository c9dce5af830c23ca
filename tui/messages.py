"""Messages that flow up from sources, workers and widgets to the app and the run screen.

Written with their own ``__init__`` rather than as dataclasses (Textual allows either): the
replay's first frame imports them all, and a dataclass costs ~0.2 ms to define.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from qitos.engine.runtime import RuntimeSnapshot
    from qitos.trace.reader import TraceReader


class EventsAvailable(Message):
    """New events wait in the feed's buffer; queued notices merge into one (drain once per frame)."""

    def can_replace(self, message: Message) -> bool:
        """Any pending EventsAvailable says the same thing, so one is enough."""
        return isinstance(message, EventsAvailable)


class FoldProgress(Message):
    """How far the background fold of a replayed trace has got."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        """Only the latest progress matters."""
        return isinstance(message, FoldProgress)


class FoldFinished(Message):
    """The background fold has read every indexed event."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total


class RunReturned(Message):
    """The Engine's run returned: finished, failed, or paused with a snapshot to resume."""

    def __init__(
        self, status: str, snapshot: RuntimeSnapshot | None = None, stop_reason: str | None = None
    ) -> None:
        super().__init__()
        self.status = status
        self.snapshot = snapshot
        self.stop_reason = stop_reason


class RunCrashed(Message):
    """The agent raised out of the Engine: the error panel shows the cause."""

    def __init__(self, title: str, detail: str) -> None:
        super().__init__()
        self.title = title
        self.detail = detail


class SearchResults(Message):
    """Matches of a search over every event, as (step position, event index) pairs."""

    def __init__(self, query: str, matches: list[tuple[int, int]], searched: int = 0, total: int = 0) -> None:
        super().__init__()
        self.query = query
        self.matches = matches
        # While a replay is still folding, only the events folded so far are searched: it says so.
        self.searched = searched
        self.total = total


class ReaderOpened(Message):
    """The TraceReader has indexed the replayed trace (or could not: ``problem`` says why)."""

    def __init__(self, reader: TraceReader | None, problem: str | None) -> None:
        super().__init__()
        self.reader = reader
        self.problem = problem


class FollowUpdate(Message):
    """The followed run's status after new events landed; ``done`` once following has stopped."""

    def __init__(self, status: str, done: bool = False, problem: str | None = None) -> None:
        super().__init__()
        self.status = status
        self.done = done
        self.problem = problem
