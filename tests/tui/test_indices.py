"""Compact index fields (tui.indices): read as tuples, kept as a bare int when they hold one index."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qitos.trace.events import RunEvent
from tui.indices import compact, expand, with_index
from tui.store import Exchange, ListSource, RunStore, StepSummary
from tui.synthetic import synthetic_events


@given(st.lists(st.integers(min_value=0, max_value=10**12), max_size=6))
def test_adding_indices_one_by_one_reads_as_the_plain_tuple(indices: list[int]) -> None:
    kept: int | tuple[int, ...] = ()
    for index in indices:
        kept = with_index(kept, index)
    assert expand(kept) == tuple(indices)
    assert compact(tuple(indices)) == kept
    assert (type(kept) is int) == (len(indices) == 1)


def test_the_fields_read_and_write_tuples_of_any_length() -> None:
    step = StepSummary(3, 10, 12)
    ex = Exchange(number=1, step=3, exchange_id="ex-1")
    assert step.requests == step.memory == step.exchanges == ex.tool_calls == ex.tool_results == ()
    step.requests += (11,)
    step.memory = (12, 13)
    ex.tool_results = (14,)
    ex.tool_results += (15,)
    assert step.requests == (11,) and step.memory == (12, 13) and ex.tool_results == (14, 15)
    step.memory = step.memory[:-1]
    assert step.memory == (12,) and step.requests[-1] == 11


def test_a_folded_run_keeps_one_index_as_the_int_itself() -> None:
    """The memory the fields exist for: the usual step and exchange hold no one-item tuples."""
    events: list[RunEvent] = list(synthetic_events(6))
    store = RunStore(ListSource(events))
    store.apply(events)
    step = store.steps[1]
    ex = store.exchanges[step.exchanges[0]]
    assert step.requests == (ex.request,) and len(ex.tool_calls) == len(ex.tool_results) == 1
    kept = (step._requests, step._exchanges, ex._tool_calls, ex._tool_results)
    assert all(type(value) is int for value in kept)  # 48 bytes less each than a one-item tuple
