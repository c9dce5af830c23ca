"""Charts of a whole run for the Budget pane: a series per step as block characters, with its scale
(the unit and the value of a full block), the steps it spans, and the failed steps marked below."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Group
from rich.style import StyleType
from rich.text import Text

from tui.panes.parts import BLOCKS
from tui.store import StepSummary


def bucket_bounds(n: int, cells: int) -> list[tuple[int, int]]:
    """``cells`` consecutive ranges covering ``n`` items (each at least one item), as (lo, hi)."""
    cells = min(cells, n)
    return [(c * n // cells, max(c * n // cells + 1, (c + 1) * n // cells)) for c in range(cells)]


def compact(value: float, unit: str) -> str:
    """``value`` in few characters: 1234 tokens -> 1.2k tokens, 1500 ms -> 1.5 s."""
    if unit == "ms" and value >= 1000:
        return f"{value / 1000:.1f} s"
    if value >= 10_000:
        return f"{value / 1000:.0f}k {unit}"
    if value >= 1000:
        return f"{value / 1000:.1f}k {unit}"
    return f"{value:.0f} {unit}" if value == int(value) or value >= 10 else f"{value:.1f} {unit}"


def chart(title: str, values: Sequence[float], width: int, unit: str) -> list[Text]:
    """A titled chart line: each cell the largest value of its steps, a full block = the largest."""
    if not values or width <= 0:
        return []
    bounds = bucket_bounds(len(values), width)
    peaks = [max(values[lo:hi]) for lo, hi in bounds]
    top = max(peaks) or 1.0
    head = Text(f"{title}, top {compact(max(peaks), unit)}:", style="dim")
    return [head, Text("".join(BLOCKS[round(8 * v / top)] for v in peaks), style="bold")]


def axis(steps: Sequence[StepSummary], width: int) -> Text:
    """The first and last step ids under a chart of ``width`` cells."""
    cells = min(width, len(steps))
    if not steps or cells <= 0:
        return Text("")
    left, right = f"step {steps[0].step}", f"{steps[-1].step}"
    gap = cells - len(left) - len(right)
    line = f"{left}{' ' * gap}{right}" if gap >= 1 else f"steps {steps[0].step}–{steps[-1].step}"
    return Text(line, style="dim")


def failures(steps: Sequence[StepSummary], width: int, style: StyleType = "bold") -> Text | None:
    """``✗`` under each cell that holds a failed step; None when no step failed."""
    if not steps or all(s.ok for s in steps):
        return None
    marks = "".join(
        "✗" if any(not s.ok for s in steps[lo:hi]) else " " for lo, hi in bucket_bounds(len(steps), width)
    )
    line = Text(marks, style=style)
    line.append("  ✗ failed", style="dim")
    return line


def cost_charts(
    steps: Sequence[StepSummary],
    width: int,
    series: Callable[[], list[float]],
    unit: str,
    *,
    failed: StyleType = "bold",
) -> Group:
    """Used budget units, tokens and latency per step over the whole run, failed steps marked
    (in ``failed``)."""
    parts: list[Text] = []
    used = series()
    if any(used):
        parts.extend(chart(f"used {unit} per step", used, width, unit))
    tokens = [float(s.tokens) for s in steps]
    if any(tokens):
        parts.extend(chart("tokens per step", tokens, width, "tokens"))
    latency = [s.latency_ms for s in steps]
    if any(latency):
        parts.extend(chart("latency per step", latency, width, "ms"))
    if not parts:
        return Group(Text("no step of this run recorded a budget, tokens or latency", style="dim"))
    marks = failures(steps, width, failed)
    if marks is not None:
        parts.append(marks)
    parts.append(axis(steps, width))
    return Group(*parts)
