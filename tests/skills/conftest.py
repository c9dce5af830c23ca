"""Fixtures for skill-library tests: every library kind (``backend``, ``lib``), SQLite, PostgreSQL
(``dsn``, ``pg``), run events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skill_backends import KINDS, Backend, make_backend

from qitos.kit.tool.library.postgres_store import PostgresToolLibrary  # psycopg is imported only if present
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from qitos.trace import sink


@pytest.fixture(params=KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Every library kind in turn (PostgreSQL skips, with the reason, where no server can run)."""
    return make_backend(request.param, request, tmp_path)


@pytest.fixture
def lib(backend: Backend) -> Iterator[Any]:
    """An open library of the backend in namespace 'research', closed after the test."""
    with backend.open("research") as opened:
        yield opened


@pytest.fixture
def dsn(postgres_server: Any) -> str:
    """A URL whose tables land in a fresh schema of the session's server."""
    return postgres_server.fresh_schema()


@pytest.fixture
def pg(dsn: str) -> Iterator[PostgresToolLibrary]:
    """A writable PostgreSQL library in namespace 'research', closed after the test."""
    with PostgresToolLibrary(dsn, namespace="research") as lib:
        yield lib


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's skill database lives."""
    return tmp_path / "skills.db"


@pytest.fixture
def library(db_path: Path) -> Iterator[SqliteToolLibrary]:
    """An open SQLite library in namespace 'research', closed after the test."""
    with SqliteToolLibrary(db_path, namespace="research") as opened:
        yield opened


@pytest.fixture
def events() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Run events emitted through qitos.trace.sink while the test runs, as (kind, payload)."""
    captured: list[tuple[str, dict[str, Any]]] = []

    def emitter(kind: str, payload: dict[str, Any], *, ok: bool = True, error: str | None = None) -> None:
        captured.append((kind, payload))

    with sink.bind(emitter):
        yield captured
