"""The memory browser's data layer on real Memdir roots: rows, changes, filters and recall status."""

from __future__ import annotations

import io
from pathlib import Path

from browser_builders import build_memory_root, run_writer
from rich.console import Console
from rich.style import Style

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory
from qitos.trace.redact import MASK, Redactor
from tui.browsers.memory_files import load_table, reread
from tui.browsers.memory_model import RecallStatus, RowKind, filter_rows, gone_rows, recall_marks
from tui.browsers.memory_render import detail
from tui.browsers.memory_table import MemoryTable


def _view(root: Path, global_root: Path | None = None) -> MemoryTable:
    return load_table(root.resolve(), global_root.resolve() if global_root else None)


def _same(patched: MemoryTable, full: MemoryTable) -> None:
    """A table patched file by file holds exactly what a fresh load of the disk holds."""
    assert patched.rows() == full.rows()
    assert (patched.local, patched.global_, patched.rejected) == (full.local, full.global_, full.rejected)


def _patch(table: MemoryTable, paths: list[Path], root: Path, global_root: Path | None = None) -> bool:
    """Apply re-read files to ``table`` as the browser does; returns whether a full load was asked for."""
    changes, rescan = reread(
        [str(p) for p in paths], root.resolve(), global_root.resolve() if global_root else None
    )
    for file_key, row in changes:
        if row is None:
            table.remove(file_key)
        else:
            table.put(row)
    return rescan


def test_rows_newest_first_then_rejected_with_reasons(memory_root: Path, global_root: Path) -> None:
    """Local and global records newest first (global marked), then the malformed file and the symlink."""
    view = _view(memory_root, global_root)
    records = [r for r in view.rows() if r.kind is RowKind.RECORD]
    assert [r.record_id for r in records] == [
        "rec-005",
        "rec-004",
        "rec-003",
        "rec-002",
        "rec-001",
        "glob-002",
        "glob-001",
    ]
    assert {r.scope for r in records[-2:]} == {"global"} and all(r.read_only for r in records[-2:])
    assert not records[0].read_only
    assert (view.local, view.global_, view.rejected) == (5, 2, 2)
    rejected = [r for r in view.rows() if r.kind is RowKind.REJECTED]
    reasons = sorted(r.reason for r in rejected)
    assert reasons[0].startswith("missing front matter") and reasons[1] == "symlink (never followed)"
    assert all(r.read_only and r.path.startswith("records/") for r in rejected)
    first = records[-3]
    assert (first.role, first.step_id, first.created) == ("user", 1, "2026-11-30T10:00:00+00:00")
    assert first.summary == "The failing check is tests/test_math.py::test_add."
    assert first.size == (memory_root / first.path).stat().st_size


def test_rows_agree_with_what_memdir_recalls(memory_root: Path, global_root: Path) -> None:
    """The browser's own reader lists what MemdirMemory.scan finds, in its order, and rejects the same."""
    memory = MemdirMemory(str(memory_root), global_memory_dir=str(global_root))
    scan = memory.scan()
    local = [e.record.record_id for e in reversed(scan.entries) if e.scope == "local"]
    glob = [e.record.record_id for e in reversed(scan.entries) if e.scope == "global"]
    rows = _view(memory_root, global_root).rows()
    assert [r.record_id for r in rows if r.kind is RowKind.RECORD] == local + glob
    assert sorted((r.reason, r.path) for r in rows if r.kind is RowKind.REJECTED) == sorted(
        (r.reason, f"records/{r.path.name}") for r in scan.rejected
    )
    for row in rows:
        if row.kind is RowKind.RECORD:
            assert row.content == memory.get(row.record_id).content if row.scope == "local" else True


def test_a_reload_follows_another_process(memory_root: Path) -> None:
    """An edit, an addition and a deletion by another process show in the next load."""
    run_writer("edit", memory_root, "rec-002", "Root cause: add() used minus.")
    run_writer("add", memory_root, "rec-006", "a new fact")
    run_writer("delete", memory_root, "rec-003")
    after = _view(memory_root)
    assert after.record("rec-002").content == "Root cause: add() used minus."  # type: ignore[union-attr]
    assert after.record("rec-006") is not None and after.record("rec-003") is None


def test_recall_marks_compare_recalled_content_with_disk(memory_root: Path) -> None:
    """Unchanged, changed and gone records, judged against what the memory_recall event carried."""
    payload = {
        "record_ids": ["rec-001", "rec-002", "rec-003"],
        "records": [
            {"record_id": "rec-001", "role": "user", "content": "The failing check was elsewhere."},
            {
                "record_id": "rec-002",
                "role": "assistant",
                "content": "Root cause: add() subtracts its second argument.",
            },
            {"record_id": "rec-003", "role": "tool", "content": "pytest: 1 failed, 4 passed in 0.12s"},
        ],
    }
    run_writer("unlink", memory_root, "rec-003")
    marks = {m.record_id: m for m in recall_marks([payload], _view(memory_root))}
    assert marks["rec-001"].status is RecallStatus.CHANGED  # the file was edited since the recall
    assert marks["rec-002"].status is RecallStatus.UNCHANGED
    gone = marks["rec-003"]
    assert gone.status is RecallStatus.GONE and gone.current is None and gone.recalled.startswith("pytest")
    rows = gone_rows(marks.values())
    assert [(r.kind, r.record_id, r.content) for r in rows] == [(RowKind.GONE, "rec-003", gone.recalled)]
    assert rows[0].read_only


def test_recall_ids_without_contents_compare_by_presence(memory_root: Path) -> None:
    """A payload with ids only: present ids count as unchanged, absent ones as gone."""
    marks = recall_marks([{"record_ids": ["rec-004", "nope"]}], _view(memory_root))
    assert [(m.record_id, m.status) for m in marks] == [
        ("rec-004", RecallStatus.UNCHANGED),
        ("nope", RecallStatus.GONE),
    ]


def test_filter_matches_every_word_case_insensitively(tmp_path: Path) -> None:
    """Words match ids, roles, steps and full text; all words must match."""
    root = build_memory_root(
        tmp_path / "m",
        records=[
            ("a-1", "user", 3, "Alpha beta\nGamma"),
            ("b-2", "tool", 4, "beta only"),
            ("c-3", "user", 5, "x"),
        ],
    )
    rows = _view(root).rows()
    assert [r.record_id for r in filter_rows(rows, "BETA")] == ["b-2", "a-1"]
    assert [r.record_id for r in filter_rows(rows, "gamma user")] == ["a-1"]
    assert [r.record_id for r in filter_rows(rows, "tool")] == ["b-2"]
    assert [r.record_id for r in filter_rows(rows, "c-3")] == ["c-3"]
    assert len(filter_rows(rows, "  ")) == 3
    assert filter_rows(rows, "zzz") == []
    table = _view(root)
    for words in ("BETA", "gamma user", "tool", "c-3", "  ", "zzz", "b", "be", "bet", "beta o"):
        table.set_filter(words)  # the table's filter (narrowing from the last one) agrees
        assert [table.row(k) for k in table.shown] == filter_rows(rows, words), words


def test_per_file_patches_agree_with_a_full_load(memory_root: Path, global_root: Path) -> None:
    """Edits, additions, deletions, broken files, stray names and global changes: patch == reload."""
    table = _view(memory_root, global_root)
    run_writer("edit", memory_root, "rec-002", "edited")
    run_writer("add", memory_root, "rec-006", "added")
    run_writer("unlink", memory_root, "rec-003")
    records = memory_root / "records"
    (records / "notes.md").write_text("x", encoding="utf-8")
    (records / record_filename("rec-004")).write_text("broken now", encoding="utf-8")
    glob = global_root / "records" / record_filename("glob-001")
    glob.unlink()
    changed = [records / record_filename(i) for i in ("rec-002", "rec-006", "rec-003", "rec-004")]
    assert not _patch(table, [*changed, records / "notes.md", glob], memory_root, global_root)
    _same(table, _view(memory_root, global_root))
    assert table.rejected == 4 and table.record("glob-001") is None


def test_a_repaired_file_replaces_its_rejected_row(memory_root: Path) -> None:
    """A rejected file that becomes a valid record replaces its rejected row."""
    table = _view(memory_root)
    broken = memory_root / "records" / record_filename("broken-1")
    broken.write_text("---\nrecord_id: broken-1\nrole: user\nstep_id: 9\n---\nrepaired", encoding="utf-8")
    _patch(table, [broken], memory_root)
    _same(table, _view(memory_root))
    assert table.rejected == 1 and table.rows()[0].record_id == "broken-1"


def test_editor_scratch_files_change_nothing(memory_root: Path) -> None:
    """Temp, backup and swap files beside the records are read as nothing; the records folder itself asks for a reload."""
    table = _view(memory_root)
    before = table.rows()
    records = memory_root / "records"
    scratch = [records / n for n in ("4913", ".x.md.swp", "x.md~", ".tmp-1.part", "x.md.tmp", "#x.md#")]
    for path in scratch:
        path.write_text("junk", encoding="utf-8")
    assert not _patch(table, scratch, memory_root)
    assert table.rows() == before
    assert _patch(table, [records], memory_root)


def test_a_local_record_shadows_and_unshadows_a_global_one(memory_root: Path, global_root: Path) -> None:
    """Adding a local record with a global id hides the global row; deleting it shows it again."""
    table = _view(memory_root, global_root)
    run_writer("add", memory_root, "glob-001", "local override")
    local = memory_root / "records" / record_filename("glob-001")
    _patch(table, [local], memory_root, global_root)
    _same(table, _view(memory_root, global_root))
    assert table.record("glob-001").scope == "local" and table.global_ == 1  # type: ignore[union-attr]
    local.unlink()
    _patch(table, [local], memory_root, global_root)
    _same(table, _view(memory_root, global_root))
    assert table.record("glob-001").scope == "global" and table.global_ == 2  # type: ignore[union-attr]


def test_secrets_in_a_record_file_are_shown_masked_as_its_trace_masks_them(tmp_path: Path) -> None:
    """The file keeps what the agent wrote; its row and its detail show the masked text (its repr
    hides what the file holds), and a recall as the trace holds it (masked by the Engine's
    Redactor) reads as unchanged."""
    secret = "sk-" + "abcdefghijklmnopqrstuvwxyz123456"
    said = f"deploy with OPENAI_API_KEY={secret} today"
    root = tmp_path / "mem"
    memory = MemdirMemory(str(root), create=True)
    record = MemoryRecord(
        "user", said, 3, metadata={"api_key": "hunter2hunter2", "kind": "fact"}, record_id="k"
    )
    memory.append(record)
    assert secret in (root / "records" / record_filename("k")).read_text(encoding="utf-8")
    table = _view(root)
    row = table.record("k")
    assert row is not None
    assert row.content == f"deploy with OPENAI_API_KEY={MASK} today"
    assert dict(row.metadata) == {"api_key": MASK, "kind": "fact"}
    assert "hunter2" not in repr(row)
    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(detail(row, None, None, lambda name: Style()))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert MASK in shown and secret not in shown and "hunter2" not in shown
    recalled = Redactor().redact(
        {"record_ids": ["k"], "records": [{"record_id": "k", "role": "user", "content": said}]}
    )
    assert [(m.record_id, m.status) for m in recall_marks([recalled], table)] == [
        ("k", RecallStatus.UNCHANGED)
    ]
