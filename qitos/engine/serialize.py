"""Turn runtime objects (states, decisions, actions, results) into JSON data for events and steps."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

_MAX_DEPTH = 12
_FIELD_WALK: dict[type, bool] = {}


def _walk_fields(cls: type) -> bool:
    """Whether instances of ``cls`` are serialised field by field (a dataclass whose to_dict, if any,
    is StateSchema's own asdict — walking the fields gives the same data without asdict's deep copy)."""
    known = _FIELD_WALK.get(cls)
    if known is None:
        from qitos.core.state import StateSchema

        to_dict = getattr(cls, "to_dict", None)
        known = dataclasses.is_dataclass(cls) and (to_dict is None or to_dict is StateSchema.to_dict)
        _FIELD_WALK[cls] = known
    return known


def jsonable(value: Any, _depth: int = 0) -> Any:
    """JSON data for ``value``: dataclasses and ``to_dict`` objects become dicts, the rest repr'd."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if _depth > _MAX_DEPTH:
        return repr(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v, _depth + 1) for v in value]
    if _walk_fields(type(value)):
        return {f.name: jsonable(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value)}
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        try:
            return jsonable(to_dict(), _depth + 1)
        except TypeError:
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return repr(value)


def state_dict(state: Any) -> dict[str, Any]:
    """A state as a dict of JSON data (for diffs and observations)."""
    data = jsonable(state)
    return data if isinstance(data, dict) else {"value": data}


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """``{field: {before, after}}`` for every field whose value changed."""
    out: dict[str, Any] = {}
    for key in before.keys() | after.keys():
        old = before.get(key)
        new = after.get(key)
        if old != new:
            out[key] = {"before": old, "after": new}
    return dict(sorted(out.items()))
