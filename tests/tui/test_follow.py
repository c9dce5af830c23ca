"""Follow mode: a replay shows what another process appends to the trace, then the run's final status."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waits import wait_until

from qitos.trace.events import STATUS_INTERRUPTED
from qitos.trace.reader import TraceReader
from tui.app import make_app
from tui.cli import _parser
from tui.follow import follow_run
from tui.screens.run import RunScreen
from tui.widgets.run_header import RunHeader

STEPS = 8
HEAD_STEPS = 2  # steps written before the app opens the run
WAIT = 15.0  # seconds: generous for a shared 2-core machine; the waits end as soon as the state is there

# Another process writing a run through the real TraceWriter: the first steps, then (on a line on
# stdin) the rest slowly, then the final manifest. No run_end event: the final status can only come
# from the manifest, so the test shows that the status is re-read.
WRITER = """
import sys, time
from qitos.trace.writer import TraceWriter
from tui.synthetic import synthetic_events

out, run_id, steps, head_steps, delay, final = sys.argv[1:7]
writer = TraceWriter(out, run_id=run_id, clock=lambda: "2026-01-01T00:00:00+00:00")
events = list(synthetic_events(int(steps), run_id=run_id, pause_at=None, end=False))
head = [e for e in events if e.step_id < int(head_steps)]
for event in head:
    writer.write_event(event)
writer.update_manifest(model_id="scripted-1")
print("ready", flush=True)
sys.stdin.readline()
for event in events[len(head):]:
    writer.write_event(event)
    time.sleep(float(delay))  # the writer paces itself (the behaviour followed), not synchronisation
if final == "kill":
    print("writing", flush=True)
    time.sleep(60)  # killed by the test: the lock goes, the manifest still says running
writer.finalize(status=final, summary={"stop_reason": "final_result", "steps": int(steps)})
print("done", flush=True)
"""


@contextmanager
def _writer(
    out: Path, run_id: str, *, delay: float, final: str = "completed"
) -> Iterator[subprocess.Popen[str]]:
    """The writer process, once the head of its run is on disk; killed on the way out."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(out), run_id, str(STEPS), str(HEAD_STEPS), str(delay), final],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "ready"  # the head is on disk, the writer holds the lock
        yield proc
    finally:
        proc.kill()
        proc.wait()


async def _following(app: object) -> RunScreen:
    """The replay's RunScreen, once it follows the trace."""
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, RunScreen)
    await wait_until(lambda: screen.following, what="the replay to start following")
    return screen


def _header(app: object) -> str:
    return app.screen.query_one(RunHeader).render().plain  # type: ignore[attr-defined]


async def test_replay_follows_a_run_written_by_another_process_to_its_final_status(tmp_path: Path) -> None:
    with _writer(tmp_path, "followed", delay=0.03) as proc:
        # No --follow: the run is "running" and its writer alive, so the replay follows by itself.
        app = make_app(replay=tmp_path / "followed")
        async with app.run_test(size=(120, 30)):
            screen = await _following(app)
            store = screen.store
            assert len(store.steps) == HEAD_STEPS
            assert store.display_status == "live"
            assert f"● live (following)  step {HEAD_STEPS - 1} (0–{HEAD_STEPS - 1})" in _header(app)

            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
            # The steps appear while the other process is still writing them.
            await wait_until(lambda: len(store.steps) > HEAD_STEPS, what="a step written after opening")
            seen_live = len(store.steps)
            assert seen_live < STEPS and proc.poll() is None and "live (following)" in _header(app)

            await wait_until(lambda: not screen.following, what="following to stop")
            assert proc.wait(timeout=WAIT) == 0
            assert store.declared_status == "completed" and store.display_status == "finished"
            assert len(store.steps) == STEPS and store.event_count == len(TraceReader(tmp_path / "followed"))
            header = _header(app)
            assert "● finished" in header and "following" not in header
            assert f"step {STEPS - 1} (0–{STEPS - 1})" in header  # the selection kept up with the tail
            assert screen.follow_result == "completed"
            assert not [w for w in screen.workers if w.group == "follow" and not w.is_finished]


async def test_quitting_while_following_stops_the_watch_promptly(tmp_path: Path) -> None:
    with _writer(tmp_path, "quit", delay=0.0) as proc:
        app = make_app(replay=tmp_path / "quit")
        async with app.run_test(size=(120, 30)) as pilot:
            await _following(app)
            await pilot.press("q")
        # The writer never finished, yet the watch did not hold the app open: it quit cleanly
        # (how fast is a benchmark's question, not this test's).
        assert proc.poll() is None and app.return_code == 0


async def test_follow_flag_on_a_finished_run_stops_at_once(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run, follow=True)
    async with app.run_test(size=(120, 30)):
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.follow_writes
        await wait_until(lambda: screen.follow_result is not None, what="following to end")
        # The follow ran (asked for) and ended by itself: the manifest already says completed.
        assert screen.follow_result == "completed"
        assert not [w for w in screen.workers if w.group == "follow" and not w.is_finished]
        assert not screen.following and "following" not in _header(app)
        assert screen.store.display_status == "finished"


async def test_finished_run_without_the_flag_is_not_followed(synthetic_run: Path) -> None:
    app = make_app(replay=synthetic_run)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await pilot.app.workers.wait_for_complete()
        await wait_until(
            lambda: (
                screen.reader is not None
                and screen.store.event_count == len(screen.reader)
                and not screen.fold_progress
            ),
            what="the trace to be indexed and folded",
        )
        # Whether to follow is decided right there, in one go: a follow, had it started, would have
        # set `following` already (and `follow_result` once it ended, see the test above).
        await pilot.pause()
        assert not screen.following and screen.follow_result is None
        assert not [w for w in screen.workers if w.group == "follow"]


async def test_follow_ends_interrupted_when_the_writer_dies_without_finalizing(tmp_path: Path) -> None:
    stop = asyncio.Event()
    with _writer(tmp_path, "killed", delay=0.0, final="kill") as proc:
        reader = TraceReader(tmp_path / "killed")
        start = len(reader)
        seen: list[tuple[int, int]] = []
        statuses: list[str] = []
        task = asyncio.create_task(
            follow_run(
                reader,
                start,
                deliver=lambda events, first: seen.append((first, len(events))),
                on_status=statuses.append,
                stop_event=stop,
            )
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert await asyncio.to_thread(proc.stdout.readline) == "writing\n"
        proc.kill()  # no finalize: no file changes any more, only the lock is gone
        proc.wait()
        try:
            end = await asyncio.wait_for(task, WAIT)
        finally:
            stop.set()
    assert end.status == STATUS_INTERRUPTED and end.problem is None
    assert statuses[-1] == STATUS_INTERRUPTED
    # Every event arrived once, in order, right after what was already shown.
    assert seen and seen[0][0] == start
    assert all(a[0] + a[1] == b[0] for a, b in zip(seen, seen[1:], strict=False))
    assert seen[-1][0] + seen[-1][1] == len(TraceReader(tmp_path / "killed"))


def test_replay_has_a_follow_flag() -> None:
    assert _parser().parse_args(["replay", "runs/x", "--follow"]).follow is True
    assert _parser().parse_args(["replay", "runs/x"]).follow is False


# A writer that pauses as the Engine does (manifest "paused", lock kept), waits, resumes, finishes.
PAUSING_WRITER = """
import sys
from qitos.trace.events import RunEvent
from qitos.trace.writer import TraceWriter

out, run_id = sys.argv[1:3]
writer = TraceWriter(out, run_id=run_id, clock=lambda: "2026-01-01T00:00:00+00:00")
writer.write_event(RunEvent(run_id, 0, "OBSERVE", payload={"stage": "start"}))
print("ready", flush=True)
sys.stdin.readline()
writer.write_event(RunEvent(run_id, 1, "lifecycle_pause", payload={"policy_id": "demo.review-writes", "step_id": 1}))
writer.update_manifest(status="paused")
print("paused", flush=True)
sys.stdin.readline()
writer.write_event(RunEvent(run_id, 1, "lifecycle_resume", payload={"policy_id": "demo.review-writes", "step_id": 1}))
writer.update_manifest(status="running")
writer.write_event(RunEvent(run_id, 2, "OBSERVE", payload={"stage": "start"}))
writer.finalize(status="completed", summary={"stop_reason": "final_result"})
print("done", flush=True)
"""


async def test_follow_goes_on_through_pause_and_resume_to_the_end(tmp_path: Path) -> None:
    """`paused` is not an end: the follower shows the pause, then the resumed run to its end."""
    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSING_WRITER, str(tmp_path), "paused_run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stop = asyncio.Event()
    try:
        assert proc.stdout.readline() == "ready\n"
        reader = TraceReader(tmp_path / "paused_run")
        statuses: list[str] = []
        delivered: list[str] = []
        task = asyncio.create_task(
            follow_run(
                reader,
                len(reader),
                deliver=lambda events, first: delivered.extend(e.phase for e in events),
                on_status=statuses.append,
                stop_event=stop,
            )
        )
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert await asyncio.to_thread(proc.stdout.readline) == "paused\n"
        await wait_until(lambda: "paused" in statuses, what="the follower to see the pause")
        assert not task.done()  # still following while paused
        proc.stdin.write("go\n")
        proc.stdin.flush()
        end = await asyncio.wait_for(task, WAIT)
    finally:
        stop.set()
        proc.kill()
        proc.wait()
    assert end.status == "completed"
    assert delivered == ["lifecycle_pause", "lifecycle_resume", "OBSERVE"]


async def test_the_replay_follows_a_pause_without_offering_to_resume_it(tmp_path: Path) -> None:
    """On screen: the followed run shows "paused (following)" with no r/s offer (this process
    cannot resume it), then goes on to its end when the writer resumes."""
    from tui.widgets.run_header import StatusBar

    proc = subprocess.Popen(
        [sys.executable, "-c", PAUSING_WRITER, str(tmp_path), "paused_run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline() == "ready\n"
        app = make_app(replay=tmp_path / "paused_run")
        async with app.run_test(size=(120, 30)):
            screen = await _following(app)
            proc.stdin.write("go\n")
            proc.stdin.flush()
            await wait_until(lambda: screen.store.display_status == "paused", what="the pause")
            assert "● paused (following)" in _header(app)
            bar = screen.query_one(StatusBar).content().plain
            assert (
                "paused by" in bar
                and "demo.review-writes" in bar
                and "only the process running it can resume it" in bar
            )
            assert not any(keys in bar for keys in ("approve", "resume · step", "resume step"))
            assert screen.following
            proc.stdin.write("go\n")
            proc.stdin.flush()
            await wait_until(lambda: not screen.following, what="following to end")
            assert screen.follow_result == "completed" and "● finished" in _header(app)
    finally:
        proc.kill()
        proc.wait()
