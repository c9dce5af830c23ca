"""Property tests (hypothesis) for context selection and request views."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    PriorityContextSelectionPolicy,
)
from qitos.core.request_view import ExchangeLog, RequestView
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

contribution = st.builds(
    lambda cid, text, priority, required: ContextContribution(
        cid, "src", text, priority=priority, required=required
    ),
    st.text("abcdefgh", min_size=1, max_size=3),
    st.text(min_size=0, max_size=40),
    st.integers(-3, 3),
    st.booleans(),
)
contributions = st.lists(contribution, max_size=12, unique_by=lambda c: c.contribution_id)


@FAST
@given(contributions, st.integers(1, 250), st.integers(0, 120), st.randoms(use_true_random=False))
def test_selection_properties(
    items: list[ContextContribution], capacity: int, already: int, rnd: random.Random
) -> None:
    budget = ContextBudget(capacity)
    policy = PriorityContextSelectionPolicy()
    required_units = sum(c.units for c in items if c.required)
    cannot_fit = any(c.required for c in items) and already + required_units > capacity
    try:
        sel = policy.select(items, budget=budget, already_used_units=already)
    except ContextBudgetExceededError:
        # Required contributions are never dropped: the only failure is when they cannot all fit.
        assert cannot_fit
        return
    assert not cannot_fit
    # Never over budget (and nothing added when the budget is already spent).
    assert sel.units_used <= max(0, capacity - already)
    selected_ids = [d.contribution.contribution_id for d in sel.selected]
    omitted_ids = [d.contribution.contribution_id for d in sel.omitted]
    # Selected and omitted partition the input.
    assert sorted(selected_ids + omitted_ids) == sorted(c.contribution_id for c in items)
    assert not set(selected_ids) & set(omitted_ids)
    # Required always in; every omission has a reason and really did not fit.
    assert {c.contribution_id for c in items if c.required} <= set(selected_ids)
    left = capacity - already - sel.units_used
    for d in sel.omitted:
        assert d.reason.startswith("over budget") and d.units > left
    # The same input (in any order) gives the same output.
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert policy.select(shuffled, budget=budget, already_used_units=already) == sel


exchange_sizes = st.lists(st.integers(0, 60), min_size=0, max_size=15)


@FAST
@given(exchange_sizes, st.integers(20, 600), st.integers(0, 4), contributions)
def test_request_view_properties(
    sizes: list[int], capacity: int, window: int, items: list[ContextContribution]
) -> None:
    log = ExchangeLog("prop")
    for step, size in enumerate(sizes):
        ex = log.open(step_id=step)
        log.append(ex, role="user", content="u" * size)
        log.append(ex, role="assistant", content="a" * (size // 2))
        if step < len(sizes) - 1:
            log.close(ex)
    digest = log.digest()
    budget = ContextBudget(capacity, protected_recent_exchanges=window)
    build = lambda: RequestView.from_exchange_log(  # noqa: E731
        log,
        instructions=[{"role": "system", "content": "sys"}],
        context_budget=budget,
        context_contributions=items,
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    try:
        view = build()
    except ContextBudgetExceededError:
        assert log.digest() == digest
        return
    s = view.selection
    all_ids = [e.exchange_id for e in log.exchanges]
    assert s.selected_units <= capacity
    assert sorted(s.selected_exchange_ids + s.omitted_exchange_ids) == all_ids
    assert set(s.protected_exchange_ids) <= set(s.selected_exchange_ids)
    if s.omitted_exchange_ids:
        (receipt,) = view.compaction_receipts
        assert receipt.input_exchange_ids == s.omitted_exchange_ids
        assert receipt.output_digest == view.selected_digest
        # Omission is a prefix of the eligible (closed, unprotected) exchanges: oldest go first.
        eligible = [i for i in all_ids if i not in s.protected_exchange_ids]
        assert list(s.omitted_exchange_ids) == eligible[: len(s.omitted_exchange_ids)]
    else:
        assert view.compaction_receipts == ()
    assert log.digest() == digest  # the log is never modified
    assert build().to_json() == view.to_json()  # deterministic
