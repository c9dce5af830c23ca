"""Deterministic Memdir roots and skill databases for the browser tests, benchmarks and screenshots."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import record_filename, render_record
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary
from tui.browsers.virtual_list import VirtualList

# The suite's one polling helper lives beside the test folders (benchmarks run as scripts, so the
# folder is put on the path here rather than relied on from pytest).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from waits import wait_until  # noqa: E402

RECORDS = [
    (
        "rec-001",
        "user",
        1,
        "The failing check is tests/test_math.py::test_add.\nIt started after the refactor.",
    ),
    ("rec-002", "assistant", 2, "Root cause: add() subtracts its second argument."),
    ("rec-003", "tool", 3, "pytest: 1 failed, 4 passed in 0.12s"),
    ("rec-004", "assistant", 4, "Fixed add() in src/calc.py; all tests pass now."),
    ("rec-005", "user", 5, "Remember: run the linter before publishing a skill."),
]
GLOBAL_RECORDS = [
    ("glob-001", "user", 0, "House rule: never push to main without a green check."),
    ("glob-002", "assistant", 0, "The project uses ruff with line length 110."),
]

SKILL_V1 = '''def fix_failing_check(repo):
    """Run the tests and show the first failure."""
    result = run("pytest -x", cwd=repo)
    return result.stdout
'''
SKILL_V2 = '''def fix_failing_check(repo, *, marker=None):
    """Run the tests, show the first failure and its traceback."""
    args = ["pytest", "-x", "--tb=short"]
    if marker:
        args += ["-m", marker]
    result = run(args, cwd=repo)
    return result.stdout + result.stderr
'''
SKILL_V3 = SKILL_V2.replace("--tb=short", "--tb=long")


def fixed_clock(start_minute: int = 0) -> Callable[[], str]:
    """An ISO-8601 clock that advances one second per call, from a fixed instant."""
    ticks: Iterator[int] = iter(range(start_minute * 60, 10**9))
    return lambda: f"2026-11-30T10:{(t := next(ticks)) // 60 % 60:02d}:{t % 60:02d}+00:00"


def build_memory_root(root: Path, *, records: list[tuple[str, str, int, str]] | None = None) -> Path:
    """A memory root with the given records plus a malformed record file, a symlink and a stray file."""
    memory = MemdirMemory(str(root), create=True)
    memory.clock = fixed_clock()
    for record_id, role, step, text in RECORDS if records is None else records:
        memory.append(MemoryRecord(role=role, content=text, step_id=step, record_id=record_id))
    if records is None:
        broken = root / "records" / record_filename("broken-1")
        broken.write_text("no front matter here\n", encoding="utf-8")
        os.symlink(
            root / "records" / record_filename("rec-001"), root / "records" / record_filename("link-1")
        )
    return root


def build_global_root(root: Path) -> Path:
    """A global memory root with the GLOBAL_RECORDS."""
    memory = MemdirMemory(str(root), create=True)
    memory.clock = fixed_clock(30)
    for record_id, role, step, text in GLOBAL_RECORDS:
        memory.append(MemoryRecord(role=role, content=text, step_id=step, record_id=record_id))
    return root


def build_many_records(root: Path, count: int) -> Path:
    """A memory root with ``count`` records (for the 10,000-record responsiveness checks)."""
    memory = MemdirMemory(str(root), create=True)
    memory.clock = fixed_clock()
    records_dir = root / "records"
    # Writing through append rewrites the index each time (quadratic); write the files directly in
    # the same format, then rebuild the index once.
    for i in range(count):
        record = MemoryRecord(
            role="user" if i % 2 else "assistant",
            content=f"note {i}: value {i * 7}",
            step_id=i % 50,
            record_id=f"r{i:05d}",
        )
        data, _ = render_record(record, created="2026-11-30T10:00:00+00:00", seq=i + 1)
        (records_dir / record_filename(record.record_id)).write_bytes(data)
    memory.rebuild_index()
    return root


def build_skills_db(path: Path, *, namespace: str = "demo") -> Path:
    """A database with fix-failing-check v1..v3, a Markdown procedure and a deprecated skill."""
    with SqliteToolLibrary(path, namespace=namespace) as library:
        library.clock = fixed_clock()
        created = "2026-11-30T09:00:00+00:00"
        published = [
            ("fix-failing-check", f"Find and fix the first failing test (rev {n})", src, ["tests", "python"])
            for n, src in enumerate((SKILL_V1, SKILL_V2, SKILL_V3), start=1)
        ]
        published += [
            (
                "release-notes",
                "Write release notes from the merged pull requests",
                "# Release notes\n\n1. List merged PRs since the last tag.\n2. Group them by area.\n",
                ["docs"],
            ),
            (
                "old-lint",
                "Run flake8 (replaced by ruff)",
                "def old_lint(repo):\n    return run('flake8', cwd=repo)\n",
                ["lint"],
            ),
        ]
        for name, description, source, tags in published:
            artifact = ToolArtifact(
                name=name,
                description=description,
                source=source,
                tags=tags,
                created_at=created,
                updated_at=created,
            )
            library.add_or_update(artifact)
        library.deprecate("old-lint")
    return path


async def memory_ready(pilot: Any) -> None:
    """Wait for a memory browser app's whole first load to be shown."""
    await wait_until(lambda: pilot.app.browser.loads >= 1, what="the whole first load")
    await pilot.pause()


def memory_recalled(step: int, recall: dict[str, Any]) -> Callable[[Any], Awaitable[None]]:
    """A run_before: the first load shown, then ``recall`` (a memory_recall payload) at ``step``."""

    async def recalled(pilot: Any) -> None:
        await memory_ready(pilot)
        pilot.app.browser.show_recall(step, [recall])
        await pilot.pause()

    return recalled


async def skills_ready(pilot: Any) -> None:
    """Wait for a skills browser app's first load, with the selected skill's versions."""
    await wait_until(lambda: pilot.app.browser.revision >= 1 and pilot.app.browser.versions, what="the load")
    await pilot.pause()


def run_writer(*args: str | Path) -> str:
    """Run browser_writer.py in another process; return its stdout (raise with its stderr on failure)."""
    script = Path(__file__).with_name("browser_writer.py")
    done = subprocess.run(
        [sys.executable, str(script), *map(str, args)], capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        raise AssertionError(f"writer {args[0]} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


async def key_latency(app: App[Any], key: str, settled: Callable[[], object] = lambda: True) -> float:
    """Seconds from a key event reaching the app to the moved cursor's rows rendered again.

    The key goes through the driver like a real one; the time ends when the focused list's cursor
    has moved, ``settled()`` holds (e.g. the detail view followed) and every visible line of the
    list has been rendered once more.
    """
    listing = app.focused
    assert isinstance(listing, VirtualList), f"focus is on {listing!r}, not a list"
    before = listing.cursor
    start = time.perf_counter()
    app._driver.send_message(events.Key(key, None))  # type: ignore[union-attr]
    moved = lambda: listing.cursor != before  # noqa: E731
    await wait_until(lambda: (moved() or not listing.count) and settled(), what=f"key {key}")
    for y in range(listing.scrollable_content_region.height):
        listing.render_line(y)
    return time.perf_counter() - start
