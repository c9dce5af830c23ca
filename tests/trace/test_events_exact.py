"""qitos.trace.events to the letter: what a trace line lacking a field reads as, the exact text of
a line, and the timestamp format.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a reader of a trace relies on, not the mutant.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath

from qitos.trace.events import RunEvent, utc_now


def test_a_line_with_no_fields_reads_as_an_ok_event_of_step_0_with_empty_texts() -> None:
    event = RunEvent.from_dict({})
    assert (event.run_id, event.step_id, event.phase, event.ok) == ("", 0, "", True)
    assert (event.payload, event.error, event.ts) == ({"value": None}, None, "")


def test_each_missing_field_reads_as_its_default_beside_the_fields_that_are_there() -> None:
    full = {"run_id": "r", "step_id": 4, "phase": "ACT", "ok": False, "payload": {}, "ts": "t"}
    for name, default in (("run_id", ""), ("step_id", 0), ("phase", ""), ("ok", True), ("ts", "")):
        data = {k: v for k, v in full.items() if k != name}
        assert getattr(RunEvent.from_dict(data), name) == default, name


def test_a_line_is_one_json_text_with_non_ascii_as_is_and_objects_as_their_text() -> None:
    event = RunEvent(
        "r", 2, "tool_result", payload={"text": "héllo 📄", "path": PurePosixPath("/a/b")}, ts="t"
    )
    assert event.to_json() == (
        '{"run_id": "r", "step_id": 2, "phase": "tool_result", "ok": true, '
        '"payload": {"text": "héllo 📄", "path": "/a/b"}, "error": null, "ts": "t"}'
    )


def test_utc_now_is_an_iso_timestamp_in_utc() -> None:
    stamp = utc_now()
    assert stamp.endswith("+00:00")
    parsed = datetime.fromisoformat(stamp)
    assert parsed.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - parsed) < timedelta(minutes=5)
