"""MarkdownFileMemory: an append-only markdown log whose recall is scoped to the instance."""

from __future__ import annotations

from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord, MemoryResourceError
from qitos.kit.memory.markdown_file_memory import MarkdownFileMemory


def test_documented_defaults() -> None:
    """path defaults to memory.md and max_in_memory to 200."""
    import inspect

    params = inspect.signature(MarkdownFileMemory).parameters
    assert params["path"].default == "memory.md" and params["max_in_memory"].default == 200


def test_append_writes_a_section_and_recalls_it(tmp_path: Path) -> None:
    """Each append adds one markdown section to the log and is recalled by this instance."""
    memory = MarkdownFileMemory(str(tmp_path / "run.md"))
    memory.clock = lambda: "2026-01-01T00:00:00+00:00"
    record = MemoryRecord("user", "line one\nline two", 3, record_id="m1")
    memory.append(record)
    assert (tmp_path / "run.md").read_text() == (
        "## user · step 3 · `m1`\n<!-- created: 2026-01-01T00:00:00+00:00 -->\n\nline one\nline two\n\n"
    )
    assert memory.retrieve() == [record]
    assert memory.summarize() == "- [user @ step 3] line one\nline two"


def test_existing_log_is_not_reloaded(tmp_path: Path) -> None:
    """Recall is instance-scoped: a new instance over an existing log starts empty and appends to it."""
    first = MarkdownFileMemory(str(tmp_path / "run.md"))
    first.append(MemoryRecord("user", "from the first run", 0))
    second = MarkdownFileMemory(str(tmp_path / "run.md"))
    assert second.retrieve() == []
    second.append(MemoryRecord("user", "second run", 0))
    assert [r.content for r in second.retrieve()] == ["second run"]
    text = (tmp_path / "run.md").read_text()
    assert "from the first run" in text and "second run" in text


def test_max_in_memory_bounds_recall_not_the_log(tmp_path: Path) -> None:
    """Only the newest max_in_memory records are recalled; the log keeps them all."""
    memory = MarkdownFileMemory(str(tmp_path / "m.md"), max_in_memory=3)
    for i in range(5):
        memory.append(MemoryRecord("user", f"fact {i}", i))
    assert [r.content for r in memory.retrieve()] == ["fact 2", "fact 3", "fact 4"]
    assert (tmp_path / "m.md").read_text().count("## user") == 5


def test_query_evict_and_reset(tmp_path: Path) -> None:
    """Queries filter; evict returns how many were dropped; reset clears; the log stays."""
    memory = MarkdownFileMemory(str(tmp_path / "m.md"))
    memory.append(MemoryRecord("user", "a", 0))
    memory.append(MemoryRecord("assistant", "b", 1))
    assert [r.content for r in memory.retrieve({"role": "assistant"})] == ["b"]
    assert memory.evict() == 2 and memory.retrieve() == []
    memory.append(MemoryRecord("user", "c", 2))
    memory.reset()
    assert memory.retrieve() == [] and "## assistant" in (tmp_path / "m.md").read_text()
    with pytest.raises(ValueError, match="unknown memory query key"):
        memory.retrieve({"bogus": 1})


def test_bad_inputs_are_refused(tmp_path: Path) -> None:
    """Bad constructor values, records and paths raise clear errors and write nothing."""
    with pytest.raises(ValueError, match="max_in_memory"):
        MarkdownFileMemory(str(tmp_path / "m.md"), max_in_memory=0)
    memory = MarkdownFileMemory(str(tmp_path / "m.md"))
    with pytest.raises(ValueError, match="record_id"):
        memory.append(MemoryRecord("user", "x", 0, record_id="../x"))
    with pytest.raises(ValueError, match="role"):
        memory.append(MemoryRecord("", "x", 0))
    assert not (tmp_path / "m.md").exists()
    missing = MarkdownFileMemory(str(tmp_path / "nope" / "m.md"))
    with pytest.raises(MemoryResourceError, match="does not exist"):
        missing.append(MemoryRecord("user", "x", 0))


def test_symlinked_log_is_refused(tmp_path: Path) -> None:
    """The log path must not be a symlink; nothing is written through it."""
    target = tmp_path / "target.md"
    target.write_text("")
    (tmp_path / "link.md").symlink_to(target)
    memory = MarkdownFileMemory(str(tmp_path / "link.md"))
    with pytest.raises(MemoryResourceError, match="symlink"):
        memory.append(MemoryRecord("user", "x", 0))
    assert target.read_text() == ""


def test_events(tmp_path: Path, events: list) -> None:
    """append and retrieve emit memory_append / memory_recall labelled with the file stem."""
    memory = MarkdownFileMemory(str(tmp_path / "notes.md"))
    memory.append(MemoryRecord("user", "abc", 1, record_id="n1"))
    memory.retrieve()
    assert [k for k, _ in events] == ["memory_append", "memory_recall"]
    assert events[0][1]["namespace"] == "notes" and events[0][1]["chars"] == 3
    assert events[1][1]["record_ids"] == ["n1"]
