"""Memory and skills at scale (issue 20): every row of the issue's table at three sizes, ×10 apart.

Run: ``python tests/benchmarks/bench_scale.py [--runs N] [--sizes 1000,10000,100000]
[--only append,memory,edit,filter,keys,skills,runs] [--source DIR] [--work DIR]``. Not collected by
pytest. Each figure is a median of ``--runs`` (the 100k append: of ``max(1, runs // 3)``), printed
with its growth factor per ×10 of size (1.0: constant, 10: linear) and beside a floor or a peer
measured in the same run:

- ``append``: N ``MemdirMemory.append`` into a growing root from empty; floor: N textbook durable
  writes of the same record files alone (temp file, fsync, rename, fsync the directory: what the
  record's crash safety costs, with no index), in blocks taking turns with the appends' blocks so
  both see the same load on a shared disk; printed with the median ratio of the two.
- ``memory``: ``qitos-tui memory`` in tmux at 160×48: launch → the newest record's row on screen,
  and → every record loaded (the summary's count, no "loading"); peak RSS (VmHWM) then. Floor: a
  one-line Textual app's first screen; peer: a plain ``os.scandir`` + read of every record file.
- ``edit``: another process saves the newest record the way editors do (in place; temp file
  beside it, renamed over it; temp file elsewhere, renamed in; vim's probe/backup/swap dance)
  → the new text on the tmux screen. Floor: ``watchfiles`` alone reporting the same saves.
- ``filter``: `f`, then the keystrokes of "note 9" one at a time, then backspaces: key → the
  summary's "N shown" right for that text. Floor: a plain ``in`` over every row's text in Python.
- ``keys``: `f` and three characters sent in one burst as soon as the first rows show, while the
  load runs: how many launches lost or misrouted a key.
- ``skills``: ``qitos-tui skills`` on N skills × 3 versions: Down → the next skill's title on
  screen. Peer: reading the catalogue (what each Down cost before); floor: reading one skill's versions.
- ``runs``: ``qitos-tui replay FOLDER`` with N/10 runs: launch → the newest run's row, and → all
  listed. Floor: the one-line Textual app; peer: a plain read of every manifest. In process: a
  filter keystroke and a sort of the list (floor: the substring test alone).

``--source DIR`` launches the apps (and runs the appends) from another checkout, e.g. ``main``, to
measure "before" on the same machine in the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "browsers"))

from bench_tui import TRIVIAL_APP, Pane, TmuxServer, compile_bytecode, peak_rss_mb  # noqa: E402
from browser_builders import build_many_records  # noqa: E402

from qitos.kit.memory.memdir_format import record_filename  # noqa: E402

SIZE = (160, 48)
WRITER = HERE.parent / "browsers" / "browser_writer.py"
SOURCE: Path | None = None  # --source: the checkout the apps are launched from


def env() -> dict[str, str]:
    """The environment of a launched app or helper: PYTHONPATH at --source when given."""
    out = dict(os.environ)
    if SOURCE is not None:
        out["PYTHONPATH"] = str(SOURCE)
    return out


def app_argv(*args: str) -> list[str]:
    """`qitos-tui ARGS` with this interpreter (from --source when given)."""
    if SOURCE is None:
        return [sys.executable, "-m", "tui.cli", *args]
    # -P: `-m` would otherwise put the working folder (this checkout) before PYTHONPATH.
    return ["env", f"PYTHONPATH={SOURCE}", sys.executable, "-P", "-m", "tui.cli", *args]


def med(values: list[float]) -> float:
    """Median (nan for no values)."""
    return statistics.median(values) if values else float("nan")


def growth(by_size: dict[int, float]) -> str:
    """The growth factor per ×10 of size between successive sizes, e.g. '×1.1, ×1.3'."""
    sizes = sorted(by_size)
    parts = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        if by_size[a] > 0 and by_size[b] == by_size[b]:
            per10 = (by_size[b] / by_size[a]) ** (1 / max(1e-9, (len(str(b)) - len(str(a)))))
            parts.append(f"×{per10:.2f}")
    return "growth per ×10: " + (", ".join(parts) if parts else "-")


def row(label: str, size: int, value: str, beside: str = "") -> None:
    """One printed figure."""
    print(f"  {label:<44} {size:>7,}  {value:<28} {beside}", flush=True)


# ------------------------------------------------------------------------------ append
APPEND_SCRIPT = """
import os, sys, time
from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import record_filename, render_record
from qitos.kit.memory.memdir_memory import MemdirMemory
root, floor_dir, n, block = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def record(i):
    return MemoryRecord("user", f"fact {i}: " + "lorem ipsum dolor " * 10, i % 50, record_id=f"a{i:06d}")

def durable_write(name, data):
    # The textbook crash-safe write: temp file, fsync, rename, fsync the directory.
    tmp = os.path.join(floor_dir, ".tmp-" + os.urandom(16).hex() + ".part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, os.path.join(floor_dir, name))
    dir_fd = os.open(floor_dir, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(dir_fd)
    os.close(dir_fd)

memory = MemdirMemory(root, create=True)
os.makedirs(floor_dir)
appends = floor = 0.0
# Blocks of appends and of floor writes take turns, so both see the same load on a shared disk.
for first in range(0, n, block):
    start = time.perf_counter()
    for i in range(first, min(n, first + block)):
        memory.append(record(i))
    appends += time.perf_counter() - start
    start = time.perf_counter()
    for i in range(first, min(n, first + block)):
        rec = record(i)
        data, _ = render_record(rec, created="2026-01-01T00:00:00+00:00", seq=i + 1)
        durable_write(record_filename(rec.record_id), data)
    floor += time.perf_counter() - start
print(appends, floor)
"""


def bench_append(work: Path, sizes: list[int], runs: int) -> None:
    """N appends into a growing root, in a fresh process each (from --source when given)."""
    print("append: N MemdirMemory.append into a growing root (total s; per append ms)")
    per: dict[int, float] = {}
    for n in sizes:
        totals, floors = [], []
        for r in range(max(1, runs // 3) if n >= 100_000 else runs):
            root, floor_dir = work / f"append-{n}-{r}", work / f"floor-{n}-{r}"
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    APPEND_SCRIPT,
                    str(root),
                    str(floor_dir),
                    str(n),
                    str(max(1, n // 50)),
                ],
                env=env(),
                cwd=work,  # not this checkout: `-c` puts the working folder before PYTHONPATH
                capture_output=True,
                text=True,
                check=True,
            )
            total, floor = (float(x) for x in out.stdout.split()[-2:])
            totals.append(total)
            floors.append(floor)
            subprocess.run(["rm", "-rf", str(root), str(floor_dir)], check=True)
        per[n] = med(totals) / n * 1000
        ratios = sorted(t / f for t, f in zip(totals, floors, strict=True))
        row(
            "append (total)",
            n,
            f"{med(totals):8.2f} s ({per[n]:.3f} ms each)",
            f"floor: textbook durable writes alone {med(floors):.2f} s"
            f" | ×{statistics.median(ratios):.2f} floor | n={len(totals)}",
        )
    print(f"  append per record, {growth(per)}")


# ------------------------------------------------------------------------------ roots
def memory_root(work: Path, n: int) -> Path:
    """A root with n records (reused), plus rec-bench as the newest (the one the edits change)."""
    root = work / f"mem-{n}"
    if not (root / "records").is_dir():
        build_many_records(root, n)
        subprocess.run(
            [sys.executable, str(WRITER), "add", str(root), "rec-bench", "sample -"], check=True, env=env()
        )
    reset(root)  # an interrupted edit run may have left another text
    return root


def trivial_first_screen(work: Path) -> float:
    """Seconds to the first screen of a one-line Textual app (every Textual app pays this)."""
    script = work / "trivial_textual_app.py"
    script.write_text(TRIVIAL_APP, encoding="utf-8")
    pane = Pane([sys.executable, str(script)], SIZE)
    try:
        return pane.wait_for("step 1 of 1")
    finally:
        pane.close()


def plain_read_all(folder: Path) -> float:
    """Seconds to list a folder and read every file in it (no parsing): the peer of a full load."""
    start = time.perf_counter()
    with os.scandir(folder) as entries:
        for entry in entries:
            with open(entry.path, "rb") as f:
                f.read()
    return time.perf_counter() - start


# ------------------------------------------------------------------------------ memory browser
def bench_memory(work: Path, sizes: list[int], runs: int) -> None:
    """First screen with rows, everything loaded, and peak RSS, in tmux at 160×48."""
    print("memory: `qitos-tui memory ROOT` in tmux 160x48 (launch → rows; → all loaded; peak RSS)")
    firsts: dict[int, float] = {}
    for n in sizes:
        root = memory_root(work, n)
        first, full, rss, floor, peer = [], [], [], [], []
        for _ in range(runs):
            pane = Pane(app_argv("memory", str(root)), SIZE)
            try:
                first.append(pane.wait_for("sample -", timeout=120))
                full.append(_wait(pane, _loaded(n), 300))
                rss.append(peak_rss_mb(pane.pid()))
            finally:
                pane.close()
            floor.append(trivial_first_screen(work))
            peer.append(plain_read_all(root / "records"))
        firsts[n] = med(first)
        row(
            "memory: first screen with rows",
            n,
            f"{med(first):6.3f} s",
            f"floor: 1-line Textual app {med(floor):.3f} s",
        )
        row(
            "memory: every record loaded",
            n,
            f"{med(full):6.3f} s",
            f"peer: scandir + read every file {med(peer):.3f} s",
        )
        row("memory: peak RSS when loaded", n, f"{med(rss):6.0f} MB")
    print(f"  memory first screen, {growth(firsts)}")


def _wait(pane: Pane, done: Callable[[str], bool], timeout: float) -> float:
    """Seconds from the pane's launch until ``done(screen)``."""
    while time.perf_counter() - pane.start < timeout:
        if done(pane.screen()):
            return time.perf_counter() - pane.start
        time.sleep(0.005)
    raise RuntimeError(f"timed out:\n{pane.screen()}")


def _loaded(n: int) -> Callable[[str], bool]:
    """The memory summary says every record is loaded."""
    # main wrote the count without separators
    return lambda s: (f"{n + 1:,} record" in s or f"{n + 1} record" in s) and "loading" not in s


# ------------------------------------------------------------------------------ external edits
STYLES = ("in-place", "rename-beside", "rename-elsewhere", "vim")


def bench_edit(work: Path, sizes: list[int], samples: int) -> None:
    """Another process saves the newest record like an editor; time to the new text in tmux."""
    print("edit: another process saves the newest record → new text on the tmux screen (ms)")
    for style in STYLES:
        per: dict[int, float] = {}
        for n in sizes:
            root = memory_root(work, n)
            reset(root)
            pane = Pane(app_argv("memory", str(root)), SIZE)
            try:
                _wait(pane, _loaded(n), 300)
                time.sleep(0.5)
                lat = _edits(root, style, samples, lambda text, p=pane: text in p.screen())
            finally:
                pane.close()
            reset(root)
            floor = asyncio.run(_watch_floor(root, style, samples))
            per[n] = med(lat)
            row(
                f"edit → screen ({style})",
                n,
                f"{per[n]:6.1f} ms",
                f"floor: watchfiles alone {med(floor):.1f} ms",
            )
        print(f"  edit ({style}), {growth(per)}")


def reset(root: Path) -> None:
    """Put rec-bench's text back to "sample -" (the mark the first-screen figures wait for)."""
    subprocess.run(
        [sys.executable, str(WRITER), "edit", str(root), "rec-bench", "sample -"], check=True, env=env()
    )


def _edits(root: Path, style: str, samples: int, shown: Callable[[str], bool]) -> list[float]:
    """Ask the writer for ``samples`` saves; seconds→ms from its stamp until ``shown(text)``."""
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), "serve", str(root), style],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    out = []
    try:
        for n in range(samples):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            stamp = float(proc.stdout.readline().split()[0])
            deadline = time.monotonic() + 30
            while not shown(f"sample {n}"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"save {n} ({style}) never showed")
                time.sleep(0.003)
            out.append((time.monotonic() - stamp) * 1000)
            time.sleep(0.2)
    finally:
        proc.stdin.close()
        proc.wait()
    return out


async def _watch_floor(root: Path, style: str, samples: int) -> list[float]:
    """watchfiles alone (same debounce as the browser) reporting the same saves: ms per save."""
    from tui.browsers.watch import memory_filter, watch

    stop = asyncio.Event()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WRITER),
        "serve",
        str(root),
        style,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: list[float] = []
    armed = asyncio.Event()
    changes = watch([root], memory_filter, stop, armed.set)
    pending = asyncio.ensure_future(anext(changes))
    await armed.wait()
    target = str(root / "records" / record_filename("rec-bench"))
    for _ in range(samples):
        proc.stdin.write(b"go\n")
        await proc.stdin.drain()
        stamp = float((await proc.stdout.readline()).decode().split()[0])
        while True:
            batch = await pending
            pending = asyncio.ensure_future(anext(changes))
            if any(path == target for _, path in batch):
                break
        out.append((time.monotonic() - stamp) * 1000)
        await asyncio.sleep(0.2)
    stop.set()
    pending.cancel()
    proc.stdin.close()
    await proc.wait()
    return out


# ------------------------------------------------------------------------------ filter
def bench_filter(work: Path, sizes: list[int]) -> None:
    """Keystrokes into the filter box → the right 'N shown' on screen."""
    from tui.browsers.memory_files import load_table

    print("filter: each keystroke of 'note 9' then backspaces → the right 'N shown' (ms)")
    typed = ["n", "o", "t", "e", "Space", "9", "BSpace", "BSpace", "1"]
    per: dict[int, float] = {}
    for n in sizes:
        root = memory_root(work, n)
        table = load_table(root.resolve(), None)
        hays = [r.haystack for r in table.rows()]
        texts, text = [], ""
        for key in typed:
            text = text[:-1] if key == "BSpace" else text + (" " if key == "Space" else key)
            texts.append(text)
        start = time.perf_counter()
        for t in texts:
            words = t.split()
            [h for h in hays if all(w in h for w in words)]
        floor = (time.perf_counter() - start) / len(texts) * 1000
        counts = []
        for t in texts:
            table.set_filter(t)
            counts.append(len(table.shown))
        pane = Pane(app_argv("memory", str(root)), SIZE)
        lat = []
        try:
            _wait(pane, _loaded(n), 300)
            subprocess.run(["tmux", "send-keys", "-t", pane.name, "f"], check=True)
            time.sleep(0.3)
            for key, t, count in zip(typed, texts, counts, strict=True):
                want = f"· {count:,} shown"
                start = time.perf_counter()
                subprocess.run(["tmux", "send-keys", "-t", pane.name, key], check=True)
                while want not in pane.screen():
                    if time.perf_counter() - start > 30:
                        raise RuntimeError(f"filter {t!r} never showed {want!r}:\n{pane.screen()}")
                    time.sleep(0.002)
                lat.append((time.perf_counter() - start) * 1000)
                time.sleep(0.1)
        finally:
            pane.close()
        per[n] = med(lat)
        row(
            "filter: keystroke → result on screen",
            n,
            f"{per[n]:6.1f} ms (max {max(lat):.0f})",
            f"floor: plain `in` over every row {floor:.1f} ms",
        )
    print(f"  filter keystroke, {growth(per)}")


# ------------------------------------------------------------------------------ keys while busy
def bench_keys(work: Path, sizes: list[int], runs: int) -> None:
    """`f` + 'kj9' in one burst as soon as rows show, while the load runs: keys lost or misrouted."""
    print("keys: `f` then 'kj9' in one burst during the load → all in the filter box?")
    for n in sizes:
        root = memory_root(work, n)
        lost = 0
        busy = 0
        for _ in range(runs):
            pane = Pane(app_argv("memory", str(root)), SIZE)
            try:
                pane.wait_for("sample -", timeout=120)
                busy += "loading" in pane.screen()
                subprocess.run(["tmux", "send-keys", "-t", pane.name, "f", "k", "j", "9"], check=True)
                _wait(pane, _loaded(n), 300)
                time.sleep(0.3)
                screen = pane.screen()
                lost += not ("kj9" in screen and "· 0 shown" in screen)
            finally:
                pane.close()
        row(
            "keys typed at once while loading",
            n,
            f"{lost} of {runs} runs lost keys",
            f"(load still running at the burst in {busy} of {runs})",
        )


# ------------------------------------------------------------------------------ skills
def skills_db(work: Path, n: int) -> Path:
    """A database of n skills × 3 versions (reused)."""
    from qitos.kit.tool.library.base import ToolArtifact
    from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

    path = work / f"skills-{n}.db"
    if path.exists():
        return path
    with SqliteToolLibrary(path, namespace="bench") as lib:
        for v in range(1, 4):
            for i in range(n):
                lib.add_or_update(
                    ToolArtifact(
                        name=f"skill-{i:06d}",
                        description=f"skill {i} rev {v}",
                        source=f"# v{v}\n" + "x = 1\n" * 40,
                    )
                )
        lib.checkpoint()
    return path


def bench_skills(work: Path, sizes: list[int], presses: int) -> None:
    """Down through the skill list in tmux → the next skill's code title on screen."""
    from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary

    print("skills: `qitos-tui skills DB`, N skills × 3 versions: Down → next skill on screen (ms)")
    per: dict[int, float] = {}
    for n in sizes:
        db = skills_db(work, n)
        with SqliteToolLibrary.open_readonly(db, namespace="bench") as lib:
            start = time.perf_counter()
            for _ in range(5):
                lib.skills(include_inactive=True)
            peer = (time.perf_counter() - start) / 5 * 1000
            start = time.perf_counter()
            for i in range(20):
                lib.versions(f"skill-{i:06d}")
            floor = (time.perf_counter() - start) / 20 * 1000
        pane = Pane(app_argv("skills", str(db)), SIZE)
        lat = []
        try:
            pane.wait_for("skill-000000 v3", timeout=120)
            time.sleep(0.5)
            for i in range(1, presses + 1):
                want = f"skill-{i:06d} v3 ·"
                start = time.perf_counter()
                subprocess.run(["tmux", "send-keys", "-t", pane.name, "Down"], check=True)
                while want not in pane.screen():
                    if time.perf_counter() - start > 30:
                        raise RuntimeError(f"{want!r} never showed:\n{pane.screen()}")
                    time.sleep(0.002)
                lat.append((time.perf_counter() - start) * 1000)
                time.sleep(0.1)
        finally:
            pane.close()
        per[n] = med(lat)
        row(
            "skills: Down → next skill on screen",
            n,
            f"{per[n]:6.1f} ms",
            f"peer: catalogue read {peer:.1f} ms | floor: versions(name) {floor:.2f} ms",
        )
    print(f"  skills Down, {growth(per)}")


# ------------------------------------------------------------------------------ run list
def runs_folder(work: Path, n: int) -> Path:
    """A folder of n runs with bare manifests (reused); run i updated at minute i."""
    folder = work / f"runs-{n}"
    if folder.is_dir():
        return folder
    folder.mkdir()
    for i in range(n):
        run = folder / f"run-{i:05d}"
        run.mkdir()
        manifest = {
            "run_id": f"run-{i:05d}",
            "status": "completed",
            "step_count": 3,
            "updated_at": f"2026-{1 + i // 40000:02d}-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00+00:00",
        }
        (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        os.utime(run, (1_700_000_000 + i * 60, 1_700_000_000 + i * 60))
    return folder


def _listed(screen: str, n: int) -> bool:
    """The run list's title counts every run (main wrote the count without separators)."""
    return (f"{n:,} runs in" in screen or f"{n} runs in" in screen) and "reading" not in screen


def bench_runs(work: Path, sizes: list[int], runs: int) -> None:
    """`qitos-tui replay FOLDER` in tmux: launch → the newest run's row; → all listed."""
    print("runs: `qitos-tui replay FOLDER` in tmux 160x48 (launch → newest row; → all listed)")
    firsts: dict[int, float] = {}
    for n in sizes:
        folder = runs_folder(work, n)
        newest = f"run-{n - 1:05d}"
        first, full, floor, peer = [], [], [], []
        for _ in range(runs):
            pane = Pane(app_argv("replay", str(folder)), SIZE)
            try:
                first.append(pane.wait_for(newest, timeout=120))
                full.append(_wait(pane, lambda s, n=n: _listed(s, n), 300))
            finally:
                pane.close()
            floor.append(trivial_first_screen(work))
            start = time.perf_counter()
            for entry in os.scandir(folder):
                json.loads(Path(entry.path, "manifest.json").read_bytes())
            peer.append(time.perf_counter() - start)
        firsts[n] = med(first)
        row(
            "replay FOLDER: first rows",
            n,
            f"{med(first):6.3f} s",
            f"floor: 1-line Textual app {med(floor):.3f} s",
        )
        row(
            "replay FOLDER: every run listed",
            n,
            f"{med(full):6.3f} s",
            f"peer: read every manifest {med(peer):.3f} s",
        )
    print(f"  replay FOLDER first rows, {growth(firsts)}")
    if SOURCE is None:  # in process: this checkout's list (another checkout may not have it)
        bench_run_view(work, sizes, runs)


def bench_run_view(work: Path, sizes: list[int], runs: int) -> None:
    """The run list's filter (a keystroke) and sort, in process: rows worked out again."""
    from qitos.trace.runs import list_runs
    from tui.run_view import COLUMNS, RunView

    for n in sizes:
        view = RunView()
        view.add(list_runs(runs_folder(work, n)))
        typed, sorted_, floor = [], [], []
        for _ in range(runs):
            for text in ("r", "ru", "run-0", "run-09"):
                view.filter = text
                start = time.perf_counter()
                view.arrange()
                typed.append(time.perf_counter() - start)
                start = time.perf_counter()
                [r for r in view.rows if text in r.haystack]  # noqa: B018 - the floor: the test alone
                floor.append(time.perf_counter() - start)
            view.filter = ""
            for column in range(len(COLUMNS)):
                view.set_sort(column)
                start = time.perf_counter()
                view.arrange()
                sorted_.append(time.perf_counter() - start)
        row(
            "run list: a filter keystroke (rows again)",
            n,
            f"{med(typed) * 1000:6.1f} ms",
            f"floor: the substring test alone {med(floor) * 1000:.1f} ms",
        )
        row("run list: sort by a column", n, f"{med(sorted_) * 1000:6.1f} ms")


def main() -> int:
    """Run the chosen rows at the chosen sizes."""
    global SOURCE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--only", default="append,memory,edit,filter,keys,skills,runs")
    parser.add_argument("--source", help="launch the apps from this checkout (e.g. /work/main)")
    parser.add_argument("--work", help="keep generated roots here (reused between runs)")
    parser.add_argument("--skills-sizes", default="1000,10000")
    args = parser.parse_args()
    SOURCE = Path(args.source).resolve() if args.source else None
    sizes = [int(s) for s in args.sizes.split(",")]
    only = set(args.only.split(","))
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp, TmuxServer():
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if "append" in only:
            bench_append(work, sizes, args.runs)
        if "memory" in only:
            bench_memory(work, sizes, args.runs)
        if "edit" in only:
            bench_edit(work, sizes, max(5, args.runs * 3))
        if "filter" in only:
            bench_filter(work, sizes)
        if "keys" in only:
            bench_keys(work, sizes[-1:], max(3, args.runs))
        if "skills" in only:
            bench_skills(work, [int(s) for s in args.skills_sizes.split(",")], 15)
        if "runs" in only:
            bench_runs(work, [max(1, s // 10) for s in sizes], args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
