"""qitos-tui figures: first paint of big traces under tmux (beside toolong), memory, keys, live overhead.

Run: ``python tests/benchmarks/bench_tui.py [--runs N] [--work DIR] [--skip-1gb] [--toolong PATH]``.

- Replay of a generated 100k-event, ~100 MB trace: time from launch to the first painted screen in
  a real terminal (tmux, polling the pane), median of N runs, side by side with toolong (``tl``) on
  the same events.jsonl. toolong is not a dependency: install it anywhere (e.g. a separate venv) and
  pass ``--toolong``, or have ``tl`` on PATH; otherwise the comparison is skipped with a message.
  For scale, a Textual app that shows one line is timed alike. qitos and tui are byte-compiled
  first, as installing them would do.
- The same for a ~1 GB trace, with the app's peak RSS (VmHWM) at first paint and after the full
  background fold, and Right while its fold runs.
- Navigation keys on the 100k trace, in tmux at 120x40 (panes in tabs) and 170x48 (all six panes):
  key sent to the step it leads to on screen, for every navigation key, after the background fold;
  and Right while the fold runs, each press spaced so that the fold is under way again (the fold
  rests while keys keep coming: presses in a row would time keys against a resting fold). The
  100k trace folds in about a second, so the 1 GB trace gives most of those.
- Live: wall time of a 200-step scripted run in the TUI versus headless (both traced), and, as
  the floor, the Engine built as the TUI builds it (its event tap and pause policy) with no UI.

Aims (issue 5): first paint < 0.5 s and at most half of toolong's; 1 GB < 1 s with peak RSS < 300 MB;
keys < 50 ms; live overhead < 10 %.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script from the repo root or anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tui.pacing import FOLD_QUIET_SECONDS, KEY_QUIET_SECONDS  # noqa: E402
from tui.synthetic import synthetic_events, write_trace  # noqa: E402

SIZE = (120, 40)  # panes in tabs
WIDE_SIZE = (170, 48)  # every pane on screen at once
MARK_OURS = "  step 0 ("  # the header's selected step id and the range of ids, in the first frame
STEPS_100MB, PAD_100MB = 11350, 5000  # -> ~100k events, ~97 MB
STEPS_1GB, PAD_1GB = 117000, 5000  # -> ~1.03M events, ~1 GB


# ------------------------------------------------------------------------------ traces
def trace(work: Path, name: str, steps: int, pad: int) -> Path:
    """A generated run directory (reused when already there)."""
    run_dir = work / name
    if not (run_dir / "manifest.json").is_file():
        print(f"  generating {name} ({steps} steps)…", flush=True)
        write_trace(run_dir, synthetic_events(steps, run_id=name, pause_at=None, payload_pad=pad))
    size = (run_dir / "events.jsonl").stat().st_size
    with (run_dir / "manifest.json").open() as f:
        count = json.load(f)["event_count"]
    print(f"  {name}: {count} events, {size / 1e6:.0f} MB")
    return run_dir


# ------------------------------------------------------------------------------ tmux
class Pane:
    """A detached tmux session running one command (exec'd, so the pane's pid is the program's)."""

    def __init__(self, argv: list[str], size: tuple[int, int] = SIZE) -> None:
        self.name = f"bench-{uuid.uuid4().hex[:8]}"
        command = "exec " + " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
        self.start = time.perf_counter()
        subprocess.run(
            # In this directory: `python -m tui.cli` runs the checkout the benchmark is started from.
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-c",
                os.getcwd(),
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                command,
            ],
            check=True,
        )

    def screen(self) -> str:
        """The pane's text."""
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 30.0) -> float:
        """Seconds from launch until ``text`` is on screen."""
        while time.perf_counter() - self.start < timeout:
            if text in self.screen():
                return time.perf_counter() - self.start
            time.sleep(0.005)
        raise RuntimeError(f"{text!r} did not appear within {timeout} s:\n{self.screen()}")

    def pid(self) -> int:
        """The program's pid."""
        out = subprocess.run(
            ["tmux", "list-panes", "-t", self.name, "-F", "#{pane_pid}"], capture_output=True, text=True
        )
        return int(out.stdout.split()[0])

    def close(self) -> None:
        """Kill the session (and the program)."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


class TmuxServer:
    """Keeps one idle session open so the tmux server does not exit (and restart) between panes."""

    def __enter__(self) -> TmuxServer:
        self.name = f"bench-keep-{uuid.uuid4().hex[:8]}"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "sleep 7200"], check=True)
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set size so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def compile_bytecode() -> None:
    """Write the .pyc files of qitos and tui, as installing the package does (pip compiles what it
    installs; toolong's are there too). An editable checkout run with PYTHONDONTWRITEBYTECODE set
    would otherwise compile every module from source at every launch."""
    import compileall

    import qitos
    import tui

    for package in (qitos, tui):
        compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)


def ours(run_dir: Path) -> list[str]:
    """The command line of `qitos-tui replay` with this interpreter."""
    return [sys.executable, "-m", "tui.cli", "replay", str(run_dir)]


def first_paint(argv: list[str], mark: str) -> float:
    """Seconds to the first screen showing ``mark``."""
    pane = Pane(argv)
    try:
        return pane.wait_for(mark)
    finally:
        pane.close()


TRIVIAL_APP = """\
from textual.app import App
from textual.widgets import Static


class Trivial(App):
    def compose(self):
        yield Static("step 1 of 1")


Trivial().run()
"""


def bench_first_paint(run_dir: Path, runs: int, toolong: str | None, *, floor: bool = True) -> None:
    """Ours and toolong's first paint on the same trace, interleaved, medians; and, for scale, a
    Textual app showing one line (what any Textual app pays: Python, `import textual`, a frame)."""
    events = run_dir / "events.jsonl"
    mark_tl = f'"run_id": "{run_dir.name}"'
    trivial = run_dir.parent / "trivial_textual_app.py"
    trivial.write_text(TRIVIAL_APP, encoding="utf-8")
    mine: list[float] = []
    theirs: list[float] = []
    least: list[float] = []
    first_paint(ours(run_dir), MARK_OURS)  # warm the page cache
    if toolong:
        first_paint([toolong, str(events)], mark_tl)
    for _ in range(runs):
        mine.append(first_paint(ours(run_dir), MARK_OURS))
        if toolong:
            theirs.append(first_paint([toolong, str(events)], mark_tl))
        if floor:
            least.append(first_paint([sys.executable, str(trivial)], "step 1 of 1"))
    line = f"  first paint, median of {runs}: qitos-tui {statistics.median(mine):.3f} s"
    line += f" (min {min(mine):.3f}, max {max(mine):.3f})"
    if toolong:
        ratio = statistics.median(mine) / statistics.median(theirs)
        line += f" | toolong {statistics.median(theirs):.3f} s (min {min(theirs):.3f}) | ratio {ratio:.2f}"
    if floor:
        line += f" | a one-line Textual app {statistics.median(least):.3f} s"
    print(line)


def bench_1gb(run_dir: Path, runs: int, toolong: str | None) -> None:
    """First paint of ~1 GB plus peak RSS at first paint and after the whole background fold."""
    bench_first_paint(run_dir, runs, toolong, floor=False)
    pane = Pane(ours(run_dir))
    try:
        painted = pane.wait_for(MARK_OURS)
        pid = pane.pid()
        at_paint = peak_rss_mb(pid)
        pane.wait_for("folding")  # the background fold has started (after the reader indexed)
        deadline = time.perf_counter() + 900
        while "folding" in pane.screen():
            if time.perf_counter() > deadline:
                raise RuntimeError("the fold did not finish in 10 minutes")
            time.sleep(0.5)
        folded = time.perf_counter() - pane.start
        after = peak_rss_mb(pid)
    finally:
        pane.close()
    print(
        f"  peak RSS: {at_paint:.0f} MB at first paint ({painted:.2f} s), {after:.0f} MB after the full"
        f" background fold ({folded:.1f} s)"
    )
    pane = Pane(ours(run_dir))
    try:
        pane.wait_for(MARK_OURS)
        pane.wait_for("folding")
        during = keys_into_the_fold(pane, presses=20)
    finally:
        pane.close()
    print(f"  keys in tmux at {SIZE[0]}x{SIZE[1]}, Right x{len(during)} into the running fold: {fmt(during)}")


def press(pane: Pane, key: str, to: int) -> float:
    """Send ``key`` and wait for the header's "step ``to`` ("; milliseconds."""
    start = time.perf_counter()
    subprocess.run(["tmux", "send-keys", "-t", pane.name, key], check=True)
    mark = f"  step {to} ("
    while mark not in pane.screen():
        if time.perf_counter() - start > 10:
            raise RuntimeError(f"{mark!r} never shown after {key}:\n{pane.screen()}")
    return (time.perf_counter() - start) * 1000


def keys_into_the_fold(pane: Pane, presses: int) -> list[float]:
    """Right from step 0, each press once the fold is under way again after the last one, while
    the header says "folding"; milliseconds each."""
    rest = KEY_QUIET_SECONDS + FOLD_QUIET_SECONDS + 0.1  # the fold rests this long after a key
    during: list[float] = []
    while len(during) < presses and "folding" in pane.screen():
        during.append(press(pane, "Right", to=len(during) + 1))
        time.sleep(rest)
    return during


# ------------------------------------------------------------------------------ keys
NAV_KEYS = (("Right", 1), ("l", 1), ("Down", 1), ("Left", -1), ("h", -1), ("Up", -1))


def bench_keys_tmux(run_dir: Path, presses: int, size: tuple[int, int]) -> None:
    """Key to screen in a real terminal, for every navigation key: send the key, poll until the
    header shows the step it leads to. Right while the background fold runs; then every key."""
    pane = Pane(ours(run_dir), size)
    try:
        pane.wait_for(MARK_OURS)
        last = 0  # the last step id of the run, once the fold is done (it grows while it runs)
        at = 0  # the header's "step i (first–last)": synthetic step ids count from 0

        def go(key: str, to: int, typed: str = "") -> float:
            """:func:`press` ``key`` (after `g` and ``typed``, when given) and keep ``at``."""
            nonlocal at
            if typed:  # `g` and the step id, typed into the header line; Enter is timed
                subprocess.run(["tmux", "send-keys", "-t", pane.name, "g", *typed], check=True)
                time.sleep(0.1)
            elapsed = press(pane, key, to)
            at = to
            return elapsed

        pane.wait_for("folding")
        during = keys_into_the_fold(pane, presses)
        at = len(during)
        while "folding" in pane.screen():
            time.sleep(0.2)
        time.sleep(0.5)
        header = next(line for line in pane.screen().splitlines() if f"  step {at} (" in line)
        last = int(header.split(f"  step {at} (", 1)[1].split(")", 1)[0].split("–")[1])
        after: dict[str, list[float]] = {}
        for key, delta in NAV_KEYS:
            after[key] = [go(key, to=at + delta) for _ in range(presses)]
        after["End / Home"] = [
            go("End" if k % 2 == 0 else "Home", to=last if k % 2 == 0 else 0) for k in range(presses)
        ]
        middle = last // 2  # `g` takes the recorded step id, as the header shows it
        after["g N Enter (from Enter)"] = [
            go("Enter", to=middle + k, typed=str(middle + k)) for k in range(min(presses, 10))
        ]
    finally:
        pane.close()
    everything = [v for values in after.values() for v in values]
    print(f"  keys in tmux at {size[0]}x{size[1]} (key -> screen, includes ~5 ms of tmux polling):")
    print(f"    into the running fold, Right x{len(during)}: {fmt(during) if during else 'fold too short'}")
    for key, values in after.items():
        print(f"    after it, {key} x{len(values)}: {fmt(values)}")
    print(f"    after it, all {len(everything)} presses: {fmt(everything)}")


def fmt(values: list[float]) -> str:
    """Median, p95 and max of millisecond samples."""
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f}, max {values[-1]:.1f}"


# ------------------------------------------------------------------------------ live overhead
def _bench_agent(steps: int) -> Any:
    from qitos import AgentModule, Decision, StateSchema, ToolRegistry, tool
    from qitos.engine.runtime import RuntimeBudget
    from qitos.kit.parser import JsonDecisionParser
    from qitos.models.scripted import ScriptedModel

    reply = json.dumps({"thought": "count", "action": {"name": "bump", "args": {"by": 1}}})

    @dataclass
    class CountState(StateSchema):
        total: int = 0

    @tool(name="bump")
    def bump(by: int) -> int:
        """Return the increment."""
        return by

    class CountAgent(AgentModule):
        def init_state(self, task: str, **kwargs: Any) -> CountState:
            return CountState(task=task, max_steps=steps)

        def prepare(self, state: CountState) -> str:
            return f"total={state.total}"

        def reduce(self, state: CountState, observation: Any, decision: Decision[Any]) -> CountState:
            state.total += sum(observation["action_results"])
            return state

        def build_engine(self, **engine_kwargs: Any) -> Any:
            # The default RuntimeBudget allows 10 steps; headless and TUI both build through here.
            engine_kwargs.setdefault("budget", RuntimeBudget(max_steps=steps))
            return super().build_engine(**engine_kwargs)

    model = ScriptedModel(lambda messages: reply)
    return CountAgent(
        tool_registry=ToolRegistry().register(bump), llm=model, model_parser=JsonDecisionParser()
    )


def _headless(base: Path, steps: int) -> float:
    """Wall time of Engine.run for the scripted agent, traced, with no UI."""
    from qitos.trace.writer import TraceWriter

    writer = TraceWriter(base)
    engine = _bench_agent(steps).build_engine(trace_writer=writer)
    start = time.perf_counter()
    result = engine.run("count")
    elapsed = time.perf_counter() - start
    writer.close()
    assert result.step_count == steps, result.stop_reason
    return elapsed


def _tapped(base: Path, steps: int) -> float:
    """Wall time of Engine.run built as the TUI builds it (its event tap, with nothing behind it,
    and its pause policy) but with no UI: what the Engine itself pays for being watched."""
    from tui.live import LiveRun

    live = LiveRun(_bench_agent(steps), "count", trace_dir=base)
    live.build(lambda event: None)
    live.start()
    return live.engine_seconds


async def _live(base: Path, steps: int) -> tuple[float, int]:
    """Wall time of Engine.run for the same agent inside the TUI (tap, fold, screen updates)."""
    from tui.app import make_app
    from tui.live import LiveRun
    from tui.screenshots import settle

    live = LiveRun(_bench_agent(steps), "count", trace_dir=base)
    app = make_app(live=live)
    async with app.run_test(size=SIZE) as pilot:
        # Wait without driving the app (a pilot pause loop would cost the UI thread CPU itself).
        await asyncio.sleep(0.2)
        while app.screen.engine_running:
            await asyncio.sleep(0.05)
        await settle(pilot)
        done = len(app.screen.store.steps)
    return live.engine_seconds, done


def bench_live(steps: int, runs: int) -> None:
    """The same scripted run headless and in the TUI, alternating: Engine wall time and the TUI's
    overhead, also as the median of each pair's difference (pairs cancel the machine's drift)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        _headless(base / "warm", steps)
        headless: list[float] = []
        tapped: list[float] = []
        tui: list[float] = []
        shown = 0
        for n in range(runs):
            # Each run starts with no garbage of the one before (an app's, say) for the collector
            # to walk: the order of the three would otherwise weigh on the figures.
            gc.collect()
            headless.append(_headless(base / f"h{n}", steps))
            gc.collect()
            tapped.append(_tapped(base / f"p{n}", steps))
            gc.collect()
            elapsed, shown = asyncio.run(_live(base / f"t{n}", steps))
            tui.append(elapsed)
    h, p, t = statistics.median(headless), statistics.median(tapped), statistics.median(tui)
    paired = statistics.median(100 * (b - a) / a for a, b in zip(headless, tui, strict=True))
    print(
        f"  {steps}-step scripted run (traced), Engine wall time, median of {runs}: headless {h:.3f} s,"
        f" in the TUI {t:.3f} s ({shown} steps shown) -> overhead {100 * (t - h) / h:+.1f} %"
        f" (median of the pairs {paired:+.1f} %); the Engine built as the TUI builds it (tap and"
        f" pause policy), no UI: {p:.3f} s ({100 * (p - h) / h:+.1f} %)"
    )


# ------------------------------------------------------------------------------ main
def main() -> int:
    """Print every figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median); default 5")
    parser.add_argument("--work", help="folder for the generated traces (kept; default: a temp folder)")
    parser.add_argument("--skip-1gb", action="store_true", help="skip the ~1 GB trace")
    parser.add_argument("--toolong", help="path of toolong's `tl` (default: `tl` on PATH)")
    args = parser.parse_args()
    toolong = args.toolong or shutil.which("tl")
    if shutil.which("tmux") is None:
        print("tmux is not installed: the first-paint figures need a real terminal; skipping them")
    if toolong is None:
        print("toolong (`tl`) not found: the side-by-side comparison is skipped (pip install toolong)")
    work_ctx = tempfile.TemporaryDirectory(prefix="bench-tui-") if args.work is None else None
    work = Path(work_ctx.name if work_ctx else args.work)
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TERM", "xterm-256color")
    compile_bytecode()
    keeper = TmuxServer().__enter__() if shutil.which("tmux") else None
    try:
        print("replay, ~100 MB:")
        big = trace(work, "trace100mb", STEPS_100MB, PAD_100MB)
        if shutil.which("tmux"):
            bench_first_paint(big, args.runs, toolong)
        if shutil.which("tmux"):
            for size in (SIZE, WIDE_SIZE):
                bench_keys_tmux(big, presses=30, size=size)
        if not args.skip_1gb and shutil.which("tmux"):
            print("replay, ~1 GB:")
            huge = trace(work, "trace1gb", STEPS_1GB, PAD_1GB)
            bench_1gb(huge, max(3, args.runs // 2), toolong)
        print("live:")
        bench_live(200, max(9, args.runs))
    finally:
        if keeper is not None:
            keeper.__exit__()
        if work_ctx is not None:
            work_ctx.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
