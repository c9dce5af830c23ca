"""Values of secret-named fields in a JSON line: keys, header pairs, ``NAME=value`` text.

A field's value is a secret when its name is (:func:`qitos.trace.secret_names.is_secret_name`),
whatever the value looks like. The names are found where they stand in the serialised line:

- a JSON key, also one inside a JSON string (``"{\\"api_key\\": \\"...\\"}"``): the value goes;
- a header pair ``["Authorization", "..."]`` or ``{"name": "Authorization", "value": "..."}``;
- text: ``OPENAI_API_KEY=...``, ``password: ...``, ``Authorization: Bearer ...``, and the same
  URL-encoded (``Authorization%3A%20Bearer%20...``, ``token%3D...``).

:func:`field_spans` returns ``(start, end, replacement)``: what to put in place of the value so the
line stays valid JSON (a masked number or object becomes the JSON string of the mask).
"""

from __future__ import annotations

import json
import re

from qitos.trace.secret_names import is_secret_name

# Every secret word holds one of these stems; the lower-cased line is searched for them first. Each
# pattern starts with a literal, which the regex engine finds with a fast substring search (a
# pattern starting with an alternation tests every position: ten times slower here).
_STEMS = (
    re.compile(r"k(?:ey|(?<=tok)en|(?<=cook)ie)"),  # key, token, cookie
    re.compile(r"w(?:(?<=passw)|(?<=pw)d)"),  # password, passwd, pwd
    re.compile(r"cre(?:d|(?<=secre)t)"),  # credential, creds, secret
    re.compile(r"auth"),
    re.compile(r"session"),
    re.compile(r"v(?<=priv)ate"),  # private
    re.compile(r"passph"),  # passphrase
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
# Names whose text values run to the end of the line (they hold spaces: "Bearer x", "a=1; b=2").
_WHOLE_LINE_NAMES = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_MAX_NAME = 100  # longer is no name (is_secret_name says no too)
_MIN_TEXT_VALUE = 3  # shorter text values are not worth masking; "pwd=abc" is the shortest kept
# Words that start sentences as often as they name a secret: "Key: value" after one of them counts
# when the value has a digit or is long, not when it is a word ("the auth: first step").
_PROSE_WORDS = frozenset({"key", "token", "auth", "session", "private", "secret", "credentials"})
_PROSE_VALUE_LEN = 12

_DECODER = json.JSONDecoder()
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_JSON_NUMBER = re.compile(r"-?[0-9][0-9.eE+\-]*")
_SPACES = re.compile(r"[ \t]*")
# What may follow a name in text before its value: ":" or "=", plain or URL-encoded.
_TEXT_SEPARATOR = re.compile(r"[ \t]*(?::|=|%3[Aa]|%3[Dd])(?:[ \t]+|%20|\+)*")
_TEXT_VALUE = re.compile(r"[^\s\"'\\&;,<>(){}\[\]]+")
_TEXT_VALUE_TO_EOL = re.compile(r"[^\"'\\\r\n]+")
_SINGLE_QUOTED = re.compile(r"'([^'\"\\]*)'")
_ESCAPED_QUOTED = re.compile(r'\\"((?:[^"\\]|\\[^"])*?)\\"')
_NAME_FIELD_BEFORE = re.compile(r'"(?:name|key|header)"\s*:\s*\Z')
_VALUE_FIELD_AFTER = re.compile(r'\s*,\s*"value"\s*:\s*')
_PAIR_OPENS = re.compile(r"\[\s*\Z")
_PAIR_CLOSES = re.compile(r"\s*\]")
_escaped_strings: dict[int, re.Pattern[str]] = {}


def field_spans(line: str, lowered: str, mask: str) -> list[tuple[int, int, str]]:
    """``(start, end, replacement)`` for each value of a secret-named field in ``line``, masked as ``mask``.

    ``lowered`` is ``line.lower()`` and must have the same length (the caller checks).
    """
    spans: list[tuple[int, int, str]] = []
    for stem in _STEMS:
        done = 0  # where the last name looked at ends: stems inside it are skipped
        for found in stem.finditer(lowered):
            if found.start() < done:
                continue  # inside a name already looked at (auth_token, or a long run of letters)
            start, end = _extent(line, found.start(), found.end())
            done = end
            if is_secret_name(line[start:end]):
                span = _value_span(line, start, end, mask)
                if span is not None:
                    spans.append(span)
                    done = max(done, span[1])  # names inside a masked value need no look
    return spans


def _extent(line: str, start: int, end: int) -> tuple[int, int]:
    """The whole name around a stem found at ``start:end`` (at most ``_MAX_NAME`` characters each
    way: a longer run of letters is no name, and scanning it for every stem in it would be slow)."""
    low, high = max(0, start - _MAX_NAME), min(len(line), end + _MAX_NAME)
    while start > low and line[start - 1] in _NAME_CHARS:
        start -= 1
    while end < high and line[end] in _NAME_CHARS:
        end += 1
    if start and line[start] in "nrtbf" and backslashes_before(line, start) % 2:
        start += 1  # "\\nNAME": the letter belongs to the JSON escape before the name
    return start, end


def _value_span(line: str, start: int, end: int, mask: str) -> tuple[int, int, str] | None:
    """Where the value of the field named at ``start:end`` lies, and what replaces it."""
    quote = line[start - 1 : start]
    if quote == '"':
        backslashes = backslashes_before(line, start - 1)
        close = "\\" * backslashes + '"'
        if line.startswith(close, end):
            return _after_quoted_name(line, start - 1 - backslashes, end + len(close), backslashes, mask)
        # Not a quoted name: text starting a string ("Cookie: a=1"), read as text below.
    if quote == "'" and line[end : end + 1] == "'":
        end += 1
    return _text_value(line, start, end, mask)


def backslashes_before(line: str, pos: int) -> int:
    """How many backslashes stand right before ``pos`` (odd: the character there is escaped)."""
    count = 0
    while pos - count - 1 >= 0 and line[pos - count - 1] == "\\":
        count += 1
    return count


def _skip_spaces(line: str, pos: int) -> int:
    """The first position at or after ``pos`` that holds no space or tab."""
    spaces = _SPACES.match(line, pos)
    assert spaces is not None  # `[ \t]*` matches the empty string anywhere
    return spaces.end()


def _after_quoted_name(
    line: str, opened: int, after: int, level: int, mask: str
) -> tuple[int, int, str] | None:
    """A quoted name (a JSON key at nesting ``level``, a pair's first item, a name field's value)."""
    pos = _skip_spaces(line, after)
    if line[pos : pos + 1] == ":":
        return _json_value(line, _skip_spaces(line, pos + 1), level, mask)
    if level:
        return None
    if line[pos : pos + 1] == ",":
        value_at = _skip_spaces(line, pos + 1)
        if _PAIR_OPENS.search(line, max(0, opened - 16), opened):  # ["Authorization", "..."]
            span = _json_value(line, value_at, 0, mask)
            if span is not None and _PAIR_CLOSES.match(line, _close_of(line, value_at)):
                return span  # only a two-item pair: ["auth", "login", "logout"] is a list of words
            return None
        if _NAME_FIELD_BEFORE.search(line, max(0, opened - 40), opened):
            follow = _VALUE_FIELD_AFTER.match(line, pos)
            if follow is not None:
                return _json_value(line, follow.end(), 0, mask)
    return None


def _close_of(line: str, pos: int) -> int:
    """Where the JSON value starting at ``pos`` ends."""
    try:
        return _DECODER.raw_decode(line, pos)[1]
    except ValueError:
        return len(line)


def _json_value(line: str, pos: int, level: int, mask: str) -> tuple[int, int, str] | None:
    """The span of the JSON value at ``pos`` (inside a string nested ``level`` deep) to mask."""
    if level == 0:
        first = line[pos : pos + 1]
        if first == '"':
            match = _JSON_STRING.match(line, pos)
            if match is None or match.end(1) == match.start(1):
                return None
            return match.start(1), match.end(1), mask
        if first in ("{", "["):
            end = _close_of(line, pos)
            if end - pos <= 2:
                return None  # an empty container holds nothing
            return pos, end, json.dumps(mask)
        match = _JSON_NUMBER.match(line, pos)
        return (pos, match.end(), json.dumps(mask)) if match else None
    quote = "\\" * level + '"'
    if line.startswith(quote, pos):
        pattern = _escaped_strings.get(level)
        if pattern is None:
            body = r"((?:[^\"\\]|\\[^\"])*?)"
            pattern = _escaped_strings[level] = re.compile(re.escape(quote) + body + re.escape(quote))
        match = pattern.match(line, pos)
        if match is None or match.end(1) == match.start(1):
            return None
        return match.start(1), match.end(1), mask
    match = _JSON_NUMBER.match(line, pos)
    return (pos, match.end(), f"{quote}{mask}{quote}") if match else None


def _text_value(line: str, start: int, end: int, mask: str) -> tuple[int, int, str] | None:
    """The value after ``NAME:`` / ``NAME=`` (plain or URL-encoded) in text."""
    separator = _TEXT_SEPARATOR.match(line, end)
    if separator is None:
        return None
    pos = separator.end()
    if line.startswith('\\"', pos):
        match = _ESCAPED_QUOTED.match(line, pos)
        group = 1
    elif line.startswith("'", pos):
        match = _SINGLE_QUOTED.match(line, pos)
        group = 1
    else:
        whole = line[start:end].lower() in _WHOLE_LINE_NAMES
        match = (_TEXT_VALUE_TO_EOL if whole else _TEXT_VALUE).match(line, pos)
        group = 0
    if match is None or match.end(group) - match.start(group) < _MIN_TEXT_VALUE:
        return None
    value = match.group(group)
    assigned = "=" in separator.group() or "%3d" in separator.group().lower()
    if group == 0 and not assigned and line[start:end].lower() in _PROSE_WORDS:
        # "the key: first step" is prose; "Key: 9f3kq81mz" and "key=first" are not
        if not any(c.isdigit() for c in value) and len(value) < _PROSE_VALUE_LEN:
            return None
    return match.start(group), match.end(group), mask
