"""Issue 15 figures: the diff's first screen on two 100k-event runs, the Events filter on 100k events.

Run: ``python tests/benchmarks/bench_diff.py [--runs N] [--work DIR] [--source DIR]``.

- ``qitos-tui diff A B`` on two generated ~100k-event runs that diverge halfway: time from launch to
  the header naming the first divergence, in a real terminal (tmux), median of N runs, beside a
  Textual app showing one line (the floor every Textual app pays). In process: reading both runs'
  steps (:func:`scan_run`) and aligning them, beside folding both runs with the RunStore (the peer:
  what opening them in the replay screen costs) and ``json.loads`` of every line (the floor of any
  reader that parses everything).
- The Events pane's filters on a 100k-event run: by kind (the fold's category bytes) and by text
  (every event's text), beside a plain scan of the raw lines for the text (the floor) and
  ``json.loads`` of every line (the peer).

Aim (issue 15): the diff's first screen under 1.5 s. ``--source DIR`` also launches the diff from
another checkout (e.g. the commit before a change), interleaved with this one's launches, so that
"before" and "after" are measured in the same minutes on a machine whose load moves.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tui import TRIVIAL_APP, Pane, TmuxServer, first_paint  # noqa: E402

from qitos.trace.reader import TraceReader  # noqa: E402
from tui.event_kinds import FILTERS  # noqa: E402
from tui.run_diff import compare, scan_run  # noqa: E402
from tui.search import matching_events  # noqa: E402
from tui.store import RunStore  # noqa: E402
from tui.synthetic import synthetic_events, write_trace  # noqa: E402

STEPS = 11350  # -> ~100k events
SIZE = (160, 48)
MARK = "first divergence at step"


def make_runs(work: Path) -> tuple[Path, Path]:
    """Two ~100k-event runs; B lacks A's step at the middle."""
    a, b = work / "diff_a", work / "diff_b"
    if not (a / "manifest.json").exists():
        write_trace(a, synthetic_events(STEPS, run_id="diff_a", pause_at=None))
    if not (b / "manifest.json").exists():
        middle = STEPS // 2
        write_trace(
            b, (e for e in synthetic_events(STEPS, run_id="diff_b", pause_at=None) if e.step_id != middle)
        )
    for run in (a, b):
        count = json.loads((run / "manifest.json").read_text())["event_count"]
        print(f"  {run.name}: {count} events, {(run / 'events.jsonl').stat().st_size / 1e6:.0f} MB")
    return a, b


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and minimum seconds of ``runs`` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def bench_diff_first_screen(a: Path, b: Path, runs: int, source: Path | None = None) -> None:
    """Launch to the divergence on screen, beside a one-line Textual app (and ``source``'s diff)."""
    trivial = a.parent / "trivial_textual_app.py"
    trivial.write_text(TRIVIAL_APP, encoding="utf-8")
    argv = [sys.executable, "-m", "tui.cli", "diff", str(a), str(b)]
    # -P: `-m` would otherwise put the working folder (this checkout) before PYTHONPATH.
    before = ["env", f"PYTHONPATH={source}", sys.executable, "-P", *argv[1:]] if source else None
    with TmuxServer():
        first_paint(argv, MARK)  # warm the page cache
        ours, theirs, floor = [], [], []
        for _ in range(runs):
            for command, times in ((argv, ours), (before, theirs)):
                if command is None:
                    continue
                pane = Pane(command, SIZE)
                try:
                    times.append(pane.wait_for(MARK))
                finally:
                    pane.close()
            floor.append(first_paint([sys.executable, str(trivial)], "step 1 of 1"))
    line = (
        f"  diff first screen (tmux {SIZE[0]}x{SIZE[1]}), median of {runs}: {statistics.median(ours):.3f} s"
        f" (min {min(ours):.3f})"
    )
    if theirs:
        line += f" | from {source}: {statistics.median(theirs):.3f} s (min {min(theirs):.3f})"
    print(line + f" | a one-line Textual app {statistics.median(floor):.3f} s")


def bench_diff_in_process(a: Path, b: Path, runs: int) -> None:
    """Reading and aligning both runs, beside folding both and parsing every line of both."""

    def ours() -> None:
        compare(scan_run(a), scan_run(b))

    def fold_both() -> None:
        for run in (a, b):
            with TraceReader(run) as reader:
                RunStore(reader).apply(reader.events())

    def parse_all() -> None:
        for run in (a, b):
            with (run / "events.jsonl").open("rb") as f:
                for line in f:
                    json.loads(line)

    mine, fold, parse = timed(ours, runs), timed(fold_both, max(1, runs // 2)), timed(parse_all, runs)
    print(
        f"  read + align both: {mine[0]:.3f} s (min {mine[1]:.3f}) | fold both with RunStore (peer)"
        f" {fold[0]:.3f} s | json.loads every line of both (floor of a full parse) {parse[0]:.3f} s"
    )


def bench_filters(a: Path, runs: int) -> None:
    """The Events pane's kind and text filters on a whole 100k-event run."""
    reader = TraceReader(a)
    store = RunStore(reader)
    store.apply(reader.events())
    n = store.event_count
    codes = FILTERS[1][1]  # errors
    pattern = re.compile(b"[" + re.escape(bytes(sorted(codes))) + b"]")
    kind = timed(lambda: [m.start() for m in pattern.finditer(store.categories, 0, n)], runs)
    found: list[int] = []
    text = timed(lambda: found.__setitem__(slice(None), matching_events(store, "AssertionError")), runs)
    raw = (a / "events.jsonl").read_bytes().split(b"\n")
    needle = b"assertionerror"
    floor = timed(lambda: [k for k, line in enumerate(raw) if needle in line.lower()], runs)
    peer = timed(lambda: [json.loads(line) for line in raw if line], max(1, runs // 2))
    print(
        f"  filter {n} events by kind (errors): {kind[0] * 1000:.1f} ms | by text: {text[0]:.3f} s"
        f" ({len(found)} matches) | raw-line substring scan (floor) {floor[0]:.3f} s"
        f" | json.loads every line (peer) {peer[0]:.3f} s"
    )
    reader.close()


def main() -> int:
    """Generate the runs (kept in --work between invocations) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "qitos-bench-diff")
    parser.add_argument("--skip-tmux", action="store_true", help="only the in-process figures")
    parser.add_argument("--source", type=Path, help="also launch the diff from this checkout (before)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    a, b = make_runs(args.work)
    if not args.skip_tmux:
        bench_diff_first_screen(a, b, args.runs, args.source.resolve() if args.source else None)
    bench_diff_in_process(a, b, args.runs)
    bench_filters(a, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
