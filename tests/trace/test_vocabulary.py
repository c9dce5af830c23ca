"""The typed event vocabulary (issue 11 item 5): kinds named once, payloads read field by field."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from qitos.trace.events import KNOWN_KINDS, EventKind, RunEvent
from qitos.trace.fields import as_bool, as_count, as_float, as_int, as_text
from qitos.trace.payloads import (
    PAYLOAD_TYPES,
    ModelRequest,
    ModelResponse,
    RunEnd,
    ToolResult,
    action_results,
    read_payload,
    request_budget,
)

REPO = Path(__file__).resolve().parents[2]
_KINDS = "|".join(re.escape(k.value) for k in EventKind)
# An event kind written as a string where an event is emitted or dispatched.
_LITERAL_KIND = re.compile(
    rf'(?:_emit\(\s*\w+,\s*|sink\.emit\(\s*|\bev\(\s*[^,()]+,\s*|\.phase\s*[!=]=\s*|phase_name\s*[!=]=\s*)"({_KINDS})"'
    rf'|"({_KINDS})":\s*\w+\._on_\w+',  # a handler table keyed by strings
)


def test_no_kind_is_spelled_as_a_string_where_events_are_emitted_or_dispatched() -> None:
    """Emitters, the fold's handler table, panes, search and export name kinds by EventKind."""
    offenders = []
    for package in ("qitos", "tui"):
        for path in sorted((REPO / package).rglob("*.py")):
            if path.name == "events.py" and path.parent.name == "trace":
                continue  # where the kinds are named
            for match in _LITERAL_KIND.finditer(path.read_text(encoding="utf-8")):
                line = path.read_text(encoding="utf-8")[: match.start()].count("\n") + 1
                offenders.append(f"{path.relative_to(REPO)}:{line}: {match.group(0).strip()}")
    assert offenders == []


def test_event_kind_is_a_str_enum_written_exactly_as_upstream_spells_it() -> None:
    """A member passed as a phase is the plain string on disk, in comparisons and when shown."""
    event = RunEvent("r", 0, EventKind.MODEL_REQUEST, payload={})
    assert json.loads(event.to_json())["phase"] == "model_request"
    assert event == RunEvent("r", 0, "model_request", payload={}, ts=event.ts)
    assert str(EventKind.INIT) == f"{EventKind.INIT}" == "INIT" and isinstance(EventKind.INIT, str)
    assert {"OBSERVE", "toolset_setup_start", "run_end"} <= KNOWN_KINDS


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7, 7),
        (7.9, 7),
        ("12", 12),
        (" -3 ", -3),
        (True, None),
        (float("inf"), None),
        (float("nan"), None),
        (1e300, None),
        (10**400, None),
        ("9" * 40, None),
        ("1e3", None),
        ([1], None),
        (None, None),
    ],
)
def test_as_int_takes_any_value(value: object, expected: int | None) -> None:
    """Bools, non-finite, huge and non-numeric values are no int; nothing raises."""
    assert as_int(value) == expected


def test_other_coercers_take_any_value() -> None:
    """Counts are non-negative, floats finite, bools read words, text is JSON for data."""
    assert [as_count(v) for v in (5, -5, "x", 1e999)] == [5, 0, 0, 0]
    assert as_float(10**400) is None and as_float(float("nan")) is None and as_float(2) == 2.0
    assert [as_bool(v) for v in ("false", "No", "yes", 0, 1, float("nan"), None)] == [
        False,
        False,
        True,
        False,
        True,
        False,
        False,
    ]
    assert as_text(None) == "" and as_text({"a": [1]}) == '{"a": [1]}' and as_text(float("inf")) == "Infinity"


def test_payload_classes_read_wrong_types_field_by_field() -> None:
    """One bad field costs that field: the rest of the payload still reads."""
    usage = ModelResponse.read(
        {"text": 5, "tool_calls": "ls", "usage": {"total_tokens": 1e999, "prompt_tokens": 3}}
    )
    assert usage.text == "5" and usage.tool_calls == () and usage.usage.total == 3
    request = ModelRequest.read(
        {
            "request_id": ["x"],
            "messages": [1, {"role": None, "content": {"a": 1}}],
            "view": {"contributions": [{"units": "big", "selected": "false"}], "receipts": 3, "budget": []},
        }
    )
    assert (
        request.request_id is None
        and request.messages[0].role == ""
        and request.messages[0].content == {"a": 1}
    )
    assert request.view is not None and request.view.budget is None and request.view.receipts == ()
    assert request.view.contributions[0].units is None and request.view.contributions[0].selected is False
    assert (
        request_budget({"view": {"budget": {"max_units": -4, "used": {"a": math.inf, "b": 2}}}}) is not None
    )
    result = ToolResult.read({"ok": "false", "error": {"code": 1}, "tool": 3})
    assert (result.ok, result.error, result.tool) == (False, '{"code": 1}', "3")
    assert [
        i.failed
        for i in action_results({"tool_invocations": [{"status": "success"}, 5], "action_results": 7})
    ] == [
        False,
        False,
    ]
    assert (
        RunEnd.read({"token_usage": {"prompt_tokens": 2, "completion_tokens": 3}, "status": 1}).token_usage
        == 5
    )


def test_every_kind_with_a_payload_class_reads_any_payload() -> None:
    """read_payload gives the kind's class for any payload value, and None for the engine phases."""
    for kind, cls in PAYLOAD_TYPES.items():
        for payload in ({}, {"value": [1, 2]}, {k: [[]] for k in ("name", "usage", "records", "view")}):
            assert isinstance(read_payload(RunEvent("r", 0, kind, payload=payload)), cls)
    assert (
        read_payload(RunEvent("r", 0, "OBSERVE")) is None and read_payload(RunEvent("r", 0, "nope")) is None
    )
