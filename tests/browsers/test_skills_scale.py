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


def _same_shape_db(path: Path) -> Path:
    """Skills a, b, c of five short lines each (one shape), and d of forty (another)."""
    from qitos.kit.tool.library.base import ToolArtifact

    with SqliteToolLibrary(path, namespace="demo") as library:
        for name, lines in (("a", 5), ("b", 5), ("c", 5), ("d", 40)):
            source = "".join(f"{name}_{i} = {i}\n" for i in range(lines))
            library.add_or_update(ToolArtifact(name=name, description=f"skill {name}", source=source))
    return path


async def test_down_between_same_shaped_sources_skips_the_layout_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Down to a source the same size as the shown one redraws the code without laying the screen
    out again; a longer one lays out, and the scroll area grows to hold it."""
    from textual.widgets import Static

    db = _same_shape_db(tmp_path / "skills.db")
    updates: list[tuple[str | None, bool]] = []
    real_update = Static.update

    def spying_update(self, content="", *, layout=True):  # type: ignore[no-untyped-def]  # a spy: the real update runs
        updates.append((self.id, layout))
        real_update(self, content, layout=layout)

    monkeypatch.setattr(Static, "update", spying_update)
    app = make_skills_app(db, watch=False)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = app.browser
        await wait_until(lambda: browser.revision >= 1 and browser.versions, what="the first load")
        await pilot.pause()
        scroll = app.query_one("#skills-code")
        short_height = scroll.virtual_size.height
        for name in ("b", "c"):
            updates.clear()
            await pilot.press("down")
            await wait_until(
                lambda name=name: f"{name}_4 = 4" in browser.code_text(), what=f"{name}'s source"
            )
            await pilot.pause()
            body = [layout for widget, layout in updates if widget == "skills-code-body"]
            assert body and not any(body), f"{name}: the body was laid out again: {updates}"
            assert all(
                not layout for widget, layout in updates if widget in ("skills-code-title", "skills-summary")
            )
        updates.clear()
        await pilot.press("down")
        await wait_until(lambda: "d_39 = 39" in browser.code_text(), what="d's source")
        await pilot.pause()
        assert ("skills-code-body", True) in updates
        assert short_height < 40 <= scroll.virtual_size.height  # all forty lines can be scrolled to
