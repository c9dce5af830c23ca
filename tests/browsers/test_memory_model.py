"""The memory browser's data layer on real Memdir roots: rows, changes, filters and recall status."""

from __future__ import annotations

from pathlib import Path

from browser_builders import build_memory_root, run_writer

from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory
from tui.browsers.memory_model import (
    RecallStatus,
    RowKind,
    build_view,
    changed_keys,
    filter_rows,
    gone_rows,
    patch_view,
    read_local_changes,
    recall_marks,
)


def _view(root: Path, global_root: Path | None = None):  # type: ignore[no-untyped-def]
    memory = MemdirMemory(str(root), global_memory_dir=str(global_root) if global_root else None)
    return build_view(memory.scan(include_global=True), memory)


def test_rows_newest_first_then_rejected_with_reasons(memory_root: Path, global_root: Path) -> None:
    """Local and global records newest first (global marked), then the malformed file and the symlink."""
    view = _view(memory_root, global_root)
    records = [r for r in view.rows if r.kind is RowKind.RECORD]
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
    rejected = [r for r in view.rows if r.kind is RowKind.REJECTED]
    reasons = sorted(r.reason for r in rejected)
    assert reasons[0].startswith("missing front matter") and reasons[1] == "symlink (never followed)"
    assert all(r.read_only and r.path.startswith("records/") for r in rejected)
    first = records[-3]
    assert (first.role, first.step_id, first.created) == ("user", 1, "2026-11-30T10:00:00+00:00")
    assert first.summary == "The failing check is tests/test_math.py::test_add."
    assert first.size == (memory_root / first.path).stat().st_size


def test_changed_keys_follow_another_process(memory_root: Path) -> None:
    """An edit, an addition and a deletion by another process show up as changed and removed rows."""
    before = _view(memory_root)
    assert changed_keys(None, before) == (set(), [])
    run_writer("edit", memory_root, "rec-002", "Root cause: add() used minus.")
    run_writer("add", memory_root, "rec-006", "a new fact")
    run_writer("delete", memory_root, "rec-003")
    after = _view(memory_root)
    changed, removed = changed_keys(before, after)
    assert changed == {"record:rec-002", "record:rec-006"}
    assert [r.record_id for r in removed] == ["rec-003"]
    assert after.record("rec-002").content == "Root cause: add() used minus."  # type: ignore[union-attr]


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
    rows = _view(root).rows
    assert [r.record_id for r in filter_rows(rows, "BETA")] == ["b-2", "a-1"]
    assert [r.record_id for r in filter_rows(rows, "gamma user")] == ["a-1"]
    assert [r.record_id for r in filter_rows(rows, "tool")] == ["b-2"]
    assert [r.record_id for r in filter_rows(rows, "c-3")] == ["c-3"]
    assert len(filter_rows(rows, "  ")) == 3
    assert filter_rows(rows, "zzz") == []


def test_fast_path_patches_edits_additions_and_deletions(memory_root: Path) -> None:
    """read_local_changes + patch_view give the same rows as a full scan for clean changes."""
    memory = MemdirMemory(str(memory_root))
    before = build_view(memory.scan(), memory)
    run_writer("edit", memory_root, "rec-002", "edited")
    run_writer("add", memory_root, "rec-006", "added")
    run_writer("unlink", memory_root, "rec-003")
    records = memory_root / "records"
    paths = [str(records / record_filename(i)) for i in ("rec-002", "rec-006", "rec-003")]
    patch = read_local_changes(memory, paths)
    assert patch is not None
    upserts, gone = patch
    assert {r.record_id for r in upserts} == {"rec-002", "rec-006"} and gone == {
        f"records/{record_filename('rec-003')}"
    }
    patched = patch_view(before, upserts, gone)
    full = build_view(memory.scan(), memory)
    assert patched.rows == full.rows and (patched.local, patched.rejected) == (full.local, full.rejected)
    assert changed_keys(patched, full) == (set(), [])


def test_fast_path_defers_to_the_full_scan_when_unsure(memory_root: Path, global_root: Path) -> None:
    """Malformed files, symlinks, stray names and global changes are left to the full scan (None)."""
    memory = MemdirMemory(str(memory_root), global_memory_dir=str(global_root))
    records = memory_root / "records"
    assert read_local_changes(memory, [str(records / record_filename("broken-1"))]) is None  # malformed
    assert read_local_changes(memory, [str(records / record_filename("link-1"))]) is None  # symlink
    (records / "notes.md").write_text("x", encoding="utf-8")
    assert read_local_changes(memory, [str(records / "notes.md")]) is None
    assert read_local_changes(memory, [str(global_root / "records" / record_filename("glob-001"))]) is None


def test_fast_path_turns_a_repaired_file_into_a_record(memory_root: Path) -> None:
    """A rejected file that becomes a valid record replaces its rejected row."""
    memory = MemdirMemory(str(memory_root))
    before = build_view(memory.scan(), memory)
    broken = memory_root / "records" / record_filename("broken-1")
    broken.write_text("---\nrecord_id: broken-1\nrole: user\nstep_id: 9\n---\nrepaired", encoding="utf-8")
    patch = read_local_changes(memory, [str(broken)])
    assert patch is not None
    patched = patch_view(before, *patch)
    assert patched.rows == build_view(memory.scan(), memory).rows
    assert patched.rejected == 1 and patched.rows[0].record_id == "broken-1"
