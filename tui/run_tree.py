"""The run list's order: each fork right under the run it was forked from, indented."""

from __future__ import annotations

from typing import Any


def with_forks(runs: list[Any]) -> list[tuple[Any, int]]:
    """``(run, depth)`` in list order, each run's forks (``parent_run_id``) right after it.

    A fork whose parent is not in the list stays where it was, at the top level; a cycle of
    manifests naming each other cannot loop (each run is placed once)."""
    ids = {run.run_id for run in runs}
    children: dict[str, list[Any]] = {}
    for run in runs:
        parent = getattr(run, "parent_run_id", None)
        if parent is not None and parent in ids and parent != run.run_id:
            children.setdefault(parent, []).append(run)
    placed: set[int] = set()
    out: list[tuple[Any, int]] = []

    def place(run: Any, depth: int) -> None:
        if id(run) in placed:
            return
        placed.add(id(run))
        out.append((run, depth))
        for child in children.get(run.run_id, []):
            place(child, depth + 1)

    for run in runs:
        parent = getattr(run, "parent_run_id", None)
        if parent is None or parent not in ids or parent == run.run_id:
            place(run, 0)
    for run in runs:  # what only a cycle left unplaced
        place(run, 0)
    return out


def run_label(run: Any, depth: int) -> str:
    """The run id as the list shows it: indented under its parent, with the fork step."""
    label = run.run_id
    if getattr(run, "parent_run_id", None) is not None:
        step = getattr(run, "fork_step", None)
        label += f" (fork @ step {step if step is not None else '?'})"
    return ("  " * (depth - 1) + "↳ " if depth else "") + label
