"""A trace folded in parts and joined (tui.fold_parts, RunStore.absorb) ends as one fold from the
start would, on any trace: the parts that join do so exactly, and the app folds the others itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fold_records import ODD_LINES, events, write
from waits import wait_until

from qitos.trace.reader import TraceReader
from tui import part_wire
from tui.app import make_app
from tui.fold_parts import (
    WORKER_NICENESS,
    FoldedPart,
    PartFolder,
    PartJoin,
    _load,
    fold_part,
    plan_parts,
)
from tui.screens.run import RunScreen
from tui.store import RunStore
from tui.synthetic import synthetic_events, write_trace
from tui.widgets.run_header import RunHeader

# What only a join reads (what a part's fold assumed of the events before it), not what is shown.
JOIN_FIELDS = {
    "_assigned",
    "_tokens_added",
    "_token_floors",
    "_missed_ids",
    "_missed_calls",
    "_kind_notices",
    "_before_native",
}


def shown(store: RunStore) -> str:
    """Everything the fold holds for the screen, spelled out (as test_fold_records' snapshot)."""
    state = {k: v for k, v in vars(store).items() if k != "source" and k not in JOIN_FIELDS}
    return repr(sorted(state.items()))


def fold_whole(run_dir: Path) -> tuple[str, list[str]]:
    """One fold of the whole trace, and its reader's notices."""
    reader = TraceReader(run_dir)
    store = RunStore(reader, run_id=reader.run_id)
    for start, records in reader.records():
        store.apply(records, start)
    return shown(store), reader.notices


def fold_joined(run_dir: Path, cuts: list[int]) -> tuple[str, list[str], int]:
    """The events before the first cut folded here, each part between cuts folded afresh, written
    and read back as a worker's, and joined, or folded here where it cannot be; the fold, the
    notices, and how many parts joined."""
    reader = TraceReader(run_dir)
    store = RunStore(reader, run_id=reader.run_id)
    bounds = [0, *cuts, len(reader)]
    joined = 0
    for k, (start, stop) in enumerate(zip(bounds, bounds[1:], strict=False)):
        if stop <= start:
            continue
        if k > 0:  # the part goes through the bytes a worker writes, as in the app
            part = _load(part_wire.dumps(fold_part(run_dir, reader.span_of(start, stop), start)))
            assert part is not None
            if store.absorb(part.store, start):
                reader.add_notices(part.notices, part.noticed_lines)
                joined += 1
                continue
        for first, records in reader.records(start, stop):
            store.apply(records, first)
    return shown(store), reader.notices, joined


def synthetic_run(tmp_path: Path, steps: int, pause_at: int | None = None) -> tuple[Path, TraceReader]:
    """A synthetic run of ``steps`` steps written under ``tmp_path``, and a reader of it."""
    run_dir = tmp_path / "run"
    write_trace(run_dir, synthetic_events(steps, run_id="run", pause_at=pause_at))
    return run_dir, TraceReader(run_dir)


def folded_by_workers(
    folder: PartFolder, before_reading: Callable[[], None] = lambda: None
) -> list[tuple[int, int, FoldedPart | None]]:
    """Every result of ``folder``, its workers stopped afterwards."""
    try:
        return list(folder.results(before_reading))
    finally:
        folder.close()


SETTINGS = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(
    objects=st.lists(events, max_size=25),
    odd=st.lists(st.sampled_from(ODD_LINES), max_size=4),
    ordered=st.booleans(),
    data=st.data(),
)
def test_a_trace_folded_in_parts_and_joined_folds_as_one_fold_does(
    tmp_path_factory: Any, objects: list[dict[str, Any]], odd: list[bytes], ordered: bool, data: Any
) -> None:
    if ordered:  # steps in order, as a run writes them: most parts can join, hostile payloads and all
        for number, obj in enumerate(objects):
            obj["step_id"] = number // 3
    lines = [json.dumps(o).encode("utf-8", "surrogatepass") for o in objects]
    for line in odd:
        lines.insert(data.draw(st.integers(min_value=0, max_value=len(lines))), line)
    run_dir = tmp_path_factory.mktemp("run")
    write(run_dir, lines)
    count = len(TraceReader(run_dir))
    cuts = sorted(data.draw(st.lists(st.integers(min_value=0, max_value=count), max_size=4)))
    whole, whole_notices = fold_whole(run_dir)
    joined, joined_notices, _ = fold_joined(run_dir, cuts)
    assert joined == whole
    assert joined_notices == whole_notices


def test_a_run_cut_where_steps_begin_joins_every_part(tmp_path: Path) -> None:
    run_dir, reader = synthetic_run(tmp_path, 60, pause_at=20)
    parts = plan_parts(reader, 7, 4)
    assert len(parts) == 4 and parts[-1][1] == len(reader)
    for start, _ in parts:  # each part begins a step
        assert reader.event(start).step_id != reader.event(start - 1).step_id
    whole, whole_notices = fold_whole(run_dir)
    joined, joined_notices, count = fold_joined(run_dir, [start for start, _ in parts])
    assert count == 4
    assert joined == whole and joined_notices == whole_notices


def test_a_part_that_meets_a_step_of_the_events_before_it_is_refused_unchanged(tmp_path: Path) -> None:
    run_dir, reader = synthetic_run(tmp_path, 4)
    cut = next(i for i in range(1, len(reader)) if reader.event(i).step_id == reader.event(i - 1).step_id)
    store = RunStore(reader, run_id=reader.run_id)
    store.apply(reader.events(0, cut), 0)
    before = shown(store)
    part = fold_part(run_dir, reader.span_of(cut, len(reader)), cut)
    assert not store.absorb(part.store, cut)  # the step goes on in the part: not joinable
    assert shown(store) == before
    assert not store.absorb(part.store, cut + 1)  # not where this store's events end


def test_worker_processes_fold_the_parts_that_the_app_joins(tmp_path: Path) -> None:
    run_dir, reader = synthetic_run(tmp_path, 300)
    head = next(i for i in range(30, len(reader)) if reader.event(i).step_id == reader.event(i - 1).step_id)
    store = RunStore(reader, run_id=reader.run_id)
    store.apply(reader.events(0, head), 0)
    reads: list[int] = []
    results = folded_by_workers(PartFolder(reader, head, 2), lambda: reads.append(len(reads)))
    assert results[0][0] == head and results[-1][1] == len(reader)
    assert len(reads) == len(results) - 1  # the app may let keys go first before each part read
    assert results[0][2] is None  # the rest of the step under way is the app's to fold
    assert all(isinstance(part, FoldedPart) for _, _, part in results[1:])
    for start, stop, part in results:
        if part is None or not store.absorb(part.store, start):
            store.apply(reader.events(start, stop), start)
    assert shown(store) == fold_whole(run_dir)[0]


def test_a_worker_that_dies_leaves_its_parts_to_the_app(tmp_path: Path) -> None:
    run_dir, reader = synthetic_run(tmp_path, 300)
    folder = PartFolder(reader, 0, 2)
    folder._procs[0].kill()  # before it could fold anything: it starts a Python first
    results = folded_by_workers(folder)
    assert results[0][2] is None and results[1][2] is not None
    assert [(a, b) for a, b, _ in results] == folder.parts
    assert _load(b"not a folded part") is None


def test_workers_that_cannot_start_leave_every_part_to_the_app(tmp_path: Path) -> None:
    run_dir, reader = synthetic_run(tmp_path, 300)
    folder = PartFolder(reader, 0, 2, python=str(tmp_path / "no-such-python"))
    results = folded_by_workers(folder)
    assert [(a, b) for a, b, _ in results] == folder.parts
    assert all(part is None for _, _, part in results)


def test_a_worker_folds_at_a_lower_priority_than_the_app() -> None:
    code = "import os; from tui.fold_parts import yield_to_the_app as y; y(); print(os.nice(0))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(done.stdout) == min(19, os.nice(0) + WORKER_NICENESS)


async def test_the_app_folds_a_big_trace_in_parts_as_it_would_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "big_run"
    write_trace(run_dir, synthetic_events(1000, run_id="big_run", pause_at=None))
    app = make_app(replay=run_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.feeder.parallel_min_events = 1  # set before the reader opens, after the first frame
        joins: list[bool] = []
        join = PartJoin.join

        def noted_join(self: PartJoin, store: RunStore, reader: TraceReader) -> None:
            join(self, store, reader)
            joins.append(self.joined)

        monkeypatch.setattr(PartJoin, "join", noted_join)
        header = screen.query_one(RunHeader)
        await wait_until(
            lambda: (
                screen.reader is not None
                and screen.store.event_count == len(screen.reader)
                and not header.progress
            ),
            what="the fold in parts to finish",
            timeout=60,
        )
        await pilot.pause()
        assert joins and all(joins)  # the parts were folded by workers and joined
        alone = TraceReader(run_dir)
        whole = RunStore(alone, run_id=alone.run_id)
        whole.declared_status = alone.status  # as the screen reads it when the reader opens
        whole.apply(alone.events(), 0)
        same = shown(screen.store) == shown(whole)  # (a diff of the two would take minutes)
        assert same
        assert "(0–999)" in header.render().plain


@pytest.mark.parametrize("workers", [1, 3])
def test_plan_parts_covers_every_event_once(tmp_path: Path, workers: int) -> None:
    run_dir, reader = synthetic_run(tmp_path, 50)
    parts = plan_parts(reader, 5, workers)
    assert len(parts) == workers
    assert parts[-1][1] == len(reader)
    assert all(a < b for a, b in parts) and all(
        b == c for (_, b), (c, _) in zip(parts, parts[1:], strict=False)
    )
