"""Exact behaviour of SqliteToolLibrary that the shared contract does not pin down.

Opening (bad paths, folders named with URI characters, read-only browsing of FTS and non-FTS
files), what a publish returns and indexes, catalog limits with a query, version arguments,
cross-thread use, a locked database, and the default clock's time zone.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from skill_backends import art, code_of

from qitos.kit.tool.library import sqlite_store
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary


class NoFts(SqliteToolLibrary):
    """A library that publishes without the FTS5 index (as on a SQLite build without FTS5)."""

    use_fts = False


# ----- opening ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [42, None, b"skills.db", ""])
def test_a_path_that_is_not_a_non_empty_str_or_path_is_refused_as_storage_error(path: object) -> None:
    assert code_of(lambda: SqliteToolLibrary(path, namespace="n")) == "storage_error"  # type: ignore[arg-type]


def test_a_database_in_a_missing_folder_is_refused_as_storage_error_and_creates_nothing(
    tmp_path: Path,
) -> None:
    target = tmp_path / "no-such-folder" / "skills.db"
    assert code_of(lambda: SqliteToolLibrary(target, namespace="n")) == "storage_error"
    assert list(tmp_path.iterdir()) == []


def test_a_database_under_a_folder_named_with_uri_characters_opens_read_only(tmp_path: Path) -> None:
    # '?', '#' and '%' mean something in a file: URI; '%41' would decode to 'A' if left unescaped.
    folder = tmp_path / "q?h#p%41"
    folder.mkdir()
    with SqliteToolLibrary(folder / "skills.db", namespace="research") as writer:
        writer.add_or_update(art())
    with SqliteToolLibrary.open_readonly(folder / "skills.db", namespace="research") as reader:
        assert reader.get("audit").version == 1  # type: ignore[union-attr]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q?h#p%41"]


def test_a_read_only_open_refuses_a_newer_schema(db_path: Path) -> None:
    with SqliteToolLibrary(db_path, namespace="research") as writer:
        writer.add_or_update(art())
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE library_meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    assert (
        code_of(lambda: SqliteToolLibrary.open_readonly(db_path, namespace="research"))
        == "schema_unsupported"
    )


def test_a_new_database_is_stamped_with_schema_version_one(db_path: Path) -> None:
    SqliteToolLibrary(db_path, namespace="research").close()
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("SELECT key, value FROM library_meta").fetchall() == [("schema_version", "1")]
    finally:
        conn.close()


def test_a_read_only_library_refuses_to_deprecate_with_storage_error(db_path: Path) -> None:
    with SqliteToolLibrary(db_path, namespace="research") as writer:
        writer.add_or_update(art())
    with SqliteToolLibrary.open_readonly(db_path, namespace="research") as reader:
        assert code_of(lambda: reader.deprecate("audit")) == "storage_error"
        assert reader.get("audit").active is True  # type: ignore[union-attr]


def test_a_reader_of_a_file_published_without_fts_searches_with_the_weighted_fallback(db_path: Path) -> None:
    with NoFts(db_path, namespace="research") as writer:
        writer.add_or_update(art("plot", description="Draw a chart"))
    with SqliteToolLibrary.open_readonly(db_path, namespace="research") as reader:
        assert [a.name for a in reader.search("chart")] == ["plot"]


def test_a_reader_of_a_file_with_the_fts_index_searches_it(db_path: Path) -> None:
    # The unicode61 tokenizer folds diacritics; the weighted fallback compares words as written.
    with SqliteToolLibrary(db_path, namespace="research") as writer:
        writer.add_or_update(art("brew", description="Make café au lait"))
        assert [a.name for a in writer.search("cafe")] == ["brew"]
    with SqliteToolLibrary.open_readonly(db_path, namespace="research") as reader:
        assert [a.name for a in reader.search("cafe")] == ["brew"]
    with NoFts(db_path, namespace="research") as fallback:
        assert fallback.search("cafe") == []


def test_a_database_whose_fts_name_is_taken_publishes_and_searches_without_fts(db_path: Path) -> None:
    # The FTS table cannot be created when an index already holds its name: fall back, do not fail.
    with NoFts(db_path, namespace="research") as first:
        first.add_or_update(art("plot", description="Draw a chart"))
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE INDEX skills_fts ON skills (name)")
    conn.close()
    with SqliteToolLibrary(db_path, namespace="research") as lib:
        lib.add_or_update(art("chart-audit", description="Audit chart sources"))
        assert [a.name for a in lib.search("chart")] == ["chart-audit", "plot"]


def test_list_namespaces_of_a_sqlite_file_without_library_tables_is_empty(db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE unrelated (x INTEGER)")
    conn.close()
    assert SqliteToolLibrary.list_namespaces(db_path) == []


def _publish_and_die(path: str) -> None:
    """Publish with the log never folded, then exit without closing (as a killed writer would)."""
    lib = SqliteToolLibrary(path, namespace="crashed")
    lib.add_or_update(art())
    os._exit(0)


def test_browsing_leaves_a_killed_writers_log_beside_the_file(db_path: Path) -> None:
    # A read-only connection never checkpoints: the log a killed writer left stays as it was.
    proc = multiprocessing.get_context("fork").Process(target=_publish_and_die, args=(str(db_path),))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    wal = Path(f"{db_path}-wal")
    before = wal.read_bytes()
    assert before  # the publish is in the log, not yet in the file
    assert SqliteToolLibrary.list_namespaces(db_path) == ["crashed"]
    with SqliteToolLibrary.open_readonly(db_path, namespace="crashed") as reader:
        assert reader.get("audit").version == 1  # type: ignore[union-attr]
    assert wal.read_bytes() == before


# ----- publishing ------------------------------------------------------------------------------


# ----- reading ---------------------------------------------------------------------------------


def test_a_library_opened_in_one_thread_serves_calls_from_another(db_path: Path) -> None:
    results: list[object] = []
    with (
        SqliteToolLibrary(db_path, namespace="research") as writer,
        SqliteToolLibrary.open_readonly(db_path, namespace="research") as reader,
    ):

        def use() -> None:
            try:
                writer.add_or_update(art())
                results.append(reader.get("audit").version)  # type: ignore[union-attr]
            except Exception as exc:  # the assertion below names what went wrong
                results.append(exc)

        worker = threading.Thread(target=use)
        worker.start()
        worker.join(60)
    assert results == [1]


# ----- a locked database -----------------------------------------------------------------------


def test_a_publish_while_another_writer_holds_the_lock_fails_as_storage_busy(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No waiting: a zero busy timeout makes the lock conflict immediate.
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 0)
    with SqliteToolLibrary(db_path, namespace="research") as lib:
        lib.add_or_update(art())
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            assert code_of(lambda: lib.add_or_update(art(source="v2"))) == "storage_busy"
            assert code_of(lambda: lib.deprecate("audit")) == "storage_busy"
            holder.execute("ROLLBACK")
        finally:
            holder.close()
        assert [a.version for a in lib.versions("audit")] == [1] and lib.get("audit").active  # type: ignore[union-attr]


# ----- defaults and the fallback's limit --------------------------------------------------------


def test_the_weighted_fallback_keeps_to_top_k(db_path: Path) -> None:
    with NoFts(db_path, namespace="research") as lib:
        for i in range(3):
            lib.add_or_update(art(f"chart-{i}", description="Chart things"))
        assert [a.name for a in lib.search("chart", top_k=2)] == ["chart-0", "chart-1"]


# ----- the FTS index built later ---------------------------------------------------------------


def test_a_backfilled_index_holds_the_same_tag_words_as_a_publish_writes(db_path: Path) -> None:
    # Tags are indexed space-joined; indexing their JSON text would turn "x<TAB>y" into "x", "ty".
    with NoFts(db_path, namespace="research") as first:
        first.add_or_update(art("late", tags=["x\ty", 'say "hi"']))
    with SqliteToolLibrary(db_path, namespace="research") as lib:
        lib.add_or_update(art("early", tags=["x\ty", 'say "hi"']))
        for word, names in (("y", ["early", "late"]), ("hi", ["early", "late"]), ("ty", []), ("t", [])):
            assert sorted(a.name for a in lib.search(word)) == names, word


def test_a_republished_skill_is_found_by_its_new_words_among_others(db_path: Path) -> None:
    # The index row of a skill is keyed by its skills rowid: a new version must replace it under
    # that key, or its words would point at no skill (or at another one).
    with SqliteToolLibrary(db_path, namespace="research") as lib:
        lib.add_or_update(art("alpha", description="Check evidence"))
        lib.add_or_update(art("beta", description="Weigh sources"))
        lib.add_or_update(art("alpha", description="Check zebra evidence"), expected_version=1)
        lib.add_or_update(art("gamma", description="Count stripes"))
        assert [a.name for a in lib.search("zebra")] == ["alpha"]
        assert [a.name for a in lib.search("stripes")] == ["gamma"]


def test_a_backfilled_index_finds_each_skill_in_a_file_whose_skill_rows_have_gaps(db_path: Path) -> None:
    # Index rows take the skills rowid, whatever rowids the skills table has (here with a gap).
    with NoFts(db_path, namespace="research") as first:
        first.add_or_update(art("first", description="Check evidence"))
        first.add_or_update(art("second", description="Weigh sources"))
        first.add_or_update(art("third", description="Count stripes"))
    with sqlite3.connect(db_path) as conn:  # the second skill's row removed by hand (its versions stay)
        conn.execute("DELETE FROM skills WHERE name = 'second'")
    conn.close()
    with SqliteToolLibrary(db_path, namespace="research") as lib:
        assert [a.name for a in lib.search("stripes")] == ["third"]
        assert [a.name for a in lib.search("evidence")] == ["first"]
