"""SqliteToolLibrary: immutable, versioned skills in a local SQLite file, scoped by namespace.

WAL journaling lets a reader process (the TUI) browse while a writer (the agent) publishes.
Publishing runs under ``BEGIN IMMEDIATE``: the write lock is taken before the latest version is
read, so two publishers that both expected version N cannot both win. Nothing stored is ever
executed, and errors carry a stable code instead of echoing stored data.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from qitos.kit.tool.library.base import (
    BaseToolLibrary,
    ToolArtifact,
    catalog_entry,
    emit_deprecate,
    emit_publish,
    query_terms,
    rank_artifacts,
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

__all__ = ["SqliteToolLibrary", "ToolLibraryError"]

#: The schema this code writes; a database stamped with a newer one is refused, never written.
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 10_000
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS library_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS skills (
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        latest_version INTEGER NOT NULL,
        active INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (namespace, name)
    )""",
    """CREATE TABLE IF NOT EXISTS skill_versions (
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        description TEXT NOT NULL,
        summary TEXT,
        source TEXT NOT NULL,
        tags_json TEXT NOT NULL,
        metadata_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (namespace, name, version)
    )""",
    # Published versions are immutable: the database itself refuses to rewrite or drop one.
    """CREATE TRIGGER IF NOT EXISTS skill_versions_immutable BEFORE UPDATE ON skill_versions
    BEGIN SELECT RAISE(ABORT, 'skill versions are immutable'); END""",
    """CREATE TRIGGER IF NOT EXISTS skill_versions_no_delete BEFORE DELETE ON skill_versions
    BEGIN SELECT RAISE(ABORT, 'skill versions are immutable'); END""",
)
_FTS_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS skills_fts USING fts5(
    name, description, summary, tags, source, tokenize = 'unicode61'
);
"""
_VERSION_COLUMNS = ", ".join(VERSION_COLUMNS)


class SqliteToolLibrary(BaseToolLibrary):
    """Atomic revisions scoped to an explicitly selected namespace.

    A catalog exposes descriptions, never executable source. ``get`` loads the
    complete selected artifact; no implicit truncation or execution takes place.
    The caller owns the connection and must close it (or use a context manager).
    SQLite is a trusted local resource, not an authorization boundary against a
    user who can directly open the same database file.
    """

    #: Use SQLite FTS5 for ``search`` when the SQLite build has it (False forces the fallback).
    use_fts: bool = True

    def __init__(self, path: str | Path, *, namespace: str) -> None:
        self.namespace = validate_namespace(namespace)
        if not isinstance(path, str | Path) or not str(path):
            raise ToolLibraryError("storage_error")
        self.path = Path(path)
        #: ISO-8601 timestamp source for ``updated_at`` (inject a fixed clock in tests).
        self.clock: Callable[[], str] = lambda: datetime.now(UTC).isoformat()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = _connect(self.path, readonly=False)
        try:
            self._fts = self._init_schema()
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    @classmethod
    def open_readonly(cls, path: str | Path, *, namespace: str) -> SqliteToolLibrary:
        """Open an existing database for browsing only (a TUI): never creates or writes the file."""
        self = cls.__new__(cls)
        self.namespace = validate_namespace(namespace)
        self.path = Path(path)
        if not self.path.is_file():
            raise ToolLibraryError("storage_missing")
        self.clock = lambda: datetime.now(UTC).isoformat()
        self._lock = threading.RLock()
        self._conn = _connect(self.path, readonly=True)
        try:
            with _translate_errors():
                if _has_table(self._conn, "library_meta"):
                    _check_schema(self._conn)
                self._fts = cls.use_fts and _has_table(self._conn, "skills_fts")
        except BaseException:
            self._conn.close()
            raise
        return self

    @staticmethod
    def list_namespaces(path: str | Path) -> list[str]:
        """Every namespace that holds skills in the database at ``path`` (read-only)."""
        if not Path(path).is_file():
            raise ToolLibraryError("storage_missing")
        conn = _connect(Path(path), readonly=True)
        try:
            with _translate_errors():
                if not _has_table(conn, "skills"):
                    return []
                rows = conn.execute("SELECT DISTINCT namespace FROM skills ORDER BY namespace").fetchall()
            return [row[0] for row in rows]
        finally:
            conn.close()

    # ----- lifecycle -----------------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file, so that the file alone holds every
        version published so far (a copy of just that file is complete). Readers keep reading."""
        with self._lock, _translate_errors():
            self._db().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def close(self) -> None:
        """Close the connection (folding the write-ahead log into the database file first, when
        this connection may write); later calls raise ToolLibraryError('closed'). Idempotent."""
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                except sqlite3.Error:
                    # Read-only, or the log is busy: it stays beside the file, complete and durable,
                    # and the next connection that writes folds it in.
                    pass
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SqliteToolLibrary:
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
        now = self.clock()
        with self._lock, _translate_errors():
            conn = self._db()
            with _immediate(conn):
                row = conn.execute(
                    "SELECT rowid, latest_version, created_at FROM skills WHERE namespace = ? AND name = ?",
                    (self.namespace, artifact.name),
                ).fetchone()
                latest = row[1] if row else 0
                if expected is not None and expected != latest:
                    raise ToolLibraryError("version_conflict")
                version = latest + 1
                created_at = row[2] if row else artifact.created_at
                conn.execute(
                    f"INSERT INTO skill_versions (namespace, {_VERSION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (
                        self.namespace,
                        artifact.name,
                        version,
                        artifact.description,
                        artifact.summary,
                        artifact.source,
                        tags_json,
                        metadata_json,
                        created_at,
                        now,
                    ),
                )
                if row:
                    rowid = row[0]
                    conn.execute(
                        "UPDATE skills SET latest_version = ?, active = ?, updated_at = ? WHERE rowid = ?",
                        (version, int(artifact.active), now, rowid),
                    )
                else:
                    rowid = conn.execute(
                        "INSERT INTO skills (namespace, name, latest_version, active, created_at, updated_at)"
                        " VALUES (?,?,?,?,?,?)",
                        (self.namespace, artifact.name, version, int(artifact.active), created_at, now),
                    ).lastrowid
                if self._fts:
                    # The index holds the latest version of each skill, keyed by the skills rowid.
                    conn.execute("DELETE FROM skills_fts WHERE rowid = ?", (rowid,))
                    _index(conn, rowid, artifact)
        stored = ToolArtifact(
            name=artifact.name,
            description=artifact.description,
            source=artifact.source,
            summary=artifact.summary,
            tags=list(artifact.tags),
            version=version,
            created_at=created_at,
            updated_at=now,
            metadata=json.loads(metadata_json),
            active=artifact.active,
        )
        emit_publish(stored, namespace=self.namespace)
        return stored

    def deprecate(self, name: str) -> bool:
        """Mark a skill inactive (versions stay loadable); True if that changed anything."""
        validate_name(name)
        with self._lock, _translate_errors():
            conn = self._db()
            with _immediate(conn):
                cursor = conn.execute(
                    "UPDATE skills SET active = 0, updated_at = ? WHERE namespace = ? AND name = ? AND active = 1",
                    (self.clock(), self.namespace, name),
                )
                changed = cursor.rowcount == 1
        emit_deprecate(name, namespace=self.namespace, changed=changed)
        return changed

    # ----- reading -------------------------------------------------------------------------------

    def get(self, name: str) -> ToolArtifact | None:
        """The latest version with its complete body (inactive skills included), or None."""
        validate_name(name)
        with self._lock, _translate_errors():
            row = (
                self._db()
                .execute(
                    f"SELECT {prefixed('v')}, s.active FROM skills s JOIN skill_versions v"
                    " ON v.namespace = s.namespace AND v.name = s.name AND v.version = s.latest_version"
                    " WHERE s.namespace = ? AND s.name = ?",
                    (self.namespace, name),
                )
                .fetchone()
            )
        return artifact_from_row(row) if row else None

    def get_version(self, name: str, version: int) -> ToolArtifact | None:
        """One exact version with its complete body, or None."""
        validate_name(name)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ToolLibraryError("invalid_version")
        with self._lock, _translate_errors():
            row = (
                self._db()
                .execute(
                    f"SELECT {prefixed('v')}, s.active FROM skill_versions v JOIN skills s"
                    " ON s.namespace = v.namespace AND s.name = v.name"
                    " WHERE v.namespace = ? AND v.name = ? AND v.version = ?",
                    (self.namespace, name, version),
                )
                .fetchone()
            )
        return artifact_from_row(row) if row else None

    def versions(self, name: str) -> list[ToolArtifact]:
        """Every version of one skill with complete bodies, oldest first (empty if unknown)."""
        validate_name(name)
        with self._lock, _translate_errors():
            rows = (
                self._db()
                .execute(
                    f"SELECT {prefixed('v')}, s.active FROM skill_versions v JOIN skills s"
                    " ON s.namespace = v.namespace AND s.name = v.name"
                    " WHERE v.namespace = ? AND v.name = ? ORDER BY v.version",
                    (self.namespace, name),
                )
                .fetchall()
            )
        return [artifact_from_row(row) for row in rows]

    def skills(self, *, include_inactive: bool = True) -> list[dict[str, Any]]:
        """Every skill of the namespace for browsing: name, latest_version, active, tags, description."""
        return self._skill_rows(include_inactive=include_inactive, limit=-1)

    def _skill_rows(self, *, include_inactive: bool, limit: int) -> list[dict[str, Any]]:
        """Skill rows by name, at most ``limit`` of them (-1: all)."""
        with self._lock, _translate_errors():
            rows = (
                self._db()
                .execute(
                    f"SELECT {SKILL_COLUMNS} FROM skills s JOIN skill_versions v"
                    " ON v.namespace = s.namespace AND v.name = s.name AND v.version = s.latest_version"
                    " WHERE s.namespace = ? AND (? OR s.active = 1) ORDER BY s.name LIMIT ?",
                    (self.namespace, int(include_inactive), limit),
                )
                .fetchall()
            )
        return [skill_from_row(r) for r in rows]

    def catalog(self, query: str = "", *, limit: int = 20) -> list[dict[str, Any]]:
        """Return selectable identities/descriptions without source or metadata.

        This is a projection, not a privacy sanitizer or bounded-I/O claim.
        """
        validate_query_text(query)
        validate_limit(limit)
        if query.strip():
            return [catalog_entry(a) for a in self.search(query, top_k=limit)]
        return [catalog_from_skill(s) for s in self._skill_rows(include_inactive=False, limit=limit)]

    def search(self, query: str, top_k: int = 5) -> list[ToolArtifact]:
        """Active skills ranked by relevance: FTS5 bm25 where available, weighted terms otherwise."""
        validate_query_text(query)
        validate_limit(top_k)
        terms = query_terms(query)
        if not terms:
            return []
        if self._fts:
            # Each term quoted and prefix-matched: user text is never FTS query syntax.
            match = " OR ".join('"' + t.replace('"', '""') + '"*' for t in terms)
            with self._lock, _translate_errors():
                rows = (
                    self._db()
                    .execute(
                        f"SELECT {prefixed('v')}, s.active FROM skills_fts f"
                        " JOIN skills s ON s.rowid = f.rowid"
                        " JOIN skill_versions v ON v.namespace = s.namespace AND v.name = s.name"
                        " AND v.version = s.latest_version"
                        " WHERE skills_fts MATCH ? AND s.namespace = ? AND s.active = 1"
                        " ORDER BY bm25(skills_fts, 5.0, 3.0, 2.0, 2.0, 0.5), s.name LIMIT ?",
                        (match, self.namespace, top_k),
                    )
                    .fetchall()
                )
            return [artifact_from_row(row) for row in rows]
        with self._lock, _translate_errors():
            rows = (
                self._db()
                .execute(
                    f"SELECT {prefixed('v')}, s.active FROM skills s JOIN skill_versions v"
                    " ON v.namespace = s.namespace AND v.name = s.name AND v.version = s.latest_version"
                    " WHERE s.namespace = ? AND s.active = 1",
                    (self.namespace,),
                )
                .fetchall()
            )
        return rank_artifacts((artifact_from_row(row) for row in rows), query, top_k)

    # ----- internals -----------------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        """The open connection, or ToolLibraryError('closed')."""
        if self._conn is None:
            raise ToolLibraryError("closed")
        return self._conn

    def _init_schema(self) -> bool:
        """Create the tables once (idempotent, under the write lock); return whether FTS5 is on."""
        conn = self._db()
        with _translate_errors():
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a publish the caller saw succeed survives a power cut, not only a process kill.
            conn.execute("PRAGMA synchronous=FULL")
            with _immediate(conn):
                # One statement at a time: executescript would commit the open transaction.
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(
                    "INSERT OR IGNORE INTO library_meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
                _check_schema(conn)
                fts = False
                if self.use_fts:
                    try:
                        conn.execute(_FTS_SCHEMA)
                        fts = True
                    except sqlite3.OperationalError:
                        fts = False  # this SQLite build has no FTS5: weighted-term fallback
            if fts and _needs_fts_backfill(conn):
                self._backfill_fts(conn)
        return fts

    def _backfill_fts(self, conn: sqlite3.Connection) -> None:
        """Index skills published by a library that ran without FTS (e.g. with use_fts False)."""
        with _immediate(conn):
            conn.execute("DELETE FROM skills_fts")
            rows = conn.execute(
                f"SELECT s.rowid, {prefixed('v')}, s.active FROM skills s JOIN skill_versions v"
                " ON v.namespace = s.namespace AND v.name = s.name AND v.version = s.latest_version"
            ).fetchall()
            # Row by row through the publish path's own indexing: the tags' JSON text would index
            # other words (a tab inside a tag is the two characters backslash and t there).
            for row in rows:
                _index(conn, row[0], artifact_from_row(row[1:]))


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """Open the database in autocommit mode (transactions are explicit) with a busy timeout."""
    try:
        if readonly:
            uri = "file:" + _uri_path(path) + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    except sqlite3.Error:
        raise ToolLibraryError("storage_error") from None
    return conn


def _uri_path(path: Path) -> str:
    """Percent-escape the characters that mean something in a SQLite file: URI."""
    return re.sub(r"[?#%]", lambda m: f"%{ord(m.group()):02X}", str(path.resolve()))


def _index(conn: sqlite3.Connection, rowid: int, artifact: ToolArtifact) -> None:
    """Add one skill's latest version to the FTS index under its skills rowid (tags space-joined)."""
    conn.execute(
        "INSERT INTO skills_fts (rowid, name, description, summary, tags, source) VALUES (?,?,?,?,?,?)",
        (
            rowid,
            artifact.name,
            artifact.description,
            artifact.summary or "",
            " ".join(artifact.tags),
            artifact.source,
        ),
    )


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the database has a table (or virtual table) of this name."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return row is not None


def _check_schema(conn: sqlite3.Connection) -> None:
    """Refuse a database whose schema version is newer than this code knows."""
    row = conn.execute("SELECT value FROM library_meta WHERE key = 'schema_version'").fetchone()
    if row is not None:
        check_schema_version(row[0], SCHEMA_VERSION)


def _needs_fts_backfill(conn: sqlite3.Connection) -> bool:
    """Whether the FTS index is missing skills (count mismatch)."""
    skills: int = conn.execute("SELECT count(*) FROM skills").fetchone()[0]
    indexed: int = conn.execute("SELECT count(*) FROM skills_fts").fetchone()[0]
    return skills != indexed


@contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction that takes the database write lock up front (BEGIN IMMEDIATE)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def _translate_errors() -> Iterator[None]:
    """Turn SQLite failures into coded errors whose text never includes stored data."""
    try:
        yield
    except ToolLibraryError:
        raise
    except sqlite3.OperationalError as exc:
        code = "storage_busy" if "locked" in str(exc) or "busy" in str(exc) else "storage_error"
        raise ToolLibraryError(code) from None
    except sqlite3.Error:
        raise ToolLibraryError("storage_error") from None
