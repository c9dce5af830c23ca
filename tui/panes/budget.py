"""Budget pane: the selected request's budget as numbers and a bar, and used units across the run."""

from __future__ import annotations

from functools import partial

from rich.console import Group, RenderableType
from rich.text import Text

from tui.panes.base import Block, Blocks, LinePane
from tui.panes.cost_chart import cost_charts
from tui.panes.parts import bar, kv
from tui.request_diff import budget_deltas, previous_budget_step, signed
from tui.store import BUDGET_CATEGORIES, StepSummary
from tui.text import inert
from tui.widgets.tones import BOLD, DIM


class BudgetPane(LinePane):
    """Max, used per category and available units; a sparkline of used units for every step."""

    TITLE = "Budget"
    RENDERS_BLOCKS = True

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        # Run totals and the sparkline cover every step: they change with every revision (the
        # screen bumps it whenever it shows newly folded events).
        return (*super().view_key(step), self.revision)

    def render_step(self, step: StepSummary) -> RenderableType:
        # The sparkline covers the whole run: built again when the screen shows newly folded
        # events (a revision), not at every step of a run still folding in the background.
        legend = Block(("legend", self.revision), self._legend)
        return Blocks([Block(("figures", *self.view_key(step)), partial(self._figures, step)), legend])

    def _figures(self, step: StepSummary) -> Group:
        """Run totals, then the step's budget: max, used per category with bars, available."""
        store = self.store
        totals = kv(
            "run",
            f"{len(store.steps)} steps · {store.tokens} tokens · {store.event_count} events",
            style="bold",
        )
        budget = step.budget
        if budget is None:
            return Group(totals, Text(f"step {step.step}: no budget recorded for this request", style="dim"))
        unit = budget.unit
        max_units = budget.max_units
        used = dict(budget.used)
        used_total = budget.used_total
        before = previous_budget_step(self.store, step)
        deltas = budget_deltas(before, step)
        width = self.content_width - 27  # name 13, figure 7, a space, delta 6
        lines = [totals, kv(f"step {step.step} max", f"{max_units} {unit}")]
        if before is not None:
            lines.append(Text(f"Δ: change since step {before.step}'s request", style="dim"))
        for name in [*BUDGET_CATEGORIES, *(k for k in used if k not in BUDGET_CATEGORIES)]:
            if name in used:
                line = inert(f"{name:<13}{used[name]:>7} ")  # category names come from the trace
                line.append(self._delta(deltas.get(name)))
                if width >= 4:  # a narrow pane keeps the figures and drops the bar
                    line.append(bar(used[name], max_units, width))
                lines.append(line)
        for name, delta in deltas.items():
            if name not in used:  # a category the previous request used and this one does not
                line = inert(f"{name:<13}{0:>7} ", style="dim")
                line.append(self._delta(delta))
                lines.append(line)
        total_line = Text(f"{'used':<13}{used_total:>7} ", style="bold")
        total_line.append(self._delta(sum(deltas.values()) if deltas else None))
        if width >= 4:
            total_line.append(bar(used_total, max_units, width))
        lines.append(total_line)
        available = "?" if budget.available_units is None else budget.available_units
        lines.append(kv(f"{'available':<13}", f"{available:>6}", style=self.tone("good", BOLD)))
        return Group(*lines)

    def _delta(self, delta: int | None) -> Text:
        """A fixed-width ``Δ`` column: the change since the previous request, blank without one."""
        if delta is None:
            return Text(" " * 6)
        style = self.tone("warn") if delta > 0 else (self.tone("good") if delta < 0 else DIM)
        return Text(f"{signed(delta):>5} ", style=style)

    def _legend(self) -> Group:
        """The whole run as charts: used units, tokens and latency per step, failed steps marked."""
        store = self.store
        unit = next((s.budget.unit for s in store.steps if s.budget is not None), "units")
        return cost_charts(
            store.steps, max(8, self.content_width), store.used_series, unit, failed=self.tone("bad", BOLD)
        )
