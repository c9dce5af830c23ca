"""Total parsing of trace bytes: any line gives a RunEvent — folded as it is, or kept raw with a reason.

Shared by the TraceReader, the replay head (first paint) and the run list, so the three agree on
every line. What is refused, and why:

- bytes that are not UTF-8 JSON, or JSON that is not an object (a list, a scalar);
- nesting deeper than :data:`MAX_DEPTH` (``json`` itself gives up at about a thousand levels with a
  RecursionError, and renderers that recurse would fail on far less);
- integers of more digits than Python will convert (a ValueError from ``json``).

Lone UTF-16 surrogates (``"\\ud800"``) parse but cannot be encoded for the terminal or a file: they
become U+FFFD. Non-finite and huge numbers parse and are left to the field coercers
(:mod:`qitos.trace.fields`), so one bad figure costs that figure, not the event. Trace files that
are symbolic links are refused (a run directory copied from elsewhere must not make the reader
show a file outside it), and so are FIFOs and devices (reading one would block or never end).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import orjson

from qitos.trace.events import MALFORMED_PHASE, RunEvent

MAX_DEPTH = 64  # levels of nested lists/objects in one line; real payloads use fewer than ten
TEXT_PREFIX = 300  # characters of a damaged line kept in its raw event
_STEP_GUESS = re.compile(rb'"step_id"\s*:\s*"?(-?\d{1,18})(?!\d)')
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
# For the fast path's checks, one pass maps every bracket that opens a level to "{" and every
# digit to "0", and drops letters (most of a line's bytes): then nesting is bounded by one count,
# and long integers found by one search, in what is left. (Dropping letters can join two runs of
# digits into one long run: that only sends a line the total parser's way.)
FAST_MAP = bytes.maketrans(b"[0123456789", b"{0000000000")
FAST_DROP = bytes(range(ord("A"), ord("Z") + 1)) + bytes(range(ord("a"), ord("z") + 1))
# orjson reads an integer beyond 64 bits as a float where ``json`` keeps it exact (a step id of
# 400 digits must read as unusable, not as 1e399): lines with 19 or more digits in a row go the
# ``json`` way.
LONG_DIGITS = b"0" * 19


def guess_step(raw: bytes) -> int:
    """The step id written in a damaged line, when it can still be read; else 0."""
    match = _STEP_GUESS.search(raw[:4096])
    return int(match.group(1)) if match else 0


def _clean_str(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _check(value: Any, fix_surrogates: bool) -> tuple[Any, str | None]:
    """Walk ``value`` without recursion: refuse it past MAX_DEPTH; replace lone surrogates."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return None, f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(node, dict):
            if fix_surrogates:
                for key in [k for k in node if _SURROGATE.search(k)]:
                    node[_clean_str(key)] = node.pop(key)
            for key, item in node.items():
                if isinstance(item, dict | list):
                    stack.append((item, depth + 1))
                elif fix_surrogates and isinstance(item, str):
                    node[key] = _clean_str(item)
        elif isinstance(node, list):
            for pos, item in enumerate(node):
                if isinstance(item, dict | list):
                    stack.append((item, depth + 1))
                elif fix_surrogates and isinstance(item, str):
                    node[pos] = _clean_str(item)
    return value, None


def parse_json(raw: bytes | str) -> tuple[Any, str | None]:
    """Any JSON value from ``raw``, or (None, the reason it is refused); never raises."""
    if type(raw) is bytes:
        data = _parse_fast(raw)
        if data is not None:
            return data, None
    return _parse_total(raw)


def _parse_fast(raw: bytes) -> dict[str, Any] | None:
    """The usual line, a JSON object of UTF-8 without anything unusual, read by orjson (about three
    times as fast as ``json``), or None: then the total parser reads it and says what is wrong.

    orjson refuses what ``json`` refuses and more (lone surrogates, NaN, a byte order mark, numbers
    out of range), and reads every other object exactly as ``json`` does, except that it allows
    deeper nesting and rounds integers beyond 64 bits: both are checked for before trusting it."""
    mapped = raw.translate(FAST_MAP, FAST_DROP)
    if mapped.count(b"{") > MAX_DEPTH or LONG_DIGITS in mapped:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return data if type(data) is dict else None


def _parse_total(raw: bytes | str) -> tuple[Any, str | None]:
    """Any JSON value from ``raw`` by ``json``, depth-checked and with lone surrogates replaced."""
    try:
        # Decoded here, not by ``json``: given bytes, it guesses UTF-16 or UTF-32 from NUL bytes, so
        # it would read an object in either as valid and word damaged bytes as a UTF-16 error. A
        # trace is UTF-8, a byte order mark aside; surrogates pass as ``json`` passes them.
        data = json.loads(raw.decode("utf-8-sig", "surrogatepass") if isinstance(raw, bytes) else raw)
    except RecursionError:
        return None, f"nested deeper than {MAX_DEPTH} levels"
    except ValueError as exc:  # includes UnicodeDecodeError and over-long integers
        return None, f"invalid JSON ({exc})"
    if not isinstance(data, dict | list):
        return (_clean_str(data) if isinstance(data, str) else data), None
    encoded = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    fix = _ESCAPED_SURROGATE.search(encoded) is not None  # ~0.3 µs per KB: cheaper than `in`
    # Depth cannot exceed the number of opening brackets: most lines are checked by two counts.
    if fix or encoded.count(b"[") + encoded.count(b"{") > MAX_DEPTH:
        return _check(data, fix)
    return data, None


def parse_object(raw: bytes | str) -> tuple[dict[str, Any] | None, str | None]:
    """A JSON object from ``raw``, or (None, why not); never raises."""
    data, reason = parse_json(raw)
    if reason is not None:
        return None, reason
    if not isinstance(data, dict):
        kind = "null" if data is None else type(data).__name__
        return None, f"a JSON {kind}, not an object"
    return data, None


def malformed_event(raw: bytes, line: int, run_id: str, reason: str) -> RunEvent:
    """The raw event standing for a line that could not be read, with the reason."""
    return RunEvent(
        run_id=run_id,
        step_id=guess_step(raw),
        phase=MALFORMED_PHASE,
        ok=False,
        payload={"line": line, "text": raw.decode("utf-8", errors="replace")[:TEXT_PREFIX]},
        error=f"malformed trace line {line}: {reason}",
        ts="",
    )


def malformed_notice(event: RunEvent) -> str:
    """The notice for a raw ``<malformed>`` event: which line of events.jsonl, and why."""
    line = event.payload.get("line") if isinstance(event.payload, dict) else None
    prefix = f"malformed trace line {line}: "
    error = event.error or ""
    reason = error[len(prefix) :] if error.startswith(prefix) else error or "unreadable"
    return f"events.jsonl line {line}: {reason}; shown as a raw event"


def event_from_line(raw: bytes, line: int, run_id: str) -> tuple[RunEvent, str | None]:
    """The event of one ``events.jsonl`` line (``line`` is 1-based) and, when kept raw, why."""
    data, reason = parse_object(raw)
    if data is None:
        assert reason is not None
        return malformed_event(raw, line, run_id, reason), reason
    event = RunEvent.from_dict(data)
    if not event.run_id:
        event.run_id = run_id
    return event, None


def trace_file_problem(path: Path) -> str | None:
    """Why ``path`` is refused as a trace file — a symbolic link, or not a regular file (a FIFO
    would block the reader forever) — or None (also when it is missing: callers say so)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return (
            f"{path.name} is a symbolic link (to {target}); refused: a run's trace files must be "
            "regular files inside its directory"
        )
    if not stat.S_ISREG(st.st_mode):
        return f"{path.name} is not a regular file ({_KINDS.get(stat.S_IFMT(st.st_mode), 'special file')}); refused"
    return None


_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def open_trace_file(path: Path) -> int:
    """A read-only descriptor for ``path``, a regular file: never follows a symbolic link and never
    blocks on a FIFO swapped in after it was checked (OSError otherwise)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path.name} is not a regular file")
    return fd


def read_trace_file(path: Path) -> bytes:
    """The bytes of a trace file, refusing a symbolic link (raises OSError, FileNotFoundError)."""
    problem = trace_file_problem(path)
    if problem is not None:
        raise OSError(problem)
    with os.fdopen(open_trace_file(path), "rb") as handle:
        return handle.read()


def load_manifest(run_dir: Path, name: str = "manifest.json") -> tuple[dict[str, Any], str | None]:
    """A run's manifest object, or ({}, a sentence saying why there is none usable)."""
    path = run_dir / name
    problem = trace_file_problem(path)
    if problem is not None:
        return {}, problem
    try:
        raw = read_trace_file(path)
    except FileNotFoundError:
        return {}, f"{name} is missing"
    except OSError as exc:
        return {}, f"{name} is unreadable ({exc.strerror or exc})"
    data, reason = parse_json(raw)
    if reason is not None:
        return {}, f"{name} is unreadable: {reason}"
    if not isinstance(data, dict):
        kind = "null" if data is None else type(data).__name__
        return {}, f"{name} is not a JSON object (it holds a JSON {kind})"
    return data, None
