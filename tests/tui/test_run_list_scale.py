"""The run list that scales (issue 15, part 5 and part 2's compare): task, duration and errors
columns; filter (`/`) and sort (`s`, `S`); forks under their parent; mark two runs and compare (`c`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from qitos.trace.runs import summarize_run
from tui.app import make_app
from tui.run_view import COLUMNS, RunView, format_duration
from tui.screens.dialogs import HelpScreen
from tui.screens.diff import DiffScreen
from tui.screens.run_list import RunListScreen
from tui.screenshots import diverging_runs
from tui.widgets.run_table import RunTable

SIZES = [(80, 24), (160, 48)]
HOSTILE_TASK = "[bold red]boom[/] \x1b[2J\x07fix"


def _manifest(run: Path, **fields: Any) -> None:
    """Rewrite ``run``'s manifest with ``fields`` merged in (``summary`` merged key by key)."""
    path = run / "manifest.json"
    manifest = json.loads(path.read_text()) if path.exists() else {}
    summary = {**manifest.get("summary", {}), **fields.pop("summary", {})}
    manifest.update(fields, summary=summary)
    path.write_text(json.dumps(manifest), encoding="utf-8")


def _task_summary(task: str, seconds: float, failures: int = 0) -> dict[str, Any]:
    """A summary as the Engine writes it for a Task run (``failure_report`` only with failures)."""
    summary: dict[str, Any] = {
        "stop_reason": "final_result",
        "task_result": {"task_id": task, "metrics": {"elapsed_seconds": seconds}},
    }
    if failures:
        summary["failure_report"] = {"failure_count": failures, "failures": [{}] * failures}
    return summary


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    """Six runs: the two diverging ones (a Task each), a failed one, a fork of run_a, a running
    one with no summary, and one whose task id is hostile text."""
    folder = tmp_path / "runs"
    a, b = diverging_runs(folder)
    _manifest(a, updated_at="2026-11-01T10:00:00+00:00", summary=_task_summary("greet_fix", 4.25))
    _manifest(b, updated_at="2026-11-01T11:00:00+00:00", summary=_task_summary("greet_fix", 75.0, 2))
    specs = [
        (
            "run_failed",
            "2026-11-01T09:00:00+00:00",
            {
                "status": "failed",
                "step_count": 9,
                "token_usage": 900,
                "summary": _task_summary("parse_logs", 8000.0, 5),
            },
        ),
        (
            "run_a_fork",
            "2026-11-01T12:00:00+00:00",
            {
                "status": "completed",
                "step_count": 3,
                "token_usage": 30,
                "parent_run_id": "run_a",
                "fork_step": 2,
                "summary": _task_summary("greet_fix", 1.5),
            },
        ),
        ("run_bare", "2026-11-01T08:00:00+00:00", {"status": "completed", "step_count": 1}),
        (
            "run_hostile",
            "2026-11-01T07:00:00+00:00",
            {"status": "completed", "step_count": 2, "summary": _task_summary(HOSTILE_TASK, 2.0)},
        ),
    ]
    for run_id, updated, fields in specs:
        (folder / run_id).mkdir()
        _manifest(folder / run_id, run_id=run_id, updated_at=updated, **fields)
    return folder


async def _listed(pilot: Any) -> RunListScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, RunListScreen)
    return screen


def _ids(screen: RunListScreen) -> list[str]:
    return [run.run_id for run in screen.runs]


def _title(screen: RunListScreen) -> str:
    return str(screen.query_one("#run-list-title").render())


# ---- what the columns read ----------------------------------------------------------------------
def test_task_duration_and_errors_come_from_the_manifest_summary(runs_dir: Path) -> None:
    b = summarize_run(runs_dir / "run_b")
    assert (b.task, b.duration, b.errors) == ("greet_fix", 75.0, 2)
    a = summarize_run(runs_dir / "run_a")
    assert (a.task, a.duration, a.errors) == ("greet_fix", 4.25, 0)  # ended without a failure report
    bare = summarize_run(runs_dir / "run_bare")
    assert (bare.task, bare.duration, bare.errors) == (None, None, None)  # nothing said: blank


def test_upstream_manifests_give_task_duration_and_errors(upstream_trace_dirs: list[Path]) -> None:
    for run_dir in upstream_trace_dirs:
        run = summarize_run(run_dir)
        manifest = json.loads((run_dir / "manifest.json").read_text())
        summary = manifest["summary"]
        task = (summary.get("task_result") or {}).get("task_id") or (summary.get("task_meta") or {}).get(
            "task_id"
        )
        assert run.task == task
        elapsed = ((summary.get("task_result") or {}).get("metrics") or {}).get("elapsed_seconds")
        assert run.duration == elapsed
        report = summary.get("failure_report")
        assert run.errors == (report["failure_count"] if report else 0)


def test_hostile_figures_in_a_summary_are_blank_not_a_crash(tmp_path: Path) -> None:
    run = tmp_path / "odd"
    run.mkdir()
    _manifest(
        run,
        summary={
            "task_result": {"task_id": ["x"], "metrics": {"elapsed_seconds": -3}},
            "failure_report": {"failure_count": "many", "failures": "?"},
        },
    )
    summary = summarize_run(run)
    assert (summary.task, summary.duration, summary.errors) == (None, None, None)


def test_durations_read_at_a_glance() -> None:
    assert [format_duration(s) for s in (None, 4.25, 75, 8000)] == ["", "4.2s", "1m15s", "2h13m"]


# ---- filter and sort, without Textual -----------------------------------------------------------
def test_filter_and_every_column_sort_keep_forks_under_their_parent(runs_dir: Path) -> None:
    view = RunView()
    view.add([summarize_run(p) for p in sorted(runs_dir.iterdir())])
    view.arrange()
    ids = [row.run.run_id for row, _ in view.shown]
    assert ids[:3] == ["run_b", "run_a", "run_a_fork"]  # newest first, the fork under its parent
    for column in range(len(COLUMNS)):
        for descending in (True, False):
            view.set_sort(column, descending=descending)
            view.arrange()
            order = [(row.run.run_id, depth) for row, depth in view.shown]
            at = order.index(("run_a", 0))
            assert order[at + 1] == ("run_a_fork", 1), (COLUMNS[column].title, order)
    view.set_sort(COLUMNS.index(next(c for c in COLUMNS if c.title == "errors")))
    view.arrange()
    top = [row.run.run_id for row, depth in view.shown if depth == 0]
    assert top[:2] == ["run_failed", "run_b"]  # 5 errors, then 2; blanks (unknown) last
    assert top[-1] == "run_bare"
    view.filter = "PARSE_logs"  # any cell's text, case aside
    view.arrange()
    assert [row.run.run_id for row, _ in view.shown] == ["run_failed"]
    view.filter = "greet"
    view.arrange()
    assert {row.run.run_id for row, _ in view.shown} == {"run_a", "run_b", "run_a_fork"}


# ---- the screen ---------------------------------------------------------------------------------
async def test_slash_filters_as_you_type_and_escape_clears(runs_dir: Path) -> None:
    app = make_app(replay=runs_dir)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await _listed(pilot)
        assert len(screen.runs) == 6
        await pilot.press("slash", *"fail")
        await pilot.pause()
        assert isinstance(screen.focused, Input)
        assert _ids(screen) == ["run_failed"]
        assert "1 of 6 runs in" in _title(screen) and "matching 'fail'" in _title(screen)
        await pilot.press("enter")  # keeps the filter, back to the rows
        await pilot.pause()
        assert isinstance(screen.focused, RunTable) and _ids(screen) == ["run_failed"]
        await pilot.press("escape")
        await pilot.pause()
        assert len(screen.runs) == 6 and "6 runs in" in _title(screen)
        await pilot.press("slash", *"zzz-nothing")
        await pilot.pause()
        assert screen.runs == [] and "0 of 6 runs" in _title(screen)


async def test_s_cycles_the_sort_column_and_S_flips_it(runs_dir: Path) -> None:
    app = make_app(replay=runs_dir)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await _listed(pilot)
        table = screen.query_one(RunTable)
        assert "updated ▼" in table.header_text() and "by updated ▼" in _title(screen)
        await pilot.press("s")  # round to the first column: run, A first
        await pilot.pause()
        assert "run ▲" in table.header_text()
        assert [r for r in _ids(screen) if r != "run_a_fork"] == sorted(set(_ids(screen)) - {"run_a_fork"})
        await pilot.press("S")
        await pilot.pause()
        assert "run ▼" in table.header_text() and _ids(screen)[0] == "run_hostile"
        await pilot.press("s", "s", "s", "s", "s", "s")  # run → status, steps, tokens, errors, duration, task
        await pilot.pause()
        assert "task ▲" in table.header_text()
        tasks = [
            r.task or "" for r, d in zip(screen.runs, [d for _, d in screen.view.shown], strict=True) if not d
        ]
        assert tasks == sorted(tasks, key=str.lower)
        await pilot.press("down", "down")
        await pilot.pause()
        chosen = screen.runs[table.cursor].run_id
        await pilot.press("s")  # the cursor stays on its run while the rows move
        await pilot.pause()
        assert screen.runs[table.cursor].run_id == chosen


async def test_hostile_task_text_is_shown_inert(runs_dir: Path) -> None:
    app = make_app(replay=runs_dir)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await _listed(pilot)
        table = screen.query_one(RunTable)
        line = table.render_line(1 + _ids(screen).index("run_hostile")).text
        assert "[bold red]boom[/]" in line  # the brackets literally, no markup
        assert "\x1b" not in line and "\x07" not in line


async def test_mark_two_runs_then_c_compares_them_side_by_side(runs_dir: Path) -> None:
    app = make_app(replay=runs_dir)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _listed(pilot)
        await pilot.press("c")  # nothing marked
        await pilot.pause()
        assert any(
            "mark exactly two runs" in n.message and "no run is marked" in n.message
            for n in app._notifications
        )
        order = _ids(screen)
        await pilot.press(*["down"] * order.index("run_a"), "m")
        await pilot.press("c")  # one marked
        await pilot.pause()
        assert any("1 run is marked" in n.message for n in app._notifications)
        await pilot.press("up", "space")  # space marks too: run_b
        await pilot.pause()
        table = screen.query_one(RunTable)
        assert [p.name for p in table.marked] == ["run_a", "run_b"]
        assert "2 marked: c compares them" in _title(screen)
        assert table.render_line(1 + order.index("run_b")).text.startswith("●")
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        diff = app.screen
        assert isinstance(diff, DiffScreen) and (diff.run_a.name, diff.run_b.name) == ("run_a", "run_b")
        assert diff.diff is not None and diff.diff.headline() == "first divergence at step 3"
        await pilot.press("escape")  # back to the list, marks kept
        await pilot.pause()
        assert app.screen is screen and len(table.marked) == 2
        await pilot.press("down", "down", "m", "c")  # a third marked: said, nothing opened
        await pilot.pause()
        assert app.screen is screen
        assert any("3 runs are marked" in n.message for n in app._notifications)


async def test_help_lists_the_run_list_keys(runs_dir: Path) -> None:
    app = make_app(replay=runs_dir)
    async with app.run_test(size=(100, 40)) as pilot:
        await _listed(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        described = {does for _, does in app.screen.rows}
        assert {"Filter", "Sort", "Reverse", "Mark", "Compare", "Open"} <= described


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_run_list_sorted_filtered_marked(  # type: ignore[no-untyped-def]
    snap_compare, runs_dir: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sorted by errors (most first), two runs marked, then filtered to the greet_fix task."""
    monkeypatch.chdir(runs_dir.parent)  # the title names the folder: the same on every machine

    async def listed(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = make_app(replay=Path("runs"))
    # From "updated" (the last column) round to "errors".
    keys = ["s"] * (COLUMNS.index(next(c for c in COLUMNS if c.title == "errors")) + 1)
    keys += ["down", "m", "down", "m", "slash", *"greet", "enter"]
    assert snap_compare(app, press=keys, terminal_size=size, run_before=listed)


@pytest.mark.e2e
@pytest.mark.slow
def test_filter_sort_mark_and_compare_in_a_real_terminal(tmp_path: Path) -> None:
    """In tmux: the list of two diverging runs, sorted, filtered, then both marked and compared."""
    import shutil
    import sys

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    from test_e2e_tmux import Terminal
    from waits import block_until

    folder = tmp_path / "runs"
    a, b = diverging_runs(folder)
    _manifest(a, updated_at="2026-11-01T10:00:00+00:00", summary=_task_summary("greet_fix", 4.25))
    _manifest(b, updated_at="2026-11-01T11:00:00+00:00", summary=_task_summary("greet_fix", 75.0, 2))
    term = Terminal([sys.executable, "-m", "tui.cli", "replay", str(folder)], tmp_path, size=(120, 30))
    try:
        term.wait_for("2 runs in")
        screen = term.wait_for("1m15s")  # the rows come after the title: wait for them, not just it
        assert "greet_fix" in screen  # task and duration columns
        term.keys("s")  # by run, A first
        screen = term.wait_for("by run ▲")
        assert screen.index("run_a ") < screen.index("run_b ")
        term.keys("/", "run_b")
        term.wait_for("1 of 2 runs")
        term.keys("Escape")  # apart from the next key: a terminal sends Esc then c at once as alt+c
        block_until(lambda: "matching" not in term.screen(), what="the filter line to close")
        term.keys("c")
        term.wait_for("mark exactly two runs")
        term.keys("m", "Down", "Space")
        term.wait_for("2 marked: c compares them")
        term.keys("c")
        screen = term.wait_for("first divergence at step 3")
        assert "A run_a" in screen and "B run_b" in screen
        term.keys("Escape")
        term.wait_for("2 marked")
        term.keys("q")
        term.wait_for("EXIT=0")
    finally:
        term.close()


def test_the_fast_manifest_read_equals_summarize_run(tmp_path: Path) -> None:
    """The listing's one-open read of a manifest gives what summarize_run does, whatever the folder
    holds: a plain manifest, events only, a symbolic link, a FIFO, bad JSON, a JSON list."""
    import os

    from tui.run_folder import read_run

    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "plain").mkdir()
    _manifest(folder / "plain", run_id="plain", status="completed", summary=_task_summary("t", 3.0, 1))
    (folder / "events_only").mkdir()
    (folder / "events_only" / "events.jsonl").write_text('{"phase": "INIT"}\n', encoding="utf-8")
    (folder / "linked").mkdir()
    (folder / "linked" / "manifest.json").symlink_to(folder / "plain" / "manifest.json")
    (folder / "fifo").mkdir()
    os.mkfifo(folder / "fifo" / "manifest.json")
    (folder / "bad_json").mkdir()
    (folder / "bad_json" / "manifest.json").write_text("{not json", encoding="utf-8")
    (folder / "a_list").mkdir()
    (folder / "a_list" / "manifest.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "not_a_run").mkdir()
    with os.scandir(folder) as listing:
        entries = {e.name: e for e in listing}
    for name, entry in entries.items():
        fast = read_run(entry)
        if name == "not_a_run":
            assert fast is None
            continue
        assert fast == summarize_run(folder / name), name
    assert read_run(entries["linked"]).problem is not None  # type: ignore[union-attr]  # refused, said


def test_the_kept_order_gives_what_a_fresh_arrangement_does(runs_dir: Path) -> None:
    """Between keystrokes the sorted rows are kept: every filter and sort, each after the other,
    shows what a view arranged from scratch with the same settings shows (with forks and without)."""
    runs = [summarize_run(p) for p in sorted(runs_dir.iterdir())]
    for chosen in (runs, [r for r in runs if r.parent_run_id is None]):
        kept = RunView()
        kept.add(chosen)
        for column, text in [(9, ""), (5, "greet"), (5, "gre"), (2, ""), (0, "run_"), (7, "x")]:
            kept.set_sort(column)
            kept.filter = text
            kept.arrange()
            fresh = RunView()
            fresh.add(chosen)
            fresh.set_sort(column)
            fresh.filter = text
            fresh.arrange()
            assert [(r.run.run_id, d) for r, d in kept.shown] == [(r.run.run_id, d) for r, d in fresh.shown]
            assert kept.widths == fresh.widths
