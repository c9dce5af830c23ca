"""Budget pane: the selected request's budget as numbers and a bar, and used units across the run."""

from __future__ import annotations

from dataclasses import dataclass
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

NAME_CELLS = 20  # a category name is cut to this many cells (less one space)


@dataclass(frozen=True, slots=True)
class Columns:
    """The widths of the Budget table's columns: category name, figure, delta (each with a space)."""

    name: int
    figure: int
    delta: int

    def row(self, name: str, figure: int) -> str:
        """A category's name and figure in their columns (the name cut with … when too long)."""
        if len(name) >= self.name:
            name = name[: self.name - 2] + "…"
        return f"{name:<{self.name}}{figure:>{self.figure}} "


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
        names = [*BUDGET_CATEGORIES, *(k for k in used if k not in BUDGET_CATEGORIES)]
        shown = [n for n in names if n in used] + [n for n in deltas if n not in used]
        # Columns sized from what they hold (a trace may name any category, any figure), so every
        # figure, delta and bar starts in the same column; a name longer than NAME_CELLS is cut.
        cols = Columns(
            name=min(NAME_CELLS, max(len(n) for n in [*shown, "available"]) + 1),
            figure=max(
                7, *(len(str(v)) + 1 for v in [*used.values(), used_total, budget.available_units or 0])
            ),
            delta=max(6, *(len(signed(d)) + 1 for d in [*deltas.values(), sum(deltas.values())])),
        )
        width = self.content_width - cols.name - cols.figure - 1 - cols.delta
        lines = [totals, kv(f"step {step.step} max", f"{max_units} {unit}")]
        if before is not None:
            lines.append(Text(f"Δ: change since step {before.step}'s request", style="dim"))
        for name in shown:
            figure = used.get(name, 0)
            line = inert(cols.row(name, figure), style="" if name in used else "dim")  # names from the trace
            line.append(self._delta(deltas.get(name), cols.delta))
            if width >= 4 and name in used:  # a narrow pane keeps the figures and drops the bar
                line.append(bar(figure, max_units, width))
            lines.append(line)
        total_line = Text(cols.row("used", used_total), style="bold")
        total_line.append(self._delta(sum(deltas.values()) if deltas else None, cols.delta))
        if width >= 4:
            total_line.append(bar(used_total, max_units, width))
        lines.append(total_line)
        available = "?" if budget.available_units is None else budget.available_units
        line = Text(f"{'available':<{cols.name}}", style="dim")
        line.append(f"{available:>{cols.figure}}", style=self.tone("good", BOLD))
        lines.append(line)
        return Group(*lines)

    def _delta(self, delta: int | None, cells: int) -> Text:
        """A fixed-width ``Δ`` column: the change since the previous request, blank without one."""
        if delta is None:
            return Text(" " * cells)
        style = self.tone("warn") if delta > 0 else (self.tone("good") if delta < 0 else DIM)
        return Text(f"{signed(delta):>{cells - 1}} ", style=style)

    def _legend(self) -> Group:
        """The whole run as charts: used units, tokens and latency per step, failed steps marked."""
        store = self.store
        unit = next((s.budget.unit for s in store.steps if s.budget is not None), "units")
        return cost_charts(
            store.steps, max(8, self.content_width), store.used_series, unit, failed=self.tone("bad", BOLD)
        )
