"""`qitos-tui replay FOLDER`: the run list streams manifests in, newest first, with progress."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from waits import wait_until

from qitos.trace.runs import scan_runs
from tui import run_folder
from tui.app import make_app
from tui.run_folder import iter_run_batches
from tui.screens.dialogs import ErrorScreen
from tui.screens.run_list import RunListScreen


def make_runs(folder: Path, count: int, *, disagree: bool = False) -> None:
    """``count`` runs with bare manifests; run i was updated at minute i (folder mtime to match,
    or, with ``disagree``, reversed, so folder times mislead the first guess at the order)."""
    folder.mkdir(parents=True)
    for i in range(count):
        run = folder / f"run-{i:04d}"
        run.mkdir()
        manifest = {
            "run_id": f"run-{i:04d}",
            "status": "completed",
            "step_count": i % 7,
            "updated_at": f"2026-11-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00",
        }
        (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        stamp = 1_700_000_000 + (count - i if disagree else i) * 60
        os.utime(run, (stamp, stamp))
    (folder / ".hidden").mkdir()
    (folder / "not-a-run").mkdir()


def test_batches_come_newest_first_with_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The newest folders are read first; done grows to total; folders that are not runs are counted."""
    make_runs(tmp_path / "runs", 50)
    monkeypatch.setattr(run_folder, "FIRST_BATCH", 5)
    batches = list(iter_run_batches(tmp_path / "runs"))
    first = [r.run_id for r in batches[0].runs]
    assert first and first == [f"run-{i:04d}" for i in range(49, 49 - len(first), -1)]  # the newest
    assert batches[0].done == 5  # a first batch of FIRST_BATCH folders, not the whole folder
    assert [b.done for b in batches] == sorted(b.done for b in batches) and batches[-1].final
    assert batches[-1].done == batches[-1].total == 52 and batches[-1].skipped == 2
    assert [r.run_id for b in batches for r in b.runs] == [r.run_id for r in scan_runs(tmp_path / "runs")[0]]


def test_batch_gaps_double_after_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each later batch waits twice as long as the one before (up to a cap): few table relayouts."""
    make_runs(tmp_path / "runs", 120)
    monkeypatch.setattr(run_folder, "FIRST_BATCH", 5)
    monkeypatch.setattr(run_folder, "BATCH_SECONDS", 0.1)
    monkeypatch.setattr(run_folder, "MAX_BATCH_SECONDS", 0.4)
    ticks = iter(range(10_000))
    # A clock that moves 10 ms per reading (one reading per folder, one at the start).
    monkeypatch.setattr(run_folder.time, "monotonic", lambda: next(ticks) * 0.01)
    sizes = [b.done for b in iter_run_batches(tmp_path / "runs")]
    gaps = [b - a for a, b in zip(sizes, sizes[1:], strict=False)]
    # 0.1 s, 0.2 s, then 0.4 s (the cap) of 10 ms folders; a folder more where a gap is crossed.
    assert sizes[0] == 5 and [round(g, -1) for g in gaps[:4]] == [10, 20, 40, 40]


async def test_first_rows_show_while_manifests_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are in the table, with 'reading n/N folders', before the last manifest is read."""
    make_runs(tmp_path / "runs", 400)
    monkeypatch.setattr(run_folder, "FIRST_BATCH", 10)
    monkeypatch.setattr(run_folder, "BATCH_SECONDS", 0.0)  # then a batch per folder
    real_summarize = run_folder.summary_from_manifest
    first_batch_read = 0
    rest = threading.Event()

    def held_summarize(path: Path, manifest, problem):  # type: ignore[no-untyped-def]
        # The listing's worker reads the first batch, then waits until the test has looked at the
        # table: "before the last manifest is read" holds however slow or quick the machine is.
        nonlocal first_batch_read
        if first_batch_read < 10:
            first_batch_read += 1
        else:
            rest.wait(60)
        return real_summarize(path, manifest, problem)

    monkeypatch.setattr(run_folder, "summary_from_manifest", held_summarize)
    app = make_app(replay=tmp_path / "runs")
    async with app.run_test(size=(100, 24)) as pilot:
        try:
            # Not pilot.pause: waiting for idle would wait on the held listing.
            await wait_until(
                lambda: isinstance(app.screen, RunListScreen) and app.screen.runs, what="the first rows"
            )
            screen = app.screen
            assert screen.load_progress is not None and screen.runs[0].run_id == "run-0399"
            assert len(screen.runs) <= 10  # what was read before the hold: the rest is still to come
            assert "reading" in str(screen.query_one("#run-list-title").render())
        finally:
            rest.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.load_progress is None and len(screen.runs) == 400
        assert "400 runs in" in str(screen.query_one("#run-list-title").render())
        # The first row was drawn before later batches widened the columns: drawn again, not clipped.
        first_line = screen.query_one("#run-table").render_line(1).text
        assert "run-0399" in first_line and "completed" in first_line, first_line


async def test_order_is_by_manifest_time_even_when_folder_times_mislead(tmp_path: Path) -> None:
    """Folders touched in the opposite order: the list still ends newest first by manifest time."""
    make_runs(tmp_path / "runs", 120, disagree=True)
    app = make_app(replay=tmp_path / "runs")
    async with app.run_test(size=(100, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunListScreen)
        expected = [r.run_id for r in scan_runs(tmp_path / "runs")[0]]
        assert [r.run_id for r in screen.runs] == expected
        table = screen.query_one("#run-table")
        assert [table.render_line(1 + i).text.split()[0] for i in range(3)] == expected[:3]
        await pilot.press("down", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.store.run_id == expected[1]  # type: ignore[attr-defined]


async def test_a_folder_without_runs_says_so(tmp_path: Path) -> None:
    """No run folders: an error panel saying so, not an empty list."""
    (tmp_path / "empty" / "just-a-folder").mkdir(parents=True)
    app = make_app(replay=tmp_path / "empty")
    async with app.run_test(size=(100, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert app.screen.title_text == "No runs" and "holds no run directories" in app.screen.detail
