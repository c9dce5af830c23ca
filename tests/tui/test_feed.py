"""EventFeed: events handed from a producer thread to the UI, drained whole or in slices."""

from __future__ import annotations

import threading

from qitos.trace.events import RunEvent
from tui.feed import EventFeed


def _events(n: int, first: int = 0) -> list[RunEvent]:
    return [RunEvent(run_id="r", step_id=i, phase="tool_result", ts="t") for i in range(first, first + n)]


def test_drain_takes_everything_in_order_and_wakes_once_per_empty_buffer() -> None:
    wakes: list[int] = []
    feed = EventFeed(lambda: wakes.append(1))
    feed.push(_events(3), 0)
    feed.push(_events(2, 3), 3)
    assert len(wakes) == 1 and feed.pending == 5
    chunks = feed.drain()
    assert [(start, len(events)) for start, events in chunks] == [(0, 3), (3, 2)]
    assert feed.pending == 0 and feed.drain() == []
    feed.push(_events(1, 5), 5)
    assert len(wakes) == 2  # empty again: the next push wakes the UI


def test_drain_with_a_limit_takes_whole_chunks_and_at_least_one() -> None:
    feed = EventFeed(lambda: None)
    for k in range(4):
        feed.push(_events(300, k * 300), k * 300)
    first = feed.drain(limit=700)
    assert [start for start, _ in first] == [0, 300]  # a third chunk would pass 700
    assert feed.pending == 600
    big = EventFeed(lambda: None)
    big.push(_events(900), 0)
    assert [len(events) for _, events in big.drain(limit=100)] == [900]  # never stuck on a big chunk
    rest = feed.drain(limit=10_000)
    assert [start for start, _ in rest] == [600, 900] and feed.pending == 0


def test_producers_on_other_threads_lose_no_event() -> None:
    feed = EventFeed(lambda: None)

    def produce(first: int) -> None:
        for k in range(100):
            feed.push(_events(5, first + k * 5))

    threads = [threading.Thread(target=produce, args=(t * 1000,)) for t in range(4)]
    for thread in threads:
        thread.start()
    drained: list[RunEvent] = []
    while any(t.is_alive() for t in threads) or feed.pending:
        for _, events in feed.drain(limit=64):
            drained.extend(events)
    for thread in threads:
        thread.join()
    for _, events in feed.drain():
        drained.extend(events)
    assert sorted(e.step_id for e in drained) == sorted(t * 1000 + i for t in range(4) for i in range(500))
