"""Waiting on the real condition instead of sleeping: poll it, with a generous deadline that fails
with a message saying what never happened.

A fixed sleep hopes the machine is quick enough and proves nothing when it is not; these return as
soon as the condition holds and only a condition that never comes costs the whole timeout (which is
long, because the suite shares two cores with other work).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

TIMEOUT = 60.0  # seconds: far beyond any healthy wait here, short of a hung suite
POLL = 0.005  # seconds between looks: short next to what is waited for


async def wait_until(
    predicate: Callable[[], object],
    *,
    timeout: float = TIMEOUT,
    what: str = "condition",
    poll: float = POLL,
) -> float:
    """Yield to the event loop (an app under test runs on it) until ``predicate()`` is true;
    return the seconds waited, or fail naming ``what`` after ``timeout``. ``poll`` is the pause
    between looks: longer for a predicate that is costly to ask (a process, a request)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not predicate():
        if loop.time() - start > timeout:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(poll)
    return loop.time() - start


def block_until(
    predicate: Callable[[], object],
    *,
    timeout: float = TIMEOUT,
    what: str = "condition",
    poll: float = POLL,
) -> float:
    """Block this thread until ``predicate()`` is true; return the seconds waited, or fail naming
    ``what`` after ``timeout``. ``poll`` is the pause between looks, as for wait_until."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll)
    return time.monotonic() - start


def wait_for_text(screen: Callable[[], str], text: str, *, timeout: float = 40.0) -> str:
    """Look at ``screen()`` (a terminal's visible text) until it shows ``text``; return that
    screen, or fail showing the last one. Looks are a tenth of a second apart: each one starts a
    tmux client."""
    seen = [""]

    def shows() -> bool:
        seen[0] = screen()
        return text in seen[0]

    try:
        block_until(shows, timeout=timeout, what=f"{text!r} on screen", poll=0.1)
    except AssertionError:
        raise AssertionError(f"{text!r} never appeared; screen:\n{screen()}") from None
    return seen[0]


def wait_for_ready(conn: Connection, *, what: str, timeout: float = TIMEOUT) -> None:
    """Wait for a child process to say "ready" on its end of a pipe (it has done what a crash
    trial needs done before its kill); fail naming ``what`` if it says nothing, dies first or
    says something else. Closes ``conn``."""
    try:
        if not conn.poll(timeout):
            raise AssertionError(f"{what}: said nothing in {timeout:g} s")
        try:
            message = conn.recv()
        except EOFError:
            raise AssertionError(f"{what}: died before it was ready") from None
        if message != "ready":
            raise AssertionError(f"{what}: said {message!r}, not ready")
    finally:
        conn.close()
