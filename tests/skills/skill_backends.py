"""Each skill-library kind behind one factory, for the contract suite and the concurrency tests, and
the artifact and error helpers the skills tests share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from qitos.kit.tool.library.base import BaseToolLibrary, InMemoryToolLibrary, ToolArtifact
from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

__all__ = ["KINDS", "Backend", "art", "code_of", "make_backend", "open_library"]

KINDS = ["memory", "sqlite", "postgres"]


def art(name: str = "audit", **kw: object) -> ToolArtifact:
    """A valid artifact with overridable fields."""
    fields: dict[str, object] = {"description": "Check evidence", "source": "Read, calculate, verify."}
    fields.update(kw)
    return ToolArtifact(name=name, **fields)  # type: ignore[arg-type]


def code_of(call: Any) -> str:
    """The ToolLibraryError code ``call()`` raises (fails the test if it raises nothing)."""
    with pytest.raises(ToolLibraryError) as err:
        call()
    return err.value.code


def open_library(kind: str, target: str, namespace: str) -> BaseToolLibrary:
    """Open a persistent library of ``kind`` on ``target`` (a SQLite path or a PostgreSQL URL)."""
    if kind == "sqlite":
        return SqliteToolLibrary(target, namespace=namespace)
    from qitos.kit.tool.library.postgres_store import PostgresToolLibrary

    return PostgresToolLibrary(target, namespace=namespace)


@dataclass
class Backend:
    """One library kind with its own empty storage for the test: ``open(ns)`` reaches the same data."""

    kind: str
    #: The SQLite file or the PostgreSQL URL (a fresh schema); "" in memory.
    target: str
    _memory: dict[str, InMemoryToolLibrary] = field(default_factory=dict)

    @property
    def persistent(self) -> bool:
        """Whether data outlives the library object (and close() makes it unusable)."""
        return self.kind != "memory"

    def open(self, namespace: str = "research") -> Any:
        """A library in ``namespace`` on this backend's storage."""
        if self.kind == "memory":
            return self._memory.setdefault(namespace, InMemoryToolLibrary(namespace=namespace))
        return open_library(self.kind, self.target, namespace)

    def set_schema_version(self, value: str) -> None:
        """Stamp the storage with another schema version, as a newer (or broken) writer would."""
        if self.kind == "sqlite":
            import sqlite3

            with sqlite3.connect(self.target) as conn:
                conn.execute("UPDATE library_meta SET value = ? WHERE key = 'schema_version'", (value,))
            return
        import psycopg

        with psycopg.connect(self.target, autocommit=True) as conn:
            conn.execute("UPDATE qitos_library_meta SET value = %s WHERE key = 'schema_version'", (value,))


def make_backend(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A Backend of ``kind`` with empty storage (PostgreSQL: a new schema on the session's server)."""
    if kind == "sqlite":
        return Backend(kind, str(tmp_path / "skills.db"))
    if kind == "postgres":
        return Backend(kind, request.getfixturevalue("postgres_server").fresh_schema())
    return Backend(kind, "")
