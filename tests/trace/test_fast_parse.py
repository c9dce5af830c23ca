"""The fast path (orjson) reads every line exactly as the total parser (json) does, or leaves it to it."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from qitos.trace.parse import _parse_fast, _parse_total, parse_json

EDGES = [
    b'{"step_id": 12345678901234567890}',  # beyond 64 bits: orjson would round it to a float
    b'{"n": -9223372036854775809}',
    b'{"n": 18446744073709551615}',
    b'{"n": 1e999}',
    b'{"n": NaN}',
    b'{"n": -Infinity}',
    b'{"s": "\\ud800"}',  # a lone surrogate
    b'{"s": "\\ud83d\\ude00"}',  # a pair
    b'\xef\xbb\xbf{"a": 1}',  # a byte order mark
    b'{"a": "\xff"}',  # not UTF-8
    b'{"a": 1, "a": 2}',  # a repeated key: the last wins in both
    b'{"a": ' + b"[" * 70 + b"]" * 70 + b"}",  # deeper than MAX_DEPTH
    b'{"a": ' + b"[" * 63 + b"]" * 63 + b"}",
    b"[1, 2]",
    b'"text"',
    b"{} trailing",
    b' {"a": 1.5e-400} ',
    b'{"a": "x1234567890y1234567890"}',  # digits in text
]


def _same(raw: bytes) -> None:
    fast = _parse_fast(raw)
    total = _parse_total(raw)
    if fast is not None:
        assert total[1] is None
        assert _key(fast) == _key(total[0]), raw
    assert _key(parse_json(raw)[0]) == _key(total[0])
    assert parse_json(raw)[1] == total[1]


def _key(value: Any) -> str:
    """The value with its types spelled out (1 and 1.0 and True differ; NaN equals NaN)."""
    return json.dumps(_typed(value), sort_keys=False)


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return [["dict"], [[k, _typed(v)] for k, v in value.items()]]
    if isinstance(value, list):
        return [["list"], [_typed(v) for v in value]]
    if isinstance(value, float):
        return ["float", "nan" if math.isnan(value) else repr(value)]
    return [type(value).__name__, repr(value)]


def test_the_edges_read_alike() -> None:
    for raw in EDGES:
        _same(raw)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(value=st.dictionaries(st.text(max_size=8), json_values, max_size=6), ascii_only=st.booleans())
def test_any_object_reads_alike(value: dict[str, Any], ascii_only: bool) -> None:
    _same(json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass"))


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(raw=st.binary(max_size=60))
def test_any_bytes_read_alike(raw: bytes) -> None:
    _same(b'{"a": ' + raw + b"}")
