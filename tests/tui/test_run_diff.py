"""Two runs side by side: alignment, first divergence, pair differences, identity; the DiffScreen."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from qitos.trace.events import EventKind, RunEvent
from tui.app import make_app
from tui.run_diff import align, compare, pair_differences, scan_run
from tui.screens.diff import DiffScreen, PairList
from tui.screenshots import diverging_runs
from tui.synthetic import synthetic_events, write_trace

SIZES = [(80, 24), (160, 48)]


def _plain(widget: Static) -> str:
    """What a Static shows, as plain text."""
    console = Console(width=200, file=io.StringIO(), color_system=None, record=True)
    console.print(widget.content)
    return console.export_text()


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Run B lacks run A's step 3 and calls step 5's tool with other arguments."""
    return diverging_runs(tmp_path)


def test_alignment_survives_an_inserted_and_a_missing_step() -> None:
    a = ["r", "t", "w", "r", "t", "w"]
    b = ["r", "t", "X", "w", "r", "w"]  # X inserted after step 1, the second t missing
    pairs = align(a, b)
    assert (None, 2) in pairs and (4, None) in pairs
    assert (2, 3) in pairs and (3, 4) in pairs and (5, 5) in pairs  # nothing after shifted
    assert align(a, a) == [(k, k) for k in range(6)]
    # A big differing middle is resynchronised greedily, still pairing what follows an insert.
    long_a = [f"s{k}" for k in range(3000)]
    long_b = ["new", *long_a[:1000], *long_a[1001:]]
    from tui import run_diff

    old = run_diff.MAX_ALIGN_CELLS
    run_diff.MAX_ALIGN_CELLS = 10
    try:
        greedy = align(long_a, long_b)
    finally:
        run_diff.MAX_ALIGN_CELLS = old
    assert greedy[0] == (None, 0) and (999, 1000) in greedy and (1000, None) in greedy
    assert (1001, 1001) in greedy and greedy[-1] == (2999, 2999)


def test_first_divergence_and_the_differences_of_a_pair(two_runs: tuple[Path, Path]) -> None:
    a, b = (scan_run(p) for p in two_runs)
    diff = compare(a, b)
    assert diff.headline() == "first divergence at step 3"
    assert (3, None) in diff.pairs  # run B has no step 3
    pos = next(k for k, (x, y) in enumerate(diff.pairs) if x == 5)
    assert diff.pairs[pos] == (5, 4) and not diff.same[pos]
    from qitos.trace.reader import TraceReader

    with TraceReader(two_runs[0]) as ra, TraceReader(two_runs[1]) as rb:
        left, right, differences = pair_differences(diff, pos, ra.event, rb.event)
    assert left is not None and right is not None
    changed = {d.what: d for d in differences}
    assert set(changed) == {"action arguments"}
    assert '"calc.py"' in changed["action arguments"].a and '"other.py"' in changed["action arguments"].b
    assert diff.mismatches() == []  # same task, agent and model
    same = compare(a, scan_run(two_runs[0]))
    assert same.headline() == "no divergence"


def test_different_tasks_are_said_plainly(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_trace(a, synthetic_events(3, run_id="a"))
    events = list(synthetic_events(3, run_id="b"))
    events[0] = RunEvent("b", 0, EventKind.INIT, True, {"task": "Write a poem"}, None, events[0].ts)
    write_trace(b, iter(events))
    diff = compare(scan_run(a), scan_run(b))
    assert "different tasks: 'Fix the failing test in calc.py' vs 'Write a poem'" in diff.mismatches()


def test_upstream_traces_are_compared(upstream_trace_dirs: list[Path]) -> None:
    a, b = (scan_run(p) for p in upstream_trace_dirs[:2])
    assert a.problem is None and a.steps and all(s.actions for s in a.steps)
    assert a.task == b.task and a.task
    diff = compare(a, b)
    assert diff.headline().startswith("first divergence at step") or diff.headline() == "no divergence"
    assert len(diff.pairs) >= max(len(a.steps), len(b.steps))


async def test_diff_screen_header_pairs_and_keys(two_runs: tuple[Path, Path]) -> None:
    app = make_app(diff=two_runs)
    async with app.run_test(size=(160, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.diff is not None
        header = _plain(screen.query_one("#diff-header", Static))
        assert "first divergence at step 3" in header
        assert screen.selected == screen.diff.first_divergence  # opened at the divergence
        assert "step 3 only in run A" in _plain(screen.query_one("#detail", Static))
        await pilot.press("n")
        await pilot.pause()
        assert screen.diff.pairs[screen.selected] == (5, 4)
        await pilot.press("N")
        assert screen.diff.pairs[screen.selected] == (3, None)
        await pilot.press("down")
        await pilot.pause()
        assert screen.query_one(PairList).cursor == screen.selected == 4


async def test_a_missing_run_is_a_clear_message(tmp_path: Path, two_runs: tuple[Path, Path]) -> None:
    app = make_app(diff=(two_runs[0], tmp_path / "nope"))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "cannot compare: run B:" in _plain(app.screen.query_one("#diff-header", Static))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
def test_snapshot_diff(snap_compare, two_runs: tuple[Path, Path], size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """The diff opened at the first divergence (run B lacks step 3), then n to the changed arguments."""

    async def read(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = make_app(diff=two_runs)
    assert snap_compare(app, press=["n"], terminal_size=size, run_before=read)


def test_the_loader_reads_back_the_events_the_scan_kept(two_runs: tuple[Path, Path]) -> None:
    """The detail's events come from the byte spans the scan saw: the same events the reader gives."""
    from qitos.trace.reader import TraceReader
    from tui.run_diff import EventLoader

    run = scan_run(two_runs[0])
    kept = sorted({i for step in run.steps for i in step.events})
    assert kept and set(kept) <= set(run.spans)
    loader = EventLoader(run)
    with TraceReader(two_runs[0]) as reader:
        assert [loader(i).to_dict() for i in kept] == [reader.event(i).to_dict() for i in kept]
    with pytest.raises(IndexError):
        loader(max(run.spans) + 1)
    loader.close()


def test_the_scans_fast_paths_equal_the_plain_ones(
    two_runs: tuple[Path, Path],
    tmp_path: Path,
    upstream_trace_dirs: list[Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Failures found in one pass and responses folded from their JSON object: the same facts as
    searching each line and building every event, on our runs, upstream's, a hostile one and
    lines made to trip the shortcuts (a failure split over two lines, a second phase key, odd ids)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from hostile import hostile_run

    from tui import run_diff

    odd = tmp_path / "odd"
    odd.mkdir()
    lines = [
        '{"run_id": "odd", "step_id": 0, "phase": "model_response", "ok": true, "payload": '
        '{"tool_calls": [{"name": "t", "args": {"b": 1, "a": [2]}}], "usage": {"total_tokens": 5}}}',
        '{"run_id": "odd", "step_id": "1", "phase": "model_response", "ok": true, "payload": {"text": "x"}}',
        '{"run_id": "odd", "step_id": 2, "phase": "model_response", "ok": "no", "payload": {"text": "y"}}',
        '{"run_id": "odd", "step_id": 3, "phase": "model_response", "phase": "OBSERVE", "payload": {}}',
        '{"run_id": "odd", "step_id": 4, "phase": "OBSERVE", "ok"',
        ': false, "payload": {}}',
        '{"run_id": "odd", "step_id": 5, "phase": "tool_result", "ok": true, "payload": {"ok"  :  false}}',
        '{"run_id": "odd", "step_id": 99999999999999999999, "phase": "model_response", "payload": {}}',
        "[1, 2]",
    ]
    (odd / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = [*two_runs, *upstream_trace_dirs, hostile_run(tmp_path / "hostile"), odd]
    for run_dir in runs:
        monkeypatch.setattr(run_diff, "FAST_PATHS", True)
        fast = scan_run(run_dir)
        monkeypatch.setattr(run_diff, "FAST_PATHS", False)
        plain = scan_run(run_dir)
        assert fast == plain, run_dir.name
    assert any(not s.ok for s in plain.steps)  # the odd run's failures were seen
