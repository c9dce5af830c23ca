"""Browser benchmark: external write → updated pane latency, and the memory pane with 10,000 records.

Run: ``python tests/benchmarks/bench_browsers.py [--samples 20] [--records 10000]``. Prints figures;
not collected by pytest. Aims (issue #6 §4): median external-write latency under 100 ms; navigation
in a 10,000-record memory pane under 50 ms.

Latency is measured end to end, one isolated write at a time: another process (tests/browsers/browser_writer.py) takes a
``time.monotonic()`` stamp (system-wide on Linux), then writes; the app, running headless in this
process, counts as updated when the browser's state holds the new content and the visible rows of
its list have been rendered again. Polling that state every 2 ms adds up to 2 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "browsers"))

from browser_builders import (  # noqa: E402
    RECORDS,
    build_many_records,
    build_memory_root,
    build_skills_db,
    key_latency,
    wait_until,
)

from qitos.core.memory import MemoryRecord  # noqa: E402
from qitos.kit.memory.memdir_memory import MemdirMemory  # noqa: E402
from tui.browsers import make_memory_app, make_skills_app  # noqa: E402
from tui.browsers.virtual_list import VirtualList  # noqa: E402

WRITER = HERE.parent / "browsers" / "browser_writer.py"


def figures(name: str, seconds: list[float]) -> None:
    """Print median / p95 / max in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(
        f"{name:<52} n={len(ms):<3} median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms"
        f"   max {ms[-1]:6.1f} ms",
        flush=True,
    )


def busy(app: Any) -> bool:
    """Whether a scan, patch or load worker of a browser is still running."""
    groups = {"memory-scan", "memory-patch", "skills-load"}
    return any(w.group in groups and w.is_running for w in app.workers)


def render_visible(listing: VirtualList) -> None:
    """Render every visible line of a list once (what the next frame costs it)."""
    for y in range(listing.scrollable_content_region.height):
        listing.render_line(y)


async def external_latency(
    app: Any,
    writer_args: list[str],
    samples: int,
    updated: Callable[[int, str], bool],
    listing: Callable[[], VirtualList],
) -> list[float]:
    """Ask the writer process for ``samples`` writes; time each from its stamp to the pane updated."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WRITER),
        *writer_args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    latencies = []
    try:
        for n in range(samples):
            proc.stdin.write(b"go\n")
            await proc.stdin.drain()
            line = (await proc.stdout.readline()).decode()
            stamp = float(line.split()[0])
            await wait_until(lambda n=n, line=line: updated(n, line), timeout=10, what=f"sample {n}")
            render_visible(listing())
            latencies.append(time.monotonic() - stamp)
            await asyncio.sleep(0.15)
            # Each sample is an isolated edit: the confirming full scan of the previous one (~0.3 s
            # at 10,000 records) has finished, so it does not compete for the interpreter.
            await wait_until(lambda: not busy(app), timeout=30, what="the previous scan")
    finally:
        proc.stdin.close()
        await proc.wait()
    return latencies


async def memory_latency(root: Path, samples: int, label: str) -> None:
    """External record edits on a memory root, seen by the memory browser."""
    app = make_memory_app(root)
    async with app.run_test(size=(120, 40)):
        browser = app.browser
        await wait_until(lambda: browser.loads >= 1 and browser.live, timeout=60, what="first load")

        def updated(n: int, _line: str) -> bool:
            row = browser.view.record("rec-bench") if browser.view else None
            return row is not None and row.content == f"sample {n}"

        lat = await external_latency(
            app, ["serve", str(root)], samples, updated, lambda: browser.query_one(VirtualList)
        )
    figures(f"memory: external edit → pane ({label})", lat)


async def skills_latency(db: Path, samples: int) -> None:
    """External skill publications, seen by the skills browser's version list."""
    app = make_skills_app(db)
    async with app.run_test(size=(120, 40)):
        browser = app.browser
        await wait_until(
            lambda: browser.revision >= 1 and browser.versions and browser.live, what="first load"
        )

        def updated(_n: int, line: str) -> bool:
            version = int(line.split()[1])
            return bool(browser.versions) and browser.versions[0].version == version

        lat = await external_latency(
            app,
            ["serve-skills", str(db), "demo", "fix-failing-check"],
            samples,
            updated,
            lambda: browser.query_one("#skills-versions", VirtualList),
        )
    figures("skills: external publish → version list", lat)


async def navigation_latency(app: Any, keys: list[str]) -> list[float]:
    """Seconds per navigation key until the list's rows and the detail pane show the new record."""
    browser = app.browser

    def detail_follows() -> bool:
        row = browser.selected_row
        return row is not None and browser.detail_text().startswith(row.record_id)

    return [await key_latency(app, key, detail_follows) for key in keys]


async def small_navigation(root: Path, samples: int) -> None:
    """The floor for navigation: the same keys over a handful of records."""
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(lambda: app.browser.loads >= 1, timeout=60, what="the load")
        count = len(app.browser.rows)
        # Down and up in turn: every key moves the cursor even in a list this short.
        lat = await navigation_latency(app, ["down", "up"] * 21 * max(1, samples // 20))
        figures(f"memory: navigation key → pane ({count} records, floor)", lat)
        await pilot.pause()


async def big_memory(root: Path, samples: int) -> None:
    """First paint, navigation and filtering with many records."""
    start = time.perf_counter()
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        browser = app.browser
        await wait_until(lambda: browser.loads >= 1, timeout=120, what="the whole load")
        render_visible(browser.query_one(VirtualList))
        first = time.perf_counter() - start
        count = len(browser.rows)
        print(
            f"{'memory: first scan + paint, ' + str(count) + ' records':<52} {first * 1000:6.0f} ms",
            flush=True,
        )

        keys = (["down"] * 20 + ["pagedown"] * 10 + ["up"] * 10 + ["end", "home"]) * max(1, samples // 20)
        figures(f"memory: navigation key → pane ({count} records)", await navigation_latency(app, keys))
        filters = []
        for word in ["note", "value 7", "assistant", "r0999", ""] * max(1, samples // 5):
            t0 = time.perf_counter()
            browser.filter_text = word
            render_visible(browser.query_one(VirtualList))
            filters.append(time.perf_counter() - t0)
        figures(f"memory: filter applied ({count} records)", filters)
        await pilot.pause()


def prepare_small(base: Path) -> Path:
    """The test fixture root plus the record the writer edits."""
    root = build_memory_root(base / "mem")
    MemdirMemory(str(root)).append(
        MemoryRecord(role="tool", content="sample -", step_id=1, record_id="rec-bench")
    )
    return root


def main() -> int:
    """Run every measurement and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--records", type=int, default=10_000)
    args, _ = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        small = prepare_small(base)
        asyncio.run(memory_latency(small, args.samples, f"{len(RECORDS) + 1} records"))
        asyncio.run(small_navigation(small, args.samples))
        asyncio.run(skills_latency(build_skills_db(base / "skills.db"), args.samples))
        big = build_many_records(base / "big", args.records)
        MemdirMemory(str(big)).append(
            MemoryRecord(role="tool", content="sample -", step_id=1, record_id="rec-bench")
        )
        asyncio.run(big_memory(big, args.samples))
        asyncio.run(memory_latency(big, args.samples, f"{args.records + 1} records"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
