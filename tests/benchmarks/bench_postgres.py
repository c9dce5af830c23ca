"""Benchmark: PostgresToolLibrary beside SqliteToolLibrary, and the skills browser following each live.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_postgres.py [--runs 3] [--samples 20]

It starts its own PostgreSQL server (tests/pg_server.py: initdb + pg_ctl, Unix socket, fsync and
synchronous_commit on, as SQLite's synchronous=FULL) and prints, for both libraries of 300 skills x
3 versions (~2 KB bodies), medians over ``--runs`` runs of:

- publish: p50/p95 of one conditional publish (get the latest, add_or_update with expected_version);
- get: p50/p95 of loading the latest version whole;
- 8 writers: publishes per second, 8 processes each publishing its own skill (no conflicts), and
  8 processes all publishing one skill unconditionally (every publish contends for the same row);
- a floor: one bare single-row INSERT + commit on the same database (what any durable write costs).

Then the live figure: another process publishes, and the skills browser (headless, in this process)
counts as updated when its version list shows the new version and has been rendered again; median
of ``--samples`` isolated publishes, beside the SQLite file watcher's on the same harness, and beside
the floor of a bare LISTEN connection receiving the NOTIFY.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "browsers")]

import psycopg  # noqa: E402
from bench_skills import artifact  # noqa: E402
from browser_builders import build_skills_db, wait_until  # noqa: E402
from pg_server import PostgresServer, unavailable_reason  # noqa: E402

from qitos.kit.tool.library.base import ToolArtifact  # noqa: E402
from qitos.kit.tool.library.postgres_store import CHANNEL, PostgresToolLibrary  # noqa: E402
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary  # noqa: E402
from tui.browsers import make_skills_app  # noqa: E402
from tui.browsers.virtual_list import VirtualList  # noqa: E402

SKILLS = 300
VERSIONS = 3
WRITERS = 8
PER_WRITER = 40


def open_lib(kind: str, target: str, namespace: str = "bench") -> Any:
    """A library of ``kind`` on ``target``."""
    if kind == "sqlite":
        return SqliteToolLibrary(target, namespace=namespace)
    return PostgresToolLibrary(target, namespace=namespace)


def percentiles(seconds: list[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def timed(fn: Callable[[], object], n: int) -> list[float]:
    """Wall time of each of ``n`` calls."""
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _writer(kind: str, target: str, name: str, barrier: Any, conditional: bool) -> None:
    """Publish PER_WRITER versions of ``name`` as fast as possible (retrying a lost conditional)."""
    with open_lib(kind, target) as lib:
        barrier.wait(timeout=60)
        done = 0
        while done < PER_WRITER:
            if conditional:
                current = lib.get(name)
                try:
                    lib.add_or_update(
                        ToolArtifact(name, "w", f"v{done}"),
                        expected_version=current.version if current else 0,
                    )
                except Exception:  # noqa: BLE001 - a lost race: read again and retry
                    continue
            else:
                lib.add_or_update(ToolArtifact(name, "w", f"v{done}"))
            done += 1


def throughput(kind: str, target: str, *, shared: bool, tag: str) -> float:
    """Publishes per second of WRITERS processes (own skills, or all one skill)."""
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WRITERS + 1)
    names = [f"{tag}-shared" if shared else f"{tag}-w{w}" for w in range(WRITERS)]
    procs = [ctx.Process(target=_writer, args=(kind, target, n, barrier, False)) for n in names]
    for proc in procs:
        proc.start()
    barrier.wait(timeout=60)
    start = time.perf_counter()
    for proc in procs:
        proc.join(300)
    elapsed = time.perf_counter() - start
    assert all(p.exitcode == 0 for p in procs)
    return WRITERS * PER_WRITER / elapsed


def floor_insert(kind: str, target: str, n: int) -> list[float]:
    """A bare single-row INSERT + commit, n times (the cost of any durable write there)."""
    if kind == "sqlite":
        conn = sqlite3.connect(Path(target).with_name("floor.db"), isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE IF NOT EXISTS t (x TEXT)")
        out = timed(lambda: conn.execute("INSERT INTO t VALUES ('x')"), n)
        conn.close()
        return out
    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS floor_t (x text)")
        return timed(lambda: conn.execute("INSERT INTO floor_t VALUES ('x')"), n)


def one_run(kind: str, target: str, tag: str) -> dict[str, float]:
    """Populate the library, then measure every figure once."""
    with open_lib(kind, target) as lib:
        for v in range(1, VERSIONS + 1):
            for i in range(SKILLS):
                lib.add_or_update(artifact(i, v))
        lib.add_or_update(ToolArtifact("hot", "hot skill", "v1"))
        counter = iter(range(10**9))

        def publish() -> None:
            n = next(counter)
            body = artifact(n, n)
            body.name = "hot"
            lib.add_or_update(body, expected_version=lib.get("hot").version)

        pub = percentiles(timed(publish, 100))
        get = percentiles(timed(lambda: lib.get("skill-00150"), 300))
        assert lib.get("skill-00150").source == artifact(150, VERSIONS).source
    floor = percentiles(floor_insert(kind, target, 100))
    return {
        "publish p50": pub[0],
        "publish p95": pub[1],
        "get p50": get[0],
        "get p95": get[1],
        "8 writers, own skills (publishes/s)": throughput(kind, target, shared=False, tag=tag),
        "8 writers, one skill (publishes/s)": throughput(kind, target, shared=True, tag=tag),
        "floor: bare INSERT+commit p50": floor[0],
    }


# ---- live: another process publishes, the browser shows it -------------------------------------


def serve(kind: str, target: str, namespace: str, name: str) -> None:
    """Writer process: one publish per stdin line; print the monotonic stamp taken before it."""
    with open_lib(kind, target, namespace) as library:
        for n, _line in enumerate(sys.stdin):
            stamp = time.monotonic()
            stored = library.add_or_update(ToolArtifact(name, "benchmark", f"# sample {n}\n"))
            print(stamp, stored.version, flush=True)


async def live_latency(kind: str, target: str, samples: int) -> list[float]:
    """External publishes → the browser's version list updated and rendered, one at a time."""
    app = make_skills_app(target)
    latencies = []
    async with app.run_test(size=(120, 40)):
        browser = app.browser
        await wait_until(
            lambda: browser.revision >= 1 and browser.versions and browser.live, timeout=30, what="first load"
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--serve",
            kind,
            target,
            "demo",
            "fix-failing-check",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None
        listing = browser.query_one("#skills-versions", VirtualList)
        try:
            for n in range(samples):
                proc.stdin.write(b"go\n")
                await proc.stdin.drain()
                stamp_text, version_text = (await proc.stdout.readline()).decode().split()
                version = int(version_text)
                await wait_until(
                    lambda v=version: bool(browser.versions) and browser.versions[0].version == v,
                    timeout=10,
                    what=f"sample {n}",
                )
                for y in range(listing.scrollable_content_region.height):
                    listing.render_line(y)
                latencies.append(time.monotonic() - float(stamp_text))
                await asyncio.sleep(0.15)
        finally:
            proc.stdin.close()
            await proc.wait()
    return latencies


async def notify_floor(dsn: str, samples: int) -> list[float]:
    """A bare LISTEN connection receiving each publish's NOTIFY (no UI): the floor of live updates."""
    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    await conn.execute(f"LISTEN {CHANNEL}")
    out = []
    with PostgresToolLibrary(dsn, namespace="floor") as lib:
        for n in range(samples):
            start = time.monotonic()
            await asyncio.to_thread(lib.add_or_update, ToolArtifact("x", "d", f"{n}"))
            async for _note in conn.notifies(stop_after=1):
                break
            out.append(time.monotonic() - start)
    await conn.close()
    return out


def main() -> int:
    """Measure both libraries ``--runs`` times and print medians, then the live figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--serve", nargs=4, metavar=("KIND", "TARGET", "NAMESPACE", "NAME"))
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return 0
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    with PostgresServer(durable=True) as server, tempfile.TemporaryDirectory() as tmp:
        results: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgres": []}
        for run in range(args.runs):
            for kind in ("sqlite", "postgres"):
                target = str(Path(tmp) / f"run{run}.db") if kind == "sqlite" else server.fresh_schema()
                results[kind].append(one_run(kind, target, f"r{run}"))
        print(f"libraries of {SKILLS} skills x {VERSIONS} versions; medians of {args.runs} runs")
        print(f"{'':<40}{'SQLite':>12}{'PostgreSQL':>12}")
        for key in results["sqlite"][0]:
            row = [statistics.median(r[key] for r in results[kind]) for kind in ("sqlite", "postgres")]
            unit = "" if "/s" in key else " ms"
            print(f"{key:<40}{row[0]:>12.2f}{row[1]:>12.2f}{unit}")
        sqlite_db = build_skills_db(Path(tmp) / "live.db")
        dsn = server.fresh_schema()
        with (
            SqliteToolLibrary(sqlite_db, namespace="demo") as source,
            PostgresToolLibrary(dsn, namespace="demo") as pg,
        ):
            for version in source.versions("fix-failing-check"):
                pg.add_or_update(version)
        live = {
            "PostgreSQL: publish → version list (LISTEN/NOTIFY)": asyncio.run(
                live_latency("postgres", dsn, args.samples)
            ),
            "SQLite: publish → version list (file watcher)": asyncio.run(
                live_latency("sqlite", str(sqlite_db), args.samples)
            ),
            "floor: publish → bare LISTEN connection": asyncio.run(notify_floor(dsn, args.samples)),
        }
        for label, seconds in live.items():
            p50, p95 = percentiles(seconds)
            print(f"{label:<52} n={len(seconds):<3} median {p50:6.1f} ms   p95 {p95:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
