"""The fold's four figures (issue 14), each beside its peer and floor measured in the same run.

Run: ``python tests/benchmarks/bench_fold.py [--runs N] [--work DIR]`` (``--work`` keeps the
generated ~100 MB and ~1 GB traces for the next run; generating the 1 GB one takes minutes).

1. First screen of a 100k-event trace under tmux, beside a Textual app that shows one line
   (aim: at most 1.2x it) and, as floors, importing the modules our first screen needs with
   nothing drawn, our first screen of a run of one step (what the screen costs whatever the
   trace), and the same layout built from Textual's stock widgets with fixed text (what Textual
   costs to compose, style and draw that screen, before any code of ours).
2. The full background fold of a 1M-event trace in the app under tmux, from launch until every
   step is in the list (the header's range of step ids reaches the last one and it no longer
   says "folding"), beside a plain ``json.loads`` of every line of the same file (aim: at most
   0.5x it) and, as floors, reading the file's lines, parsing them with orjson as the fold does
   (what any fold that parses every line that way costs at least), and our reader and fold with
   no UI, in one process and split in two halves folded at once in two processes.
3. Search for the text of the trace's last event over the whole trace once folded (aim < 1 s),
   and over the part folded so far while the fold runs.
4. The app's peak RSS (VmHWM) after the full fold (aim: at most 200 MB).

With figure 2, Right while the 1 GB fold runs (its worker processes take every core) and once it
is done, as bench_tui times it (issue 5's aim: under 50 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tui import (  # noqa: E402
    PAD_1GB,
    PAD_100MB,
    STEPS_1GB,
    STEPS_100MB,
    TRIVIAL_APP,
    Pane,
    TmuxServer,
    compile_bytecode,
    first_paint,
    fmt,
    keys_into_the_fold,
    ours,
    peak_rss_mb,
    press,
    trace,
)

from tui.synthetic import synthetic_events, write_trace  # noqa: E402

MARK_OURS = "  step 0 ("  # the header's selected step and the range of ids, in the first frame

# Every line parsed by the module named in argv[2]: json (the peer), or orjson (the parse the fold
# itself uses, qitos.trace.parse: what no fold that parses every line that way can go under).
PARSE_LINES = """
import importlib, json, sys, time
loads = importlib.import_module(sys.argv[2]).loads
t0 = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            loads(line)
            n += 1
print(json.dumps({"s": time.perf_counter() - t0, "lines": n}))
"""

READ_LINES = """
import json, sys, time
t0 = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        n += 1
print(json.dumps({"s": time.perf_counter() - t0, "lines": n}))
"""

# The app's reader and fold with no UI (the collector tuned as the app tunes it), over part
# argv[2] of argv[3] of the trace's events; prints its CPU seconds, steps, peak RSS and the events
# it folded. Figure 2 runs it as the one part of one, and as two halves at once in two processes
# (one per core here; each indexes the whole file, which the app does once and its workers not at
# all, and nothing is merged or drawn): about what a fold split over processes could give at best,
# with the fold we have.
FOLD_PART = """
import gc, json, resource, sys, time
from qitos.trace.reader import TraceReader
from tui.gc_tuning import FRAME_THRESHOLDS
from tui.store import RunStore

gc.set_threshold(*FRAME_THRESHOLDS)
t0 = time.process_time()
reader = TraceReader(sys.argv[1])
part, parts = int(sys.argv[2]), int(sys.argv[3])
store = RunStore(reader, run_id=reader.run_id)
folded = 0
for first, block in reader.records(len(reader) * part // parts, len(reader) * (part + 1) // parts):
    folded += store.apply(block, first)
print(json.dumps({"s": time.process_time() - t0, "steps": len(store.steps), "events": folded,
                  "of": len(reader), "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SEARCH = """
import json, sys, time
from qitos.trace.reader import TraceReader
from tui.store import RunStore
from tui.search import search

reader = TraceReader(sys.argv[1])
needle = sys.argv[2]
store = RunStore(reader, run_id=reader.run_id)
half = len(reader) // 2
store.apply(reader.events(0, half), 0)
t0 = time.perf_counter()
partial = search(store, needle)
t1 = time.perf_counter()
store.apply(reader.events(half), half)
t2 = time.perf_counter()
whole = search(store, needle)
t3 = time.perf_counter()
print(json.dumps({"partial_s": t1 - t0, "partial_found": len(partial), "whole_s": t3 - t2,
                  "whole_found": len(whole), "last_step_pos": len(store.steps) - 1,
                  "found_last": any(pos == len(store.steps) - 1 for pos, _ in whole)}))
"""


def child(code: str, *args: str) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter; the figures it prints."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return printed_figures(out.stdout)


def printed_figures(stdout: str) -> dict[str, float]:
    """The figures a child printed: the JSON object on its last line."""
    return json.loads(stdout.strip().splitlines()[-1])


def fold_in_parts(run_dir: Path, parts: int) -> float:
    """Seconds until FOLD_PART has folded all ``parts`` parts of the trace, each in its own process,
    all started at once; checked to have folded every event between them."""
    start = time.perf_counter()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", FOLD_PART, str(run_dir), str(part), str(parts)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for part in range(parts)
    ]
    results = []
    for worker in workers:
        out, _ = worker.communicate()
        if worker.returncode != 0:
            raise RuntimeError(f"FOLD_PART failed with exit code {worker.returncode}")
        results.append(printed_figures(out))
    seconds = time.perf_counter() - start
    folded, total = sum(r["events"] for r in results), results[0]["of"]
    if folded != total:
        raise RuntimeError(f"the {parts} parts folded {folded} events of {total}")
    return seconds


# The floor of our first screen: the modules the replay's first frame needs (tui.app and what it
# imports), the collector paused as the CLI does, and nothing drawn; printed once they are in.
IMPORTS_ONLY = """
from tui.gc_tuning import pause_for_launch
pause_for_launch()
import tui.app
print("imported", flush=True)
input()
"""


# The floor of our first screen's layout: the same screen (a header line, a bordered list of 40
# steps beside tabs over a bordered pane, a footer of seven keys) built from Textual's stock
# widgets with fixed text, and no trace read: what Textual's composing, styling and drawing of our
# layout costs whatever our own code does.
SAME_LAYOUT_APP = """\
from textual.app import App
from textual.containers import Container, Horizontal, Vertical
from textual.widgets import Footer, Static

ROWS = "\\n".join(f"✓ {k:>5} read_file calc.py 170t 6ms" for k in range(40))
PANE = "\\n".join(f"line {k} of the exchange: the text of a message as the pane shows it" for k in range(40))
KEYS = [("left", "Prev"), ("right", "Next"), ("g", "Go to"), ("slash", "Search"), ("e", "Export"),
        ("question_mark", "Help"), ("q", "Quit")]


class SameLayout(App):
    CSS = \"\"\"
    #header { height: 1; background: $panel; padding: 0 1; }
    #body { height: 1fr; }
    #steps { width: 30%; border: round $border-blurred; background: $surface; }
    #pane-area { width: 1fr; }
    #tabs { height: 2; }
    #panes { height: 1fr; }
    #pane { border: round $border; height: 1fr; }
    \"\"\"
    BINDINGS = [(key, f"nothing('{name}')", name) for key, name in KEYS]
    ENABLE_COMMAND_PALETTE = False

    def action_nothing(self, name):
        pass

    def compose(self):
        yield Static("● finished  step 0 (0–11349)  120 tok  scripted-1  trace100mb", id="header")
        with Horizontal(id="body"):
            yield Static(ROWS, id="steps")
            with Vertical(id="pane-area"):
                yield Static("1 Exchanges  2 Context  3 Budget  4 Compaction  5 Memory  6 Skills  7 Events", id="tabs")
                with Container(id="panes"):
                    yield Static(PANE, id="pane")
        yield Footer()


SameLayout().run()
"""


def bench_first_screen(run_dir: Path, runs: int) -> None:
    """Figure 1: our first screen beside a one-line Textual app and, as floors, importing what our
    first screen needs without drawing anything, our first screen of a run of one step (what the
    screen costs whatever the trace), and the same layout from Textual's stock widgets (what
    Textual's part of the screen costs whatever our code does); interleaved, medians."""
    trivial = run_dir.parent / "trivial_textual_app.py"
    trivial.write_text(TRIVIAL_APP, encoding="utf-8")
    same_layout = run_dir.parent / "same_layout_app.py"
    same_layout.write_text(SAME_LAYOUT_APP, encoding="utf-8")
    one_step = run_dir.parent / "one_step"
    if not (one_step / "manifest.json").is_file():
        write_trace(one_step, synthetic_events(1, run_id="one_step", pause_at=None))
    imports_only = [sys.executable, "-c", IMPORTS_ONLY]
    first_paint(ours(run_dir), MARK_OURS)  # warm the page cache
    first_paint([sys.executable, str(trivial)], "step 1 of 1")
    first_paint(imports_only, "imported")
    first_paint([sys.executable, str(same_layout)], MARK_OURS)
    mine, least, floor, small, layout = [], [], [], [], []
    for _ in range(runs):
        mine.append(first_paint(ours(run_dir), MARK_OURS))
        least.append(first_paint([sys.executable, str(trivial)], "step 1 of 1"))
        floor.append(first_paint(imports_only, "imported"))
        small.append(first_paint(ours(one_step), MARK_OURS))
        layout.append(first_paint([sys.executable, str(same_layout)], MARK_OURS))
    m, t, f = statistics.median(mine), statistics.median(least), statistics.median(floor)
    o, s = statistics.median(small), statistics.median(layout)
    print(
        f"1. first screen, 100k events, median of {runs}: qitos-tui {m:.3f} s | a one-line Textual app"
        f" {t:.3f} s | ratio {m / t:.2f} (aim <= 1.2) | importing our first screen's modules, nothing"
        f" drawn, {f:.3f} s ({f / t:.2f}x the one-line app) | our first screen of a one-step run"
        f" {o:.3f} s ({o / t:.2f}x) | the same layout from Textual's stock widgets, no trace,"
        f" {s:.3f} s ({s / t:.2f}x) | under the aim, that layout leaves {(1.2 * t - s) * 1000:.0f} ms"
        f" for all our imports and code; ours takes {(m - s) * 1000:.0f} ms more than it"
    )


def full_fold(run_dir: Path, last_step: int) -> tuple[float, float]:
    """Seconds from launch until every step is in the list, and the peak RSS then (MB)."""
    pane = Pane(ours(run_dir))
    done = f"–{last_step})"  # the header's range of step ids reaches the last one
    try:
        pane.wait_for(MARK_OURS)
        pid = pane.pid()
        deadline = time.perf_counter() + 900
        while True:
            screen = pane.screen()
            if done in screen and "folding" not in screen:
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the fold did not finish in 15 minutes:\n{screen}")
            time.sleep(0.02)
        return time.perf_counter() - pane.start, peak_rss_mb(pid)
    finally:
        pane.close()


def bench_full_fold(run_dir: Path, runs: int) -> None:
    """Figures 2 and 4: the app's full fold beside json.loads of every line, alternating, with the
    floors (reading the lines; orjson.loads of every line, the fold's own parse; the app's reader
    and fold with no UI, in one process and split over two); peak RSS."""
    events = str(run_dir / "events.jsonl")
    with (run_dir / "manifest.json").open() as f:
        steps = json.load(f)["summary"]["steps"]
    child(READ_LINES, events)  # warm the page cache
    folds, rss, plain, floor, fast, alone, split = [], [], [], [], [], [], []
    for _ in range(runs):
        seconds, peak = full_fold(run_dir, steps - 1)
        folds.append(seconds)
        rss.append(peak)
        plain.append(child(PARSE_LINES, events, "json")["s"])
        floor.append(child(READ_LINES, events)["s"])
        fast.append(child(PARSE_LINES, events, "orjson")["s"])
        alone.append(fold_in_parts(run_dir, 1))
        split.append(fold_in_parts(run_dir, 2))
    f, p, o = statistics.median(folds), statistics.median(plain), statistics.median(fast)
    a, s = statistics.median(alone), statistics.median(split)
    print(
        f"2. full background fold, {steps} steps, median of {runs}: qitos-tui {f:.2f} s"
        f" (min {min(folds):.2f}) | json.loads of every line {p:.2f} s | reading the lines"
        f" {statistics.median(floor):.2f} s | orjson.loads of every line (the fold's parse, alone)"
        f" {o:.2f} s ({o / p:.2f}x) | our reader and fold with no UI {a:.2f} s ({a / p:.2f}x), the same"
        f" split in two halves folded at once in two processes {s:.2f} s ({s / p:.2f}x)"
        f" | ratio {f / p:.2f} (aim <= 0.5)"
    )
    print(f"4. peak RSS after the full fold, median of {runs}: {statistics.median(rss):.0f} MB (aim <= 200)")
    during, after = keys_while_folding(run_dir, presses=20)
    print(
        f"   keys while it folds (worker processes take every core), Right x{len(during)}: {fmt(during)}"
        f" | the same once folded (the floor), x{len(after)}: {fmt(after)} | issue 5's aim: under 50 ms"
    )


def keys_while_folding(run_dir: Path, presses: int) -> tuple[list[float], list[float]]:
    """Right into the running fold of ``run_dir`` (bench_tui.keys_into_the_fold), then as many
    once the fold is done; milliseconds each."""
    pane = Pane(ours(run_dir))
    try:
        pane.wait_for(MARK_OURS)
        pane.wait_for("folding")
        during = keys_into_the_fold(pane, presses)
        while "folding" in pane.screen():
            time.sleep(0.2)
        after = [press(pane, "Right", to=len(during) + k) for k in range(1, len(during) + 1)]
    finally:
        pane.close()
    return during, after


def bench_search(run_dir: Path, runs: int) -> None:
    """Figure 3: search for the last event's text, over half the trace folded and over all of it."""
    needle = last_event_text(run_dir)
    samples = [child(SEARCH, str(run_dir), needle) for _ in range(runs)]
    whole = statistics.median(s["whole_s"] for s in samples)
    part = statistics.median(s["partial_s"] for s in samples)
    found = all(s["found_last"] for s in samples)
    print(
        f"3. search {needle!r}, median of {runs}: whole trace {whole:.3f} s"
        f" ({'found in the last step' if found else 'NOT found in the last step'}; aim < 1 s)"
        f" | while half is folded {part:.3f} s ({samples[0]['partial_found']} matches)"
    )


def last_event_text(run_dir: Path) -> str:
    """A piece of text that only the trace's last event holds (none of the 64 KB before it)."""
    with (run_dir / "events.jsonl").open("rb") as f:
        f.seek(max(0, os.path.getsize(f.name) - 65536))
        before, last_line = f.read().rstrip(b"\n").rsplit(b"\n", 1)
    last = json.loads(last_line)
    strings = [v for v in last.get("payload", {}).values() if isinstance(v, str) and len(v) > 3]
    unique = [s for s in strings if s.encode() not in before]
    return (unique or strings or [str(last.get("phase"))])[0]


def main() -> int:
    """Print the four figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median); default 5")
    parser.add_argument("--work", help="folder for the generated traces (kept; default: a temp folder)")
    parser.add_argument("--only", choices=("1", "2", "3"), help="only this figure (2 includes 4)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed: figures 1, 2 and 4 need a real terminal")
        return 0
    work_ctx = tempfile.TemporaryDirectory(prefix="bench-fold-") if args.work is None else None
    work = Path(work_ctx.name if work_ctx else args.work)
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TERM", "xterm-256color")
    compile_bytecode()
    try:
        with TmuxServer():
            if args.only in (None, "1"):
                bench_first_screen(trace(work, "trace100mb", STEPS_100MB, PAD_100MB), args.runs)
            huge = trace(work, "trace1gb", STEPS_1GB, PAD_1GB) if args.only != "1" else None
            if huge is not None and args.only in (None, "2"):
                bench_full_fold(huge, max(3, args.runs // 2))
            if huge is not None and args.only in (None, "3"):
                bench_search(huge, max(3, args.runs // 2))
    finally:
        if work_ctx is not None:
            work_ctx.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
