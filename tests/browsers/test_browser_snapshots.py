"""Snapshots of the real browser apps: memory browser with recall marks, the delete dialog, a skills diff."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_builders import memory_ready, memory_recalled, skills_ready

from tui.browsers import make_memory_app, make_skills_app

SIZES = [(80, 24), (120, 32)]
RECALL = {
    "record_ids": ["rec-002", "rec-004", "rec-000"],
    "records": [
        {
            "record_id": "rec-002",
            "role": "assistant",
            "content": "Root cause: add() subtracts its second argument.",
        },
        {"record_id": "rec-004", "role": "assistant", "content": "Fixed add() in calc.py."},
        {"record_id": "rec-000", "role": "user", "content": "An early note, deleted since."},
    ],
}


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x32"])
def test_memory_browser(snap_compare, memory_root: Path, global_root: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Records newest first, global ones marked, rejected files with reasons; a changed recall side by side."""
    app = make_memory_app(memory_root, global_dir=global_root, watch=False)
    assert snap_compare(app, press=["down"], terminal_size=size, run_before=memory_recalled(4, RECALL))


def test_memory_delete_dialog(snap_compare, memory_root: Path) -> None:  # type: ignore[no-untyped-def]
    """d on a record: the confirmation names it."""
    app = make_memory_app(memory_root, watch=False)
    assert snap_compare(app, press=["down", "d"], terminal_size=(100, 30), run_before=memory_ready)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x32"])
def test_skills_diff(snap_compare, skills_db: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The versions of fix-failing-check with v2 selected and its diff from v1."""
    app = make_skills_app(skills_db, watch=False)
    assert snap_compare(app, press=["tab", "down", "d"], terminal_size=size, run_before=skills_ready)
