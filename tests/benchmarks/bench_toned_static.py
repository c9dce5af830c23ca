"""Benchmark: what drawing with theme tones costs a browser's detail view per key.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_toned_static.py [--runs N]

In one headless memory browser, the selected record's detail is shown N times three ways:
- toned: TonedStatic.draw (the detail built with the widget's tones, the tones remembered), as a
  navigation key does now;
- peer: Static.update of the same detail built with fixed Rich styles, as before tones;
- floor: Static.update of a detail built once beforehand (no building at all).
A theme switch redraws with the same draw (without a layout pass). Medians in microseconds.
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

from rich.style import Style

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "browsers"))

from browser_builders import build_memory_root, memory_ready  # noqa: E402
from textual.widgets import Static  # noqa: E402

from tui.browsers import make_memory_app  # noqa: E402
from tui.browsers.memory_render import detail  # noqa: E402
from tui.widgets.toned_static import TonedStatic  # noqa: E402

FIXED = {"good": Style(color="green"), "warn": Style(color="yellow"), "bad": Style(color="red")}


def median_us(action: Callable[[], object], runs: int) -> float:
    """The median time of ``action`` in microseconds over ``runs`` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


async def measure(root: Path, runs: int) -> None:
    """Print the toned, peer and floor figures for one record's detail."""
    app = make_memory_app(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await memory_ready(pilot)
        browser = app.browser
        row = browser.selected_row
        assert row is not None
        toned = browser.query_one("#memory-detail-body", TonedStatic)
        plain = Static("", markup=False)
        await browser.mount(plain)
        built = detail(row, None, None, lambda name: FIXED.get(name, Style()))

        def draw_toned() -> None:
            toned.draw(lambda tone: detail(row, None, None, tone))

        def draw_peer() -> None:
            plain.update(detail(row, None, None, lambda name: FIXED.get(name, Style())))

        def draw_floor() -> None:
            plain.update(built)

        figures = {
            "toned (TonedStatic.draw)": median_us(draw_toned, runs),
            "peer (Static.update, fixed styles)": median_us(draw_peer, runs),
            "floor (Static.update, prebuilt)": median_us(draw_floor, runs),
        }
        for name, value in figures.items():
            print(f"{name:<40} median {value:8.1f} µs", flush=True)


def main() -> int:
    """Build a memory root and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(measure(build_memory_root(Path(tmp) / "mem"), args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
