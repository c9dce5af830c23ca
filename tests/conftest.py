"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

# A session-scoped PostgreSQL server fixture, started only by the tests that ask for it.
pytest_plugins = ["pg_server"]

REPO = Path(__file__).resolve().parent.parent
UPSTREAM_TRACES = REPO.parent / "shared" / "traces"


@pytest.fixture
def upstream_trace_dirs() -> list[Path]:
    """The run directories written by upstream QitOS, read in place; skip when absent."""
    if not UPSTREAM_TRACES.is_dir():
        pytest.skip("../shared/traces is not present")
    dirs = sorted(p for p in UPSTREAM_TRACES.iterdir() if (p / "events.jsonl").is_file())
    if not dirs:
        pytest.skip("../shared/traces holds no run directories")
    return dirs


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests here in a fresh event loop (no asyncio plugin in the test stack)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{name: pyfuncitem.funcargs[name] for name in names}))
    return True
