"""Read an app's SVG screenshot back as text runs: what a renderer draws, run by run and cell by cell."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

CELL = 12.2  # the width of a cell in Rich's SVG export (textLength per character)
_RUN = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)" textLength="[\d.]+"[^>]*>([^<]*)</text>')


@dataclass(frozen=True)
class Run:
    """One <text> element of the screenshot: its row, first cell and text."""

    row: int
    cell: int
    text: str


def runs(svg: str) -> list[Run]:
    """Every text run of the screenshot, in document order, with rows counted from 0."""
    found = [(float(y), round(float(x) / CELL), html.unescape(t)) for x, y, t in _RUN.findall(svg)]
    rows = sorted({y for y, _, _ in found})
    return [Run(rows.index(y), cell, text) for y, cell, text in found]


def screen_lines(svg: str) -> list[str]:
    """The screenshot as lines of text, each run put at its own cell."""
    lines: dict[int, list[str]] = {}
    for run in runs(svg):
        line = lines.setdefault(run.row, [])
        line.extend(" " * (run.cell + len(run.text) - len(line)))
        line[run.cell : run.cell + len(run.text)] = run.text
    shown = [
        "".join(lines.get(row, [])).replace("\u00a0", " ").rstrip()
        for row in range(max(lines, default=-1) + 1)
    ]
    return shown


def runs_starting_with_a_space(svg: str, row: int, before: int = 10_000) -> list[str]:
    """The runs of ``row`` (those starting left of cell ``before``) that start with a space and go
    on to show something: SVG renderers such as rsvg drop a run's leading space, moving the rest
    of the run one cell left."""
    return [
        r.text
        for r in runs(svg)
        if r.row == row
        and r.cell < before
        and r.text[:1] == "\u00a0"
        and r.text.replace("\u00a0", "").strip()
    ]
