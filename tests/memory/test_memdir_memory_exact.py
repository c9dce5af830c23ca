"""Exact tests of MemdirMemory: the messages it refuses with, what create makes, the order keys it
stores, the entries a scan lists, what the parse cache reuses and when, and the index's first scan."""

from __future__ import annotations

import errno
import os
import types
from pathlib import Path

import pytest

from qitos.core.memory import MemoryRecord, MemoryResourceError
from qitos.kit.memory import memdir_memory as memdir_module
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_index import INDEX_HEAD
from qitos.kit.memory.memdir_memory import MemdirMemory

NEVER_TRUSTED = 10**30  # a racy margin no parse is ever older than
ALWAYS_TRUSTED = -(10**30)  # a racy margin every parse is older than


def _raw(memory: MemdirMemory, record_id: str, body: str, *, header: str = "") -> Path:
    """Write a record file by hand (as an editor would), without seq unless ``header`` has one."""
    path = memory.records_dir / record_filename(record_id)
    path.write_text(
        f"---\nrecord_id: {record_id}\nrole: user\nstep_id: 0\n{header}---\n{body}", encoding="utf-8"
    )
    return path


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file names parse_record is asked to parse from now on (a spy: the real parse runs)."""
    parsed: list[str] = []
    real_parse = memdir_module.parse_record

    def parse_record(data: bytes, *, expected_name: str):  # type: ignore[no-untyped-def]
        parsed.append(expected_name)
        return real_parse(data, expected_name=expected_name)

    monkeypatch.setattr(memdir_module, "parse_record", parse_record)
    return parsed


def _listed_ids(memory: MemdirMemory) -> list[str]:
    """The record ids MEMORY.md lists, in its order."""
    text = memory.index_path.read_text(encoding="utf-8")
    return [line.split("`")[1] for line in text.splitlines() if line.startswith("- [")]


# ----- construction and restore -----------------------------------------------------------------


def test_index_limits_of_zero_are_accepted(tmp_path: Path) -> None:
    memory = MemdirMemory(str(tmp_path / "m"), create=True, max_index_entries=0, max_index_chars=0)
    assert (memory.max_index_entries, memory.max_index_chars) == (0, 0)


@pytest.mark.parametrize("name", ["max_index_entries", "max_index_chars"])
@pytest.mark.parametrize("value", [True, -1, 2.0])
def test_an_index_limit_that_is_not_a_non_negative_int_is_refused(
    tmp_path: Path, name: str, value: object
) -> None:
    with pytest.raises(ValueError) as raised:
        MemdirMemory(str(tmp_path / "m"), create=True, **{name: value})  # type: ignore[arg-type]
    assert str(raised.value) == f"{name} must be a non-negative int"


def test_a_missing_root_is_refused_with_the_create_hint(tmp_path: Path) -> None:
    root = tmp_path / "absent"
    with pytest.raises(MemoryResourceError) as raised:
        MemdirMemory(str(root))
    assert str(raised.value) == f"memory_dir does not exist: {root} (pass create=True to initialise it)"


def test_an_uninitialised_root_is_refused_with_the_create_hint(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(MemoryResourceError) as raised:
        MemdirMemory(str(tmp_path / "plain"))
    assert str(raised.value) == (
        f"memory_dir is not an initialised memory root (no records/ directory): {tmp_path / 'plain'}"
        " (pass create=True to initialise it)"
    )


def test_an_uninitialised_global_root_is_refused_without_the_create_hint(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(MemoryResourceError) as raised:
        MemdirMemory(str(tmp_path / "m"), create=True, global_memory_dir=str(tmp_path / "plain"))
    assert str(raised.value) == (
        f"global_memory_dir is not an initialised memory root (no records/ directory): {tmp_path / 'plain'}"
    )


def test_a_root_that_is_a_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(MemoryResourceError) as raised:
        MemdirMemory(str(tmp_path / "f"))
    assert str(raised.value) == f"memory_dir is not a directory: {tmp_path / 'f'}"


def test_a_global_root_equal_to_the_local_one_is_refused(tmp_path: Path) -> None:
    MemdirMemory(str(tmp_path / "m"), create=True)
    with pytest.raises(ValueError) as raised:
        MemdirMemory(str(tmp_path / "m"), global_memory_dir=str(tmp_path / "." / "m"))
    assert str(raised.value) == "global_memory_dir must differ from memory_dir"


def test_create_makes_missing_parents_and_a_bare_index(tmp_path: Path) -> None:
    memory = MemdirMemory(str(tmp_path / "a" / "b" / "mem"), create=True)
    assert memory.records_dir.is_dir()
    assert memory.index_path.read_bytes() == b"# Memory index\n\n"
    assert memory.namespace == "mem"


def test_create_on_an_existing_root_keeps_its_index(memdir: MemdirMemory) -> None:
    memdir.append(MemoryRecord("user", "kept", 0, record_id="k"))
    before = memdir.index_path.read_bytes()
    MemdirMemory(str(memdir.root), create=True)
    assert memdir.index_path.read_bytes() == before


def test_create_leaves_a_dangling_index_symlink_alone(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    (root / "MEMORY.md").symlink_to(tmp_path / "nowhere")
    MemdirMemory(str(root), create=True)
    assert (root / "MEMORY.md").is_symlink()
    assert not (tmp_path / "nowhere").exists()


def test_create_through_a_symlink_to_a_directory_initialises_that_directory(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    memory = MemdirMemory(str(tmp_path / "link"), create=True)
    assert memory.root == tmp_path / "real"
    assert (tmp_path / "real" / "records").is_dir()


def test_create_at_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(MemoryResourceError) as raised:
        MemdirMemory(str(tmp_path / "link"), create=True)
    assert str(raised.value) == f"memory root is a dangling symlink: {tmp_path / 'link'}"
    assert not (tmp_path / "nowhere").exists()


def test_a_root_replaced_by_a_file_is_a_missing_records_directory(
    memdir: MemdirMemory, tmp_path: Path
) -> None:
    """Not a NotADirectoryError from deep inside: the resource error every caller handles."""
    memdir.root.rename(tmp_path / "moved")
    memdir.root.write_text("not a directory any more")
    message = f"memory records directory is missing: {memdir.records_dir}"
    with pytest.raises(MemoryResourceError) as raised:
        memdir.retrieve()
    assert str(raised.value) == message
    with pytest.raises(MemoryResourceError):
        memdir.append(MemoryRecord("user", "x", 0))
    with pytest.raises(MemoryResourceError):
        memdir.get("x")


def test_a_records_dir_replaced_by_a_file_is_refused_by_name(memdir: MemdirMemory) -> None:
    memdir.records_dir.rmdir()
    memdir.records_dir.write_text("a file")
    with pytest.raises(MemoryResourceError) as raised:
        memdir.retrieve()
    assert str(raised.value) == f"memory records path is not a real directory: {memdir.records_dir}"


def test_a_root_swapped_for_a_symlink_gets_no_index_through_it(memdir: MemdirMemory, tmp_path: Path) -> None:
    memdir.append(MemoryRecord("user", "before", 0, record_id="before"))
    index_before = memdir.index_path.read_bytes()
    memdir.root.rename(tmp_path / "moved")
    memdir.root.symlink_to(tmp_path / "moved")
    with pytest.raises(MemoryResourceError) as raised:
        memdir.append(MemoryRecord("user", "after", 1, record_id="after"))
    assert str(raised.value) == f"memory root is not a real directory: {memdir.root}"
    assert (tmp_path / "moved" / "MEMORY.md").read_bytes() == index_before


# ----- appends, order keys and the append-time cache --------------------------------------------


def test_recent_appends_are_the_records_appended_as_a_copy(memdir: MemdirMemory) -> None:
    first, second = MemoryRecord("user", "a", 0, record_id="a"), MemoryRecord("user", "b", 1, record_id="b")
    memdir.append(first)
    memdir.append(second)
    recent = memdir.recent_appends
    assert recent == [first, second]
    recent.clear()
    assert memdir.recent_appends == [first, second]


def test_a_delete_drops_only_that_record_from_the_recent_appends(memdir: MemdirMemory) -> None:
    for rid in ("a", "b", "c"):
        memdir.append(MemoryRecord("user", rid, 0, record_id=rid))
    memdir.delete("b")
    assert [r.record_id for r in memdir.recent_appends] == ["a", "c"]


def test_order_keys_step_by_one_when_the_clock_does_not_move(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "time", types.SimpleNamespace(time_ns=lambda: 5_000))
    for rid in ("a", "b", "c"):
        memdir.append(MemoryRecord("user", rid, 0, record_id=rid))
    assert [(e.record.record_id, e.seq) for e in memdir.scan().entries] == [
        ("a", 5_000),
        ("b", 5_001),
        ("c", 5_002),
    ]


def test_the_created_header_comes_from_the_clock(memdir: MemdirMemory) -> None:
    memdir.clock = lambda: "2026-11-30T10:00:00+00:00"
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    assert memdir.scan().entries[0].created == "2026-11-30T10:00:00+00:00"


def test_the_default_clock_stamps_utc_iso_8601(memdir: MemdirMemory) -> None:
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    created = memdir.scan().entries[0].created
    assert created.endswith("+00:00") and "T" in created


def test_a_scan_entry_says_where_and_when_its_record_lives(memdir: MemdirMemory) -> None:
    memdir.clock = lambda: "2026-11-30T10:00:00+00:00"
    record = MemoryRecord("user", "the fact", 2, record_id="r")
    memdir.append(record)
    [entry] = memdir.scan().entries
    path = memdir.records_dir / record_filename("r")
    st = os.stat(path)
    assert entry.record == record
    assert entry.path == path
    assert entry.scope == "local"
    assert entry.created == "2026-11-30T10:00:00+00:00"
    assert (entry.size, entry.modified_ns) == (st.st_size, st.st_mtime_ns)
    assert isinstance(entry.seq, int) and entry.seq > 0
    assert memdir.scan().records == [record]


def test_hand_made_records_without_seq_are_ordered_by_mtime(memdir: MemdirMemory) -> None:
    names = [f"h{i}" for i in range(8)]
    for age, rid in enumerate(reversed(names)):  # written h7 first, but h7 is the newest by mtime
        path = _raw(memdir, rid, rid)
        stamp = 1_000_000_000_000 - age * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))
    assert [r.record_id for r in memdir.retrieve()] == names
    assert all(e.seq is None for e in memdir.scan().entries)


def test_a_record_larger_than_one_read_comes_back_whole(memdir: MemdirMemory) -> None:
    text = "0123456789abcdef" * (3 * (1 << 20) // 16 + 3)
    memdir.append(MemoryRecord("user", text, 0, record_id="big"))
    assert memdir.retrieve()[0].content == text
    reopened = MemdirMemory(str(memdir.root))
    assert reopened.get("big") == MemoryRecord("user", text, 0, record_id="big")


# ----- summarize and get ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [True, -1, "3"])
def test_summarize_refuses_a_count_that_is_not_a_non_negative_int(memdir: MemdirMemory, bad: object) -> None:
    with pytest.raises(ValueError) as raised:
        memdir.summarize(bad)  # type: ignore[arg-type]
    assert str(raised.value) == "max_items must be a non-negative int"


def test_summarize_of_an_empty_memory_is_empty(memdir: MemdirMemory) -> None:
    assert memdir.summarize() == ""


def test_summarize_lines_are_joined_by_newlines(memdir: MemdirMemory) -> None:
    memdir.append(MemoryRecord("user", "one", 0))
    memdir.append(MemoryRecord("tool", "two", 1))
    assert memdir.summarize(5) == "- [user @ step 0] one\n- [tool @ step 1] two"


def test_get_of_an_absent_malformed_or_non_regular_record_is_none(
    memdir: MemdirMemory, tmp_path: Path
) -> None:
    assert memdir.get("absent") is None
    (memdir.records_dir / record_filename("bad")).write_text("no front matter")
    assert memdir.get("bad") is None
    (memdir.records_dir / record_filename("dir")).mkdir()
    assert memdir.get("dir") is None
    os.mkfifo(memdir.records_dir / record_filename("fifo"))  # opening it would block: never opened
    assert memdir.get("fifo") is None
    outside = tmp_path / "outside.md"
    outside.write_text("---\nrecord_id: link\nrole: user\nstep_id: 0\n---\nsecret")
    (memdir.records_dir / record_filename("link")).symlink_to(outside)
    assert memdir.get("link") is None


# ----- rejected files ---------------------------------------------------------------------------


def test_rejected_files_carry_their_exact_reasons(memdir: MemdirMemory, tmp_path: Path) -> None:
    (memdir.records_dir / "notes.md").write_text("hand-written")
    (memdir.records_dir / record_filename("dir")).mkdir()
    (memdir.records_dir / record_filename("link")).symlink_to(tmp_path)
    (memdir.records_dir / record_filename("bad")).write_text("no front matter")
    reasons = {r.path.name: r.reason for r in memdir.scan().rejected}
    assert reasons == {
        "notes.md": "file name is not a record hash",
        record_filename("dir"): "not a regular file",
        record_filename("link"): "symlink (never followed)",
        record_filename("bad"): "missing front matter (file must start with '---')",
    }


def test_files_that_are_not_records_never_stop_a_scan(memdir: MemdirMemory) -> None:
    for i in range(12):
        memdir.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
        (memdir.records_dir / f"note{i}.md").write_text("x")
        (memdir.records_dir / f"other{i}.txt").write_text("x")
    scan = memdir.scan()
    assert [e.record.record_id for e in scan.entries] == [f"r{i}" for i in range(12)]
    assert sorted(r.path.name for r in scan.rejected) == sorted(f"note{i}.md" for i in range(12))


def test_a_record_deleted_while_a_scan_runs_is_skipped_and_the_scan_goes_on(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(6):
        _raw(memdir, f"r{i}", f"fact {i}")
    order = os.listdir(memdir.records_dir)  # the order the scan meets the files in
    victim = memdir.records_dir / order[1]
    real_parse = memdir_module.parse_record

    def parse_record(data: bytes, *, expected_name: str):  # type: ignore[no-untyped-def]
        # Another process deletes the second file while the scan parses the first (fault injection).
        if expected_name == order[0] and victim.exists():
            victim.unlink()
        return real_parse(data, expected_name=expected_name)

    monkeypatch.setattr(memdir_module, "parse_record", parse_record)
    scan = memdir.scan()
    assert sorted(e.path.name for e in scan.entries) == sorted(order[:1] + order[2:])
    assert scan.rejected == []


def test_rejected_global_files_come_before_local_ones(tmp_path: Path) -> None:
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    (shared.records_dir / "g.md").write_text("x")
    local = MemdirMemory(str(tmp_path / "local"), create=True, global_memory_dir=str(tmp_path / "global"))
    (local.records_dir / "l.md").write_text("x")
    assert [(r.scope, r.path.name) for r in local.scan().rejected] == [("global", "g.md"), ("local", "l.md")]
    assert [(r.scope, r.path.name) for r in local.scan(include_global=False).rejected] == [("local", "l.md")]


def test_without_a_global_root_a_scan_lists_the_local_records(memdir: MemdirMemory) -> None:
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    assert [(e.record.record_id, e.scope) for e in memdir.scan(include_global=False).entries] == [
        ("x", "local")
    ]


# ----- the parse cache --------------------------------------------------------------------------


def test_a_parse_younger_than_the_racy_margin_is_never_reused(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", NEVER_TRUSTED)
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    parsed = _count_parses(monkeypatch)
    memdir.retrieve()
    memdir.retrieve()
    assert parsed == [record_filename("x")] * 2


def test_a_trusted_parse_of_an_unchanged_file_is_reused(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    parsed = _count_parses(monkeypatch)
    assert [r.content for r in memdir.retrieve()] == ["x"]
    assert [r.content for r in memdir.retrieve()] == ["x"]
    assert parsed == [record_filename("x")]


def test_a_parse_exactly_the_racy_margin_after_the_change_is_not_trusted(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    ctime = os.stat(memdir.records_dir / record_filename("x")).st_ctime_ns
    now = ctime + 7_000
    monkeypatch.setattr(memdir_module, "time", types.SimpleNamespace(time_ns=lambda: now))
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", 7_000)
    parsed = _count_parses(monkeypatch)
    memdir.retrieve()
    memdir.retrieve()
    assert len(parsed) == 2
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", 6_999)
    memdir.retrieve()  # one nanosecond older than the margin: trusted from now on
    memdir.retrieve()
    assert len(parsed) == 3


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ctime, which user space cannot set back, tells the edit apart."""
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    memdir.append(MemoryRecord("user", "aaaa", 0, record_id="c"))
    path = memdir.records_dir / record_filename("c")
    assert memdir.retrieve()[0].content == "aaaa"
    before = os.stat(path)
    fd = os.open(path, os.O_WRONLY)
    os.write(fd, path.read_bytes().replace(b"aaaa", b"bbbb"))
    os.close(fd)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert memdir.retrieve()[0].content == "bbbb"


def test_a_same_size_edit_is_seen_through_a_trusted_parse(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    memdir.append(MemoryRecord("user", "aaaa", 0, record_id="c"))
    path = memdir.records_dir / record_filename("c")
    assert memdir.retrieve()[0].content == "aaaa"
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"aaaa", b"bbbb"))  # same inode, same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert memdir.retrieve()[0].content == "bbbb"


def test_a_record_replaced_by_a_new_file_of_the_same_size_and_times_is_seen(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    memdir.append(MemoryRecord("user", "aaaa", 0, record_id="c"))
    path = memdir.records_dir / record_filename("c")
    assert memdir.retrieve()[0].content == "aaaa"
    data = path.read_bytes().replace(b"aaaa", b"bbbb")
    spare = memdir.root / "spare"
    spare.write_bytes(data)
    os.replace(spare, path)  # a new inode of the same size
    assert memdir.retrieve()[0].content == "bbbb"


def test_pruning_the_parses_of_deleted_files_keeps_the_present_ones(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    for rid in ("a", "b", "c"):
        memdir.append(MemoryRecord("user", rid, 0, record_id=rid))
    memdir.retrieve()
    (memdir.records_dir / record_filename("b")).unlink()  # deleted by another process
    parsed = _count_parses(monkeypatch)
    assert [r.record_id for r in memdir.retrieve()] == ["a", "c"]
    assert [r.record_id for r in memdir.retrieve()] == ["a", "c"]
    assert parsed == []


def test_a_recalled_records_metadata_belongs_to_the_caller(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", ALWAYS_TRUSTED)
    memdir.append(MemoryRecord("user", "x", 0, metadata={"k": 1}, record_id="x"))
    memdir.retrieve()[0].metadata["k"] = 2
    memdir.scan().entries[0].record.metadata["k"] = 3
    assert memdir.retrieve()[0].metadata == {"k": 1}


# ----- the index --------------------------------------------------------------------------------


def test_a_missing_or_undecodable_index_is_not_current(memdir: MemdirMemory) -> None:
    memdir.append(MemoryRecord("user", "x", 0))
    assert memdir.index_is_current()
    memdir.index_path.unlink()
    assert memdir.index_is_current() is False
    memdir.index_path.write_bytes(INDEX_HEAD.encode() + b"\xff\xfe")
    assert memdir.index_is_current() is False


def test_the_first_write_lists_from_its_scan_and_reads_older_records_back_when_they_come_into_view(
    tmp_path: Path,
) -> None:
    """The first write's one scan gives the lines of the records MEMORY.md can show; the older
    ones are read from their files only once a delete brings them into view."""
    root = str(tmp_path / "m")
    writer = MemdirMemory(root, create=True, max_index_entries=2)
    for i in range(5):
        writer.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    memory = MemdirMemory(root, max_index_entries=2)
    memory.append(MemoryRecord("user", "fact 5", 5, record_id="r5"))  # the scan: r0..r4 on disk
    for rid in ("r2", "r3"):  # edited by hand after that scan
        path = memory.records_dir / record_filename(rid)
        path.write_text(path.read_text(encoding="utf-8").replace("fact", "edited"), encoding="utf-8")
    memory.delete("r5")
    memory.delete("r4")
    text = memory.index_path.read_text(encoding="utf-8")
    assert _listed_ids(memory) == ["r3", "r2"]
    assert "` fact 3\n" in text  # r3 was in view at the scan: its line came from it
    assert "` edited 2\n" in text  # r2 was not: read back from its file when it came into view


def test_a_derived_index_write_is_never_flushed(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memdir.append(MemoryRecord("user", "warm up", 0))
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    memdir.rebuild_index()
    assert flushed == []
    assert memdir.index_is_current()


def test_a_delete_flushes_the_records_directory(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memdir.append(MemoryRecord("user", "x", 0, record_id="x"))
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert memdir.delete("x") is True
    assert flushed == ["records"]


def test_a_record_swapped_for_a_symlink_before_it_is_opened_is_refused_not_followed(
    memdir: MemdirMemory, tmp_path: Path
) -> None:
    """The scan lstat()s a regular file, then opens it: if it became a link in between, the open
    refuses to follow it (the link could point anywhere on the machine)."""
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("---\nrecord_id: a\nrole: user\nstep_id: 0\n---\nnot ours", encoding="utf-8")
    path = memdir.records_dir / record_filename("a")
    path.symlink_to(elsewhere)
    assert memdir._parse(str(path)) == f"unreadable: {os.strerror(errno.ELOOP)}"
