"""A part folded in a worker process as bytes, and back (tui.fold_parts): what goes down the pipe.

Most of a part's fold is its steps and exchanges, a few objects per event. Pickling them took
about 1 us an event in the worker and 0.7 us reading them back in the app (holding the GIL for ms
at a time), and wrote each int anew wherever two fields held it, so the app would have held a copy
of each unless every object went through a Python hook. So they go as columns of plain values
that :mod:`marshal` writes and reads in C (a fifth of the time) and in which an object two fields
hold is written once and read back as one. The rest of the part, a few small objects, is pickled.

The bytes come from our own worker process, never from the trace: what a trace holds is only
ever data inside them. Anything that does not read back whole reads as None.
"""

from __future__ import annotations

import marshal
import pickle
import struct
from dataclasses import fields
from operator import attrgetter
from typing import Any, Protocol

from tui.store import Budget, Exchange, RunStore, StepExtras, StepSummary

_MARSHAL_VERSION = 4  # the current one; from 3 on, an object held twice is written once
_COLUMNS = b"C"  # the steps and exchanges as marshalled columns, then the rest pickled
_PICKLED = b"P"  # all of it pickled: a field held a value marshal does not write
_SIZE = struct.Struct("<Q")
_STEP_FIELDS = tuple(f.name for f in fields(StepSummary))
_EXCHANGE_FIELDS = tuple(f.name for f in fields(Exchange))
_EXTRAS_FIELDS = attrgetter(*(f.name for f in fields(StepExtras)))
_BUDGET = _STEP_FIELDS.index("budget")
_EXTRAS = _STEP_FIELDS.index("extras")


class Folded(Protocol):
    """What is sent: a part and the RunStore that folded it."""

    store: RunStore


def dumps(part: Folded) -> bytes:
    """``part`` as bytes for :func:`loads`."""
    store = part.store
    steps, exchanges = store.steps, store.exchanges
    try:
        columns = marshal.dumps(
            (_step_columns(steps), _columns(exchanges, _EXCHANGE_FIELDS)), _MARSHAL_VERSION
        )
    except ValueError:  # a value of a type marshal does not write (none the fold keeps today)
        return _PICKLED + pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
    store.steps, store.exchanges = [], []
    try:
        rest = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        store.steps, store.exchanges = steps, exchanges
    return b"".join((_COLUMNS, _SIZE.pack(len(rest)), rest, columns))


def loads(data: bytes) -> Any:
    """What :func:`dumps` wrote, or None when ``data`` does not read back as a part with a store."""
    try:
        part = _read(memoryview(data))
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        ImportError,
        IndexError,
        struct.error,
    ):
        return None
    return part if isinstance(getattr(part, "store", None), RunStore) else None


def _read(data: memoryview) -> Any:
    tag = data[:1]
    if tag == _PICKLED:
        return pickle.loads(data[1:])
    if tag != _COLUMNS:
        raise ValueError("not a folded part")
    (size,) = _SIZE.unpack_from(data, 1)
    start = 1 + _SIZE.size
    part = pickle.loads(data[start : start + size])
    step_columns, exchange_columns = marshal.loads(data[start + size :])
    store = part.store
    if not isinstance(store, RunStore):
        raise TypeError("a part without a store")
    step_columns[_BUDGET] = list(map(_budget, step_columns[_BUDGET]))
    step_columns[_EXTRAS] = list(map(_extras, step_columns[_EXTRAS]))
    store.steps = list(map(StepSummary, *step_columns))
    store.exchanges = list(map(Exchange, *exchange_columns))
    return part


def _columns(items: list[Any], names: tuple[str, ...]) -> list[list[Any]]:
    """Each field of ``items``, in ``names`` order, as a list of its values."""
    return [list(map(attrgetter(name), items)) for name in names]


def _step_columns(steps: list[StepSummary]) -> list[list[Any]]:
    columns = _columns(steps, _STEP_FIELDS)
    columns[_BUDGET] = [None if b is None else tuple(b) for b in columns[_BUDGET]]
    columns[_EXTRAS] = [None if e is None else _EXTRAS_FIELDS(e) for e in columns[_EXTRAS]]
    return columns


def _budget(values: tuple[Any, ...] | None) -> Budget | None:
    return None if values is None else Budget._make(values)


def _extras(values: tuple[Any, ...] | None) -> StepExtras | None:
    return None if values is None else StepExtras(*values)
