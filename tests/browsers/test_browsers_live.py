"""Another process edits, adds and deletes records and publishes skills while the apps run: the screen follows."""

from __future__ import annotations

from pathlib import Path

from browser_builders import build_skills_db, run_writer, wait_until

from qitos.kit.memory.memdir_format import record_filename
from tui.browsers import SkillsBrowser, SkillsBrowserApp, make_memory_app, make_skills_app
from tui.browsers.memory_model import RecallStatus, RowKind
from tui.browsers.memory_render import RecordList


async def test_memory_browser_follows_another_process(memory_root: Path) -> None:
    """Edit, add, delete and a broken file by other processes show up live; changed rows flash."""
    app = make_memory_app(memory_root)
    async with app.run_test(size=(100, 30)):
        browser = app.browser
        await wait_until(lambda: browser.loads >= 1 and browser.live, what="first load and watcher")

        def content(record_id: str) -> str | None:
            row = browser.view.record(record_id) if browser.view else None
            return row.content if row else None

        run_writer("edit", memory_root, "rec-002", "Root cause: add() used minus (edited elsewhere).")
        await wait_until(
            lambda: content("rec-002") == "Root cause: add() used minus (edited elsewhere).", what="edit"
        )
        assert "record:rec-002" in browser.flashing()
        row = next(i for i, r in enumerate(browser.rows) if r.record_id == "rec-002")
        assert app.query_one(RecordList).row_classes(row) == ("flash",)
        assert "(edited elsewhere)" in app.query_one(RecordList).row_text(row, 100).plain

        run_writer("add", memory_root, "rec-006", "A fact added by another process.")
        await wait_until(lambda: browser.rows[0].record_id == "rec-006", what="addition at the top")
        assert "record:rec-006" in browser.flashing()

        run_writer("delete", memory_root, "rec-003")
        await wait_until(lambda: content("rec-003") is None, what="deletion")
        assert all(r.record_id != "rec-003" for r in browser.rows)
        assert "1 removed (rec-003)" in browser.last_change

        (memory_root / "records" / record_filename("bad-2")).write_text("---\nrole: x\n", encoding="utf-8")
        # write_text truncates first: the watcher may see the empty file before the final bytes.
        await wait_until(
            lambda: any(
                r.kind is RowKind.REJECTED and "unterminated front matter" in r.reason for r in browser.rows
            ),
            what="the new rejected file",
        )
        assert browser.view.rejected == 3  # type: ignore[union-attr]
        await wait_until(lambda: not browser.flashing(), timeout=3, what="the highlight to fade")


async def test_recall_marks_follow_the_disk(memory_root: Path) -> None:
    """A record recalled at the step and edited afterwards by another process turns 'changed' live."""
    app = make_memory_app(memory_root)
    recall = {
        "record_ids": ["rec-004"],
        "records": [
            {
                "record_id": "rec-004",
                "role": "assistant",
                "content": "Fixed add() in src/calc.py; all tests pass now.",
            }
        ],
    }
    async with app.run_test(size=(100, 30)):
        browser = app.browser
        await wait_until(lambda: browser.loads >= 1 and browser.live, what="first load and watcher")
        browser.show_recall(3, [recall])
        assert browser.marks["rec-004"].status is RecallStatus.UNCHANGED
        run_writer("edit", memory_root, "rec-004", "Fixed add(); the linter still complains.")
        await wait_until(lambda: browser.marks["rec-004"].status is RecallStatus.CHANGED, what="changed mark")
        run_writer("unlink", memory_root, "rec-004")
        await wait_until(lambda: browser.marks["rec-004"].status is RecallStatus.GONE, what="gone mark")
        assert any(r.kind is RowKind.GONE and r.record_id == "rec-004" for r in browser.rows)


async def live_skills(app: SkillsBrowserApp) -> SkillsBrowser:
    """The app's browser once watching and loaded (the first load happens once the watches exist)."""
    browser = app.browser
    await wait_until(lambda: browser.revision >= 1 and browser.versions and browser.live, what="first load")
    return browser


async def test_skills_browser_follows_a_publishing_process(skills_db: Path) -> None:
    """Versions and skills published by another process appear without a restart."""
    app = make_skills_app(skills_db)
    async with app.run_test(size=(120, 32)):
        browser = await live_skills(app)
        assert (
            run_writer(
                "publish", skills_db, "demo", "fix-failing-check", "def fix(repo):\n    return 4\n"
            ).strip()
            == "4"
        )
        await wait_until(lambda: [v.version for v in browser.versions] == [4, 3, 2, 1], what="v4")
        assert browser.skills[0]["latest_version"] == 4
        assert browser.selected_version.version == 3  # type: ignore[union-attr]  # the cursor stays put
        run_writer("publish", skills_db, "demo", "bisect-regression", "# Bisect\n\ngit bisect run pytest\n")
        await wait_until(
            lambda: any(s["name"] == "bisect-regression" for s in browser.shown), what="new skill"
        )
        assert browser.selected_skill["name"] == "fix-failing-check"  # type: ignore[index]


async def test_skills_browser_reports_a_removed_database_and_follows_its_replacement(tmp_path: Path) -> None:
    """The database removed while browsing: a clear message; a new one at the same path: browsed again."""
    db = build_skills_db(tmp_path / "skills.db")
    app = make_skills_app(db)
    async with app.run_test(size=(120, 32)):
        browser = await live_skills(app)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        await wait_until(lambda: browser.error is not None, what="the removal")
        assert browser.error == "cannot read skills.db: the database file was removed"
        assert browser.shown == [] and "was removed" in str(app.query_one("#skills-summary").render())
        replacement = tmp_path / "elsewhere" / "skills.db"
        replacement.parent.mkdir()
        build_skills_db(replacement)
        run_writer("publish", replacement, "demo", "fresh-skill", "# fresh\n")
        replacement.rename(db)  # appears at the watched path in one step, like a restored backup
        await wait_until(
            lambda: browser.error is None and any(s["name"] == "fresh-skill" for s in browser.shown)
        )
