"""Trace benchmark: writer throughput, and the reader on a generated ~100 MB / 100k-event trace.

Run: ``python tests/benchmarks/bench_trace.py [--events 100000] [--runs 5]``. Prints figures; not
collected by pytest. Each reader measurement runs in a fresh subprocess (cold interpreter, its own
peak RSS), and the medians of several runs are reported. Aims (issue #2 §6): first 100 events in
under 0.2 s, peak RSS under 200 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from qitos.trace.events import RunEvent
from qitos.trace.writer import TraceWriter

WORDS = (
    "def return self value file path line test assert import module error result token context "
    "budget request memory record skill version agent tool call step observe decide act reduce "
    "the a of to in and for with on is was be this that from by as at or not"
).split()

SYSTEM_PROMPT = (
    "You are a careful coding agent. Use the tools to inspect and edit files, run the tests, and "
    "answer with 'Final Answer:' when the task is done. " * 6
)


def prose(rng: random.Random, n_words: int) -> str:
    """Deterministic filler text that compresses and parses like real model output."""
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def code_block(rng: random.Random, lines: int) -> str:
    """A file listing like a ``view`` tool returns."""
    return "\n".join(f"{i + 1}\t    {prose(rng, rng.randint(3, 9))}" for i in range(lines))


def step_events(run_id: str, step: int, rng: random.Random) -> list[RunEvent]:
    """One engine step's events, shaped like the Engine's and upstream's (about 1 KB each on average)."""
    obs = {"task": "Fix the bug in buggy_module.py", "scratchpad": [prose(rng, 12) for _ in range(4)]}
    raw = f'Thought: {prose(rng, 30)}\nAction: view(path="src/mod_{step % 50}.py", view_range=(1, 40))'
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Task: fix it. Step {step}. {prose(rng, 40)}"},
        {"role": "assistant", "content": f"Thought: {prose(rng, 30)}\nAction: run(command='pytest -q')"},
        {"role": "user", "content": f"Observation: {prose(rng, 160)}"},
    ]
    listing = code_block(rng, rng.randint(70, 165))
    usage = {"prompt_tokens": 900 + step % 300, "completion_tokens": 60, "total_tokens": 960 + step % 300}
    kinds: list[tuple[str, dict[str, Any]]] = [
        ("OBSERVE", {"stage": "start"}),
        ("OBSERVE", {"stage": "observation_ready", "observation": obs}),
        ("DECIDE", {"stage": "start"}),
        (
            "model_request",
            {
                "request_id": f"req-{step}",
                "model_id": "scripted",
                "messages": messages,
                "tools": ["view", "run"],
            },
        ),
        ("model_response", {"request_id": f"req-{step}", "text": raw, "tool_calls": [], "usage": usage}),
        ("DECIDE", {"stage": "model_output", "raw_output": raw}),
        ("tool_call", {"call_id": f"c{step}", "tool": "view", "args": {"path": f"src/mod_{step % 50}.py"}}),
        (
            "tool_result",
            {
                "call_id": f"c{step}",
                "tool": "view",
                "ok": True,
                "result": listing,
                "error": None,
                "attempts": 1,
            },
        ),
        ("REDUCE", {"stage": "state_reduced", "state_diff": {"scratchpad": {"after": [prose(rng, 25)]}}}),
        ("CHECK_STOP", {"stage": "continue"}),
    ]
    return [
        RunEvent(run_id, step, phase, payload=payload, ts="2026-01-01T00:00:00+00:00")
        for phase, payload in kinds
    ]


def generate(folder: Path, n_events: int) -> tuple[Path, float, int]:
    """Write an ``n_events`` trace with TraceWriter; returns its run dir, the write time and its size."""
    rng = random.Random(7)
    writer = TraceWriter(folder, run_id="bench_run", clock=lambda: "2026-01-01T00:00:00+00:00")
    written, step, elapsed = 0, 0, 0.0
    while written < n_events:
        batch = step_events(writer.run_id, step, rng)[: n_events - written]
        record = {"step_id": step, "decision": {"mode": "act"}, "actions": [{"name": "view", "args": {}}]}
        # Only the writer's own work is timed, not making up the events.
        started = time.perf_counter()
        for event in batch:
            writer.write_event(event)
        writer.write_step(record)
        elapsed += time.perf_counter() - started
        written += len(batch)
        step += 1
    writer.finalize(status="completed", summary={"stop_reason": "final", "steps": step})
    return writer.run_dir, elapsed, (writer.run_dir / "events.jsonl").stat().st_size


CHILD_FIRST_100 = """
import json, resource, sys, time
t0 = time.perf_counter()
from qitos.trace.reader import TraceReader
t1 = time.perf_counter()
reader = TraceReader(sys.argv[1])
first = list(reader.events(0, 100))
t2 = time.perf_counter()
middle = reader.event(len(reader) // 2)
last = reader.event(-1)
t3 = time.perf_counter()
assert len(first) == 100 and last.phase and middle.phase
print(json.dumps({"import_s": t1 - t0, "open_first100_s": t2 - t1, "random_access_s": t3 - t2,
                  "events": len(reader), "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CHILD_FULL_SCAN = """
import gc, json, resource, sys, time
from qitos.trace.reader import TraceReader
gc.disable()  # as a background fold would: the parsed events are short-lived
t0 = time.perf_counter()
reader = TraceReader(sys.argv[1])
n = sum(1 for _ in reader.events())
t1 = time.perf_counter()
print(json.dumps({"full_scan_s": t1 - t0, "events": n,
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# Opening indexes the file and parses a line only when it is damaged (for the notice saying why):
# a trace of damaged lines only is what costs opening most. Beside it, the intact trace's open.
CHILD_OPEN = """
import json, sys, time
from qitos.trace.reader import TraceReader
t0 = time.perf_counter()
reader = TraceReader(sys.argv[1])
print(json.dumps({"open_s": time.perf_counter() - t0, "events": len(reader), "notices": len(reader.notices)}))
"""


def damaged_copy(run_dir: Path, folder: Path) -> Path:
    """A copy of ``run_dir`` whose every event line has lost its closing brace."""
    copy = folder / "damaged"
    copy.mkdir()
    (copy / "manifest.json").write_bytes((run_dir / "manifest.json").read_bytes())
    lines = (run_dir / "events.jsonl").read_bytes().split(b"\n")
    (copy / "events.jsonl").write_bytes(b"\n".join(line[:-1] for line in lines))
    return copy


def child(code: str, run_dir: Path) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter and return the figures it prints."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(run_dir)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def medians(samples: list[dict[str, float]]) -> dict[str, float]:
    """The median of each figure over the runs."""
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def main() -> None:
    """Generate the trace, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qitos-bench-trace-") as tmp:
        run_dir, write_s, size = generate(Path(tmp), args.events)
        print(f"trace: {args.events} events, {size / 1e6:.1f} MB")
        print(
            f"writer: {args.events / write_s:,.0f} events/s ({size / 1e6 / write_s:.1f} MB/s, redacted, flushed)"
        )
        first = medians([child(CHILD_FIRST_100, run_dir) for _ in range(args.runs)])
        print(
            f"reader open + first 100 events: {first['open_first100_s'] * 1000:.1f} ms median of {args.runs} "
            f"(aim < 200 ms); import {first['import_s'] * 1000:.1f} ms; "
            f"middle + last event {first['random_access_s'] * 1000:.2f} ms"
        )
        print(f"reader peak RSS (whole process): {first['maxrss_mb']:.1f} MB (aim < 200 MB)")
        scan = medians([child(CHILD_FULL_SCAN, run_dir) for _ in range(max(1, args.runs // 2))])
        print(
            f"reader full scan (parse every event): {scan['full_scan_s']:.2f} s, peak RSS {scan['maxrss_mb']:.1f} MB"
        )
        damaged = damaged_copy(run_dir, Path(tmp))
        intact, broken = [], []
        for _ in range(args.runs):
            intact.append(child(CHILD_OPEN, run_dir))
            broken.append(child(CHILD_OPEN, damaged))
        whole, hurt = medians(intact), medians(broken)
        print(
            f"reader open of the same trace with every line damaged: {hurt['open_s']:.2f} s,"
            f" {hurt['notices']:.0f} notices (each damaged line parsed once, for why) | intact:"
            f" {whole['open_s'] * 1000:.0f} ms | its full scan above is the peer"
        )


if __name__ == "__main__":
    main()
