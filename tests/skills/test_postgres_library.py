"""What only PostgresToolLibrary has: server-side immutability, NOTIFY on change, read-only browsing,
first use by many processes at once, and connection failures that never echo the connection string."""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path
from typing import Any

import pytest
from skill_backends import art

from qitos.kit.tool.library.errors import ToolLibraryError

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (the `postgres` extra)")

from qitos.kit.tool.library.postgres_store import (  # noqa: E402
    CHANNEL,
    PostgresToolLibrary,
    is_postgres_url,
)


def test_the_server_refuses_to_rewrite_a_version(pg: PostgresToolLibrary, dsn: str) -> None:
    """Triggers refuse UPDATE, DELETE and TRUNCATE of published versions, whoever connects."""
    pg.add_or_update(art(source="step one"))
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in (
            "UPDATE qitos_skill_versions SET source = 'x'",
            "DELETE FROM qitos_skill_versions",
            "TRUNCATE qitos_skill_versions CASCADE",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="immutable"):
                conn.execute(statement)
        row = conn.execute("SELECT value FROM qitos_library_meta WHERE key = 'schema_version'").fetchone()
        assert row == ("1",)
    assert pg.get_version("audit", 1).source == "step one"


def test_each_change_notifies_at_commit(pg: PostgresToolLibrary, dsn: str) -> None:
    """A publish and a deprecate each NOTIFY the channel with what changed; a refused publish does not."""
    with psycopg.connect(dsn, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        schema = listener.execute("SELECT current_schema()").fetchone()[0]
        pg.add_or_update(art())
        pg.add_or_update(art(source="v2"), expected_version=1)
        with pytest.raises(ToolLibraryError):
            pg.add_or_update(art(source="stale"), expected_version=1)
        pg.deprecate("audit")
        pg.deprecate("audit")  # nothing changes: no row updated, no notification
        got = [json.loads(n.payload) for n in listener.notifies(timeout=0.5)]
    base = {"schema": schema, "namespace": "research", "name": "audit"}
    assert got == [
        {**base, "version": 1, "active": True},
        {**base, "version": 2, "active": True},
        {**base, "version": 2, "active": False},
    ]


def test_read_only_browsing(dsn: str) -> None:
    """open_readonly creates nothing on an empty database, reads what a writer publishes, writes nothing."""
    assert PostgresToolLibrary.list_namespaces(dsn) == []
    with pytest.raises(ToolLibraryError) as err:
        PostgresToolLibrary.open_readonly(dsn, namespace="research")
    assert err.value.code == "storage_missing"
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT to_regclass('qitos_skills')").fetchone() == (None,)
    with PostgresToolLibrary(dsn, namespace="voyager") as writer:
        writer.add_or_update(art())
        with PostgresToolLibrary.open_readonly(dsn, namespace="voyager") as reader:
            assert reader.get("audit").version == 1
            writer.add_or_update(art(source="v2"))
            assert [s["latest_version"] for s in reader.skills()] == [2]
            for write in (lambda: reader.add_or_update(art()), lambda: reader.deprecate("audit")):
                with pytest.raises(ToolLibraryError) as err:
                    write()
                assert err.value.code == "storage_error"
    with PostgresToolLibrary(dsn, namespace="hermes") as other:
        other.add_or_update(art())
    assert PostgresToolLibrary.list_namespaces(dsn) == ["hermes", "voyager"]
    with PostgresToolLibrary(dsn, namespace="voyager") as writer:
        assert writer.get("audit").active is True  # the read-only deprecate changed nothing


def test_read_only_open_refuses_a_newer_schema(pg: PostgresToolLibrary, dsn: str) -> None:
    """A browser refuses a schema newer than it knows, as a writer does."""
    pg.add_or_update(art())
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE qitos_library_meta SET value = '7' WHERE key = 'schema_version'")
    for call in (
        lambda: PostgresToolLibrary.open_readonly(dsn, namespace="research"),
        lambda: PostgresToolLibrary.list_namespaces(dsn),
    ):
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == "schema_unsupported"


def _first_use(dsn: str, worker: int, barrier: Any, results: multiprocessing.Queue) -> None:
    """Open a library on a database nobody has used yet, all writers at the same instant."""
    barrier.wait(timeout=60)
    try:
        with PostgresToolLibrary(dsn, namespace=f"w{worker}") as lib:
            lib.add_or_update(art())
        results.put("ok")
    except ToolLibraryError as exc:
        results.put(exc.code)


@pytest.mark.slow
def test_first_use_by_many_processes_at_once(dsn: str) -> None:
    """Eight processes creating the schema at the same moment: all succeed, one schema, one stamp."""
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_first_use, args=(dsn, w, barrier, results)) for w in range(8)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(10)
    assert outcomes == ["ok"] * 8
    assert PostgresToolLibrary.list_namespaces(dsn) == [f"w{w}" for w in range(8)]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM qitos_library_meta").fetchone() == (1,)


def test_connection_failures_have_codes_and_hide_the_dsn(pg: PostgresToolLibrary, tmp_path: Any) -> None:
    """No server, a malformed string, or a connection cut under a library: coded errors, no DSN echoed."""
    unreachable = f"postgresql://user:hunter2@/db?host={tmp_path}&connect_timeout=2"
    for call in (
        lambda: PostgresToolLibrary(unreachable, namespace="n"),
        lambda: PostgresToolLibrary.open_readonly(unreachable, namespace="n"),
        lambda: PostgresToolLibrary.list_namespaces(unreachable),
    ):
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == "storage_unreachable" and "hunter2" not in str(err.value)
        assert err.value.__cause__ is None and err.value.__suppress_context__
    for bad in ("", "not a = valid 'dsn", 42):
        with pytest.raises(ToolLibraryError) as err:
            PostgresToolLibrary(bad, namespace="n")  # type: ignore[arg-type]
        assert err.value.code == "storage_error"
    pg.add_or_update(art())
    with psycopg.connect(pg._conn.info.dsn + " password=x", autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pg._conn.info.backend_pid,))
    with pytest.raises(ToolLibraryError) as err:
        pg.get("audit")
    assert err.value.code == "storage_unreachable"


def test_is_postgres_url() -> None:
    """Only postgresql:// and postgres:// URLs are PostgreSQL targets; paths are not."""
    assert is_postgres_url("postgresql://u@h/db") and is_postgres_url("postgres:///db?host=/tmp")
    assert not is_postgres_url(".qitos/skills.db") and not is_postgres_url(None)


def test_the_readme_example_runs(dsn: str) -> None:
    """The README's PostgreSQL example, run twice against the test server: versions 1 then 2."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    match = re.search(
        r"<!-- readme-example: postgres-skills -->\s*```python\n(.*?)```",
        readme.read_text("utf-8"),
        re.DOTALL,
    )
    assert match, "the README lost its PostgreSQL example"
    source, count = re.subn(r'^dsn = "[^"]*"', lambda _m: f"dsn = {dsn!r}", match.group(1), flags=re.M)
    assert count == 1
    for _ in range(2):
        exec(compile(source, "README.md", "exec"), {})  # noqa: S102 - our own documentation
    with PostgresToolLibrary(dsn, namespace="research") as lib:
        assert [(a.version, a.source) for a in lib.versions("audit")] == [
            (1, "1. Read\n2. Verify\n"),
            (2, "1. Read\n2. Verify\n"),
        ]
