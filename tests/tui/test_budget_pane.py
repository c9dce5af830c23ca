"""Budget pane: the run totals and sparkline follow the store as the screen shows new events."""

from __future__ import annotations

import re

from textual.app import App, ComposeResult

from tui.panes.budget import BudgetPane
from tui.store import ListSource, RunStore
from tui.synthetic import synthetic_events


def drawn(pane: BudgetPane) -> str:
    """What the pane draws (its rendered lines, not a fresh rendering of its content)."""
    return "\n".join(pane.line_at(i).text for i in range(pane.virtual_size.height))


async def test_the_sparkline_follows_the_store_whatever_order_step_and_revision_arrive_in() -> None:
    # A live screen selects the newest step and then bumps its revision; the pane re-renders on
    # the step first, when the store already holds events its cached sparkline has not seen.
    events = list(synthetic_events(6, pause_at=None))
    store = RunStore(ListSource(events))

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield BudgetPane(store)

    async with PaneApp().run_test(size=(100, 30)) as pilot:
        pane = pilot.app.query_one(BudgetPane)
        first_request = next(i for i, e in enumerate(events) if e.phase == "model_request")
        store.apply(events[:first_request], 0)  # no budget recorded yet
        pane.revision = 1
        await pilot.pause()
        assert "no step of this run recorded a budget, tokens or latency" in drawn(pane)
        store.apply(events[first_request:], first_request)
        pane.selected = len(store.steps) - 1  # the step first, as the screen pushes it down
        pane.revision = 2
        await pilot.pause()
        shown = drawn(pane)
        assert "used chars per step, top" in shown and "no step of this run" not in shown
        assert f"run {len(store.steps)} steps" in shown


class BudgetApp(App[None]):
    """The Budget pane alone over a store."""

    def __init__(self, store: RunStore) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield BudgetPane(self.store)


async def test_bars_line_up_with_their_figures_whatever_the_names_and_figures() -> None:
    """A category named longer than the default column and a figure of seven digits: every
    figure ends, and every bar starts, in the same column."""
    events = list(synthetic_events(2, pause_at=None))
    last = max(i for i, e in enumerate(events) if e.phase == "model_request")
    budget = events[last].payload["view"]["budget"]
    budget["used"] = {**budget["used"], "retrieved_documents": 1234567}
    budget["max_units"] = 2_000_000
    store = RunStore(ListSource(events))
    store.apply(events, 0)
    async with BudgetApp(store).run_test(size=(100, 30)) as pilot:
        pane = pilot.app.query_one(BudgetPane)
        pane.selected = len(store.steps) - 1
        await pilot.pause()
        rows = [
            line
            for line in drawn(pane).splitlines()
            if line.startswith(("instructions", "retrieved", "used ")) and "per step" not in line
        ]
        assert len(rows) == 3, drawn(pane)
        figure_ends = {re.search(r"\d+ ", row).end() for row in rows}  # type: ignore[union-attr]
        bar_starts = {min(i for i, c in enumerate(row) if c in "█░") for row in rows}
        assert len(figure_ends) == 1 and len(bar_starts) == 1, rows
        assert "1234567" in rows[1] and "retrieved_documents" in rows[1]
