"""Fuzz benchmark: a seeded run of hostile traces through the TraceReader and the fold (issue 11 item 4).

Run: ``python tests/benchmarks/bench_fuzz_fold.py [--traces 50000] [--seed 11]``. Prints how many
traces were read and folded, how many crashed (an exception left the reader, the fold, the typed
payload readers, search or export) and how many had a line not accounted for — both must be 0 —
beside a peer measured on the same traces: the plain reading of each line that the issue's fuzzer
crashed (``json.loads``, then ``int()`` on the step id and token counts, as the reader and fold did
before). Half the traces are one line long, half up to twelve lines; lines are valid events with
odd field values, known hostile lines, flipped bytes and cut-off lines (see ``tests/trace/hostile_traces.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "trace"))
if __package__ is None:
    sys.path.insert(0, str(HERE.parents[1]))

from hostile_traces import random_trace, run_checked  # noqa: E402


def naive_crashes(events: bytes) -> bool:
    """Whether the plain reading of the lines raises: json.loads, int() on step ids and usage."""
    try:
        for raw in events.split(b"\n"):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                continue  # the old reader caught this one
            if not isinstance(data, dict):
                continue
            int(data.get("step_id", 0) or 0)
            payload = data.get("payload") or {}
            usage = payload.get("usage") if isinstance(payload, dict) else None
            if isinstance(usage, dict):
                int(usage.get("total_tokens") or 0)
    except (TypeError, ValueError):
        return False  # caught by the old code's except clauses
    except Exception:  # noqa: BLE001 - OverflowError, RecursionError, AttributeError: crashes
        return True
    return False


def main() -> int:
    """Generate, read and fold the traces; print the counts; exit 1 if any crashed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    work = Path(tempfile.mkdtemp(prefix="qitos-fuzz-", dir=scratch))
    crashes: Counter[str] = Counter()
    unaccounted: Counter[str] = Counter()
    peer_crashes = lines = 0
    started = time.perf_counter()
    try:
        for n in range(args.traces):
            files = random_trace(rng)
            if n % 2 == 0:  # a one-line trace: the first line alone
                first = (files["events.jsonl"] or b"").split(b"\n")[0]
                files["events.jsonl"] = first + (b"\n" if rng.random() < 0.9 else b"")
            events = files["events.jsonl"] or b""
            lines += events.count(b"\n")
            peer_crashes += naive_crashes(events)
            for problem in run_checked(work / "run", files, work / "exports"):
                bucket = crashes if problem.startswith("crash:") else unaccounted
                bucket[
                    problem.split(":", 2)[1].strip() if problem.startswith("crash:") else problem[:60]
                ] += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print(f"seed {args.seed}: {args.traces} traces, {lines} lines, in {elapsed:.1f} s")
    print(
        f"  reader + fold:  {sum(crashes.values())} crashes, {sum(unaccounted.values())} with a line unaccounted for"
    )
    print(f"  peer (plain json.loads + int(), as before): {peer_crashes} traces crash")
    for name, count in (crashes + unaccounted).most_common(10):
        print(f"    {count:6d}  {name}")
    return 1 if crashes or unaccounted else 0


if __name__ == "__main__":
    raise SystemExit(main())
