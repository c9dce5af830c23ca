"""`qitos-tui skills postgresql://…`: the skills browser on a real PostgreSQL library, live by NOTIFY."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_builders import build_skills_db, wait_until

from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.browsers import make_skills_app
from tui.browsers.dialogs import NamespaceDialog
from tui.browsers.skills_render import SkillList

pytest.importorskip("psycopg", reason="psycopg is not installed (the `postgres` extra)")

from qitos.kit.tool.library.postgres_store import PostgresToolLibrary  # noqa: E402
from tui.browsers.skills_postgres import PostgresSkillsBrowser, display_url  # noqa: E402

# Publishes (or deprecates) in another process, as another agent of the fleet would.
WRITER = """
import sys
from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.postgres_store import PostgresToolLibrary
dsn, namespace, action, name, source = sys.argv[1:6]
with PostgresToolLibrary(dsn, namespace=namespace) as library:
    if action == "deprecate":
        print(library.deprecate(name))
    else:
        print(library.add_or_update(ToolArtifact(name, "published by another process", source)).version)
"""


def other_process(dsn: str, namespace: str, action: str, name: str, source: str = "") -> str:
    """Run WRITER in a new Python process; its output."""
    done = subprocess.run(
        [sys.executable, "-c", WRITER, dsn, namespace, action, name, source],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def copy_into(dsn: str, sqlite_db: Path, namespace: str = "demo") -> str:
    """Publish every version of a SQLite library into PostgreSQL with the same timestamps."""
    with (
        SqliteToolLibrary(sqlite_db, namespace=namespace) as source,
        PostgresToolLibrary(dsn, namespace=namespace) as target,
    ):
        for skill in source.skills():
            for version in source.versions(skill["name"]):
                target.clock = lambda v=version: v.updated_at
                version.active = True
                target.add_or_update(version, expected_version=version.version - 1)
            if not skill["active"]:
                target.deprecate(skill["name"])
    return dsn


@pytest.fixture
def skills_dsn(postgres_server: Any, tmp_path: Path) -> str:
    """The browser tests' demo library (three skills, five versions) in a fresh PostgreSQL schema."""
    return copy_into(postgres_server.fresh_schema(), build_skills_db(tmp_path / "skills.db"))


async def first_load(app: Any, *, live: bool) -> PostgresSkillsBrowser:
    """The app's browser once loaded (and listening, when ``live``)."""
    browser = app.browser
    await wait_until(
        lambda: browser.revision >= 1 and browser.versions and (browser.live or not live),
        timeout=15,
        what="the first load",
    )
    return browser


async def test_browses_a_postgres_library_like_the_sqlite_file(skills_dsn: str) -> None:
    """Skills with latest version, state and tags, the versions, the source and diffs, read-only."""
    app = make_skills_app(skills_dsn, watch=False)
    assert isinstance(app.title, str) and app.sub_title == display_url(skills_dsn)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = await first_load(app, live=False)
        assert isinstance(browser, PostgresSkillsBrowser) and browser.namespace == "demo"
        rows = [app.query_one(SkillList).row_text(i, 80).plain for i in range(3)]
        assert rows[0].startswith("  fix-failing-check v3 active #tests #python")
        assert rows[1].startswith("  old-lint v1 deprecated #lint")
        assert rows[2].startswith("  release-notes v1 active #docs")
        assert [v.version for v in browser.versions] == [3, 2, 1]
        assert "fix-failing-check v3 · python · active" in str(app.query_one("#skills-code-title").render())
        assert "--tb=long" in browser.code_text()
        await pilot.press("tab", "down", "d")  # the diff v1 → v2
        assert browser.code_text().startswith("--- fix-failing-check v1\n+++ fix-failing-check v2\n@@")
        await pilot.press("f", *"release")  # full-text catalog search, in PostgreSQL
        await wait_until(lambda: [s["name"] for s in browser.shown] == ["release-notes"], what="search")
        assert browser.library is not None
        with pytest.raises(Exception, match="storage_error"):
            browser.library.deprecate("release-notes")  # the browser's connection is read-only


async def test_follows_another_process_live_without_polling(skills_dsn: str) -> None:
    """Versions, new skills and deprecations by other processes appear; nothing is re-read otherwise."""
    app = make_skills_app(skills_dsn)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = await first_load(app, live=True)
        assert "live" in str(app.query_one("#skills-summary").render())
        revision = browser.revision
        # An observation window, not synchronisation: a browser that polled would read in it.
        await asyncio.sleep(0.6)
        assert browser.revision == revision  # no change, no read: followed by notification, not polled
        assert (
            other_process(
                skills_dsn, "demo", "publish", "fix-failing-check", "def fix(repo):\n    return 4\n"
            )
            == "4"
        )
        await wait_until(lambda: [v.version for v in browser.versions] == [4, 3, 2, 1], timeout=10, what="v4")
        assert browser.selected_version.version == 3  # type: ignore[union-attr]  # the cursor stays put
        other_process(
            skills_dsn, "demo", "publish", "bisect-regression", "# Bisect\n\ngit bisect run pytest\n"
        )
        await wait_until(
            lambda: any(s["name"] == "bisect-regression" for s in browser.shown), what="new skill"
        )
        assert other_process(skills_dsn, "demo", "deprecate", "release-notes") == "True"
        await wait_until(
            lambda: any(s["name"] == "release-notes" and not s["active"] for s in browser.skills),
            what="deprecation",
        )
        before, seen = browser.revision, browser.changes_seen
        other_process(skills_dsn, "elsewhere", "publish", "unrelated", "x")  # another namespace
        await wait_until(lambda: browser.changes_seen > seen, what="the unrelated change's notification")
        # A read it started would be among these workers by now; none may run, and none may have run.
        await wait_until(
            lambda: all(w.is_finished for w in app.workers if w.group == "skills-load"), what="reads to end"
        )
        await pilot.pause()
        assert browser.revision == before


async def test_waits_for_the_first_skill_of_an_empty_library(postgres_server: Any) -> None:
    """A database nobody has published to yet: said plainly, then opened when the first skill lands."""
    dsn = postgres_server.fresh_schema()
    with PostgresToolLibrary(dsn, namespace="fleet"):
        pass  # the tables exist, no skill yet
    app = make_skills_app(dsn)
    async with app.run_test(size=(100, 24)):
        browser = app.browser
        await wait_until(lambda: browser.error is not None, timeout=10, what="the empty message")
        assert browser.error.endswith("holds no skills yet")
        # No wait for the listener: a publish before it listens is found by the read it makes once
        # listening, a later one by its notification; either way the skill must open.
        other_process(dsn, "fleet", "publish", "first", "# First\n")
        await wait_until(lambda: browser.versions and browser.live, timeout=10, what="the first skill")
        assert browser.error is None and browser.namespace == "fleet"


async def test_several_namespaces_ask_which(skills_dsn: str) -> None:
    """A library with several namespaces opens the namespace dialog; the choice is browsed."""
    other_process(skills_dsn, "voyager", "publish", "craft-table", "def craft(bot): ...\n")
    app = make_skills_app(skills_dsn, watch=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_until(lambda: isinstance(app.screen, NamespaceDialog), timeout=10, what="the dialog")
        await pilot.press("down", "enter")
        browser = await first_load(app, live=False)
        assert browser.namespace == "voyager" and [s["name"] for s in browser.skills] == ["craft-table"]


@pytest.mark.parametrize("case", ["unknown namespace", "no server"])
async def test_unknown_namespace_and_unreachable_server(skills_dsn: str, tmp_path: Path, case: str) -> None:
    """A namespace that holds nothing, or a server that is not there: a message, no traceback, no password."""
    if case == "no server":
        app = make_skills_app(f"postgresql://fleet:hunter2@/db?host={tmp_path}")
        expected = f"cannot read skills at postgresql://fleet:***@/db?host={tmp_path} (storage_unreachable"
    else:
        app = make_skills_app(skills_dsn, namespace="nope")
        expected = "namespace 'nope' holds no skills at postgresql:///postgres?host="
    async with app.run_test(size=(100, 24)):
        await wait_until(lambda: app.browser.error is not None, timeout=15, what="the error")
        assert expected in app.browser.error and "hunter2" not in app.browser.error
        assert (
            "hunter2" not in str(app.query_one("#skills-summary").render()) and "hunter2" not in app.sub_title
        )


def test_display_url_hides_passwords() -> None:
    """Passwords in the user part or the query are shown as ***; a Unix-socket URL keeps its form."""
    assert display_url("postgresql://u:pw@h:5432/db?sslmode=require&password=x") == (
        "postgresql://u:***@h:5432/db?sslmode=require&password=***"
    )
    assert display_url("postgres:///db?host=/tmp/x") == "postgres:///db?host=/tmp/x"
    assert display_url("postgresql://[broken") == "postgresql://…"


async def test_a_lost_connection_is_reported_and_a_reload_reconnects(skills_dsn: str) -> None:
    """The server drops the browser's connections: live updates say they stopped; ctrl+r reconnects,
    reads again and listens again."""
    import psycopg

    app = make_skills_app(skills_dsn)
    async with app.run_test(size=(120, 32)) as pilot:
        browser = await first_load(app, live=True)
        with psycopg.connect(skills_dsn, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE pid <> pg_backend_pid() AND datname = current_database()"
            ).fetchone()[0]
        assert killed >= 2  # the browser's reading connection and its listening one
        await wait_until(lambda: not browser.live, timeout=10, what="live updates to stop")
        assert "the connection to the server was lost" in browser.last_message
        before = browser.revision
        await pilot.press("ctrl+r")
        await wait_until(lambda: browser.revision > before, timeout=10, what="the reload")
        assert browser.error is None and [v.version for v in browser.versions] == [3, 2, 1]
        await wait_until(lambda: browser.live, timeout=10, what="listening again")
        other_process(skills_dsn, "demo", "publish", "fix-failing-check", "def fix(repo):\n    return 4\n")
        await wait_until(lambda: browser.versions[0].version == 4, timeout=10, what="v4 after reconnecting")
