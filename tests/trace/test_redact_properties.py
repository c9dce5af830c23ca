"""Masking never breaks a line and never lets a corpus secret through, whatever surrounds it:
hypothesis builds JSON data from fragments that stress the line masker (quotes, backslashes,
escapes, secret names, separators, JSON held in strings) with secrets dropped in between, each
bounded the ways a secret is bounded in text."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from secret_corpus import SAMPLES, spellings

from qitos.trace.redact import Redactor


class _Strict(Redactor):
    """A redactor whose slow path fails the test: every mask must keep the line valid JSON."""

    def _mask_walk(self, value: Any) -> Any:
        raise AssertionError(f"a mask broke the JSON line of {value!r}")


REDACTOR = _Strict(env={})
FRAGMENTS = [
    '"',
    "\\",
    "\\n",
    "\\\\",
    "'",
    ":",
    "=",
    " ",
    ",",
    "[",
    "]",
    "{",
    "}",
    "%3A",
    "%20",
    "\n",
    "\t",
    "api_key",
    "Authorization",
    "token",
    "password",
    "Cookie",
    "Bearer ",
    "Basic ",
    "://",
    "@",
    "-----BEGIN",
    "PRIVATE KEY-----",
    "é",
    "İ",
    "\u2028",
    "x" * 20,
    "0123456789abcdef" * 4,
]
# Each carrier with what may stand around a secret: a space, a newline, quotes, an assignment, a
# separator-glued word. (Glued to a letter or digit, a shape is not told from a longer word.)
BOUNDS = [(" ", " "), ("\n", "\n"), ('"', '"'), ("'", "'"), ("=", "&"), ("KEY_", "."), ("\t", ";")]
CARRIERS = [left + carrier + right for _, _, carrier in SAMPLES for left, right in BOUNDS]

POOL = FRAGMENTS + CARRIERS


# Indexes, not the strings themselves: hypothesis prints a strategy's repr, and the pool is long.
def _fragment(index: int) -> str:
    return POOL[index]


texts = st.lists(st.integers(0, len(POOL) - 1).map(_fragment), max_size=12).map("".join)
leaves = st.one_of(texts, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
data = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(texts, inner, max_size=4),
        inner.map(lambda value: json.dumps(value)),  # JSON held in a string
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(data)
@example(
    "Bearer KEY_Basic " + next(carrier for _, _, carrier in SAMPLES if carrier.startswith("Basic "))[6:] + "."
)
def test_masked_line_is_valid_json_and_holds_no_secret(value: Any) -> None:
    line = REDACTOR.to_json_line(value)
    json.loads(line)
    for name, secret, _ in SAMPLES:
        if any(form in json.dumps(value, ensure_ascii=False) for form in spellings(secret)):
            assert not [form for form in spellings(secret) if form in line], name


# What panes need, generated: digests, uuids, ids, counts, timestamps, token words.
_hex = st.text("0123456789abcdef", min_size=1, max_size=80)
benign_text = st.one_of(
    st.uuids().map(str),
    st.binary(min_size=32, max_size=32).map(lambda b: hashlib.sha256(b).hexdigest()),
    st.binary(min_size=20, max_size=20).map(lambda b: hashlib.sha1(b).hexdigest()),
    _hex.map(lambda h: f"request_{h}"),
    _hex.map(lambda h: f"rec_{h}"),
    st.datetimes().map(lambda d: d.isoformat()),
    st.integers(0, 10**9).map(lambda n: f"max_tokens: {n}, prompt_tokens={n}"),
    st.integers(0, 10**6).map(lambda n: f"qitos_20261201_{n:06d}_430943"),
    st.sampled_from(["tokenizer", "tokens", "keyboard", "author", "monkey", "the key idea", "session plan"]),
)
benign = st.recursive(
    st.one_of(benign_text, st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["record_id", "request_id", "run_id", "usage", "total_tokens", "digest", "text"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(benign)
def test_what_the_panes_need_comes_through_unchanged(value: Any) -> None:
    assert json.loads(REDACTOR.to_json_line(value)) == value
