"""Cost over time: tokens and latency per step in the step list; charts of the whole run in Budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui import screenshots
from tui.app import make_app
from tui.panes.budget import BudgetPane
from tui.panes.cost_chart import bucket_bounds, compact, failures
from tui.store import StepSummary
from tui.widgets.step_list import StepList, step_cost

SIZES = [(80, 24), (160, 48)]


def test_figures_and_buckets() -> None:
    assert compact(1234, "tokens") == "1.2k tokens" and compact(1500, "ms") == "1.5 s"
    assert compact(6.5, "ms") == "6.5 ms" and compact(170, "tokens") == "170 tokens"
    assert bucket_bounds(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert bucket_bounds(2, 5) == [(0, 1), (1, 2)]
    steps = [StepSummary(k, 0, 0) for k in range(4)]
    assert failures(steps, 4) is None
    steps[2].ok = False
    marks = failures(steps, 2)
    assert marks is not None and marks.plain.startswith(" ✗")  # the second cell holds step 2
    assert step_cost(StepSummary(0, 0, 0, tokens=1234, latency_ms=1500.0)) == "1.2kt 1.5s"
    assert step_cost(StepSummary(0, 0, 0)) == ""


async def test_step_list_and_budget_show_the_cost_of_every_step(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        store = app.screen.store
        # Step 2: a 140-token response (5 ms) and a failed tool result (1.5 ms).
        assert store.steps[2].tokens == 140 and store.steps[2].latency_ms == pytest.approx(6.5)
        row = app.screen.query_one(StepList).render_line(2).text
        assert row.rstrip().endswith("140t 6ms")
        budget = app.screen.query_one(BudgetPane).plain(60)
        assert "used chars per step, top 1.1k chars:" in budget
        assert "tokens per step, top 170 tokens:" in budget
        assert "latency per step, top 6.5 ms:" in budget
        lines = budget.splitlines()
        marks = next(line for line in lines if "✗ failed" in line)
        assert marks.index("✗") == 2  # step 2 of six steps, one cell each
        assert "step 0" in lines[lines.index(marks) + 1] or "steps 0–5" in lines[lines.index(marks) + 1]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_cost_over_time(snap_compare, synthetic_run: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Budget with the charts of the whole run, the failed step marked; step list with tokens and latency."""
    keys = ["right", "right"] + (["3"] if size == (80, 24) else [])
    app = make_app(replay=synthetic_run)
    assert snap_compare(app, press=keys, terminal_size=size, run_before=screenshots.settle)
