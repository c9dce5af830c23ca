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
def built_upstream_dirs(tmp_path: Path) -> list[Path]:
    """Two upstream-format (v1) run directories written by the suite itself (no ../shared needed)."""
    from upstream_format import write_upstream_folder

    return [run.run_dir for run in write_upstream_folder(tmp_path / "upstream")]


@pytest.fixture(params=["built", "shared"])
def upstream_trace_dirs(request: pytest.FixtureRequest) -> list[Path]:
    """Upstream-format run directories: the suite's own ("built"), and upstream's real samples in
    ../shared/traces ("shared", an extra that skips when they are absent; it has no snapshot)."""
    if request.param == "built":
        return request.getfixturevalue("built_upstream_dirs")
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
