"""The skills browser app driven by keys: skills, versions, source, diffs, search, run marks, bad databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from browser_builders import build_skills_db, wait_until

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.browsers import make_skills_app
from tui.browsers.dialogs import NamespaceDialog
from tui.browsers.skills_render import SkillList, VersionList


async def _loaded(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await wait_until(lambda: app.browser.revision >= 1 and app.browser.versions, what="the first load")
    await pilot.pause()


async def test_skills_versions_and_highlighted_source(skills_db: Path) -> None:
    """Skills with latest version, state and tags; the selected skill's versions; source with its lexer."""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        assert browser.namespace == "demo"  # the only namespace
        rows = [app.query_one(SkillList).row_text(i, 80).plain for i in range(3)]
        assert rows[0].startswith("  fix-failing-check v3 active #tests #python")
        assert rows[1].startswith("  old-lint v1 deprecated #lint")
        assert rows[2].startswith("  release-notes v1 active #docs")
        assert [v.version for v in browser.versions] == [3, 2, 1]
        assert "v2   2026-11-30 10:00:01 Find and fix the first failing test (rev 2)" in (
            app.query_one(VersionList).row_text(1, 80).plain
        )
        title = str(app.query_one("#skills-code-title").render())
        assert "fix-failing-check v3 · python · active" in title
        assert "--tb=long" in browser.code_text()
        # Only the newest version of an active skill is the active one; older ones say by what.
        await pilot.press("tab", "down", "down")
        assert "fix-failing-check v1 · python · superseded by v3" in str(
            app.query_one("#skills-code-title").render()
        )
        await pilot.press("shift+tab")
        await pilot.press("down", "down")  # release-notes: a Markdown procedure
        await wait_until(lambda: browser.versions and browser.versions[0].name == "release-notes")
        await pilot.pause()
        assert "release-notes v1 · markdown · active" in str(app.query_one("#skills-code-title").render())
        assert "Group them by area." in browser.code_text()


async def test_diff_between_versions(skills_db: Path) -> None:
    """d shows the unified diff from the previous version; m marks another base; d again: the source."""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        await pilot.press("tab", "down")  # the version list, v2
        assert browser.selected_version.version == 2  # type: ignore[union-attr]
        await pilot.press("d")
        diff = browser.code_text()
        assert diff.startswith("--- fix-failing-check v1\n+++ fix-failing-check v2\n@@")
        assert '-    result = run("pytest -x", cwd=repo)' in diff
        assert '+    args = ["pytest", "-x", "--tb=short"]' in diff
        assert "diff fix-failing-check v1 → v2" in str(app.query_one("#skills-code-title").render())
        await pilot.press("up", "m", "down", "down")  # base v3, then select v1
        assert browser.base_version == 3
        diff = browser.code_text()
        assert diff.startswith("--- fix-failing-check v3\n+++ fix-failing-check v1")
        assert "◆" in app.query_one(VersionList).row_text(0, 60).plain
        await pilot.press("d")
        assert browser.mode == "source" and browser.code_text().lstrip().startswith(
            "1 def fix_failing_check(repo):"
        )


async def test_catalog_search(skills_db: Path) -> None:
    """f then words: the catalog's ranked matches (active skills only); clearing shows every skill."""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        await pilot.press("f", *"release notes")
        await wait_until(lambda: browser.search_names == ["release-notes"], what="search results")
        await pilot.press("enter")
        assert [s["name"] for s in browser.shown] == ["release-notes"]
        assert app.focused is app.query_one(SkillList)
        await wait_until(lambda: browser.versions and browser.versions[0].name == "release-notes")
        await pilot.press("f", "ctrl+u", *"flake8")  # only in the deprecated skill: not in the catalog
        await wait_until(lambda: browser.search_names == [], what="empty results")
        assert "0 matches for 'flake8'" in str(app.query_one("#skills-summary").render())
        assert browser.code_text().strip() == "no skill matches 'flake8'"  # not "no version selected"
        await pilot.press("ctrl+u")
        await wait_until(lambda: browser.search_names is None and len(browser.shown) == 3)


async def test_versions_published_in_the_run_are_marked(skills_db: Path) -> None:
    """mark_published with skill_publish payloads stars the skill and exactly those versions."""
    app = make_skills_app(skills_db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await _loaded(app, pilot)
        browser = app.browser
        browser.mark_published(
            [
                {"name": "fix-failing-check", "version": 2, "namespace": "demo"},
                {"name": "fix-failing-check", "version": 3, "namespace": "demo"},
                {"name": "release-notes", "version": 1, "namespace": "other"},  # another namespace
            ]
        )
        await pilot.pause()
        versions = app.query_one(VersionList)
        assert [versions.row_text(i, 60).plain[0] for i in range(3)] == ["★", "★", " "]
        skills = app.query_one(SkillList)
        assert [skills.row_text(i, 60).plain[0] for i in range(3)] == ["★", " ", " "]
        assert "★ 2 published in the run" in str(app.query_one("#skills-summary").render())


async def test_missing_database_is_reported_and_not_created(tmp_path: Path) -> None:
    """A database path that does not exist: a clear message; nothing is created."""
    missing = tmp_path / "none.db"
    app = make_skills_app(missing)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.browser.error == f"skill database not found: {missing} (the browser never creates one)"
        await pilot.press("q")
    assert app.return_code == 1
    assert not missing.exists() and not list(tmp_path.iterdir())


async def test_invalid_database_is_reported(tmp_path: Path) -> None:
    """A file that is not SQLite, and a SQLite file without the schema, each get a clear message."""
    junk = tmp_path / "junk.db"
    junk.write_text("not a database at all " * 100, encoding="utf-8")
    app = make_skills_app(junk)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.browser.error is not None
        assert app.browser.error.startswith("junk.db is not a readable skill database")
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("CREATE TABLE t (x)").connection.close()
    app = make_skills_app(empty)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.browser.error == "empty.db holds no skills yet"


async def test_namespace_unknown_or_chosen(tmp_path: Path) -> None:
    """--namespace naming none lists the real ones; several namespaces and none given: a picker."""
    db = build_skills_db(tmp_path / "skills.db")
    with SqliteToolLibrary(db, namespace="research") as library:
        library.add_or_update(ToolArtifact(name="cite", description="Cite a paper", source="# cite\n"))
    app = make_skills_app(db, namespace="nope")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert (
            app.browser.error == "namespace 'nope' holds no skills in skills.db (namespaces: demo, research)"
        )
    app = make_skills_app(db, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NamespaceDialog)
        await pilot.press("down", "enter")
        await wait_until(lambda: app.browser.revision >= 1 and app.browser.versions)
        assert app.browser.namespace == "research" and [s["name"] for s in app.browser.shown] == ["cite"]
        await pilot.press("q")
    assert app.return_code == 0
    app = make_skills_app(db, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        assert app.browser.error == "no namespace chosen (namespaces: demo, research)"
