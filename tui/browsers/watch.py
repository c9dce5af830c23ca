"""File watching for the browsers: ``watchfiles.awatch`` with a debounce short enough for a live view."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

from watchfiles import Change, awatch

from qitos.kit.memory.atomic import is_temp_name

__all__ = [
    "DEBOUNCE_MS",
    "STEP_MS",
    "follow_changes",
    "is_editor_scratch",
    "memory_filter",
    "sqlite_filter",
    "watch",
]

# watchfiles waits `step` ms for quiet after a change, up to `debounce` ms; its defaults (1600/50)
# make an edit appear after a noticeable lag. 50/10 reports a write here in ~15 ms.
DEBOUNCE_MS = 50
STEP_MS = 10
# How long the Rust watcher blocks before re-checking the stop event: bounds how long quitting waits.
RUST_TIMEOUT_MS = 250


# Editors' scratch files beside the file they save: vim's swap files and its `4913` write probe,
# backups ending in `~`, emacs lock and autosave files. Never records, so never worth a wake-up.
SCRATCH_SUFFIXES = ("~", ".swp", ".swo", ".swx", ".tmp", ".bak")
SCRATCH_NAMES = frozenset({"4913"})


def is_editor_scratch(name: str) -> bool:
    """Whether a file name is an editor's backup, swap or probe file."""
    return name in SCRATCH_NAMES or name.endswith(SCRATCH_SUFFIXES) or name.startswith((".#", "#"))


def memory_filter(change: Change, path: str) -> bool:
    """Changes under a memory root that can alter what the browser lists (not temp files, not the index)."""
    name = Path(path).name
    return not is_temp_name(name) and not is_editor_scratch(name) and name != "MEMORY.md"


def sqlite_filter(db_path: Path) -> Callable[[Change, str], bool]:
    """Changes to the database file or its WAL/rollback journal (the -shm index is touched by readers)."""
    names = {db_path.name, db_path.name + "-wal", db_path.name + "-journal"}
    return lambda change, path: Path(path).name in names


class _Stop:
    """The stop signal of one watch: the caller's event, or this watch's consumer having gone away."""

    def __init__(self, outer: asyncio.Event) -> None:
        self.outer = outer
        self.closed = False

    def is_set(self) -> bool:
        """Polled by the Rust watcher every step."""
        return self.closed or self.outer.is_set()

    def set(self) -> None:
        """Stop this watch only."""
        self.closed = True


async def watch(
    paths: Iterable[Path],
    watch_filter: Callable[[Change, str], bool],
    stop: asyncio.Event,
    on_armed: Callable[[], None] | None = None,
    *,
    recursive: bool = True,
) -> AsyncIterator[set[tuple[Change, str]]]:
    """Yield batches of changes under ``paths`` until ``stop`` is set.

    ``on_armed`` is called once the OS watches exist: a read made from then on cannot miss a
    change, so the browsers take their first reading there, not before.
    """
    own_stop = _Stop(stop)
    changes = awatch(
        *paths,
        watch_filter=watch_filter,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=own_stop,  # awatch only calls is_set() and set()
        rust_timeout=RUST_TIMEOUT_MS,
        recursive=recursive,
    )
    pending = asyncio.ensure_future(anext(changes))
    # awatch creates its watches synchronously in its first step, before its first await; a few
    # turns of the loop let that step run (if it failed, awaiting `pending` raises it below).
    for _ in range(3):
        await asyncio.sleep(0)
    if on_armed is not None:
        on_armed()
    try:
        while True:
            try:
                batch = await pending
            except StopAsyncIteration:
                return
            yield batch
            pending = asyncio.ensure_future(anext(changes))
    finally:
        # Ends this watch's Rust thread within one step, without touching the caller's event.
        own_stop.set()
        pending.cancel()


async def follow_changes(
    paths: Iterable[Path],
    watch_filter: Callable[[Change, str], bool],
    stop: asyncio.Event,
    on_armed: Callable[[], None],
    on_changes: Callable[[set[tuple[Change, str]]], object],  # what they return is not used
    on_stopped: Callable[[str], object],
    *,
    recursive: bool = True,
) -> None:
    """Hand every batch of changes to ``on_changes`` until ``stop``; say why if watching ends otherwise."""
    try:
        async for changes in watch(paths, watch_filter, stop, on_armed, recursive=recursive):
            on_changes(changes)
    except (OSError, RuntimeError) as exc:
        on_stopped(f"watching stopped: {exc}")
        return
    if not stop.is_set():
        on_stopped("watching stopped")
