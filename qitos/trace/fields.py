"""Field coercers for untrusted trace data: each takes any JSON value and gives the type asked or None.

A trace may come from another machine, another version or a hostile hand: a count may be a bool, a
float, ``Infinity``, ``1e999``, a 400-digit integer or a string. Every reader of payload fields goes
through these, so nothing downstream sees a value of the wrong type or one that overflows when it
is turned into a float or formatted (``int(float("inf"))`` raises OverflowError, ``float(10**400)``
too). None means "absent or unusable"; callers choose their own default.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

INT_LIMIT = 2**63 - 1  # beyond this a count, id or step is not a real figure: rejected
_INT_TEXT = re.compile(r"\s*[+-]?\d{1,19}\s*")
_FALSE_WORDS = frozenset({"false", "0", "no", "off", ""})


def as_int(value: Any) -> int | None:
    """An int within ±2**63 from an int, an integral float or a decimal string; else None (bools too)."""
    if type(value) is int:  # the usual case first: the fold calls this for every figure
        return value if -INT_LIMIT <= value <= INT_LIMIT else None
    if isinstance(value, bool):
        return None  # True is not the count 1
    if isinstance(value, int):
        return value if -INT_LIMIT <= value <= INT_LIMIT else None
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > INT_LIMIT:
            return None
        return int(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        number = int(value)
        return number if -INT_LIMIT <= number <= INT_LIMIT else None
    return None


def as_count(value: Any) -> int:
    """A non-negative count (tokens, units): as_int, with anything unusable or negative as 0."""
    if type(value) is int and 0 <= value <= INT_LIMIT:
        return value
    number = as_int(value)
    return number if number is not None and number > 0 else 0


def as_float(value: Any) -> float | None:
    """A finite float from an int or float (not a bool); else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too big for a float
        return None
    return number if math.isfinite(number) else None


def as_bool(value: Any, default: bool = False) -> bool:
    """A bool; strings read as words ("false", "no", "0" are false), numbers by their truth."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() not in _FALSE_WORDS
    if isinstance(value, int | float):
        return value == value and value != 0  # NaN is not true
    return default


def as_str(value: Any) -> str | None:
    """The value when it is a non-empty string; else None."""
    return value if isinstance(value, str) and value else None


def as_text(value: Any) -> str:
    """Any value as display text: strings as they are, None as "", the rest as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return repr(value)


def as_dict(value: Any) -> dict[str, Any]:
    """The value when it is a dict; else an empty dict."""
    return value if type(value) is dict or isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """The value when it is a list; else an empty list (a string is not a list of characters)."""
    return value if isinstance(value, list) else []


def as_dicts(value: Any) -> list[dict[str, Any]]:
    """The dict items of a list; anything else gives an empty list."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def as_texts(value: Any) -> list[str]:
    """A list's items as display text (see :func:`as_text`); anything else gives an empty list."""
    return [as_text(item) for item in value] if isinstance(value, list) else []


def token_total(value: Any) -> int | None:
    """A token figure as one int: upstream writes an int, a usage dict gives its total.

    Anything else — a bool, ``Infinity``, a 400-digit number, a string of words — is no figure."""
    if isinstance(value, dict):
        total = as_int(value.get("total_tokens"))
        if total is not None:
            return total
        parts = [as_int(value.get(k)) for k in ("prompt_tokens", "completion_tokens")]
        return None if None in parts else sum(p for p in parts if p is not None)
    if isinstance(value, str):
        return None  # a figure on disk is a number, not text
    return as_int(value)
