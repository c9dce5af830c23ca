"""PostgresToolLibrary: immutable, versioned skills in a PostgreSQL database, scoped by namespace.

Many processes on many machines publish into one database. A publish claims its version number
with one atomic statement on the skill's row (an upsert, or an update conditioned on the expected
version), so the row lock decides between concurrent writers, never a read followed by a write;
the ``(namespace, name, version)`` primary key would refuse a duplicate version all the same.
Each change of a skill row sends a NOTIFY on :data:`CHANNEL` from inside the same transaction, so
a listener (the TUI) hears of it exactly when it becomes visible. Nothing stored is executed, and
errors carry a stable code instead of echoing stored data or the connection string.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeAlias

from qitos.kit.tool.library.base import (
    BaseToolLibrary,
    ToolArtifact,
    catalog_entry,
    emit_deprecate,
    emit_publish,
    query_terms,
)
from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.rows import (
    SKILL_COLUMNS,
    VERSION_COLUMNS,
    artifact_from_row,
    catalog_from_skill,
    encode_json,
    prefixed,
    skill_from_row,
)
from qitos.kit.tool.library.validation import (
    check_schema_version,
    validate_artifact,
    validate_expected_version,
    validate_limit,
    validate_name,
    validate_namespace,
    validate_query_text,
)

try:  # the `postgres` extra
    import psycopg
except ImportError:  # pragma: no cover - exercised only where the extra is not installed
    psycopg = None  # type: ignore[assignment]  # None stands for "the optional extra is missing"

#: A psycopg connection whose rows are plain tuples (psycopg's default row factory).
_Connection: TypeAlias = "psycopg.Connection[tuple[Any, ...]]"

__all__ = ["CHANNEL", "SCHEMA_VERSION", "PostgresToolLibrary", "ToolLibraryError", "is_postgres_url"]

#: The schema this code writes; a database stamped with a newer one is refused, never written.
SCHEMA_VERSION = 1
#: The NOTIFY channel; each payload is JSON: {"schema", "namespace", "name", "version", "active"}.
CHANNEL = "qitos_skills"
#: Serialises schema creation between processes opening a fresh database at the same moment.
_SCHEMA_LOCK = 0x71_69_74_6F_73_5F_73_6B  # "qitos_sk"
#: How long a statement waits for a row lock before the publish fails as storage_busy.
LOCK_TIMEOUT_MS = 10_000
#: How much of a body the search index reads: a tsvector holds at most 1 MB, and a body of that
#: many distinct words would otherwise make its publish fail. The body itself is stored whole.
SEARCH_SOURCE_CHARS = 100_000
#: ts_rank weights for {D, C, B, A}: source < summary/tags < description < name, as SQLite's bm25.
_RANK_WEIGHTS = "{0.1, 0.4, 0.6, 1.0}"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS qitos_library_meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS qitos_skills (
        namespace text NOT NULL,
        name text NOT NULL,
        latest_version integer NOT NULL CHECK (latest_version >= 1),
        active boolean NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (namespace, name)
    )""",
    """CREATE TABLE IF NOT EXISTS qitos_skill_versions (
        namespace text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        description text NOT NULL,
        summary text,
        source text NOT NULL,
        tags_json text NOT NULL,
        metadata_json text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        search tsvector NOT NULL,
        PRIMARY KEY (namespace, name, version),
        FOREIGN KEY (namespace, name) REFERENCES qitos_skills (namespace, name)
    )""",
    "CREATE INDEX IF NOT EXISTS qitos_skill_versions_search ON qitos_skill_versions USING gin (search)",
    # Published versions are immutable: the database itself refuses to rewrite or drop one.
    """CREATE OR REPLACE FUNCTION qitos_skill_versions_immutable() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'skill versions are immutable'; END $$""",
    """CREATE TRIGGER qitos_skill_versions_immutable BEFORE UPDATE OR DELETE ON qitos_skill_versions
    FOR EACH ROW EXECUTE FUNCTION qitos_skill_versions_immutable()""",
    """CREATE TRIGGER qitos_skill_versions_no_truncate BEFORE TRUNCATE ON qitos_skill_versions
    FOR EACH STATEMENT EXECUTE FUNCTION qitos_skill_versions_immutable()""",
    # Live followers: every insert or update of a skill row notifies, inside the writing transaction
    # (delivered at its commit, never for a rolled-back publish), whoever the writer is.
    f"""CREATE OR REPLACE FUNCTION qitos_skills_notify() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN
        PERFORM pg_notify('{CHANNEL}', json_build_object(
            'schema', TG_TABLE_SCHEMA, 'namespace', NEW.namespace, 'name', NEW.name,
            'version', NEW.latest_version, 'active', NEW.active)::text);
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER qitos_skills_notify AFTER INSERT OR UPDATE ON qitos_skills
    FOR EACH ROW EXECUTE FUNCTION qitos_skills_notify()""",
)

_VERSION_INSERT = f"""
INSERT INTO qitos_skill_versions (namespace, {", ".join(VERSION_COLUMNS)}, search)
VALUES (%(ns)s, %(name)s, %(version)s, %(description)s, %(summary)s, %(source)s, %(tags_json)s,
        %(metadata_json)s, %(created_at)s, %(now)s,
        setweight(to_tsvector('simple', %(name)s), 'A')
        || setweight(to_tsvector('simple', %(description)s), 'B')
        || setweight(to_tsvector('simple', %(summary_tags)s), 'C')
        || setweight(to_tsvector('simple', %(source_indexed)s), 'D'))
"""
# Claiming the next version number: one statement each, so the row lock orders concurrent writers
# and a loser re-checks its condition against the winner's committed row (READ COMMITTED).
_CLAIM_ANY = """
INSERT INTO qitos_skills AS s (namespace, name, latest_version, active, created_at, updated_at)
VALUES (%(ns)s, %(name)s, 1, %(active)s, %(created_at)s, %(now)s)
ON CONFLICT (namespace, name) DO UPDATE
SET latest_version = s.latest_version + 1, active = EXCLUDED.active, updated_at = EXCLUDED.updated_at
RETURNING latest_version, created_at
"""
_CLAIM_NEW = """
INSERT INTO qitos_skills (namespace, name, latest_version, active, created_at, updated_at)
VALUES (%(ns)s, %(name)s, 1, %(active)s, %(created_at)s, %(now)s)
ON CONFLICT (namespace, name) DO NOTHING
RETURNING latest_version, created_at
"""
_CLAIM_AFTER = """
UPDATE qitos_skills SET latest_version = latest_version + 1, active = %(active)s, updated_at = %(now)s
WHERE namespace = %(ns)s AND name = %(name)s AND latest_version = %(expected)s
RETURNING latest_version, created_at
"""
_LATEST = (
    "qitos_skills s JOIN qitos_skill_versions v"
    " ON v.namespace = s.namespace AND v.name = s.name AND v.version = s.latest_version"
)


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` is a PostgreSQL connection URL (postgresql:// or postgres://)."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class PostgresToolLibrary(BaseToolLibrary):
    """Atomic revisions in PostgreSQL, scoped to an explicitly selected namespace.

    ``dsn`` is a libpq connection string or URL; the tables live in the connection's current
    schema (the first of its search_path) and are created on first use. A catalog exposes
    descriptions, never source; ``get`` loads the complete version; nothing is ever executed.
    The caller owns the connection and must close it (or use a context manager). A namespace
    isolates records, not users: access control is the database's roles and grants.
    """

    def __init__(self, dsn: str, *, namespace: str, connect_timeout: float = 10.0) -> None:
        self.namespace = validate_namespace(namespace)
        #: ISO-8601 timestamp source for ``updated_at`` (inject a fixed clock in tests).
        self.clock: Callable[[], str] = lambda: datetime.now(UTC).isoformat()
        self._lock = threading.RLock()
        self._conn: _Connection | None = _connect(dsn, readonly=False, connect_timeout=connect_timeout)
        try:
            with _translate_errors():
                self.schema = _init_schema(self._conn)
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    @classmethod
    def open_readonly(cls, dsn: str, *, namespace: str, connect_timeout: float = 10.0) -> PostgresToolLibrary:
        """Open an existing library for browsing only (a TUI): creates nothing, writes nothing."""
        self = cls.__new__(cls)
        self.namespace = validate_namespace(namespace)
        self.clock = lambda: datetime.now(UTC).isoformat()
        self._lock = threading.RLock()
        self._conn = _connect(dsn, readonly=True, connect_timeout=connect_timeout)
        try:
            with _translate_errors():
                self.schema = _check_existing_schema(self._conn)
        except BaseException:
            self._conn.close()
            self._conn = None
            raise
        return self

    @staticmethod
    def list_namespaces(dsn: str, *, connect_timeout: float = 10.0) -> list[str]:
        """Every namespace that holds skills in the database (read-only; none before first use)."""
        conn = _connect(dsn, readonly=True, connect_timeout=connect_timeout)
        try:
            with _translate_errors():
                if _find_table(conn, "qitos_skills") is None:
                    return []
                if _find_table(conn, "qitos_library_meta") is not None:
                    _check_version_row(conn)
                rows = conn.execute(
                    'SELECT DISTINCT namespace COLLATE "C" FROM qitos_skills ORDER BY 1'
                ).fetchall()
            return [row[0] for row in rows]
        finally:
            conn.close()

    # ----- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; later calls raise ToolLibraryError('closed'). Idempotent."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> PostgresToolLibrary:
        self._db()
        return self

    # ----- writing -------------------------------------------------------------------------------

    def add_or_update(self, artifact: ToolArtifact, *, expected_version: int | None = None) -> ToolArtifact:
        """Publish an immutable new version atomically; a stale ``expected_version`` is refused.

        ``expected_version`` is the latest version the caller saw (0: the name must not exist
        yet; None: publish unconditionally). The stored version number is always latest + 1,
        whatever ``artifact.version`` says.
        """
        validate_artifact(artifact)
        expected = validate_expected_version(expected_version)
        tags_json, metadata_json = encode_json(artifact)
        params: dict[str, Any] = {
            "ns": self.namespace,
            "name": artifact.name,
            "active": artifact.active,
            "created_at": artifact.created_at,
            "now": self.clock(),
            "expected": expected,
            "description": artifact.description,
            "summary": artifact.summary,
            "source": artifact.source,
            "tags_json": tags_json,
            "metadata_json": metadata_json,
            "summary_tags": " ".join([artifact.summary or "", *artifact.tags]),
            "source_indexed": artifact.source[:SEARCH_SOURCE_CHARS],
        }
        claim = _CLAIM_ANY if expected is None else _CLAIM_NEW if expected == 0 else _CLAIM_AFTER
        with self._lock, _translate_errors():
            conn = self._db()
            with conn.transaction():
                row = conn.execute(claim, params).fetchone()
                if row is None:
                    raise ToolLibraryError("version_conflict")
                params["version"], params["created_at"] = row
                conn.execute(_VERSION_INSERT, params)
        stored = artifact_from_row(
            (
                artifact.name,
                params["version"],
                artifact.description,
                artifact.summary,
                artifact.source,
                tags_json,
                metadata_json,
                params["created_at"],
                params["now"],
                artifact.active,
            )
        )
        emit_publish(stored, namespace=self.namespace)
        return stored

    def deprecate(self, name: str) -> bool:
        """Mark a skill inactive (versions stay loadable); True if that changed anything."""
        validate_name(name)
        with self._lock, _translate_errors():
            row = (
                self._db()
                .execute(
                    "UPDATE qitos_skills SET active = false, updated_at = %s"
                    " WHERE namespace = %s AND name = %s AND active RETURNING 1",
                    (self.clock(), self.namespace, name),
                )
                .fetchone()
            )
        changed = row is not None
        emit_deprecate(name, namespace=self.namespace, changed=changed)
        return changed

    # ----- reading -------------------------------------------------------------------------------

    def get(self, name: str) -> ToolArtifact | None:
        """The latest version with its complete body (inactive skills included), or None."""
        validate_name(name)
        rows = self._query(
            f"SELECT {prefixed('v')}, s.active FROM {_LATEST} WHERE s.namespace = %s AND s.name = %s",
            (self.namespace, name),
        )
        return artifact_from_row(rows[0]) if rows else None

    def get_version(self, name: str, version: int) -> ToolArtifact | None:
        """One exact version with its complete body, or None."""
        validate_name(name)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ToolLibraryError("invalid_version")
        if version > 2**31 - 1:
            return None  # beyond the column's range: no such version
        rows = self._query(
            f"SELECT {prefixed('v')}, s.active FROM qitos_skill_versions v JOIN qitos_skills s"
            " ON s.namespace = v.namespace AND s.name = v.name"
            " WHERE v.namespace = %s AND v.name = %s AND v.version = %s",
            (self.namespace, name, version),
        )
        return artifact_from_row(rows[0]) if rows else None

    def versions(self, name: str) -> list[ToolArtifact]:
        """Every version of one skill with complete bodies, oldest first (empty if unknown)."""
        validate_name(name)
        rows = self._query(
            f"SELECT {prefixed('v')}, s.active FROM qitos_skill_versions v JOIN qitos_skills s"
            " ON s.namespace = v.namespace AND s.name = v.name"
            " WHERE v.namespace = %s AND v.name = %s ORDER BY v.version",
            (self.namespace, name),
        )
        return [artifact_from_row(row) for row in rows]

    def skills(self, *, include_inactive: bool = True) -> list[dict[str, Any]]:
        """Every skill of the namespace for browsing: name, latest_version, active, tags, description."""
        return self._skill_rows(include_inactive=include_inactive, limit=None)

    def catalog(self, query: str = "", *, limit: int = 20) -> list[dict[str, Any]]:
        """Return selectable identities/descriptions without source or metadata (a projection)."""
        validate_query_text(query)
        validate_limit(limit)
        if query.strip():
            return [catalog_entry(a) for a in self.search(query, top_k=limit)]
        return [catalog_from_skill(s) for s in self._skill_rows(include_inactive=False, limit=limit)]

    def search(self, query: str, top_k: int = 5) -> list[ToolArtifact]:
        """Active skills ranked by PostgreSQL full-text search (prefix terms, weighted fields; a body's
        first SEARCH_SOURCE_CHARS characters are indexed). Names order as bytes, as in SQLite."""
        validate_query_text(query)
        validate_limit(top_k)
        terms = query_terms(query)
        if not terms:
            return []
        # Each term quoted as one lexeme and prefix-matched: user text is never tsquery syntax.
        tsquery = " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "':*" for t in terms)
        rows = self._query(
            f"SELECT {prefixed('v')}, s.active FROM {_LATEST}, to_tsquery('simple', %s) q"
            " WHERE s.namespace = %s AND s.active AND v.search @@ q"
            f" ORDER BY ts_rank('{_RANK_WEIGHTS}', v.search, q) DESC, s.name COLLATE \"C\" LIMIT %s",
            (tsquery, self.namespace, top_k),
        )
        return [artifact_from_row(row) for row in rows]

    # ----- internals -----------------------------------------------------------------------------

    def _skill_rows(self, *, include_inactive: bool, limit: int | None) -> list[dict[str, Any]]:
        """Skill rows by name, at most ``limit`` of them (None: all)."""
        rows = self._query(
            f"SELECT {SKILL_COLUMNS} FROM {_LATEST}"
            ' WHERE s.namespace = %s AND (%s OR s.active) ORDER BY s.name COLLATE "C" LIMIT %s',
            (self.namespace, include_inactive, limit),
        )
        return [skill_from_row(r) for r in rows]

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run one read statement and return its rows, errors translated."""
        with self._lock, _translate_errors():
            return self._db().execute(sql, params).fetchall()

    def _db(self) -> _Connection:
        """The open connection, or ToolLibraryError('closed')."""
        if self._conn is None:
            raise ToolLibraryError("closed")
        return self._conn


def _connect(dsn: object, *, readonly: bool, connect_timeout: float) -> _Connection:
    """An autocommit connection (transactions are explicit); coded errors that never echo the DSN."""
    if psycopg is None:
        raise ImportError("PostgresToolLibrary needs psycopg: pip install 'qitos-tui[postgres]'")
    if not isinstance(dsn, str) or not dsn.strip():
        raise ToolLibraryError("storage_error")
    try:
        conn = psycopg.connect(dsn, autocommit=True, connect_timeout=max(1, round(connect_timeout)))
    except psycopg.ProgrammingError:
        raise ToolLibraryError("storage_error") from None  # a malformed connection string
    except psycopg.Error:
        raise ToolLibraryError("storage_unreachable") from None
    try:
        # Session settings, not connection options: those would replace the caller's own `options`
        # (a search_path, say) given in the connection string.
        conn.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        conn.execute("SET application_name = 'qitos-skills'")
        if readonly:
            conn.execute("SET default_transaction_read_only = on")
    except psycopg.Error:
        conn.close()
        raise ToolLibraryError("storage_error") from None
    return conn


def _find_table(conn: _Connection, name: str) -> str | None:
    """The schema holding ``name`` as the connection's search_path resolves it, or None."""
    row = conn.execute(
        "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.oid = to_regclass(%s)",
        (name,),
    ).fetchone()
    return row[0] if row else None


def _check_version_row(conn: _Connection) -> None:
    """Refuse a library stamped with a schema version newer than this code (or none at all)."""
    row = conn.execute("SELECT value FROM qitos_library_meta WHERE key = 'schema_version'").fetchone()
    check_schema_version(row[0] if row else None, SCHEMA_VERSION)


def _init_schema(conn: _Connection) -> str:
    """Create the tables on first use, once, under a cross-process lock; return their schema."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        if _find_table(conn, "qitos_library_meta") is None:
            current = conn.execute("SELECT current_schema()").fetchone()
            if current is None or current[0] is None:
                raise ToolLibraryError("storage_error")  # no schema to create the tables in
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO qitos_library_meta (key, value) VALUES ('schema_version', %s)",
                (str(SCHEMA_VERSION),),
            )
        _check_version_row(conn)
        schema = _find_table(conn, "qitos_skills")
    if schema is None:
        raise ToolLibraryError("storage_error")
    return schema


def _check_existing_schema(conn: _Connection) -> str:
    """For a read-only open: the tables must exist already, at a schema version this code knows."""
    schema = _find_table(conn, "qitos_skills")
    if schema is None or _find_table(conn, "qitos_library_meta") is None:
        raise ToolLibraryError("storage_missing")
    _check_version_row(conn)
    return schema


@contextmanager
def _translate_errors() -> Iterator[None]:
    """Turn PostgreSQL failures into coded errors whose text never includes stored data."""
    try:
        yield
    except ToolLibraryError:
        raise
    except psycopg.errors.LockNotAvailable:
        raise ToolLibraryError("storage_busy") from None
    except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected):
        raise ToolLibraryError("storage_busy") from None
    except psycopg.errors.UniqueViolation:
        # Only a (namespace, name, version) already taken can collide: someone else won that version.
        raise ToolLibraryError("version_conflict") from None
    except psycopg.OperationalError:
        raise ToolLibraryError("storage_unreachable") from None
    except psycopg.Error:
        raise ToolLibraryError("storage_error") from None
