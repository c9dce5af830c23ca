"""Messages that flow up from sources, workers and widgets to the app and the run screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from qitos.engine.runtime import RuntimeSnapshot
    from qitos.trace.reader import TraceReader


@dataclass
class EventsAvailable(Message):
    """New events wait in the feed's buffer; queued notices merge into one (drain once per frame)."""

    def can_replace(self, message: Message) -> bool:
        """Any pending EventsAvailable says the same thing, so one is enough."""
        return isinstance(message, EventsAvailable)


@dataclass
class FoldProgress(Message):
    """How far the background fold of a replayed trace has got."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        """Only the latest progress matters."""
        return isinstance(message, FoldProgress)


@dataclass
class FoldFinished(Message):
    """The background fold has read every indexed event."""

    total: int


@dataclass
class RunReturned(Message):
    """The Engine's run returned: finished, failed, or paused with a snapshot to resume."""

    status: str
    snapshot: RuntimeSnapshot | None = None
    stop_reason: str | None = None


@dataclass
class RunCrashed(Message):
    """The agent raised out of the Engine: the error panel shows the cause."""

    title: str
    detail: str


@dataclass
class SearchResults(Message):
    """Matches of a search over every event, as (step position, event index) pairs."""

    query: str
    matches: list[tuple[int, int]]
    # While a replay is still folding, only the events folded so far are searched: it says so.
    searched: int = 0
    total: int = 0


@dataclass
class ReaderOpened(Message):
    """The TraceReader has indexed the replayed trace (or could not: ``problem`` says why)."""

    reader: TraceReader | None
    problem: str | None


@dataclass
class FollowUpdate(Message):
    """The followed run's status after new events landed; ``done`` once following has stopped."""

    status: str
    done: bool = False
    problem: str | None = None
