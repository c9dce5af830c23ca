"""Hostile run directories, case by case: each crashed or was silent before (issue 11 item 4)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from qitos.trace.events import MALFORMED_PHASE, RunEvent
from qitos.trace.parse import MAX_DEPTH, parse_object
from qitos.trace.reader import TraceReader, scan_runs
from qitos.trace.writer import TraceWriter
from tui.replay import HeadSource, manifest_tokens, read_manifest
from tui.store import RunStore

DEEP = 10_000


def _run(
    tmp_path: Path, lines: list[bytes], manifest: bytes | None = b'{"run_id": "r", "status": "completed"}'
) -> Path:
    run = tmp_path / "r"
    run.mkdir(exist_ok=True)
    (run / "events.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    if manifest is not None:
        (run / "manifest.json").write_bytes(manifest)
    return run


def _fold(run: Path) -> tuple[TraceReader, RunStore]:
    reader = TraceReader(run)
    store = RunStore(reader, run_id=reader.run_id)
    store.apply(reader.events())
    return reader, store


def test_non_finite_and_huge_numbers_cost_the_field_not_the_event(tmp_path: Path) -> None:
    """1e999, Infinity, NaN and 10**400 in step ids, token counts and budgets: no OverflowError."""
    huge = b"1" + b"0" * 400
    run = _run(
        tmp_path,
        [
            b'{"step_id": 1e999, "phase": "model_request", "payload": {"request_id": "q", "view": {"budget": '
            b'{"max_units": Infinity, "used": {"context": '
            + huge
            + b', "tools": 5}, "available_units": NaN}}}}',
            b'{"step_id": ' + huge + b', "phase": "model_response", "payload": {"request_id": "q", '
            b'"usage": {"total_tokens": 1e999, "prompt_tokens": 7, "completion_tokens": -Infinity}}}',
            b'{"step_id": NaN, "phase": "run_end", "payload": {"token_usage": ' + huge + b"}}",
            b'{"step_id": "' + b"9" * 40 + b'", "phase": "lifecycle_pause", "payload": {"step_id": 1e999}}',
        ],
    )
    reader, store = _fold(run)
    assert [e.step_id for e in reader.events()] == [0, 0, 0, 0]  # unusable step ids read as 0
    step = store.steps[0]
    assert (
        step.budget is not None
        and step.budget.max_units == 0
        and dict(step.budget.used) == {"context": 0, "tools": 5}
    )
    assert step.budget.available_units is None and store.used_series() == [5.0]
    assert store.total_tokens == 7  # the prompt figure survives the unusable total
    assert store.pause is not None and store.pause.step == 0
    assert reader.notices == []  # every line was an object: nothing kept raw


def test_deep_nesting_in_a_line_or_the_manifest_is_refused_with_a_reason(tmp_path: Path) -> None:
    """10,000 levels (RecursionError in json) and 900 (fine for json, not for renderers) are refused."""
    deep = b"[" * DEEP + b"]" * DEEP
    run = _run(
        tmp_path,
        [
            b'{"phase": "tool_result", "payload": {"result": ' + deep + b"}}",
            b'{"phase": "tool_result", "payload": {"result": ' + b"[" * 900 + b"]" * 900 + b"}}",
            b'{"phase": "tool_result", "payload": {"result": '
            + b"[" * (MAX_DEPTH - 3)
            + b"]" * (MAX_DEPTH - 3)
            + b"}}",
        ],
        manifest=b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    )
    reader, store = _fold(run)
    phases = [e.phase for e in reader.events()]
    assert phases == [MALFORMED_PHASE, MALFORMED_PHASE, "tool_result"]
    assert all("nested deeper than" in (e.error or "") for e in list(reader.events())[:2])
    assert {i for s in store.steps for i in s.raw} == {0, 1}
    assert any(n.startswith("manifest.json is unreadable: nested deeper than") for n in reader.notices)
    assert read_manifest(run) == {}


def test_bad_utf8_lone_surrogates_and_duplicate_keys(tmp_path: Path) -> None:
    """Bad bytes are a raw line; a lone surrogate becomes U+FFFD; the last duplicate key wins."""
    run = _run(
        tmp_path,
        [
            b'{"phase": "error", "payload": {"message": "\xff\xfe"}}',
            b'{"phase": "error", "payload": {"message": "a\\ud800b", "\\udfff": 1}}',
            b'{"phase": "DECIDE", "phase": "run_end", "payload": {"status": "failed"}}',
        ],
    )
    reader, store = _fold(run)
    bad, lone, dup = reader.events()
    assert bad.phase == MALFORMED_PHASE and "invalid JSON" in (bad.error or "")
    assert lone.payload == {"message": "a\ufffdb", "\ufffd": 1}
    json.dumps(lone.to_dict(), ensure_ascii=False).encode("utf-8")  # encodable for a file or a terminal
    assert dup.phase == "run_end" and store.status == "failed"


def test_text_in_another_encoding_than_utf8_is_a_raw_line(tmp_path: Path) -> None:
    """An object encoded in UTF-16 or UTF-32 is not a trace line (json alone would guess their
    encoding and read them), and damaged bytes say what they are not: UTF-8."""
    run = _run(
        tmp_path,
        [
            '{"phase": "run_end", "payload": {"status": "failed"}}'.encode("utf-16-le"),
            '{"phase": "run_end", "payload": {"status": "failed"}}'.encode("utf-32"),
            b"\x00\xff\xfe garbage",
            b'\xef\xbb\xbf{"phase": "INIT", "payload": {}}',  # UTF-8 with a byte order mark is UTF-8
        ],
        manifest='{"status": "completed"}'.encode("utf-16"),
    )
    reader, store = _fold(run)
    phases = [e.phase for e in reader.events()]
    assert phases == [MALFORMED_PHASE, MALFORMED_PHASE, MALFORMED_PHASE, "INIT"]
    assert store.status != "failed"
    garbage = reader.event(2).error or ""
    assert "'utf-8' codec can't decode byte 0xff" in garbage and "utf-16" not in garbage
    assert any(
        n.startswith("manifest.json is unreadable: invalid JSON ('utf-8' codec") for n in reader.notices
    )
    assert read_manifest(run) == {}


def test_a_damaged_line_is_noticed_once_in_the_words_its_fold_uses(tmp_path: Path) -> None:
    """The status bar shows the reader's notices and the fold's, each text once: a damaged line the
    reader noticed when indexing it is worded as the fold words it, so it shows once."""
    run = _run(tmp_path, [b'{"phase": "INIT", "payload": {}}', b"[1, 2]", b"x}", b"{y"])
    reader, store = _fold(run)
    shown = " shown as a raw event"
    assert reader.notices == [
        f"events.jsonl line 2: a JSON list, not an object;{shown}",
        f"events.jsonl line 3: invalid JSON (Expecting value: line 1 column 1 (char 0));{shown}",
        "events.jsonl line 4: invalid JSON (Expecting property name enclosed in double quotes:"
        f" line 1 column 2 (char 1));{shown}",
    ]
    assert store.notices == reader.notices


def test_wrong_types_in_every_field_of_the_line(tmp_path: Path) -> None:
    """Non-string run id, phase and ts, a dict for ok, a list for error: read field by field."""
    run = _run(
        tmp_path,
        [
            b'{"run_id": ["x"], "step_id": true, "phase": 7, "ok": {"a": 1}, "payload": "s", "error": [1], "ts": 3}'
        ],
    )
    reader, store = _fold(run)
    event = reader.event(0)
    assert (event.run_id, event.step_id, event.phase, event.ok) == ("r", 0, "", False)
    assert event.payload == {"value": "s"} and event.error == "[1]" and event.ts == ""
    assert store.steps[0].raw == (0,)
    assert store.notices == ["events without a kind (first at event 1): shown as raw events"]


@pytest.mark.parametrize(
    ("manifest", "notice"),
    [
        (None, "manifest.json is missing: status and summary unknown"),
        (b"[1, 2]", "manifest.json is not a JSON object (it holds a JSON list): status and summary unknown"),
        (b"3", "manifest.json is not a JSON object (it holds a JSON int): status and summary unknown"),
        (b"{oops", "manifest.json is unreadable: invalid JSON"),
    ],
)
def test_missing_invalid_or_non_object_manifest_is_a_notice(
    tmp_path: Path, manifest: bytes | None, notice: str
) -> None:
    """The header no longer just says "unknown": the status bar says why."""
    reader = TraceReader(_run(tmp_path, [b'{"phase": "INIT"}'], manifest=manifest))
    assert reader.manifest == {} and reader.status == "unknown"
    assert any(n.startswith(notice) for n in reader.notices), reader.notices


def test_unknown_phases_are_noticed_once_each_and_kept_raw(tmp_path: Path) -> None:
    """An unknown kind is a notice (once, however many events) and its events stay raw."""
    run = _run(
        tmp_path, [b'{"phase": "shiny"}', b'{"phase": "INIT"}', b'{"phase": "shiny"}', b'{"phase": "glow"}']
    )
    _, store = _fold(run)
    assert store.unknown_kinds == {"shiny": 2, "glow": 1}
    assert store.notices == [
        "unknown event kind 'shiny' (first at event 1): shown as raw events",
        "unknown event kind 'glow' (first at event 4): shown as raw events",
    ]
    assert store.steps[0].raw == (0, 2, 3)


def test_truncated_last_line_is_a_notice_and_the_rest_is_read(tmp_path: Path) -> None:
    """A run killed mid-write: every complete line is read, the cut one is named in a notice."""
    run = _run(tmp_path, [b'{"phase": "INIT"}'])
    with (run / "events.jsonl").open("ab") as fh:
        fh.write(b'{"phase": "OBSE')
    reader, store = _fold(run)
    assert len(reader) == 1 and store.steps[0].phase == "INIT"
    assert any("events.jsonl: incomplete last line (15 bytes) skipped" in n for n in reader.notices)


@pytest.mark.parametrize("name", ["events.jsonl", "steps.jsonl", "manifest.json"])
def test_a_trace_file_that_is_a_symlink_is_refused_with_the_reason(tmp_path: Path, name: str) -> None:
    """A link to a file outside the run directory is never followed, by the reader, the head or the list."""
    outside = tmp_path / "secret.txt"
    secret = {"manifest.json": b'{"run_id": "stolen", "status": "completed"}'}.get(
        name, b'{"phase": "INIT", "step_id": 0, "payload": {"secret": "outside"}}\n'
    )
    outside.write_bytes(secret)
    runs = tmp_path / "runs"
    w = TraceWriter(runs, run_id="r", clock=lambda: "2026-01-01T00:00:00+00:00")
    w.write_event(RunEvent("r", 0, "OBSERVE", ts=w.clock()))
    w.write_step({"step_id": 0})
    w.finalize(status="completed", summary={})
    target = w.run_dir / name
    target.unlink()
    os.symlink(outside, target)
    reader = TraceReader(w.run_dir)
    reason = f"{name} is a symbolic link (to {outside}); refused: a run's trace files must be regular files"
    events = list(reader.events())
    steps = reader.steps()
    assert any(n.startswith(reason) for n in reader.notices), reader.notices
    assert all("outside" not in json.dumps(e.payload) for e in events)
    if name == "events.jsonl":
        assert events == [] and len(HeadSource(w.run_dir, limit=10)) == 0
    if name == "steps.jsonl":
        assert steps == []
    if name == "manifest.json":
        assert reader.manifest == {} and reader.run_id == "r" and read_manifest(w.run_dir) == {}
        summary = scan_runs(runs)[0][0]
        assert summary.run_id == "r" and (summary.problem or "").startswith(reason)


def test_parse_object_names_why_each_kind_of_bad_line_is_refused() -> None:
    """The reasons shown in notices and raw events."""
    assert parse_object(b"[1]") == (None, "a JSON list, not an object")
    assert parse_object(b"null") == (None, "a JSON null, not an object")
    assert parse_object(b"[" * DEEP)[1] == f"nested deeper than {MAX_DEPTH} levels"
    assert (parse_object(b'{"a": ' + b"9" * 5000 + b"}")[1] or "").startswith("invalid JSON")
    assert parse_object(b'{"a": 1}') == ({"a": 1}, None)


def test_manifest_token_figures_ignore_bools_and_huge_numbers() -> None:
    """The header's token figure from the manifest: only a real count."""
    assert manifest_tokens({"token_usage": True}) == 0
    assert manifest_tokens({"token_usage": 10**400}) == 0
    assert (
        manifest_tokens(
            {"summary": {"token_usage": {"total_tokens": 1e999, "prompt_tokens": 3, "completion_tokens": 4}}}
        )
        == 7
    )
    assert manifest_tokens({"token_usage": 3591}) == 3591


@pytest.mark.parametrize("name", ["events.jsonl", "steps.jsonl", "manifest.json"])
def test_named_pipes_in_a_run_directory_are_refused_not_waited_on(tmp_path: Path, name: str) -> None:
    """A FIFO as a trace file or the writer lock would block the reader forever: refused at once."""
    run = _run(tmp_path, [b'{"phase": "INIT"}'])
    (run / "steps.jsonl").write_bytes(b'{"step_id": 0}\n')
    (run / name).unlink()
    os.mkfifo(run / name)
    os.mkfifo(run / "writer.lock")
    seen: dict[str, object] = {}

    def read() -> None:
        reader = TraceReader(run)
        seen.update(notices=reader.notices, steps=reader.steps(), status=reader.status, events=len(reader))
        seen["head"] = len(HeadSource(run, limit=10))
        seen["listed"] = scan_runs(tmp_path)[0][0].problem

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the reader blocked on a named pipe"
    refused = f"{name} is not a regular file (a named pipe); refused"
    assert any(n.startswith(refused) for n in seen["notices"]), seen  # type: ignore[attr-defined]
    expected = {
        "events.jsonl": ("events", 0),
        "steps.jsonl": ("steps", []),
        "manifest.json": ("status", "unknown"),
    }
    key, value = expected[name]
    assert seen[key] == value
    if name == "events.jsonl":
        assert seen["head"] == 0
    if name == "manifest.json":
        assert seen["listed"] == refused
