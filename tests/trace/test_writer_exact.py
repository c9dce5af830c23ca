"""qitos.trace.writer to the letter: every refusal's exact message, the manifest's exact form on
disk, what finalize copies up from the summary, and the files it refuses or cannot write.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (a message that says what is wrong, a manifest a reader can parse and a
person can read, a run id that is one plain directory name), not the mutant.
"""

from __future__ import annotations

import json
import locale
import shutil
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from qitos.trace.errors import TraceError
from qitos.trace.events import RunEvent
from qitos.trace.lock import writer_alive
from qitos.trace.redact import Redactor
from qitos.trace.writer import TraceWriter, new_run_id, validate_run_id

NOW = "2026-01-01T00:00:00+00:00"


def fixed_clock() -> str:
    return NOW


def message(exc_type: type[BaseException], fn: Any) -> str:
    """The message of the ``exc_type`` that ``fn()`` raises."""
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[TraceWriter]:
    w = TraceWriter(tmp_path, run_id="r", clock=fixed_clock, redactor=Redactor(env={}))
    yield w
    w.close()


# -- run ids ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["run\n", "run\r\n", ".", "..", "a b"])
def test_a_run_id_must_be_one_plain_name_in_full(tmp_path: Path, bad: str) -> None:
    expected = (
        f"invalid run id {bad!r}: use 1-200 letters, digits, '.', '_' or '-', "
        "starting with a letter or digit (no path separators)"
    )
    assert message(ValueError, lambda: validate_run_id(bad)) == expected
    assert message(ValueError, lambda: TraceWriter(tmp_path, run_id=bad)) == expected
    assert list(tmp_path.iterdir()) == []


def test_a_bad_prefix_is_refused_with_its_own_message(tmp_path: Path) -> None:
    for bad in ("a/b", "x\n"):
        assert message(ValueError, lambda bad=bad: TraceWriter(tmp_path, prefix=bad)) == (
            f"invalid run id prefix {bad!r}: letters, digits, '.', '_' or '-' only"
        )


def test_a_generated_run_id_is_stamped_in_utc_whatever_the_local_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "Asia/Kathmandu")  # UTC+05:45: no whole-hour slip hides here
    time.tzset()
    try:
        before = datetime.now(UTC).replace(microsecond=0)
        stamp = datetime.strptime(new_run_id("p").removeprefix("p_"), "%Y%m%d_%H%M%S_%f").replace(tzinfo=UTC)
        assert before <= stamp <= datetime.now(UTC) + timedelta(seconds=1)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_runs_go_to_dot_runs_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with TraceWriter(run_id="here", redactor=Redactor(env={})) as w:
        assert w.run_dir == Path("./runs") / "here"
    assert (tmp_path / "runs" / "here" / "manifest.json").is_file()


# -- the manifest on disk ---------------------------------------------------------------------------


def test_a_new_manifest_is_indented_json_with_an_empty_summary(writer: TraceWriter) -> None:
    writer.update_manifest(task="café ☕", model_id="m")
    assert (writer.run_dir / "manifest.json").read_text(encoding="utf-8") == (
        "{\n"
        '  "run_id": "r",\n'
        '  "schema_version": "v1",\n'
        '  "status": "running",\n'
        '  "summary": {},\n'
        f'  "updated_at": "{NOW}",\n'
        '  "event_count": 0,\n'
        '  "step_count": 0,\n'
        '  "task": "café ☕",\n'
        '  "model_id": "m"\n'
        "}\n"
    )


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """The C locale for text files opened without an encoding (ASCII: no UTF-8 mode), restored after."""
    if sys.flags.utf8_mode:
        pytest.skip("UTF-8 mode makes every default encoding UTF-8: no other locale can be tried")
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        assert locale.getpreferredencoding(False) != "UTF-8"  # the trial below means something
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_a_run_is_written_and_continued_as_utf8_whatever_the_locale(
    tmp_path: Path, ascii_locale: None
) -> None:
    text = "café ☕"
    with TraceWriter(tmp_path, run_id="r", clock=fixed_clock, redactor=Redactor(env={})) as w:
        w.update_manifest(task=text)
        w.write_event(RunEvent("r", 0, "ACT", payload={"note": text}))
        w.write_step({"step_id": 0, "note": text})
    # A resumed run in a process whose locale is not UTF-8 still reads the manifest it continues.
    with TraceWriter(tmp_path, run_id="r", clock=fixed_clock, redactor=Redactor(env={})) as again:
        assert again.manifest["task"] == text
    run_dir = tmp_path / "r"
    assert json.loads((run_dir / "manifest.json").read_bytes().decode("utf-8"))["task"] == text
    for name in ("events.jsonl", "steps.jsonl"):
        [line] = (run_dir / name).read_bytes().decode("utf-8").splitlines()
        assert text in line, name


def test_a_lone_surrogate_is_written_as_an_escape_in_the_manifest_and_the_steps(writer: TraceWriter) -> None:
    writer.update_manifest(note="half \ud83d")
    writer.write_step({"step_id": 0, "note": "half \ud83d"})
    assert json.loads((writer.run_dir / "manifest.json").read_text(encoding="utf-8"))["note"] == "half \ud83d"
    step = (writer.run_dir / "steps.jsonl").read_text(encoding="utf-8")
    assert step == '{"step_id": 0, "note": "half \\ud83d"}\n'
    assert json.loads(step)["note"] == "half \ud83d"


def test_finalize_copies_the_model_id_up_unless_the_manifest_names_one(tmp_path: Path) -> None:
    w = TraceWriter(tmp_path, run_id="a", redactor=Redactor(env={}))
    w.finalize(status="completed", summary={"model_id": "m1"})
    assert w.manifest["model_id"] == "m1" and w.manifest["summary"]["model_id"] == "m1"
    w = TraceWriter(tmp_path, run_id="b", redactor=Redactor(env={}))
    w.update_manifest(model_id="m0")
    w.finalize(status="completed", summary={"model_id": "m1"})
    assert w.manifest["model_id"] == "m0" and w.manifest["summary"]["model_id"] == "m1"


def test_finalize_merges_its_summary_over_the_one_written_before(writer: TraceWriter) -> None:
    writer.update_manifest(summary={"a": 1, "b": 2})
    writer.finalize(status="failed", summary={"b": 3})
    assert writer.manifest["summary"] == {"a": 1, "b": 3, "steps": 0}


@pytest.mark.parametrize("summary", [None, "text", [1, 2]])
def test_a_run_whose_manifest_summary_is_not_an_object_can_be_continued(tmp_path: Path, summary: Any) -> None:
    run_dir = tmp_path / "old"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": "old", "summary": summary}))
    w = TraceWriter(tmp_path, run_id="old", redactor=Redactor(env={}))
    w.update_manifest(summary={"a": 1})
    w.finalize(status="completed", summary={"b": 2})
    assert w.manifest["summary"] == {"a": 1, "b": 2, "steps": 0}


# -- refusals and failures ----------------------------------------------------------------------------


def test_wrong_arguments_are_refused_with_messages_that_name_them(writer: TraceWriter) -> None:
    event = RunEvent("r", 0, "ACT")
    assert message(TypeError, lambda: writer.write_event({"phase": "ACT"})) == (  # type: ignore[arg-type]
        "write_event takes a RunEvent, not dict"
    )
    assert message(TypeError, lambda: writer.write_masked("x", "{}")) == (  # type: ignore[arg-type]
        "write_masked takes a RunEvent, not str"
    )
    assert message(ValueError, lambda: writer.write_masked(event, "{}\n{}")) == (
        "write_masked takes the event's one-line JSON text"
    )
    assert message(TypeError, lambda: writer.write_step([0])) == "write_step takes a dict, not list"  # type: ignore[arg-type]
    assert message(ValueError, lambda: writer.write_step({})) == "a step record needs a 'step_id'"
    assert (
        message(TypeError, lambda: writer.update_manifest(summary=[1])) == "manifest summary must be a dict"
    )
    assert message(TypeError, lambda: writer.finalize(status="completed", summary=[1])) == (  # type: ignore[arg-type]
        "finalize summary must be a dict"
    )
    assert writer.event_count == 0 and writer.step_count == 0


def test_a_closed_writer_says_so(writer: TraceWriter) -> None:
    writer.close()
    closed = "trace writer for run r is closed"
    assert message(TraceError, lambda: writer.update_manifest(a=1)) == closed
    assert message(TraceError, lambda: writer.finalize(status="completed", summary={})) == closed
    assert message(TraceError, lambda: writer.write_event(RunEvent("r", 0, "ACT"))) == closed


def test_a_run_directory_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    text = message(TraceError, lambda: TraceWriter(tmp_path / "file", run_id="r"))
    assert text.startswith(f"cannot create run directory {tmp_path / 'file' / 'r'}: ")


def test_a_manifest_that_cannot_be_continued_is_named(tmp_path: Path) -> None:
    run_dir = tmp_path / "old"
    run_dir.mkdir()
    path = run_dir / "manifest.json"
    path.write_text("[1, 2]")
    assert message(TraceError, lambda: TraceWriter(tmp_path, run_id="old")) == (
        f"cannot continue run old: {path} is not a JSON object"
    )
    path.write_text("{not json")
    text = message(TraceError, lambda: TraceWriter(tmp_path, run_id="old"))
    assert text.startswith(f"cannot continue run old: unreadable {path}: ")


@pytest.mark.parametrize("name", ["events.jsonl", "steps.jsonl"])
def test_trace_files_that_cannot_be_opened_are_named_and_the_lock_is_let_go(
    tmp_path: Path, name: str
) -> None:
    run_dir = tmp_path / "r"
    (run_dir / name).mkdir(parents=True)
    text = message(TraceError, lambda: TraceWriter(tmp_path, run_id="r"))
    assert text.startswith(f"cannot open trace files in {run_dir}: ")
    assert not writer_alive(run_dir)


def test_a_manifest_that_cannot_be_written_is_named_and_leaves_no_temporary_file(writer: TraceWriter) -> None:
    shutil.rmtree(writer.run_dir)  # the run directory went away under the writer
    path = writer.run_dir / "manifest.json"
    text = message(TraceError, lambda: writer.update_manifest(a=1))
    assert text.startswith(f"cannot write {path}: ")
    assert not writer.run_dir.exists()
