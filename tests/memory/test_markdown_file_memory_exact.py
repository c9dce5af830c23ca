"""Exact MarkdownFileMemory behaviour: constructor bounds, the path and namespace it derives, the
default clock's UTC stamp, every refused record word for word (nothing written), the file's mode
and append-only growth, each open failure's message, summarize's bounds and evict's count."""

from __future__ import annotations

import errno
import os
import resource
import signal
import stat
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from qitos.core.memory import MemoryRecord, MemoryResourceError
from qitos.kit.memory.markdown_file_memory import MarkdownFileMemory, _take_back


@pytest.fixture
def log(tmp_path: Path) -> MarkdownFileMemory:
    """A memory logging to run.md in the test's directory, with a fixed creation stamp."""
    memory = MarkdownFileMemory(str(tmp_path / "run.md"))
    memory.clock = lambda: "T0"
    return memory


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A zero umask while the test runs, so the file mode is exactly the one asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def message_of(error: type[Exception], call: Any) -> str:
    with pytest.raises(error) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("size", [0, -1, True, 2.0])
def test_max_in_memory_must_be_a_positive_int(tmp_path: Path, size: Any) -> None:
    text = message_of(ValueError, lambda: MarkdownFileMemory(str(tmp_path / "m.md"), max_in_memory=size))
    assert text == "max_in_memory must be a positive int"


def test_max_in_memory_of_one_recalls_the_newest(tmp_path: Path) -> None:
    memory = MarkdownFileMemory(str(tmp_path / "m.md"), max_in_memory=1)
    memory.append(MemoryRecord("user", "old", 0))
    memory.append(MemoryRecord("user", "new", 1))
    assert [r.content for r in memory.retrieve()] == ["new"]


def test_default_recall_holds_two_hundred_records(tmp_path: Path) -> None:
    memory = MarkdownFileMemory(str(tmp_path / "m.md"))
    for step in range(201):
        memory.append(MemoryRecord("user", f"f{step}", step))
    recalled = memory.retrieve()
    assert len(recalled) == 200 and recalled[0].content == "f1"


def test_path_expands_the_home_directory_and_names_the_namespace() -> None:
    memory = MarkdownFileMemory("~/notes/project-log.md")
    assert memory.path == Path.home() / "notes" / "project-log.md"
    assert memory.namespace == "project-log"


def test_default_clock_stamps_utc_iso_time() -> None:
    stamp = MarkdownFileMemory("memory.md").clock()
    assert datetime.fromisoformat(stamp).utcoffset() == timedelta(0)


def test_non_record_is_refused_naming_its_type(log: MarkdownFileMemory) -> None:
    assert message_of(TypeError, lambda: log.append("x")) == "append expects a MemoryRecord, got str"  # type: ignore[arg-type]
    assert not log.path.exists()


@pytest.mark.parametrize("role", ["", ".user", "a b", "r" * 65, 5])
def test_malformed_role_is_refused_and_nothing_is_written(log: MarkdownFileMemory, role: Any) -> None:
    text = message_of(ValueError, lambda: log.append(MemoryRecord(role, "x", 0)))
    assert text == "malformed role: use 1-64 characters from [A-Za-z0-9_.:-]"
    assert not log.path.exists() and log.retrieve() == []


def test_longest_allowed_role_is_kept(log: MarkdownFileMemory) -> None:
    log.append(MemoryRecord("r" * 64, "x", 0, record_id="long"))
    assert log.path.read_text().startswith(f"## {'r' * 64} · step 0 · `long`\n")


@pytest.mark.parametrize(("step", "kind"), [(True, "bool"), ("1", "str"), (1.0, "float")])
def test_non_int_step_is_refused_naming_its_type(log: MarkdownFileMemory, step: Any, kind: str) -> None:
    text = message_of(ValueError, lambda: log.append(MemoryRecord("user", "x", step)))
    assert text == f"step_id must be an int, got {kind}"
    assert not log.path.exists()


def test_text_that_is_not_encodable_is_refused_and_nothing_is_written(log: MarkdownFileMemory) -> None:
    with pytest.raises(UnicodeEncodeError):
        log.append(MemoryRecord("user", "half a pair \ud800", 0))
    assert not log.path.exists() and log.retrieve() == []


def test_data_content_is_logged_as_json(log: MarkdownFileMemory) -> None:
    log.append(MemoryRecord("tool", {"b": 2, "a": "é"}, 1, record_id="j"))
    assert (
        log.path.read_text(encoding="utf-8")
        == '## tool · step 1 · `j`\n<!-- created: T0 -->\n\n{"a": "é", "b": 2}\n\n'
    )


def test_sections_are_appended_after_existing_text(log: MarkdownFileMemory) -> None:
    log.path.write_text("# My notes\n")
    log.append(MemoryRecord("user", "one", 0, record_id="a"))
    log.append(MemoryRecord("user", "two", 1, record_id="b"))
    assert log.path.read_text() == (
        "# My notes\n"
        "## user · step 0 · `a`\n<!-- created: T0 -->\n\none\n\n"
        "## user · step 1 · `b`\n<!-- created: T0 -->\n\ntwo\n\n"
    )


def test_a_large_section_is_written_whole(log: MarkdownFileMemory) -> None:
    body = "line\n" * 400_000
    log.append(MemoryRecord("user", body, 0, record_id="big"))
    assert log.path.read_text() == f"## user · step 0 · `big`\n<!-- created: T0 -->\n\n{body}\n\n"


def test_new_log_is_created_readable_by_all_writable_by_owner(
    log: MarkdownFileMemory, open_umask: None
) -> None:
    log.append(MemoryRecord("user", "x", 0))
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o644


def test_missing_directory_is_a_resource_error_naming_it(tmp_path: Path) -> None:
    memory = MarkdownFileMemory(str(tmp_path / "absent" / "m.md"))
    text = message_of(MemoryResourceError, lambda: memory.append(MemoryRecord("user", "x", 0)))
    assert text == f"markdown memory directory does not exist: {tmp_path / 'absent'}"
    assert memory.retrieve() == []


def test_symlinked_log_is_a_resource_error_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("")
    (tmp_path / "link.md").symlink_to(tmp_path / "real.md")
    memory = MarkdownFileMemory(str(tmp_path / "link.md"))
    text = message_of(MemoryResourceError, lambda: memory.append(MemoryRecord("user", "x", 0)))
    assert text == f"markdown memory path is a symlink: {tmp_path / 'link.md'}"


def test_unopenable_log_is_a_resource_error_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    memory = MarkdownFileMemory(str(tmp_path / "dir.md"))
    text = message_of(MemoryResourceError, lambda: memory.append(MemoryRecord("user", "x", 0)))
    assert text == f"cannot open markdown memory {tmp_path / 'dir.md'}: {os.strerror(errno.EISDIR)}"
    assert memory.retrieve() == []


def test_retrieve_applies_the_query_and_reports_it(log: MarkdownFileMemory, events: list) -> None:
    log.append(MemoryRecord("user", "a", 0, record_id="a"))
    log.append(MemoryRecord("tool", "b", 1, record_id="b"))
    events.clear()
    assert [r.record_id for r in log.retrieve({"since_step": 1})] == ["b"]
    assert events == [
        (
            "memory_recall",
            {
                "namespace": "run",
                "query": {"since_step": 1},
                "record_ids": ["b"],
                "records": [{"record_id": "b", "role": "tool", "content": "b"}],
            },
        )
    ]


def test_append_event_counts_the_logged_characters(log: MarkdownFileMemory, events: list) -> None:
    log.append(MemoryRecord("tool", {"k": 1}, 2, record_id="e"))
    assert events == [
        ("memory_append", {"record_id": "e", "role": "tool", "step_id": 2, "namespace": "run", "chars": 8})
    ]


def test_summarize_lists_the_newest_five_by_default(log: MarkdownFileMemory) -> None:
    for step in range(7):
        log.append(MemoryRecord("user", f"f{step}", step))
    assert log.summarize() == "\n".join(f"- [user @ step {s}] f{s}" for s in range(2, 7))
    assert log.summarize(1) == "- [user @ step 6] f6"


def test_summarize_of_zero_items_is_empty(log: MarkdownFileMemory) -> None:
    log.append(MemoryRecord("user", "x", 0))
    assert log.summarize(0) == ""


@pytest.mark.parametrize("count", [-1, True, 1.5])
def test_summarize_refuses_negative_or_non_int_counts(log: MarkdownFileMemory, count: Any) -> None:
    assert message_of(ValueError, lambda: log.summarize(count)) == "max_items must be a non-negative int"


def test_evict_counts_the_dropped_records_and_keeps_the_log(log: MarkdownFileMemory) -> None:
    assert log.evict() == 0
    log.append(MemoryRecord("user", "a", 0))
    log.append(MemoryRecord("user", "b", 1))
    before = log.path.read_text()
    assert log.evict() == 2
    assert log.retrieve() == [] and log.path.read_text() == before


def test_reset_keeps_the_log(log: MarkdownFileMemory) -> None:
    log.append(MemoryRecord("user", "a", 0))
    before = log.path.read_text()
    log.reset("run-2")
    assert log.retrieve() == [] and log.path.read_text() == before


def test_a_write_cut_short_is_a_resource_error_and_leaves_the_log_as_it_was(log: MarkdownFileMemory) -> None:
    """A file-size limit lets the first write() take the bytes up to it and refuses the rest: the
    append fails as an unavailable resource and the part of the section written is taken back.

    The limit binds every file the process writes, so it holds only around the one append (as in
    the atomic write's test), in this process, where the coverage of mutation testing sees it."""
    log.append(MemoryRecord("user", "small", 0, record_id="first"))
    before = log.path.read_bytes()
    record = MemoryRecord("user", "x" * 3000, 1, record_id="big")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 500, hard))
    try:
        with pytest.raises(MemoryResourceError) as raised:
            log.append(record)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert str(raised.value) == f"cannot write markdown memory {log.path}: {os.strerror(errno.EFBIG)}"
    assert log.path.read_bytes() == before  # not a byte of the torn section is left
    assert [r.record_id for r in log.retrieve()] == ["first"]


def appended(path: Path, data: bytes) -> int:
    """A descriptor that has just appended ``data`` to ``path``, as _write leaves it."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    assert os.write(fd, data) == len(data)
    return fd


@pytest.fixture
def torn(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A log holding one whole section, and the descriptor that has just appended a torn part."""
    path = tmp_path / "log.md"
    path.write_bytes(b"whole section\n")
    fd = appended(path, b"torn part")
    try:
        yield path, fd
    finally:
        os.close(fd)


def test_taking_back_a_torn_tail_leaves_the_file_as_before_the_append(torn: tuple[Path, int]) -> None:
    path, fd = torn
    _take_back(fd, len(b"torn part"))
    assert path.read_bytes() == b"whole section\n"


def test_a_torn_part_another_writer_appended_after_is_left_alone(torn: tuple[Path, int]) -> None:
    """Once another writer's section follows the torn part, cutting the file would cut it too."""
    path, fd = torn
    os.close(appended(path, b"their section\n"))
    _take_back(fd, len(b"torn part"))
    assert path.read_bytes() == b"whole section\ntorn parttheir section\n"


def test_taking_back_on_a_descriptor_that_fails_is_silent(tmp_path: Path) -> None:
    """The append's own error is the one reported: a failure taking back raises nothing more."""
    path = tmp_path / "log.md"
    path.touch()
    fd = appended(path, b"x")
    os.close(fd)
    _take_back(fd, 1)  # a closed descriptor: lseek fails with EBADF
    assert path.read_bytes() == b"x"


def test_default_log_is_memory_md_named_memory() -> None:
    memory = MarkdownFileMemory()
    assert memory.path == Path("memory.md") and memory.namespace == "memory"
