"""The memory browser app driven by keys: listing, filter, detail, recall marks, delete and its refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_builders import build_many_records, build_memory_root, key_latency, run_writer, wait_until

from qitos.kit.memory.memdir_format import record_filename
from tui.browsers import make_memory_app
from tui.browsers.dialogs import DeleteRecordDialog
from tui.browsers.memory_model import RecallStatus, RowKind
from tui.browsers.memory_render import RecordList


async def _loaded(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await wait_until(lambda: app.browser.loads >= 1, what="the whole first load")
    await pilot.pause()


def _detail(app) -> str:  # type: ignore[no-untyped-def]
    return app.browser.detail_text()


async def test_lists_records_and_shows_detail(memory_root: Path, global_root: Path) -> None:
    """Every record with role, step, created, size and first line; the detail holds the full text."""
    app = make_memory_app(memory_root, global_dir=global_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        assert [r.record_id for r in browser.rows][:5] == [
            "rec-005",
            "rec-004",
            "rec-003",
            "rec-002",
            "rec-001",
        ]
        listing = app.query_one(RecordList)
        line = listing.row_text(4, 100).plain
        assert "user" in line and "    1 2026-11-30 10:00:00" in line and "190B" in line
        assert "The failing check is tests/test_math.py::test_add." in line
        assert "G assistant" in listing.row_text(5, 100).plain  # global rows are marked
        await pilot.press("end")
        assert browser.selected_row.kind is RowKind.REJECTED  # type: ignore[union-attr]
        assert "symlink (never followed)" in _detail(app)
        await pilot.press("home", "down", "down", "down", "down")
        assert browser.selected_row.record_id == "rec-001"  # type: ignore[union-attr]
        assert "It started after the refactor." in _detail(app)  # the second line: full text


async def test_filter_box_narrows_the_list(memory_root: Path) -> None:
    """f focuses the filter; typing narrows the rows; enter returns to the list; clearing restores all."""
    app = make_memory_app(memory_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        await pilot.press("f", *"assistant add", "enter")
        assert [r.record_id for r in app.browser.rows] == ["rec-004", "rec-002"]
        assert app.focused is app.query_one(RecordList)
        assert "2 shown" in str(app.query_one("#memory-summary").render())
        await pilot.press("f", "ctrl+u", "enter")
        assert len(app.browser.rows) == 7


async def test_delete_after_confirmation(memory_root: Path) -> None:
    """d names the record in a dialog; y deletes it through MemdirMemory.delete and reports it."""
    app = make_memory_app(memory_root, watch=False)
    path = memory_root / "records" / record_filename("rec-004")
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        await pilot.press("down", "d")
        dialog = app.screen
        assert isinstance(dialog, DeleteRecordDialog) and dialog.row.record_id == "rec-004"
        assert "Delete memory record rec-004?" in str(dialog.query_one(".dialog-title").render())
        await pilot.press("n")
        assert app.browser.last_message == "kept record rec-004" and path.exists()
        await pilot.press("d", "y")
        await wait_until(lambda: app.browser.view.record("rec-004") is None, what="the rescan after delete")
        assert not path.exists()
        assert app.browser.last_message == "deleted record rec-004"
        assert "rec-004" not in (memory_root / "MEMORY.md").read_text(encoding="utf-8")
        assert len(list((memory_root / "records").iterdir())) == 6  # 4 records + 2 rejected files kept


async def test_delete_of_a_record_that_vanished_meanwhile(memory_root: Path) -> None:
    """Another process removes the record while the dialog is open: a clear message, nothing else touched."""
    app = make_memory_app(memory_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        await pilot.press("d")
        before = sorted(p.name for p in (memory_root / "records").iterdir())
        run_writer("unlink", memory_root, "rec-005")
        await pilot.press("y")
        await wait_until(lambda: "already gone" in app.browser.last_message, what="the outcome")
        assert app.browser.last_message == "record rec-005 was already gone from disk; nothing deleted"
        after = sorted(p.name for p in (memory_root / "records").iterdir())
        assert after == [n for n in before if n != record_filename("rec-005")]


async def test_delete_refuses_a_record_turned_malformed(memory_root: Path) -> None:
    """The file became malformed after it was listed: MemdirMemory refuses, the browser says so."""
    app = make_memory_app(memory_root, watch=False)
    path = memory_root / "records" / record_filename("rec-005")
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        await pilot.press("d")
        path.write_text("garbage", encoding="utf-8")
        await pilot.press("y")
        await wait_until(lambda: app.browser.last_message.startswith("not deleted"), what="the refusal")
        assert "malformed" in app.browser.last_message and path.read_text(encoding="utf-8") == "garbage"


@pytest.mark.parametrize("target", ["global", "rejected"])
async def test_delete_refuses_global_and_rejected_rows(
    memory_root: Path, global_root: Path, target: str
) -> None:
    """Global records are read-only and rejected files are never deleted: no dialog, a clear message."""
    app = make_memory_app(memory_root, global_dir=global_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        before = {
            p: p.read_bytes()
            for root in (memory_root, global_root)
            for p in (root / "records").glob("*.md")
            if not p.is_symlink()
        }
        keys = ["down"] * 5 if target == "global" else ["end"]
        await pilot.press(*keys, "d")
        assert not isinstance(app.screen, DeleteRecordDialog)
        message = app.browser.last_message
        if target == "global":
            assert message == "record glob-002 is in global memory, which is read-only here"
        else:
            assert "is a rejected file (symlink (never followed)); the browser does not delete it" in message
        after = {p: p.read_bytes() for p in before}
        assert after == before and (memory_root / "records" / record_filename("link-1")).is_symlink()


async def test_missing_root_gives_a_clear_message_and_is_not_created(tmp_path: Path) -> None:
    """A memory root that does not exist: the message says so; the directory is never created."""
    missing = tmp_path / "nowhere"
    app = make_memory_app(missing)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.browser.error is not None and "memory_dir does not exist" in app.browser.error
        assert "does not exist" in str(app.query_one("#memory-summary").render())
        await pilot.press("d")
        assert app.browser.last_message == "no record selected"
        await pilot.press("q")
    assert app.return_code == 1  # the CLI exits non-zero after showing the error
    assert not missing.exists()


async def test_recall_marks_show_changed_and_gone_records(memory_root: Path) -> None:
    """show_recall: the recalled content beside the current one for a changed record; a gone one listed."""
    app = make_memory_app(memory_root, watch=False)
    recall = {
        "record_ids": ["rec-002", "rec-003", "rec-004"],
        "records": [
            {
                "record_id": "rec-002",
                "role": "assistant",
                "content": "Root cause: add() subtracts its second argument.",
            },
            {"record_id": "rec-003", "role": "tool", "content": "pytest: 1 failed, 4 passed in 0.12s"},
            {"record_id": "rec-004", "role": "assistant", "content": "Fixed add() in calc.py."},
        ],
    }
    run_writer("unlink", memory_root, "rec-003")
    async with app.run_test(size=(120, 36)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        browser.show_recall(4, [recall])
        await pilot.pause()
        assert {k: m.status for k, m in browser.marks.items()} == {
            "rec-002": RecallStatus.UNCHANGED,
            "rec-003": RecallStatus.GONE,
            "rec-004": RecallStatus.CHANGED,
        }
        assert "step 4: 3 recalled (1 changed, 1 gone since)" in str(
            app.query_one("#memory-summary").render()
        )
        assert browser.select_record("rec-004")
        await pilot.pause()
        detail = _detail(app)
        assert "recalled at step 4; changed on disk since" in detail
        assert (
            "Fixed add() in calc.py." in detail
            and "Fixed add() in src/calc.py; all tests pass now." in detail
        )
        assert browser.select_record("rec-003")
        await pilot.pause()
        assert browser.selected_row.kind is RowKind.GONE  # type: ignore[union-attr]
        assert "deleted from disk since" in _detail(app)
        await pilot.press("d")
        assert browser.last_message == "record rec-003 is already gone from disk"
        browser.show_recall(None, [])
        await pilot.pause()
        assert browser.marks == {} and all(r.kind is not RowKind.GONE for r in browser.rows)


@pytest.mark.slow
async def test_ten_thousand_records_stay_responsive(tmp_path: Path) -> None:
    """10,000 records: every navigation key moves the cursor, re-renders the visible rows and the
    detail follows (how fast is tests/benchmarks/bench_browsers.py's navigation row, beside its floor)."""
    root = build_many_records(tmp_path / "many", 10_000)
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(lambda: app.browser.loads >= 1, timeout=30, what="the whole first load")
        await pilot.pause()
        assert len(app.browser.rows) == 10_000
        browser = app.browser

        def detail_follows() -> bool:
            row = browser.selected_row
            return row is not None and browser.detail_text().startswith(row.record_id)

        keys = ["down"] * 20 + ["pagedown"] * 5 + ["end", "home"]
        for key in keys:  # key_latency fails if a key's cursor move or detail never shows
            await key_latency(app, key, detail_follows)
        assert app.browser.selected_row.record_id == "r09999"  # type: ignore[union-attr]


async def test_keys_are_remappable_and_rows_clickable(memory_root: Path) -> None:
    """set_keymap moves delete to another key; a click selects the row under the mouse."""
    app = make_memory_app(memory_root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        app.set_keymap({"memory.delete": "x"})
        await pilot.click(RecordList, offset=(10, 2))
        assert app.browser.selected_row.record_id == "rec-003"  # type: ignore[union-attr]
        await pilot.press("d")
        assert not isinstance(app.screen, DeleteRecordDialog)
        await pilot.press("x")
        assert isinstance(app.screen, DeleteRecordDialog) and app.screen.row.record_id == "rec-003"
        await pilot.press("escape")
        assert app.browser.last_message == "kept record rec-003"


async def test_a_huge_record_is_cut_in_the_detail_with_a_note(tmp_path: Path) -> None:
    """A 300,000-character record: the detail shows the head and says how much it left out."""
    root = build_memory_root(tmp_path / "m", records=[("big-1", "tool", 1, "x" * 300_000)])
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(app, pilot)
        detail = app.browser.detail_text(200)
        assert "… 200,000 more characters not shown (open the file to read them)" in detail
        assert (
            app.browser.rows[0].size > 300_000 and "293K" in app.query_one(RecordList).row_text(0, 100).plain
        )
