"""A folded part written by a worker reads back whole in the app (tui.part_wire), or as None."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from qitos.trace.reader import TraceReader
from tui import part_wire
from tui.fold_parts import FoldedPart, fold_part
from tui.store import RunStore
from tui.synthetic import synthetic_events, write_trace


def folded(tmp_path: Path, steps: int = 400) -> FoldedPart:
    """The fold of a synthetic run's events from its tenth step on, as a worker folds a part."""
    run_dir = tmp_path / "run"
    write_trace(run_dir, synthetic_events(steps, run_id="run", pause_at=steps // 2))
    reader = TraceReader(run_dir)
    start = next(i for i in range(len(reader)) if reader.event(i).step_id == 10)
    return fold_part(run_dir, reader.span_of(start, len(reader)), start)


def fields_of(part: FoldedPart) -> tuple[object, ...]:
    """Every field of the part and of its store but its event source, compared by value (the
    order a set of strings iterates in may differ once read back), and the steps and exchanges
    spelled out too (a Budget equals the plain tuple of its values)."""
    store = {k: v for k, v in vars(part.store).items() if k != "source"}
    spelled = repr(part.store.steps), repr(part.store.exchanges)
    return part.start, part.stop, part.notices, part.noticed_lines, store, spelled


def test_a_part_reads_back_as_it_was_written(tmp_path: Path) -> None:
    part = folded(tmp_path)
    assert part.store.steps and part.store.exchanges and any(s.budget for s in part.store.steps)
    assert any(s.extras is not None for s in part.store.steps)  # the paused step's
    back = part_wire.loads(part_wire.dumps(part))
    assert isinstance(back, FoldedPart) and isinstance(back.store, RunStore)
    same = fields_of(back) == fields_of(part)
    assert same


def test_an_int_two_fields_hold_reads_back_as_one_object(tmp_path: Path) -> None:
    back = part_wire.loads(part_wire.dumps(folded(tmp_path)))
    step = next(s for s in back.store.steps if s.step > 256)  # ints up to 256 are shared anyway
    exchange = back.store.exchanges[step.exchanges[0]]
    assert exchange.step is step.step


class Phase(str):
    """A str subclass: marshal writes only values of the exact built-in types."""


def test_a_part_holding_a_value_marshal_cannot_write_is_pickled_whole(tmp_path: Path) -> None:
    part = folded(tmp_path, steps=40)
    part.store.steps[3].phase = Phase("DECIDE")
    data = part_wire.dumps(part)
    assert data[:1] == b"P"
    back = part_wire.loads(data)
    assert back.store.steps[3].phase == "DECIDE" and len(back.store.steps) == len(part.store.steps)


def test_bytes_that_are_not_a_whole_part_read_as_none(tmp_path: Path) -> None:
    data = part_wire.dumps(folded(tmp_path, steps=40))
    assert part_wire.loads(data) is not None
    damaged = [
        b"",
        b"X" + data[1:],  # no such format
        data[:5],  # cut inside the size of the pickled rest
        data[:-40],  # cut inside the columns
        b"P" + pickle.dumps({"store": None}),  # a pickle, but of no part
        b"C" + data[1:9] + b"\x00" * (len(data) - 9),  # the rest's bytes zeroed
    ]
    for bad in damaged:
        assert part_wire.loads(bad) is None, bad[:20]


@pytest.mark.parametrize("steps", [1, 12])
def test_a_small_part_reads_back_too(tmp_path: Path, steps: int) -> None:
    run_dir = tmp_path / "run"
    write_trace(run_dir, synthetic_events(steps, run_id="run", pause_at=None))
    reader = TraceReader(run_dir)
    part = fold_part(run_dir, reader.span_of(0, len(reader)), 0)
    same = fields_of(part_wire.loads(part_wire.dumps(part))) == fields_of(part)
    assert same
