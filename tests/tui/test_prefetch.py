"""Rendering ahead: the Prefetcher's scheduling, Pane.prepare, and what the run screen prepares."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path

import pytest
from waits import wait_until

from tui.app import make_app
from tui.panes.base import Block, Pane
from tui.panes.context import ContextPane
from tui.panes.exchanges import ExchangesPane
from tui.prefetch import Prefetcher
from tui.screens import run as run_module
from tui.screens.run import RunScreen

ShownWhole = Callable[..., Awaitable[None]]  # the conftest fixture


# ------------------------------------------------------------------------------ Prefetcher
async def test_one_piece_runs_per_turn_of_the_event_loop() -> None:
    done: list[str] = []

    def work(name: str, pieces: int):  # type: ignore[no-untyped-def]
        for k in range(pieces):
            done.append(f"{name}{k}")
            yield

    prefetcher = Prefetcher()
    prefetcher.start(work("a", 3))
    assert prefetcher.busy and done == []  # nothing runs before the loop gets a turn
    await asyncio.sleep(0)
    assert done == ["a0"]  # one piece, then other callbacks get their turn
    await asyncio.sleep(0)
    assert done == ["a0", "a1"]
    for _ in range(3):
        await asyncio.sleep(0)
    assert done == ["a0", "a1", "a2"] and not prefetcher.busy


async def test_newer_work_replaces_the_work_in_hand_and_stop_drops_it() -> None:
    done: list[str] = []

    def work(name: str):  # type: ignore[no-untyped-def]
        for k in range(5):
            done.append(f"{name}{k}")
            yield

    prefetcher = Prefetcher()
    prefetcher.start(work("old"))
    await asyncio.sleep(0)
    prefetcher.start(work("new"))
    for _ in range(8):
        await asyncio.sleep(0)
    assert done == ["old0", "new0", "new1", "new2", "new3", "new4"]
    done.clear()
    prefetcher.start(work("x"))
    prefetcher.stop()
    for _ in range(3):
        await asyncio.sleep(0)
    assert done == [] and not prefetcher.busy


async def test_work_that_fails_is_dropped_without_raising() -> None:
    def work():  # type: ignore[no-untyped-def]
        yield
        raise OSError("trace gone")

    prefetcher = Prefetcher()
    prefetcher.start(work())
    for _ in range(3):
        await asyncio.sleep(0)
    assert not prefetcher.busy


# ------------------------------------------------------------------------------ Pane.prepare
def _misses(pane: Pane, monkeypatch: pytest.MonkeyPatch) -> list[Hashable]:
    """Record the keys of the blocks ``pane`` renders from now on because they were not cached."""
    seen: list[Hashable] = []
    block_lines = pane._block_lines

    def recording(block: Block, width: int, context):  # type: ignore[no-untyped-def]
        if block.key is not None and (block.key, width) not in pane._line_cache:
            seen.append(block.key)
        return block_lines(block, width, context)

    monkeypatch.setattr(pane, "_block_lines", recording)
    return seen


async def test_a_prepared_step_is_shown_without_rendering_a_block(
    long_run: Path, monkeypatch: pytest.MonkeyPatch, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(170, 48)) as pilot:
        await shown_whole(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await _quiet(pilot)  # what the screen prepares by itself is done: only this test's work counts
        exchanges = screen.query_one(ExchangesPane)
        context = screen.query_one(ContextPane)
        monkeypatch.setattr(run_module, "PREFETCH_AFTER_SECONDS", 60)  # nothing else prepared meanwhile
        misses = [_misses(exchanges, monkeypatch), _misses(context, monkeypatch)]
        for pane, missed in zip((exchanges, context), misses, strict=True):
            assert list(pane.prepare(40))  # pieces: blocks of step 40 not rendered yet
            assert missed, "preparing renders the blocks"
            assert list(pane.prepare(40)) == []  # all of them are cached now
            missed.clear()
        screen._select(40)
        await pilot.pause()
        assert misses == [[], []]
        # ... and what is shown is what a pane that never prepared anything shows.
        fresh = make_app(replay=long_run)
        async with fresh.run_test(size=(170, 48)) as other:
            await shown_whole(other)
            fresh.screen._select(40)
            await other.pause()
            for pane_cls in (ExchangesPane, ContextPane):
                assert screen.query_one(pane_cls).plain() == fresh.screen.query_one(pane_cls).plain()
                ours = screen.query_one(pane_cls)
                theirs = fresh.screen.query_one(pane_cls)
                assert [s.text for s in ours._lines] == [s.text for s in theirs._lines]


async def test_a_pane_hidden_in_a_tab_prepares_nothing(long_run: Path, shown_whole: ShownWhole) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(80, 24)) as pilot:  # tabs: only Exchanges is shown
        await shown_whole(pilot)
        assert list(app.screen.query_one(ContextPane).prepare(40)) == []
        assert list(app.screen.query_one(ExchangesPane).prepare(40))


async def test_cached_lines_are_dropped_when_the_base_style_changes(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(170, 48)) as pilot:
        await shown_whole(pilot)
        exchanges = app.screen.query_one(ExchangesPane)
        list(exchanges.prepare(40))
        assert list(exchanges.prepare(40)) == []
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        assert list(exchanges.prepare(40)), "lines drawn over the old background must not be reused"


async def test_the_least_recently_used_blocks_go_first(
    long_run: Path, monkeypatch: pytest.MonkeyPatch, shown_whole: ShownWhole
) -> None:
    from rich.text import Text

    import tui.panes.base as base

    monkeypatch.setattr(base, "LINE_CACHE_BLOCKS", 3)
    app = make_app(replay=long_run)
    async with app.run_test(size=(170, 48)) as pilot:
        await shown_whole(pilot)
        pane = app.screen.query_one(ContextPane)
        width = pane.scrollable_content_region.width
        context = pane._render_context(width)
        missed = _misses(pane, monkeypatch)

        def lines(key: str) -> None:
            pane._block_lines(base.Block(key, Text(key)), width, context)

        pane._line_cache.clear()
        for key in ("a", "b", "c"):
            lines(key)
        lines("a")  # a hit: "a" is now the most recently used
        lines("d")  # evicts "b", the least recently used, not "a"
        assert [(key, width) in pane._line_cache for key in "abcd"] == [True, False, True, True]
        assert missed == ["a", "b", "c", "d"]  # the hit rendered nothing


# ------------------------------------------------------------------------------ the run screen
async def _quiet(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the render-ahead the screen scheduled by itself has run: its timer has fired and
    its work is done (the screen keeps both private; this file tests that machinery itself)."""
    screen = pilot.app.screen
    await wait_until(
        lambda: screen._prefetch_timer is None and not screen._prefetch.busy,
        what="the screen's render-ahead to run",
    )
    await pilot.pause()


async def test_the_step_typed_after_g_is_ready_before_enter(
    long_run: Path, monkeypatch: pytest.MonkeyPatch, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(170, 48)) as pilot:
        await shown_whole(pilot)
        screen = app.screen
        exchanges = screen.query_one(ExchangesPane)
        target = screen.store.step_pos[37]
        await pilot.press("g", "3", "7")
        await _quiet(pilot)
        assert list(exchanges.prepare(target)) == []  # already rendered while the user typed
        monkeypatch.setattr(run_module, "PREFETCH_AFTER_SECONDS", 60)  # only what Enter renders counts
        missed = _misses(exchanges, monkeypatch)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.selected == target and missed == []


async def test_after_a_key_the_neighbours_and_both_ends_are_prepared(
    long_run: Path, shown_whole: ShownWhole
) -> None:
    app = make_app(replay=long_run)
    async with app.run_test(size=(170, 48)) as pilot:
        await shown_whole(pilot)
        screen = app.screen
        exchanges = screen.query_one(ExchangesPane)
        await pilot.press("g", "3", "0", "enter")
        await _quiet(pilot)
        n, at = len(screen.store.steps), screen.selected
        for pos in (at - 1, at + 1, 0, n - 1):
            assert list(exchanges.prepare(pos)) == [], f"step at {pos} was not prepared"
