"""The skills browser with a big catalogue: moving the selection reads one skill's versions, not the list."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_builders import build_skills_db, run_writer, wait_until

from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.browsers import make_skills_app


async def test_down_reads_the_versions_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each Down shows the next skill's versions without reading the catalogue again."""
    db = build_skills_db(tmp_path / "skills.db")
    catalogue_reads: list[int] = []
    real_skills = SqliteToolLibrary.skills

    def counting_skills(self, **kwargs):  # type: ignore[no-untyped-def]  # a spy: the real read runs
        catalogue_reads.append(1)
        return real_skills(self, **kwargs)

    monkeypatch.setattr(SqliteToolLibrary, "skills", counting_skills)
    app = make_skills_app(db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = app.browser
        await wait_until(lambda: browser.revision >= 1 and browser.versions, what="the first load")
        await pilot.pause()
        reads = len(catalogue_reads)
        moves = [
            ("down", "old-lint"),
            ("down", "release-notes"),
            ("up", "old-lint"),
            ("up", "fix-failing-check"),
        ]
        for key, expected in moves:
            await pilot.press(key)
            await wait_until(
                lambda expected=expected: browser.versions and browser.versions[0].name == expected,
                what=f"the versions of {expected}",
            )
        assert [v.version for v in browser.versions] == [3, 2, 1]
        assert len(catalogue_reads) == reads  # no catalogue read per move


async def test_versions_read_ahead_never_outlive_a_publication(tmp_path: Path) -> None:
    """The next skill's versions are read ahead; a version published meanwhile still shows on Down."""
    db = build_skills_db(tmp_path / "skills.db")
    app = make_skills_app(db)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = app.browser
        await wait_until(
            lambda: browser.revision >= 1 and browser.versions and browser.live, what="the first load"
        )
        await wait_until(lambda: "old-lint" in browser._ahead, what="the neighbour read ahead")
        loads = browser.revision
        run_writer("publish", db, "demo", "old-lint", "def old_lint(repo):\n    return 2\n")
        await wait_until(lambda: browser.revision > loads, what="the reload after the publication")
        await pilot.press("down")
        await wait_until(
            lambda: (
                browser.versions
                and browser.versions[0].name == "old-lint"
                and browser.versions[0].version == 2
            ),
            what="old-lint v2 on Down",
        )
