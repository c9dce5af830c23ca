"""Concurrent publishers in several processes: for one expected_version exactly one wins."""

from __future__ import annotations

import multiprocessing
import os
import random
import sqlite3
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest
from skill_backends import make_backend, open_library
from waits import wait_for_ready

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.errors import ToolLibraryError
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

WRITERS = 8
ROUNDS = 50
READY_AFTER = 3  # versions committed before a publisher that is to be killed says "ready"


def _publisher(kind: str, target: str, worker: int, barrier: Any, results: multiprocessing.Queue) -> None:
    """Open the library once, then each round: wait for every writer, try one conditional publish."""
    with open_library(kind, target, "shared") as lib:
        for round_no in range(ROUNDS):
            barrier.wait(timeout=120)
            try:
                stored = lib.add_or_update(
                    ToolArtifact("audit", f"round {round_no} worker {worker}", f"body {worker}"),
                    expected_version=round_no + 1,
                )
                results.put((round_no, worker, "won", stored.version))
            except ToolLibraryError as exc:
                results.put((round_no, worker, exc.code, None))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_exactly_one_publisher_wins_each_round(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Eight processes publish the same name with the same expected_version, 50 rounds: each round
    exactly one wins (the next version), seven get version_conflict, and no version is skipped."""
    backend = make_backend(kind, request, tmp_path)
    with backend.open("shared") as lib:
        lib.add_or_update(ToolArtifact("audit", "seed", "v1"))
    ctx = multiprocessing.get_context("fork")
    results: multiprocessing.Queue = ctx.Queue()
    barrier = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=_publisher, args=(kind, backend.target, w, barrier, results))
        for w in range(WRITERS)
    ]
    for proc in procs:
        proc.start()
    try:
        outcomes = [results.get(timeout=120) for _ in range(WRITERS * ROUNDS)]
    finally:
        for proc in procs:
            proc.join(30)
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    by_round: dict[int, list[tuple[int, str, int | None]]] = {}
    for round_no, worker, outcome, version in outcomes:
        by_round.setdefault(round_no, []).append((worker, outcome, version))
    winners = {}
    for round_no in range(ROUNDS):
        won = [o for o in by_round[round_no] if o[1] == "won"]
        assert len(won) == 1, (round_no, by_round[round_no])
        assert won[0][2] == round_no + 2
        assert sorted(o[1] for o in by_round[round_no] if o[1] != "won") == ["version_conflict"] * (
            WRITERS - 1
        )
        winners[round_no + 2] = won[0][0]
    with backend.open("shared") as lib:
        versions = lib.versions("audit")
        assert [a.version for a in versions] == list(range(1, ROUNDS + 2))  # no gap, no duplicate
        for artifact in versions[1:]:
            # Each stored version is the winner's own publish, whole.
            worker = winners[artifact.version]
            assert (artifact.description, artifact.source) == (
                f"round {artifact.version - 2} worker {worker}",
                f"body {worker}",
            )


def _hammer(db: str, seed: int, ready: Connection) -> None:
    """Publish new versions forever (until killed); say "ready" once the first ones are committed."""
    rng = random.Random(seed)
    with SqliteToolLibrary(db, namespace="k") as lib:
        published = 0
        while True:
            lib.add_or_update(ToolArtifact(f"s{rng.randrange(3)}", "desc", "x" * rng.randrange(1, 50_000)))
            published += 1
            if published == READY_AFTER:
                ready.send("ready")


@pytest.mark.slow
def test_sigkill_during_publish_leaves_a_consistent_database(tmp_path: Path) -> None:
    """A publisher killed at random instants never leaves a gap, a torn row or a corrupt file.

    Each publisher says "ready" once its first versions are committed, and only then is its kill
    scheduled: a kill before any write would prove nothing."""
    db = str(tmp_path / "skills.db")
    SqliteToolLibrary(db, namespace="k").close()
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(7)
    for trial in range(15):
        reader, writer_end = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_hammer, args=(db, trial, writer_end), daemon=True)
        proc.start()
        writer_end.close()  # the child's copy stays open: EOF here means the child died
        wait_for_ready(reader, what=f"trial {trial}: the publisher")
        # The sleep is the behaviour under test, not synchronisation: it picks the random instant
        # of the kill among the publishes that follow "ready".
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(proc.pid, 9)
        proc.join(5)
        assert proc.exitcode == -9, f"trial {trial}: the publisher was not killed (exit {proc.exitcode})"
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        with SqliteToolLibrary(db, namespace="k") as lib:
            for skill in lib.skills():
                versions = [a.version for a in lib.versions(skill["name"])]
                assert versions == list(range(1, skill["latest_version"] + 1))
                assert lib.get(skill["name"]).version == skill["latest_version"]
