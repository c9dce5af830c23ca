"""The background fold's work without the app: CPU seconds to read and fold every event of a trace.

Run: ``python tests/benchmarks/bench_fold_cpu.py [--runs N] [--work DIR] [--size 100mb|1gb]``
(``--work`` keeps the generated trace, shared with bench_fold.py's).

Each figure is taken in a fresh interpreter, the runs alternating, medians printed: the fold as the
app does it (the reader's parsed records applied to a RunStore), ``json.loads`` of every line (the peer issue 14 measures the
fold against) and reading the lines (the floor); also the reader's parse of every line without the
fold, the floor of any fold that parses each line exactly as the trace's total parser would; the
fold alone, its records parsed beforehand, the floor of any design that keeps this fold; the two
together shared perfectly over the worker processes the app starts here (one per core), the least
its full fold can take on this machine. And the fold's peak RSS in that interpreter.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fold import FOLD_PART, child  # noqa: E402
from bench_tui import PAD_1GB, PAD_100MB, STEPS_1GB, STEPS_100MB, trace  # noqa: E402

from tui.fold_parts import worker_count  # noqa: E402

# What every fold that reads each line as the trace's parser does costs before it folds anything:
# the reader's parse of every line (orjson, with the checks that keep it exact to the total parse).
READER_PARSE = """
import gc, json, sys, time
from qitos.trace.reader import TraceReader
from tui.gc_tuning import FRAME_THRESHOLDS

gc.set_threshold(*FRAME_THRESHOLDS)
t0 = time.process_time()
reader = TraceReader(sys.argv[1])
for start, records in reader.records(0):
    for record in records:
        pass
print(json.dumps({"s": time.process_time() - t0}))
"""

# The fold's own work, its records parsed beforehand, a block at a time (not timed): what any
# design that keeps this fold pays on top of reading and parsing, however those are done.
FOLD_ALONE = """
import gc, json, sys, time
from qitos.trace.reader import TraceReader
from tui.gc_tuning import FRAME_THRESHOLDS
from tui.store import RunStore

gc.set_threshold(*FRAME_THRESHOLDS)
reader = TraceReader(sys.argv[1])
store = RunStore(reader, run_id=reader.run_id)
spent = 0.0
for start, records in reader.records(0):
    parsed = list(records)
    t0 = time.process_time()
    store.apply(parsed, start)
    spent += time.process_time() - t0
print(json.dumps({"s": spent}))
"""

PLAIN_PARSE = """
import json, sys, time
t0 = time.process_time()
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            json.loads(line)
print(json.dumps({"s": time.process_time() - t0}))
"""

READ_LINES = """
import json, sys, time
t0 = time.process_time()
with open(sys.argv[1], "rb") as f:
    for line in f:
        pass
print(json.dumps({"s": time.process_time() - t0}))
"""


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median); default 3")
    parser.add_argument("--work", help="folder for the generated trace (kept; default: a temp folder)")
    parser.add_argument("--size", choices=("100mb", "1gb"), default="1gb")
    args = parser.parse_args()
    work_ctx = tempfile.TemporaryDirectory(prefix="bench-fold-cpu-") if args.work is None else None
    work = Path(work_ctx.name if work_ctx else args.work)
    steps, pad = (STEPS_1GB, PAD_1GB) if args.size == "1gb" else (STEPS_100MB, PAD_100MB)
    try:
        run_dir = trace(work, f"trace{args.size}", steps, pad)
        events = str(run_dir / "events.jsonl")
        child(READ_LINES, events)  # warm the page cache
        fold, parse, alone, plain, floor, rss = [], [], [], [], [], []
        for _ in range(args.runs):
            figures = child(FOLD_PART, str(run_dir), "0", "1")
            fold.append(figures["s"])
            rss.append(figures["rss"])
            parse.append(child(READER_PARSE, str(run_dir))["s"])
            alone.append(child(FOLD_ALONE, str(run_dir))["s"])
            plain.append(child(PLAIN_PARSE, events)["s"])
            floor.append(child(READ_LINES, events)["s"])
        p = statistics.median(plain)
        print(
            f"fold CPU, {args.size} trace, median of {args.runs}: as the app folds"
            f" {statistics.median(fold):.2f} s"
            f" | json.loads of every line {p:.2f} s | reading the lines {statistics.median(floor):.2f} s"
            f" | ratio {statistics.median(fold) / p:.2f} (aim <= 0.5)"
        )
        print(
            f"the reader's parse of every line, folding nothing: {statistics.median(parse):.2f} s"
            f" | ratio {statistics.median(parse) / p:.2f} (no fold that parses every line exactly can"
            " be faster)"
        )
        print(
            f"the fold alone, every record parsed beforehand: {statistics.median(alone):.2f} s"
            f" | ratio {statistics.median(alone) / p:.2f} (no design that keeps this fold can be faster)"
        )
        # Parsing and folding are the work the app's worker processes (one per core) share out; the
        # index, the joins and the UI come on top. So here, even shared perfectly, the full fold
        # cannot take less than this (issue 14's figure 2 is measured against the same peer).
        cores = worker_count()
        shared = statistics.median(parse) + statistics.median(alone)
        least = shared / cores
        if least > 0.5 * p:
            cheaper = 1 - 0.5 * p / least
            reach = f"0.5 needs {math.ceil(shared / (0.5 * p))} cores, or this work {cheaper:.0%} cheaper"
        else:
            reach = f"0.5 leaves {0.5 * p - least:.2f} s for the index, the joins and the UI"
        print(
            f"parsing and folding shared perfectly over the {cores} worker(s) the app starts here:"
            f" {least:.2f} s | ratio {least / p:.2f} (no fold split over them can be faster; {reach})"
        )
        print(f"peak RSS of that fold (no app), median: {statistics.median(rss):.0f} MB")
    finally:
        if work_ctx is not None:
            work_ctx.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
