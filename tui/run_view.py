"""What the run list shows: its columns, each run's cells, and the rows a filter and a sort leave.

Kept apart from the widget so that filtering and sorting 10,000 runs is plain Python over text
worked out once per run (a keystroke of the filter costs a substring test per run, not a redraw of
a table), and so that it is tested without Textual.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len

from tui.run_tree import run_label, with_forks
from tui.text import inert_line

__all__ = ["COLUMNS", "Column", "ListedRow", "RunView", "format_duration"]


@dataclass(frozen=True)
class Column:
    """One column: its title, the widest it is drawn, and how its runs sort."""

    title: str
    cap: int  # the column is never drawn wider (a long task id or model name is cut with …)
    numeric: bool = False  # right-aligned, sorted by number (a blank sorts below every figure)


COLUMNS: tuple[Column, ...] = (
    Column("run", 48),
    Column("status", 11),
    Column("task", 28),
    Column("steps", 7, numeric=True),
    Column("tokens", 10, numeric=True),
    Column("errors", 6, numeric=True),
    Column("duration", 9, numeric=True),
    Column("stop reason", 16),
    Column("model", 24),
    Column("updated", 16),
)
UPDATED = COLUMNS.index(next(c for c in COLUMNS if c.title == "updated"))


def format_duration(seconds: float | None) -> str:
    """``4.2s``, ``3m05s``, ``2h14m``; blank when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return ""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _figure(value: Any) -> str:
    # Without separators, as the run screen's header writes them (the same number to look for).
    return "" if value is None else str(value)


@dataclass(slots=True)
class ListedRow:
    """A run as the list shows it: its cells as inert one-line text, worked out once."""

    run: Any  # a RunSummary (or anything with its fields)
    cells: tuple[str, ...]  # every column but the run's own (its label depends on the tree)
    sort_keys: tuple[Any, ...]  # per column
    haystack: str  # what the filter looks in, lower-cased
    label_width: int  # cells of the run column when not indented as a fork

    @classmethod
    def of(cls, run: Any) -> ListedRow:
        """The row of ``run``; a manifest is untrusted, so every cell is inert text."""
        steps = getattr(run, "steps", None)
        tokens = getattr(run, "tokens", None)
        errors = getattr(run, "errors", None)
        duration = getattr(run, "duration", None)
        updated = str(getattr(run, "updated_at", None) or "")[:16].replace("T", " ")
        cells = tuple(
            inert_line(value)
            for value in (
                getattr(run, "status", "") or "",
                getattr(run, "task", None) or "",
                "?" if steps is None else _figure(steps),
                "?" if tokens is None else _figure(tokens),
                _figure(errors),
                format_duration(duration),
                getattr(run, "stop_reason", None) or "",
                getattr(run, "model_id", None) or "",
                updated,
            )
        )
        run_id = inert_line(run.run_id)
        keys = (
            run_id.lower(),
            cells[0].lower(),
            cells[1].lower(),
            _number(steps),
            _number(tokens),
            _number(errors),
            _number(duration),
            cells[6].lower(),
            cells[7].lower(),
            (getattr(run, "updated_at", None) or "", run.run_id),  # the list's own order
        )
        parent = getattr(run, "parent_run_id", None) or ""
        haystack = " ".join((run_id, *cells, inert_line(parent))).lower()
        return cls(run, cells, keys, haystack, cell_len(inert_line(run_label(run, 0))))


def _number(value: Any) -> float:
    """A figure as a sort key; a blank sorts as the smallest."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -math.inf


class RunView:
    """Every run read so far, and the rows shown: those matching the filter, in the chosen order,
    each fork right under its parent (when its parent is shown too)."""

    def __init__(self) -> None:
        self.rows: list[ListedRow] = []  # every run, in the order read
        self.shown: list[tuple[ListedRow, int]] = []  # (row, fork depth), in display order
        self.filter = ""
        self.sort_column = UPDATED
        self.descending = True  # newest first, as the list opens
        self.widths = [cell_len(c.title) for c in COLUMNS]  # the widest cell so far, per column
        self._forks = False  # whether any run names a parent (else no tree to lay out)
        self._ordered: list[ListedRow] | None = None  # every row in the chosen order, kept
        # between filter keystrokes (a keystroke then costs a pass, not a sort)

    def add(self, runs: list[Any]) -> None:
        """Take in newly read runs (then call :meth:`arrange`)."""
        widths = self.widths
        for run in runs:
            row = ListedRow.of(run)
            self.rows.append(row)
            self._forks = self._forks or getattr(run, "parent_run_id", None) is not None
            for k, cell in enumerate(row.cells, start=1):
                n = len(cell) if cell.isascii() else cell_len(cell)
                if n > widths[k]:
                    widths[k] = n
        self._ordered = None

    def _in_order(self) -> list[ListedRow]:
        """Every row in the chosen order; ties in the list's own order (newest first), whatever
        order the runs were read in."""
        if self._ordered is None:
            rows = sorted(self.rows, key=lambda r: r.sort_keys[UPDATED], reverse=True)
            k = self.sort_column
            if k != UPDATED or not self.descending:
                rows.sort(key=lambda r: r.sort_keys[k], reverse=self.descending)
            self._ordered = rows
        return self._ordered

    def arrange(self) -> None:
        """Work out the shown rows again: filter, sort, then the forks under their parents."""
        needle = self.filter.lower()
        ordered = self._in_order()
        rows = [r for r in ordered if needle in r.haystack] if needle else ordered
        if self._forks:
            by_run = {id(r.run): r for r in rows}
            self.shown = [(by_run[id(run)], depth) for run, depth in with_forks([r.run for r in rows])]
            run_width = max((cell_len(inert_line(run_label(r.run, d))) for r, d in self.shown), default=0)
        else:
            self.shown = [(r, 0) for r in rows]
            run_width = max((r.label_width for r in rows), default=0)
        self.widths[0] = max(run_width, cell_len(COLUMNS[0].title))

    def set_sort(self, column: int, *, descending: bool | None = None) -> None:
        """Sort by ``column`` (then call :meth:`arrange`); figures and times start with the
        largest, text with A."""
        self.sort_column = column % len(COLUMNS)
        chosen = COLUMNS[self.sort_column]
        if descending is None:
            descending = chosen.numeric or self.sort_column == UPDATED
        self.descending = descending
        self._ordered = None

    def label(self, position: int) -> str:
        """The run column of shown row ``position`` (a fork indented under its parent)."""
        row, depth = self.shown[position]
        return inert_line(run_label(row.run, depth))

    def width(self, column: int) -> int:
        """How wide ``column`` is drawn: its widest cell, at most its cap."""
        return min(self.widths[column], COLUMNS[column].cap)

    def count(self) -> tuple[int, int]:
        """(rows shown, runs read)."""
        return len(self.shown), len(self.rows)

    def position_of(self, match: Callable[[Any], bool]) -> int | None:
        """The shown position of the first run ``match`` accepts."""
        return next((k for k, (row, _) in enumerate(self.shown) if match(row.run)), None)
