"""Benchmark: SqliteToolLibrary publish, get, get_version, catalog and search.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_skills.py [--runs N]

Prints medians over N runs for a library of 1,000 skills (3 versions each, ~2 KB bodies): one
conditional publish (BEGIN IMMEDIATE, WAL commit), one get of the latest version, one
get_version, a catalog page, and an FTS5 search.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

SKILLS = 1_000
VERSIONS = 3
WORDS = "parse chart audit table verify fetch summarise plot cache retry compile index".split()


def artifact(i: int, v: int) -> ToolArtifact:
    """A skill with a ~2 KB body whose description mixes a few searchable words."""
    words = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(4))
    return ToolArtifact(
        name=f"skill-{i:05d}",
        description=f"Skill {i}: {words}",
        source=f"# version {v}\n" + f"step {i}: {words}\n" * 80,
        tags=[WORDS[i % len(WORDS)]],
        metadata={"provenance": {"run_id": f"run-{v}", "step": i}},
    )


def median_ms(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of ``fn`` over ``runs`` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    """Populate a library, then time each operation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "skills.db"
        with SqliteToolLibrary(path, namespace="bench") as lib:
            start = time.perf_counter()
            for v in range(1, VERSIONS + 1):
                for i in range(SKILLS):
                    lib.add_or_update(artifact(i, v))
            setup = time.perf_counter() - start
            print(f"setup: {SKILLS * VERSIONS} publishes in {setup:.2f} s")
            counter = iter(range(10**9))

            def publish() -> None:
                n = next(counter)
                current = lib.get("hot")
                body = artifact(n, n)
                body.name = "hot"
                lib.add_or_update(body, expected_version=current.version if current else 0)

            # Each publish is a conditional write: read the latest, then publish latest + 1.
            lib.add_or_update(ToolArtifact("hot", "hot skill", "v1"))
            figures = {
                "publish (get + conditional add_or_update)": median_ms(publish, args.runs),
                "get latest": median_ms(lambda: lib.get("skill-00500"), args.runs),
                "get_version": median_ms(lambda: lib.get_version("skill-00500", 2), args.runs),
                "catalog(limit=20)": median_ms(lambda: lib.catalog(limit=20), args.runs),
                "search('chart audit', top_k=5)": median_ms(lambda: lib.search("chart audit"), args.runs),
                "versions(name)": median_ms(lambda: lib.versions("skill-00500"), args.runs),
                "skills() (all 1,001 rows)": median_ms(lib.skills, max(5, args.runs // 5)),
            }
            assert lib.get("skill-00500").source == artifact(500, VERSIONS).source
        for label, ms in figures.items():
            print(f"{label:<45} {ms:8.3f} ms")


if __name__ == "__main__":
    main()
