"""Benchmark: making untrusted text inert (tui/text.py) next to building a plain Rich Text.

Run it as a script (pytest does not collect it)::

    python tests/benchmarks/bench_inert.py [--runs N]

Every string a pane shows goes through ``inert``; the floor is ``Text(s)`` (what the panes built
before, which neutralises nothing), the peer is a straightforward per-character replacement
(``"".join(table.get(c, c) for c in s)`` then ``Text``). Three inputs: one-line labels (most of what
a pane draws), multi-line tool output, and hostile text full of control sequences. Medians of
several runs, in microseconds per string.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))
from hostile import HOSTILE  # noqa: E402

from tui.text import PLACEHOLDERS, inert  # noqa: E402

INPUTS = {
    "one-line labels": [f"step {i}: read_file(path=src/calc_{i}.py) ok" for i in range(1000)],
    "tool output (40 lines)": [
        "\n".join(f"line {j} of output {i}: def add(a, b):\treturn a + b" for j in range(40))
        for i in range(100)
    ],
    "hostile text": [h * 4 for h in HOSTILE] * 20,
}


def peer(text: str) -> Text:
    """The obvious way: look every character up."""
    return Text("".join(PLACEHOLDERS.get(c, c) for c in text))


def median_us(fn: Callable[[str], object], strings: list[str], runs: int) -> float:
    """Median over ``runs`` of the time per string, in microseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for s in strings:
            fn(s)
        times.append((time.perf_counter() - start) / len(strings) * 1e6)
    return statistics.median(times)


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"{'input':<24}{'Text() floor':>14}{'inert':>10}{'per-char peer':>15}   (µs per string, median)")
    for name, strings in INPUTS.items():
        floor = median_us(Text, strings, runs)
        ours = median_us(inert, strings, runs)
        slow = median_us(peer, strings, runs)
        print(f"{name:<24}{floor:>14.2f}{ours:>10.2f}{slow:>15.2f}   inert/floor {ours / floor:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
