"""Pieces the panes build their content from: a dimmed label before a value, a bar, a sparkline."""

from __future__ import annotations

from rich.style import StyleType
from rich.text import Text

from tui.text import inert


def kv(label: str, value: object, *, style: StyleType = "") -> Text:
    """A ``label value`` line with the label dimmed."""
    line = Text(f"{label} ", style="dim")
    line.append_text(inert(value, style))  # values come from the trace: shown inert
    return line


def bar(used: int, total: int, width: int) -> Text:
    """A horizontal bar of ``used`` out of ``total`` in ``width`` cells."""
    width = max(4, width)
    filled = 0 if total <= 0 else max(0, min(width, round(width * used / total)))
    out = Text("█" * filled, style="bold")
    out.append("░" * (width - filled), style="dim")
    return out


BLOCKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int) -> Text:
    """``values`` squeezed into ``width`` cells (each cell the max of its bucket) as block characters."""
    if not values or width <= 0:
        return Text("")
    buckets: list[float] = []
    n = len(values)
    cells = min(width, n)
    for c in range(cells):
        lo, hi = c * n // cells, max(c * n // cells + 1, (c + 1) * n // cells)
        buckets.append(max(values[lo:hi]))
    top = max(buckets) or 1.0
    return Text("".join(BLOCKS[round(8 * v / top)] for v in buckets), style="bold")
