"""What only SqliteToolLibrary has: triggers in the file, FTS5 and its fallback, WAL readers, checkpoints.

The behaviour every library shares is in test_library_contract.py, run against SQLite too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from skill_backends import art

from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary, ToolLibraryError


def test_the_database_refuses_to_rewrite_a_version(library: SqliteToolLibrary) -> None:
    """Triggers in the file itself refuse UPDATE and DELETE of a published version."""
    library.add_or_update(art(source="step one"))
    conn = sqlite3.connect(library.path)
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        conn.execute("UPDATE skill_versions SET source = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        conn.execute("DELETE FROM skill_versions")
    conn.close()
    assert library.get_version("audit", 1).source == "step one"


def test_list_namespaces(db_path: Path) -> None:
    """list_namespaces names every namespace holding skills, sorted."""
    with (
        SqliteToolLibrary(db_path, namespace="voyager") as b,
        SqliteToolLibrary(db_path, namespace="hermes") as a,
    ):
        a.add_or_update(art())
        b.add_or_update(art())
    assert SqliteToolLibrary.list_namespaces(db_path) == ["hermes", "voyager"]


def test_search_fallback_without_fts(db_path: Path) -> None:
    """With FTS disabled the weighted-term fallback ranks the same way."""

    class NoFts(SqliteToolLibrary):
        use_fts = False

    with NoFts(db_path, namespace="n") as lib:
        assert lib._fts is False
        lib.add_or_update(art("plot", description="Draw a chart"))
        lib.add_or_update(art("chart-audit", description="Audit chart sources"))
        lib.add_or_update(art("other", description="Unrelated"))
        assert [a.name for a in lib.search("chart")] == ["chart-audit", "plot"]
    # Reopening with FTS available indexes what the fallback library published.
    with SqliteToolLibrary(db_path, namespace="n") as lib:
        assert lib._fts is True
        assert [a.name for a in lib.search("chart")] == ["chart-audit", "plot"]


def test_wal_mode_and_concurrent_reader(library: SqliteToolLibrary, db_path: Path) -> None:
    """The database is in WAL mode; a read-only reader sees publishes while the writer stays open."""
    assert sqlite3.connect(db_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    library.add_or_update(art())
    reader = SqliteToolLibrary.open_readonly(db_path, namespace="research")
    try:
        assert reader.get("audit").version == 1
        library.add_or_update(art(source="v2"))
        assert reader.get("audit").version == 2
        assert [s["latest_version"] for s in reader.skills()] == [2]
        with pytest.raises(ToolLibraryError) as err:
            reader.add_or_update(art())
        assert err.value.code == "storage_error"
    finally:
        reader.close()


def test_readonly_open_of_missing_db_creates_nothing(tmp_path: Path) -> None:
    """open_readonly / list_namespaces on a missing file fail with storage_missing, creating nothing."""
    for call in (
        lambda: SqliteToolLibrary.open_readonly(tmp_path / "no.db", namespace="n"),
        lambda: SqliteToolLibrary.list_namespaces(tmp_path / "no.db"),
    ):
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == "storage_missing"
    assert list(tmp_path.iterdir()) == []


def test_not_a_database(tmp_path: Path) -> None:
    """A file that is not SQLite raises storage_error without echoing its content."""
    bad = tmp_path / "bad.db"
    bad.write_text("this is my secret text, not a database" * 100)
    with pytest.raises(ToolLibraryError) as err:
        SqliteToolLibrary(bad, namespace="n")
    assert err.value.code == "storage_error" and "secret" not in str(err.value)


def test_checkpoint_leaves_every_version_in_the_database_file_alone(db_path: Path, tmp_path: Path) -> None:
    """After checkpoint (or close), a copy of just the .db file holds what was published, even while
    a reader holds the database open (the writer is then not the last connection to close)."""
    import shutil

    library = SqliteToolLibrary(db_path, namespace="research")
    library.add_or_update(art(source="v1"))
    library.add_or_update(art(source="v2"), expected_version=1)
    reader = SqliteToolLibrary.open_readonly(db_path, namespace="research")
    assert reader.get("audit").version == 2  # type: ignore[union-attr]

    def copied_versions(name: str) -> int:
        copy = tmp_path / name / "skills.db"
        copy.parent.mkdir()
        shutil.copyfile(db_path, copy)  # the file alone, without its -wal beside it
        conn = sqlite3.connect(copy)
        try:
            return conn.execute("SELECT count(*) FROM skill_versions").fetchone()[0]
        except sqlite3.OperationalError:
            return 0  # not even the tables: they are still in the log
        finally:
            conn.close()

    assert copied_versions("before") < 2  # still in the write-ahead log
    library.checkpoint()
    assert copied_versions("after") == 2
    library.add_or_update(art(source="v3"), expected_version=2)
    library.close()
    assert copied_versions("closed") == 3
    reader.close()
    with pytest.raises(ToolLibraryError):
        library.checkpoint()  # closed
