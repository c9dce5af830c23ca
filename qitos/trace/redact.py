"""Secret redaction: one masking pass over an event's JSON line, whose result every consumer gets.

What is masked (values, never meaning; this is no DLP system, and a secret in a shape nobody knows
can get through):

- the values of secret-named environment variables present when the Redactor is made, wherever
  they appear (:mod:`qitos.trace.secret_names` says which names);
- well-known credential shapes wherever they stand, glued to a word or URL-encoded
  (:mod:`qitos.trace.secret_shapes`);
- the values of secret-named fields: JSON keys (also in JSON held in a string), header pairs,
  ``NAME=value`` text (:mod:`qitos.trace.secret_fields`).

The Engine masks each event once, when it is emitted (:meth:`Redactor.mask_event`): the trace
writer writes the masked line, and hooks, live panes, ``EngineResult.events`` and exports get the
event parsed back from it — the same data a replay of the trace reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from qitos.trace.events import RunEvent
from qitos.trace.secret_fields import backslashes_before, field_spans
from qitos.trace.secret_names import is_secret_env_name, is_secret_name
from qitos.trace.secret_shapes import shape_spans

__all__ = ["MASK", "Redactor", "is_secret_env_name", "is_secret_name"]

MASK = "[REDACTED]"

# Values shorter than this are not masked as literals: masking "1" or "true" everywhere would
# wreck a trace, and such values are not secrets worth the name.
_MIN_SECRET_LEN = 8


class Redactor:
    """Masks secrets in JSON-like data: secret env values, credential shapes and secret-named fields."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        extra_secrets: Iterable[str] = (),
        mask: str = MASK,
    ) -> None:
        environ = os.environ if env is None else env
        values = {v for k, v in environ.items() if is_secret_env_name(k) and len(v) >= _MIN_SECRET_LEN}
        values.update(s for s in extra_secrets if s and len(s) >= _MIN_SECRET_LEN)
        self.mask = mask
        # Each literal secret in the spellings a JSON line holds it in. Their order does not
        # matter: every occurrence of each is found, and overlapping spans merge in _apply (so a
        # secret that contains another is masked whole).
        literals = {json.dumps(secret, ensure_ascii=False)[1:-1] for secret in values}
        literals.update(quote(secret, safe="") for secret in values)  # as a URL or form holds it
        self._literals = tuple(literals)
        self._secret_count = len(values)

    @property
    def secret_count(self) -> int:
        """How many literal secret values (from the environment and extras) this redactor masks."""
        return self._secret_count

    # -- the one pass -----------------------------------------------------------------------

    def mask_line(self, line: str) -> str:
        """One JSON text with every secret masked; still valid JSON (masks never cut an escape)."""
        lowered = line.lower()
        if len(lowered) != len(line):  # a few non-ASCII letters lower-case to two characters
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in line)
        spans: list[tuple[int, int, str]] = [(a, b, self.mask) for a, b in shape_spans(line, lowered)]
        spans.extend(field_spans(line, lowered, self.mask))
        spans.extend(self._literal_spans(line))
        if not spans:
            return line
        return _apply(line, spans)

    def to_json_line(self, value: Any) -> str:
        """``value`` as one JSON text (no newline) with every secret masked — what a trace line holds."""
        return self._masked(value)[0]

    def mask_event(self, event: RunEvent) -> tuple[RunEvent, str]:
        """The masked event and its trace line: the one redaction every consumer of an event shares.

        The event is parsed back from the line, so what hooks and live panes see is what the trace
        holds and what a replay reads: the same masks, tuples as lists, objects as their text.
        """
        line, data = self._masked(event.to_dict())
        return RunEvent.from_dict(json.loads(line) if data is None else data), line

    def redact(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` with secrets masked, as JSON data (never mutated)."""
        return json.loads(self.to_json_line(value))

    def redact_text(self, text: str) -> str:
        """The string with every secret masked (``text`` itself when it holds none)."""
        _, masked = self._masked(text)
        if masked is None:  # nothing masked: no need to parse the JSON text back
            return text
        return masked if isinstance(masked, str) else self.mask

    # -- internals --------------------------------------------------------------------------

    def _masked(self, value: Any) -> tuple[str, Any]:
        """The masked JSON text of ``value``, and its data when masking parsed it already (None)."""
        try:
            text = _ENCODER.encode(value)
        except (RecursionError, TypeError):  # a cycle, deep nesting, a tuple key: written as text
            text = _ENCODER.encode(_bounded(value))
        masked = self.mask_line(text)
        if masked is text:
            return text, None
        try:
            return masked, json.loads(masked)
        except ValueError:  # a mask cut JSON syntax (a bug): mask value by value instead
            data = self._mask_walk(json.loads(text))
            return json.dumps(data, ensure_ascii=False), data

    def _literal_spans(self, line: str) -> list[tuple[int, int, str]]:
        spans = []
        for secret in self._literals:
            at = line.find(secret)  # a substring test is far cheaper than a regex over every line
            while at >= 0:
                if backslashes_before(line, at) % 2 == 0:  # not the letter of a JSON escape
                    spans.append((at, at + len(secret), self.mask))
                at = line.find(secret, at + 1)
        return spans

    def _mask_walk(self, value: Any) -> Any:
        """The slow path: mask JSON data value by value (used only if a line mask broke the JSON)."""
        if isinstance(value, dict):
            return {
                self._mask_walk(key): self.mask if _secret_field(key, item) else self._mask_walk(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self._mask_walk(item) for item in value]
        if isinstance(value, str):
            try:
                masked = json.loads(self.mask_line(json.dumps(value, ensure_ascii=False)))
            except ValueError:
                return self.mask
            return masked if isinstance(masked, str) else self.mask
        return value


def _secret_field(key: Any, value: Any) -> bool:
    return isinstance(key, str) and is_secret_name(key) and value not in (None, "", True, False)


def _apply(line: str, spans: list[tuple[int, int, str]]) -> str:
    """``line`` with each span replaced; overlapping spans merge, the outermost replacement wins."""
    spans.sort(key=lambda span: (span[0], -span[1]))
    out: list[str] = []
    done = 0
    cur_start, cur_end, cur_text = spans[0]
    for start, end, text in spans[1:]:
        if start < cur_end:  # overlaps the current one: grow it (inner spans vanish into it)
            cur_end = max(cur_end, end)
            continue
        out.append(line[done:cur_start])
        out.append(cur_text)
        done = cur_end
        cur_start, cur_end, cur_text = start, end, text
    out.append(line[done:cur_start])
    out.append(cur_text)
    out.append(line[cur_end:])
    return "".join(out)


def _printable(value: Any) -> Any:
    """What the JSON encoder writes for an object it cannot encode: its text (masked afterwards)."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    try:
        return str(value)
    except Exception as exc:  # noqa: BLE001 - a broken __str__ must not lose the whole event
        return f"<unprintable {type(value).__name__}: {exc!r}>"


def _bounded(value: Any, depth: int = 0, seen: frozenset[int] = frozenset()) -> Any:
    """``value`` with containers met again inside themselves, or nested deeper than
    ``_MAX_DEPTH``, replaced by a short text, and keys JSON cannot hold as their text, so it can be
    written (an event is never lost)."""
    if isinstance(value, dict | list | tuple):
        if id(value) in seen:
            return f"<cycle: {type(value).__name__}>"
        if depth >= _MAX_DEPTH:
            return f"<nested deeper than {_MAX_DEPTH}: {type(value).__name__}>"
        inner = seen | {id(value)}
        if isinstance(value, dict):
            return {_key(key): _bounded(item, depth + 1, inner) for key, item in value.items()}
        return [_bounded(item, depth + 1, inner) for item in value]
    return value


def _key(key: Any) -> Any:
    return key if key is None or isinstance(key, str | int | float | bool) else _printable(key)


_MAX_DEPTH = 200
# One encoder for every line: json.dumps with options builds a new encoder per call, which costs
# more than encoding a small event. It does not track containers to detect cycles (12% of the
# encoding time): a cycle recurses until RecursionError, and the value is then written bounded.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_printable, check_circular=False)
