"""The memory browser with big roots: batches with progress, editors' saves re-read alone, keys while busy."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_builders import build_many_records, build_memory_root, run_writer, wait_until
from browser_writer import SAVE_STYLES
from textual import events

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.browsers import make_memory_app, memory_files
from tui.browsers.memory_files import iter_batches
from tui.browsers.memory_render import RecordList


def test_batches_start_with_the_newest_records_and_count_progress(tmp_path: Path) -> None:
    """MEMORY.md's newest files come first, then batches whose done/total only grow to the end."""
    root = build_many_records(tmp_path / "m", 1_000)
    batches = list(iter_batches(root, None))
    assert [r.record_id for r in batches[0].rows][:3] == ["r00999", "r00998", "r00997"]
    assert batches[0].total is None and batches[-1].final
    assert [b.done for b in batches] == sorted(b.done for b in batches)
    assert batches[-1].done == batches[-1].total == 1_000
    assert sum(len(b.rows) for b in batches) == 1_000


async def test_rows_show_while_the_load_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first rows are on screen, with 'loading n/N files', before the last file is read."""
    root = build_many_records(tmp_path / "m", 600)
    monkeypatch.setattr(memory_files, "FIRST_BATCH", 20)
    monkeypatch.setattr(memory_files, "BATCH_SECONDS", 0.0)  # then a batch per file: a long load
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await wait_until(lambda: len(browser.rows) > 0, what="the first batch")
        assert browser.load_progress is not None and browser.loads == 0
        assert browser.rows[0].record_id == "r00599"  # the newest, from MEMORY.md's hints
        await pilot.pause()
        summary = str(app.query_one("#memory-summary").render())
        assert "loading" in summary and "/600 files" in summary, summary
        await wait_until(lambda: browser.loads == 1, timeout=60, what="the whole load")
        assert len(browser.rows) == 600 and browser.load_progress is None
        assert "loading" not in str(app.query_one("#memory-summary").render())


@pytest.mark.parametrize("style", SAVE_STYLES)
async def test_an_editor_save_rereads_only_that_file(memory_root: Path, style: str) -> None:
    """However an editor saves (in place, temp renamed over it, vim's probe/backup/swap), the row
    changes, no scratch file is ever listed, and the root is not read again."""
    MemdirMemory(str(memory_root)).append(MemoryRecord("tool", "sample -", 1, record_id="rec-bench"))
    app = make_memory_app(memory_root)
    async with app.run_test(size=(100, 30)):
        browser = app.browser
        await wait_until(lambda: browser.loads == 1 and browser.live, what="the load and the watcher")
        listed = {r.key for r in browser.rows}
        for n in range(3):
            run_writer("save", memory_root, "rec-bench", f"saved {n}", style)
            await wait_until(
                lambda n=n: browser.view.record("rec-bench").content == f"saved {n}",  # type: ignore[union-attr]
                what=f"save {n} ({style})",
            )
        await wait_until(lambda: not any(w.is_running for w in app.workers if w.group == "memory-patch"))
        assert {r.key for r in browser.rows} == listed  # no temp, backup or swap file ever became a row
        assert browser.loads == 1  # re-read file by file: never a full load


async def test_filter_keys_typed_at_once_reach_the_filter_while_loading(tmp_path: Path) -> None:
    """`f` then typing, all queued before the first is handled: every key reaches the filter box,
    none moves the list (here `k` would be Up and `j` Down), even while a load is running."""
    root = build_many_records(tmp_path / "m", 3_000)
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        browser = app.browser
        await wait_until(lambda: len(browser.rows) > 0, what="the first batch")
        listing = app.query_one(RecordList)
        listing.cursor = 5
        await pilot.pause()
        for char in "fkj9":  # as a terminal delivers a burst: all posted before any is processed
            app.post_message(events.Key(char, char))
        await wait_until(lambda: app.query_one("#memory-filter").value == "kj9", what="the typed text")
        assert app.focused is app.query_one("#memory-filter")
        assert listing.cursor == 5 or browser.filter_text == "kj9"
        await wait_until(lambda: browser.loads == 1, timeout=60, what="the load")
        assert browser.filter_text == "kj9" and len(browser.rows) == 0


async def test_deleting_rereads_only_the_deleted_file(memory_root: Path) -> None:
    """Deleting through the browser removes the row without a new full load."""
    app = make_memory_app(memory_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        browser = app.browser
        await wait_until(lambda: browser.loads == 1, what="the load")
        assert browser.select_record("rec-004")
        await pilot.press("d")
        await pilot.press("y")
        await wait_until(lambda: browser.view.record("rec-004") is None, what="the deletion")  # type: ignore[union-attr]
        assert browser.loads == 1 and all(r.record_id != "rec-004" for r in browser.rows)


def test_build_memory_root_is_usable(tmp_path: Path) -> None:
    """The small fixture root loads in one final batch with its rejected files."""
    root = build_memory_root(tmp_path / "m")
    batches = list(iter_batches(root, None))
    assert batches[-1].final and sum(len(b.rows) for b in batches) == 7


async def test_a_replaced_records_folder_is_loaded_and_watched_again(
    memory_root: Path, tmp_path: Path
) -> None:
    """The watch covers each folder, not the tree: a records/ folder swapped for another is seen in
    its root, loaded, and the new folder's later edits still show."""
    app = make_memory_app(memory_root)
    async with app.run_test(size=(100, 30)):
        browser = app.browser
        await wait_until(lambda: browser.loads == 1 and browser.live, what="the load and the watcher")
        fresh = build_memory_root(
            tmp_path / "other", records=[("swapped-in", "user", 1, "from the new folder")]
        )
        records = memory_root / "records"
        records.rename(tmp_path / "old-records")
        (fresh / "records").rename(records)
        await wait_until(
            lambda: browser.view.record("swapped-in") is not None, what="the new folder's records"
        )  # type: ignore[union-attr]
        assert browser.view.record("rec-001") is None  # type: ignore[union-attr]
        await wait_until(lambda: browser.live, what="the watch on the new folder")
        run_writer("edit", memory_root, "swapped-in", "edited in the new folder")
        await wait_until(
            lambda: browser.view.record("swapped-in").content == "edited in the new folder",  # type: ignore[union-attr]
            what="an edit in the new folder",
        )
