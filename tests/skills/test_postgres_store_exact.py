"""Exact behaviour of PostgresToolLibrary that the shared contract does not pin down.

Session settings, connect timeouts, the missing extra, schemas that are missing or half there,
a lost stamp, what a publish returns and indexes, the largest storable version, catalog limits
with a query, and each server failure mapped to its code: a held row lock, a serialization
failure, a version taken behind the library's back, a session that refuses SQL.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import quote

import pytest
from skill_backends import art, code_of
from waits import block_until

from qitos.kit.tool.library.errors import ToolLibraryError

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the `postgres` extra)")

from qitos.kit.tool.library import postgres_store  # noqa: E402
from qitos.kit.tool.library.postgres_store import PostgresToolLibrary  # noqa: E402

_COUNTER = iter(range(1, 1_000_000))


def admin(dsn: str) -> Any:
    """A plain autocommit connection to the same schema, for arranging what a test needs."""
    return psycopg.connect(dsn, autocommit=True)


def schema_dsn(server: Any, *settings: str) -> str:
    """A fresh schema's URL whose sessions also apply ``settings`` (``name=value``, no spaces)."""
    name = f"x{next(_COUNTER)}"
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        conn.execute(f"CREATE SCHEMA {name}")
    options = " ".join([f"-csearch_path={name}", *(f"-c{s}" for s in settings)])
    return server.dsn() + "&options=" + quote(options, safe="")


# ----- connecting ------------------------------------------------------------------------------


def test_a_session_names_itself_and_bounds_its_lock_waits(pg: PostgresToolLibrary, dsn: str) -> None:
    with admin(dsn) as conn:
        row = conn.execute(
            "SELECT application_name FROM pg_stat_activity WHERE pid = %s", (pg._conn.info.backend_pid,)
        ).fetchone()
    assert row == ("qitos-skills",)
    assert pg._conn.execute("SHOW lock_timeout").fetchone() == ("10s",)
    assert pg._conn.execute("SHOW default_transaction_read_only").fetchone() == ("off",)


def test_a_read_only_session_is_read_only_by_default(pg: PostgresToolLibrary, dsn: str) -> None:
    with PostgresToolLibrary.open_readonly(dsn, namespace="research") as reader:
        assert reader._conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)


@pytest.mark.parametrize(("given", "used"), [(0.2, "1"), (2.6, "3"), (10.0, "10")])
def test_the_connect_timeout_is_whole_seconds_and_at_least_one(dsn: str, given: float, used: str) -> None:
    with PostgresToolLibrary(dsn, namespace="research", connect_timeout=given) as lib:
        assert lib._conn.info.get_parameters()["connect_timeout"] == used
    reader = PostgresToolLibrary.open_readonly(dsn, namespace="research", connect_timeout=given)
    with reader:
        assert reader._conn.info.get_parameters()["connect_timeout"] == used


def test_the_connect_timeout_is_ten_seconds_by_default(dsn: str) -> None:
    with PostgresToolLibrary(dsn, namespace="research") as lib:
        assert lib._conn.info.get_parameters()["connect_timeout"] == "10"
    with PostgresToolLibrary.open_readonly(dsn, namespace="research") as reader:
        assert reader._conn.info.get_parameters()["connect_timeout"] == "10"


def test_without_the_postgres_extra_opening_says_which_extra_to_install(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_store, "psycopg", None)
    for call in (
        lambda: PostgresToolLibrary(dsn, namespace="research"),
        lambda: PostgresToolLibrary.open_readonly(dsn, namespace="research"),
        lambda: PostgresToolLibrary.list_namespaces(dsn),
    ):
        with pytest.raises(ImportError) as err:
            call()
        assert str(err.value) == "PostgresToolLibrary needs psycopg: pip install 'qitos-tui[postgres]'"


def test_a_session_that_refuses_sql_is_closed_and_refused_as_storage_error(postgres_server: Any) -> None:
    # A physical-replication session accepts no SQL: the session settings fail after connecting.
    with pytest.raises(ToolLibraryError) as err:
        PostgresToolLibrary(postgres_server.dsn() + "&replication=true", namespace="research")
    assert err.value.code == "storage_error"


# ----- schemas missing or half there -----------------------------------------------------------


def test_a_search_path_without_an_existing_schema_is_refused_as_storage_error(postgres_server: Any) -> None:
    missing = postgres_server.dsn(search_path="no_such_schema_here")
    assert code_of(lambda: PostgresToolLibrary(missing, namespace="research")) == "storage_error"


def test_a_schema_with_the_stamp_but_no_skills_table_is_refused_as_storage_error(dsn: str) -> None:
    with admin(dsn) as conn:
        conn.execute("CREATE TABLE qitos_library_meta (key text PRIMARY KEY, value text NOT NULL)")
        conn.execute("INSERT INTO qitos_library_meta VALUES ('schema_version', '1')")
    assert code_of(lambda: PostgresToolLibrary(dsn, namespace="research")) == "storage_error"
    assert code_of(lambda: PostgresToolLibrary.open_readonly(dsn, namespace="research")) == "storage_missing"


def test_a_read_only_open_of_skills_without_the_stamp_table_is_storage_missing(dsn: str) -> None:
    with admin(dsn) as conn:
        conn.execute("CREATE TABLE qitos_skills (namespace text, name text)")
    assert code_of(lambda: PostgresToolLibrary.open_readonly(dsn, namespace="research")) == "storage_missing"


def test_a_library_whose_stamp_row_was_removed_is_refused(pg: PostgresToolLibrary, dsn: str) -> None:
    pg.add_or_update(art())
    with admin(dsn) as conn:
        conn.execute("DELETE FROM qitos_library_meta")
    for call in (
        lambda: PostgresToolLibrary(dsn, namespace="research"),
        lambda: PostgresToolLibrary.open_readonly(dsn, namespace="research"),
        lambda: PostgresToolLibrary.list_namespaces(dsn),
    ):
        assert code_of(call) == "schema_unsupported"


# ----- publishing ------------------------------------------------------------------------------


def test_a_version_taken_behind_the_librarys_back_refuses_the_publish(
    pg: PostgresToolLibrary, dsn: str
) -> None:
    # Someone wrote version 2 straight into the table: the publish that claims 2 is a conflict.
    pg.add_or_update(art())
    with admin(dsn) as conn:
        conn.execute(
            "INSERT INTO qitos_skill_versions SELECT namespace, name, 2, description, summary, source,"
            " tags_json, metadata_json, created_at, updated_at, search FROM qitos_skill_versions"
        )
    assert code_of(lambda: pg.add_or_update(art(source="mine"))) == "version_conflict"
    assert pg.get("audit").version == 1  # type: ignore[union-attr]  # the claim was rolled back


# ----- reading ---------------------------------------------------------------------------------


def test_get_version_reaches_the_largest_version_the_column_holds(pg: PostgresToolLibrary, dsn: str) -> None:
    top = 2**31 - 1
    pg.add_or_update(art())
    with admin(dsn) as conn:
        conn.execute(
            "INSERT INTO qitos_skill_versions SELECT namespace, name, %s, description, summary, 'top',"
            " tags_json, metadata_json, created_at, updated_at, search FROM qitos_skill_versions",
            (top,),
        )
    assert pg.get_version("audit", top).source == "top"  # type: ignore[union-attr]
    assert pg.get_version("audit", top + 1) is None and pg.get_version("audit", 2**70) is None


# ----- server failures -------------------------------------------------------------------------


def test_a_publish_blocked_by_a_held_row_lock_fails_as_storage_busy(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_store, "LOCK_TIMEOUT_MS", 1)  # give up at once, not after 10 s
    with PostgresToolLibrary(dsn, namespace="research") as lib, admin(dsn) as holder:
        lib.add_or_update(art())
        with holder.transaction():
            holder.execute("SELECT 1 FROM qitos_skills WHERE name = 'audit' FOR UPDATE")
            assert code_of(lambda: lib.add_or_update(art(source="v2"))) == "storage_busy"
            assert code_of(lambda: lib.deprecate("audit")) == "storage_busy"
        assert [a.version for a in lib.versions("audit")] == [1]


def test_a_publish_that_loses_a_serialization_race_fails_as_storage_busy(postgres_server: Any) -> None:
    # Under REPEATABLE READ, a row another transaction changed after our snapshot cannot be claimed.
    target = schema_dsn(postgres_server, "default_transaction_isolation=repeatable\\ read")
    with PostgresToolLibrary(target, namespace="research") as lib, admin(target) as other:
        lib.add_or_update(art())
        pid = lib._conn.info.backend_pid
        outcome: list[object] = []

        def publish() -> None:
            try:
                lib.add_or_update(art(source="v2"))
                outcome.append("published")
            except ToolLibraryError as exc:
                outcome.append(exc.code)

        other.execute("BEGIN")
        other.execute("UPDATE qitos_skills SET updated_at = 'x' WHERE name = 'audit'")
        worker = threading.Thread(target=publish)
        worker.start()
        with admin(target) as watcher:
            block_until(
                lambda: (
                    watcher.execute(
                        "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)
                    ).fetchone()
                    == ("Lock",)
                ),
                what="the publish to wait for the row lock",
            )
        other.execute("COMMIT")
        worker.join(60)
        assert outcome == ["storage_busy"]
        assert [a.version for a in lib.versions("audit")] == [1]
