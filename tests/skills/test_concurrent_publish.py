"""Concurrent publishers in several processes: for one expected_version exactly one wins."""

from __future__ import annotations

import multiprocessing
import os
import random
import sqlite3
import time
from pathlib import Path

import pytest

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary, ToolLibraryError

WRITERS = 6
ROUNDS = 5


def _publisher(db: str, worker: int, start_at: float, expected: int, results: multiprocessing.Queue) -> None:
    """Open the library, wait for the common start instant, then try one conditional publish."""
    with SqliteToolLibrary(db, namespace="shared") as lib:
        while time.time() < start_at:
            pass
        try:
            stored = lib.add_or_update(
                ToolArtifact("audit", f"from worker {worker}", f"body {worker}"), expected_version=expected
            )
            results.put((worker, "won", stored.version))
        except ToolLibraryError as exc:
            results.put((worker, exc.code, None))


@pytest.mark.slow
def test_exactly_one_publisher_wins_each_round(tmp_path: Path) -> None:
    """In each round six processes publish with the same expected_version; one wins, five conflict."""
    db = str(tmp_path / "skills.db")
    with SqliteToolLibrary(db, namespace="shared") as lib:
        lib.add_or_update(ToolArtifact("audit", "seed", "v1"))
    ctx = multiprocessing.get_context("fork")
    for round_no in range(ROUNDS):
        expected = round_no + 1
        results: multiprocessing.Queue = ctx.Queue()
        start_at = time.time() + 0.4  # after every forked writer has opened its own connection
        procs = [
            ctx.Process(target=_publisher, args=(db, w, start_at, expected, results)) for w in range(WRITERS)
        ]
        for proc in procs:
            proc.start()
        outcomes = [results.get(timeout=30) for _ in procs]
        for proc in procs:
            proc.join(10)
        winners = [o for o in outcomes if o[1] == "won"]
        assert len(winners) == 1, outcomes
        assert winners[0][2] == expected + 1
        assert sorted(o[1] for o in outcomes if o[1] != "won") == ["version_conflict"] * (WRITERS - 1)
        with SqliteToolLibrary(db, namespace="shared") as lib:
            assert lib.get("audit").source == f"body {winners[0][0]}"
    with SqliteToolLibrary(db, namespace="shared") as lib:
        assert [a.version for a in lib.versions("audit")] == list(range(1, ROUNDS + 2))


def _hammer(db: str, seed: int) -> None:
    """Publish new versions forever (until killed)."""
    rng = random.Random(seed)
    with SqliteToolLibrary(db, namespace="k") as lib:
        while True:
            lib.add_or_update(ToolArtifact(f"s{rng.randrange(3)}", "desc", "x" * rng.randrange(1, 50_000)))


@pytest.mark.slow
def test_sigkill_during_publish_leaves_a_consistent_database(tmp_path: Path) -> None:
    """A publisher killed at random instants never leaves a gap, a torn row or a corrupt file."""
    db = str(tmp_path / "skills.db")
    SqliteToolLibrary(db, namespace="k").close()
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(7)
    for trial in range(15):
        proc = ctx.Process(target=_hammer, args=(db, trial), daemon=True)
        proc.start()
        time.sleep(rng.uniform(0.01, 0.08))
        os.kill(proc.pid, 9)
        proc.join(5)
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        with SqliteToolLibrary(db, namespace="k") as lib:
            for skill in lib.skills():
                versions = [a.version for a in lib.versions(skill["name"])]
                assert versions == list(range(1, skill["latest_version"] + 1))
                assert lib.get(skill["name"]).version == skill["latest_version"]
