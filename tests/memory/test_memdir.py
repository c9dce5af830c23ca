"""MemdirMemory: restore vs create, stable identity, fresh disk recall, forgetting, the index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from waits import block_until

from qitos.core.memory import MemoryRecord, MemoryResourceError
from qitos.kit.memory import memdir_memory as memdir_module
from qitos.kit.memory.memdir_format import record_filename
from qitos.kit.memory.memdir_memory import MemdirMemory


def _write_raw(memory: MemdirMemory, record_id: str, body: str, *, role: str = "user", step: int = 0) -> Path:
    """Write a record file by hand, the way an editor or another tool would."""
    path = memory.records_dir / record_filename(record_id)
    path.write_text(
        f"---\nrecord_id: {record_id}\nrole: {role}\nstep_id: {step}\n---\n{body}", encoding="utf-8"
    )
    return path


# ----- restore and create ------------------------------------------------------------------------


def test_restore_of_missing_root_fails_and_creates_nothing(tmp_path: Path) -> None:
    """The default (restore) raises MemoryResourceError for a missing root and creates no files."""
    root = tmp_path / "a" / "mem"
    with pytest.raises(MemoryResourceError, match="does not exist"):
        MemdirMemory(str(root))
    assert not (tmp_path / "a").exists()


def test_restore_of_uninitialised_directory_fails(tmp_path: Path) -> None:
    """An existing directory without records/ is not silently initialised on restore."""
    (tmp_path / "plain").mkdir()
    with pytest.raises(MemoryResourceError, match="not an initialised"):
        MemdirMemory(str(tmp_path / "plain"))
    assert list((tmp_path / "plain").iterdir()) == []


def test_restore_of_a_file_fails(tmp_path: Path) -> None:
    """A root path that is a regular file is refused."""
    (tmp_path / "f").write_text("x")
    with pytest.raises(MemoryResourceError, match="not a directory"):
        MemdirMemory(str(tmp_path / "f"))


def test_create_initialises_and_restore_reopens(tmp_path: Path) -> None:
    """create=True makes records/ and MEMORY.md; a later default open restores the same records."""
    root = tmp_path / "mem"
    memory = MemdirMemory(str(root), create=True)
    assert (root / "records").is_dir() and (root / "MEMORY.md").is_file()
    record = MemoryRecord("user", "remembered-value=17", 0)
    memory.append(record)
    again = MemdirMemory(str(root))
    assert [(r.record_id, r.content) for r in again.retrieve()] == [(record.record_id, "remembered-value=17")]


def test_create_on_existing_root_keeps_records(memdir: MemdirMemory) -> None:
    """create=True on an initialised root is idempotent and loses nothing."""
    memdir.append(MemoryRecord("user", "keep me", 0))
    again = MemdirMemory(str(memdir.root), create=True)
    assert [r.content for r in again.retrieve()] == ["keep me"]


def test_constructor_rejects_bad_limits(tmp_path: Path) -> None:
    """Negative or non-int index limits are refused with a message naming the parameter."""
    with pytest.raises(ValueError, match="max_index_entries"):
        MemdirMemory(str(tmp_path), create=True, max_index_entries=-1)
    with pytest.raises(ValueError, match="max_index_chars"):
        MemdirMemory(str(tmp_path), create=True, max_index_chars="10")  # type: ignore[arg-type]


def test_documented_defaults() -> None:
    """The constructor defaults are the documented ones."""
    import inspect

    params = inspect.signature(MemdirMemory).parameters
    assert params["memory_dir"].default == ".qitos/memory"
    assert params["global_memory_dir"].default is None
    assert params["create"].default is False
    assert params["max_index_entries"].default == 200
    assert params["max_index_chars"].default == 25000


# ----- identity and format -----------------------------------------------------------------------


def test_one_file_per_record_named_from_id_hash(memdir: MemdirMemory) -> None:
    """Each record is one file named sha256(id)[:32].md, with front matter and the text as body."""
    record = MemoryRecord("assistant", "hello\nworld", 3, metadata={"k": [1, "x"]}, record_id="r-1")
    memdir.clock = lambda: "2026-01-01T00:00:00+00:00"
    memdir.append(record)
    path = memdir.records_dir / record_filename("r-1")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(
        "---\nrecord_id: r-1\nrole: assistant\nstep_id: 3\ncreated: 2026-01-01T00:00:00+00:00\n"
    )
    assert 'metadata: {"k": [1, "x"]}\n---\nhello\nworld' in text
    assert text.endswith("---\nhello\nworld")
    [back] = memdir.retrieve()
    assert back == record


def test_equal_facts_are_distinct_records(memdir: MemdirMemory) -> None:
    """Two equal facts appended independently stay two records with two files."""
    memdir.append(MemoryRecord("user", "same", 0))
    memdir.append(MemoryRecord("user", "same", 0))
    records = memdir.retrieve()
    assert len(records) == 2 and records[0].record_id != records[1].record_id
    assert len(list(memdir.records_dir.iterdir())) == 2


def test_reappending_an_id_replaces_that_record(memdir: MemdirMemory) -> None:
    """The same record_id names the same fact: appending it again updates, not duplicates."""
    memdir.append(MemoryRecord("user", "v1", 0, record_id="fact"))
    memdir.append(MemoryRecord("user", "v2", 1, record_id="fact"))
    assert [(r.content, r.step_id) for r in memdir.retrieve()] == [("v2", 1)]


def test_records_come_back_in_append_order(memdir: MemdirMemory) -> None:
    """Recall is oldest first, independent of file-name (hash) order."""
    ids = [f"id{i}" for i in range(20)]
    for i, rid in enumerate(ids):
        memdir.append(MemoryRecord("user", f"fact {i}", i, record_id=rid))
    assert [r.record_id for r in memdir.retrieve()] == ids


@pytest.mark.parametrize("bad", ["", "../x", "a/b", ".hidden", "a b", "x\ny", "é", "a" * 129, ":x"])
def test_malformed_record_ids_are_rejected(memdir: MemdirMemory, bad: str) -> None:
    """Ids with path tricks, whitespace or outside the id alphabet are refused on append and delete."""
    with pytest.raises(ValueError, match="record_id"):
        memdir.append(MemoryRecord("user", "x", 0, record_id=bad))
    with pytest.raises(ValueError, match="record_id"):
        memdir.delete(bad)
    assert list(memdir.records_dir.iterdir()) == []


def test_invalid_records_are_rejected_not_repaired(memdir: MemdirMemory) -> None:
    """Bad role, step, metadata or content raise clear errors and write nothing."""
    with pytest.raises(ValueError, match="role"):
        memdir.append(MemoryRecord("us\ner", "x", 0))
    with pytest.raises(ValueError, match="step_id"):
        memdir.append(MemoryRecord("user", "x", "1"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="metadata"):
        memdir.append(MemoryRecord("user", "x", 0, metadata={"f": object()}))
    with pytest.raises(TypeError, match="not storable"):
        memdir.append(MemoryRecord("user", object(), 0))
    with pytest.raises(ValueError, match="UTF-8"):
        memdir.append(MemoryRecord("user", "bad \ud800 surrogate", 0))
    with pytest.raises(TypeError, match="MemoryRecord"):
        memdir.append({"role": "user"})  # type: ignore[arg-type]
    assert list(memdir.records_dir.iterdir()) == []


def test_json_content_is_stored_as_text(memdir: MemdirMemory) -> None:
    """Non-str JSON content is stored as its JSON text (documented: not a round-trip API)."""
    memdir.append(MemoryRecord("tool", {"b": 1, "a": [1, 2]}, 0))
    assert memdir.retrieve()[0].content == '{"a": [1, 2], "b": 1}'


# ----- fresh recall ------------------------------------------------------------------------------


def test_external_edit_shows_at_once_even_same_size(memdir: MemdirMemory) -> None:
    """An in-place edit keeping the size, right after a recall, is seen by the next recall."""
    memdir.append(MemoryRecord("user", "colour=red", 0, record_id="c"))
    assert memdir.retrieve()[0].content == "colour=red"
    path = memdir.records_dir / record_filename("c")
    data = path.read_bytes()
    fd = os.open(path, os.O_WRONLY)  # in place: same inode, same size
    os.write(fd, data.replace(b"colour=red", b"colour=tan"))
    os.close(fd)
    assert memdir.retrieve()[0].content == "colour=tan"
    assert "colour=tan" in memdir.summarize()


def test_cached_parse_is_invalidated_by_an_edit(
    memdir: MemdirMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a parse is cached (file older than the racy margin), an edit still invalidates it."""
    import time

    monkeypatch.setattr(memdir_module, "RACY_MARGIN_NS", 30_000_000)
    memdir.append(MemoryRecord("user", "aaaa", 0, record_id="c"))
    key = str(memdir.records_dir / record_filename("c"))
    # The file's age is the behaviour: a parse is cached only once the file is older than the margin.
    block_until(
        lambda: os.stat(key).st_ctime_ns + memdir_module.RACY_MARGIN_NS < time.time_ns(),
        what="the record to be older than the racy margin",
    )
    assert memdir.retrieve()[0].content == "aaaa"
    assert key in memdir._cache  # the parse is now cached
    assert memdir.retrieve()[0].content == "aaaa"  # served from the cache
    path = Path(key)
    fd = os.open(path, os.O_WRONLY)
    os.write(fd, path.read_bytes().replace(b"aaaa", b"bbbb"))
    os.close(fd)
    assert memdir.retrieve()[0].content == "bbbb"


def test_external_addition_and_deletion_show_at_once(memdir: MemdirMemory) -> None:
    """A file added or removed by another process appears/disappears on the next recall."""
    memdir.append(MemoryRecord("user", "mine", 0, record_id="mine"))
    memdir.retrieve()
    path = _write_raw(memdir, "theirs", "from another process", role="assistant", step=4)
    assert {r.record_id for r in memdir.retrieve()} == {"mine", "theirs"}
    path.unlink()
    assert [r.record_id for r in memdir.retrieve()] == ["mine"]
    other = MemdirMemory(str(memdir.root))
    other.append(MemoryRecord("user", "second writer", 1, record_id="w2"))
    assert [r.record_id for r in memdir.retrieve()] == ["mine", "w2"]
    assert "second writer" in memdir.summarize()


def test_summarize_reads_records_not_index(memdir: MemdirMemory) -> None:
    """summarize shows the edited record text even though MEMORY.md still has the old snippet."""
    memdir.append(MemoryRecord("user", "old text here", 0, record_id="s"))
    index_before = memdir.index_path.read_text()
    _write_raw(memdir, "s", "new text")
    assert memdir.index_path.read_text() == index_before
    assert memdir.summarize() == "- [user @ step 0] new text"
    assert memdir.summarize(max_items=0) == ""


def test_summarize_keeps_the_newest(memdir: MemdirMemory) -> None:
    """max_items keeps the newest records; the default is 30."""
    for i in range(35):
        memdir.append(MemoryRecord("user", f"n{i}", i))
    lines = memdir.summarize().splitlines()
    assert len(lines) == 30 and lines[0].endswith("n5") and lines[-1].endswith("n34")
    assert memdir.summarize(2).splitlines() == ["- [user @ step 33] n33", "- [user @ step 34] n34"]


def test_query_filters(memdir: MemdirMemory) -> None:
    """role, step_id, since_step, text, record_ids and limit filter the fresh records."""
    memdir.append(MemoryRecord("user", "Alpha beta", 0, record_id="a"))
    memdir.append(MemoryRecord("assistant", "gamma", 1, record_id="b"))
    memdir.append(MemoryRecord("user", "BETA again", 2, record_id="c"))
    ids = lambda q: [r.record_id for r in memdir.retrieve(q)]  # noqa: E731
    assert ids({"role": "user"}) == ["a", "c"]
    assert ids({"role": ["assistant"]}) == ["b"]
    assert ids({"step_id": 1}) == ["b"]
    assert ids({"since_step": 1}) == ["b", "c"]
    assert ids({"text": "beta"}) == ["a", "c"]
    assert ids({"record_ids": ["c", "a"]}) == ["a", "c"]
    assert ids({"limit": 2}) == ["b", "c"]
    assert ids({"limit": 0}) == []
    with pytest.raises(ValueError, match="unknown memory query key"):
        memdir.retrieve({"colour": "red"})
    with pytest.raises(ValueError, match="limit"):
        memdir.retrieve({"limit": -1})
    with pytest.raises(ValueError, match="role"):
        memdir.retrieve({"role": 3})


# ----- rejected files ----------------------------------------------------------------------------


def test_malformed_and_symlinked_files_are_never_recalled_and_reported(
    memdir: MemdirMemory, tmp_path: Path
) -> None:
    """scan() lists each bad file with a reason; retrieve never returns them."""
    memdir.append(MemoryRecord("user", "good", 0, record_id="good"))
    outside = tmp_path / "outside.md"
    outside.write_text("---\nrecord_id: evil\nrole: user\nstep_id: 0\n---\nsecret outside the root")
    (memdir.records_dir / record_filename("evil")).symlink_to(outside)
    (memdir.records_dir / record_filename("nohdr")).write_text("no front matter")
    (memdir.records_dir / record_filename("open")).write_text("---\nrecord_id: open\n")
    (memdir.records_dir / record_filename("badstep")).write_text(
        "---\nrecord_id: badstep\nrole: u\nstep_id: x\n---\n"
    )
    (memdir.records_dir / record_filename("bin")).write_bytes(b"---\nrecord_id: bin\n\xff\xfe")
    (memdir.records_dir / record_filename("renamed")).write_text(
        "---\nrecord_id: other\nrole: u\nstep_id: 0\n---\nx"
    )
    (memdir.records_dir / "notes.md").write_text("hand-written")
    (memdir.records_dir / record_filename("crlf")).write_bytes(b"---\r\nrecord_id: crlf\r\n---\r\nx")
    (memdir.records_dir / record_filename("dir")).mkdir()
    scan = memdir.scan()
    assert [e.record.record_id for e in scan.entries] == ["good"]
    reasons = {p.path.name: p.reason for p in scan.rejected}
    assert reasons[record_filename("evil")].startswith("symlink")
    assert "missing front matter" in reasons[record_filename("nohdr")]
    assert "unterminated" in reasons[record_filename("open")]
    assert "step_id" in reasons[record_filename("badstep")]
    assert "UTF-8" in reasons[record_filename("bin")]
    assert "does not match" in reasons[record_filename("renamed")]
    assert "not a record hash" in reasons["notes.md"]
    assert "CRLF" in reasons[record_filename("crlf")]
    assert "regular file" in reasons[record_filename("dir")]
    assert all(r.scope == "local" for r in scan.rejected)
    assert [r.record_id for r in memdir.retrieve()] == ["good"]
    assert "secret outside" not in memdir.summarize()


def test_symlinked_records_dir_is_refused(tmp_path: Path) -> None:
    """A records/ that is a symlink (out of the root) is refused on open."""
    root = tmp_path / "mem"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / "records").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(MemoryResourceError):
        MemdirMemory(str(root))
    with pytest.raises(MemoryResourceError, match="symlink"):
        MemdirMemory(str(root), create=True)


def test_records_dir_swapped_for_symlink_later_is_refused(memdir: MemdirMemory, tmp_path: Path) -> None:
    """If records/ is replaced by a symlink after opening, reads and writes refuse to follow it."""
    (tmp_path / "elsewhere").mkdir()
    memdir.records_dir.rmdir()
    memdir.records_dir.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(MemoryResourceError, match="not a real directory"):
        memdir.retrieve()
    with pytest.raises(MemoryResourceError):
        memdir.append(MemoryRecord("user", "x", 0))
    assert list((tmp_path / "elsewhere").iterdir()) == []


# ----- reset / evict / delete --------------------------------------------------------------------


def test_reset_and_evict_touch_only_the_append_cache(memdir: MemdirMemory) -> None:
    """evict returns the cached count and clears it; records on disk stay recallable."""
    memdir.append(MemoryRecord("user", "a", 0))
    memdir.append(MemoryRecord("user", "b", 1))
    assert len(memdir.recent_appends) == 2
    assert memdir.evict() == 2 and memdir.evict() == 0
    assert [r.content for r in memdir.retrieve()] == ["a", "b"]
    memdir.append(MemoryRecord("user", "c", 2))
    memdir.reset("run-2")
    assert memdir.recent_appends == []
    assert [r.content for r in memdir.retrieve()] == ["a", "b", "c"]


def test_delete_removes_record_and_index_entry(memdir: MemdirMemory, events: list) -> None:
    """delete removes the hashed file and its MEMORY.md line, returns True, then False when absent."""
    memdir.append(MemoryRecord("user", "forget me", 0, record_id="f1"))
    memdir.append(MemoryRecord("user", "keep me", 1, record_id="k1"))
    assert "`f1`" in memdir.index_path.read_text()
    assert memdir.delete("f1") is True
    assert not (memdir.records_dir / record_filename("f1")).exists()
    assert "`f1`" not in memdir.index_path.read_text() and "`k1`" in memdir.index_path.read_text()
    assert [r.record_id for r in memdir.retrieve()] == ["k1"]
    assert memdir.delete("f1") is False
    assert memdir.delete("never-existed") is False
    deletes = [p for k, p in events if k == "memory_delete"]
    assert deletes == [
        {"record_id": "f1", "namespace": "mem", "removed": True},
        {"record_id": "f1", "namespace": "mem", "removed": False},
        {"record_id": "never-existed", "namespace": "mem", "removed": False},
    ]


def test_delete_refuses_symlinked_or_malformed_resources(memdir: MemdirMemory, tmp_path: Path) -> None:
    """A symlink at the record's path, or a malformed file, is refused and left in place."""
    target = tmp_path / "target.md"
    target.write_text("---\nrecord_id: s\nrole: user\nstep_id: 0\n---\nx")
    link = memdir.records_dir / record_filename("s")
    link.symlink_to(target)
    with pytest.raises(MemoryResourceError, match="symlink"):
        memdir.delete("s")
    assert link.is_symlink() and target.exists()
    bad = memdir.records_dir / record_filename("m")
    bad.write_text("garbage")
    with pytest.raises(MemoryResourceError, match="malformed"):
        memdir.delete("m")
    assert bad.exists()


def test_delete_never_touches_global_memory(tmp_path: Path) -> None:
    """A record that exists only in global memory is not deleted (False) and stays recallable."""
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    shared.append(MemoryRecord("user", "global fact", 0, record_id="g"))
    local = MemdirMemory(str(tmp_path / "local"), create=True, global_memory_dir=str(tmp_path / "global"))
    local.append(MemoryRecord("user", "local fact", 1, record_id="l"))
    assert [(r.record_id, r.content) for r in local.retrieve()] == [("g", "global fact"), ("l", "local fact")]
    assert local.delete("g") is False
    assert (shared.records_dir / record_filename("g")).exists()
    assert [e.scope for e in local.scan().entries] == ["global", "local"]
    # Global memory is read-only for recall: appends land in the local root only.
    assert [p.name for p in shared.records_dir.iterdir()] == [record_filename("g")]
    assert "global fact" not in local.index_path.read_text()


def test_global_memory_dir_must_exist(tmp_path: Path) -> None:
    """A missing global root is a resource error; it is never created."""
    with pytest.raises(MemoryResourceError, match="global_memory_dir"):
        MemdirMemory(str(tmp_path / "l"), create=True, global_memory_dir=str(tmp_path / "g"))
    assert not (tmp_path / "g").exists()


def test_local_record_shadows_global_with_same_id(tmp_path: Path) -> None:
    """A local record with the same identity as a global one wins in recall."""
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    shared.append(MemoryRecord("user", "global", 0, record_id="x"))
    local = MemdirMemory(str(tmp_path / "local"), create=True, global_memory_dir=str(tmp_path / "global"))
    local.append(MemoryRecord("user", "local", 0, record_id="x"))
    assert [r.content for r in local.retrieve()] == ["local"]


# ----- the index ---------------------------------------------------------------------------------


def test_index_lists_newest_first_within_entry_cap(tmp_path: Path) -> None:
    """MEMORY.md holds at most max_index_entries lines, newest first, and says how many are left out."""
    memory = MemdirMemory(str(tmp_path / "m"), create=True, max_index_entries=3)
    for i in range(5):
        memory.append(MemoryRecord("user", f"fact {i}", i, record_id=f"r{i}"))
    text = memory.index_path.read_text()
    listed = [line for line in text.splitlines() if line.startswith("- [")]
    assert [line.split("`")[1] for line in listed] == ["r4", "r3", "r2"]
    assert "2 older record(s) not listed" in text
    assert memory.index_is_current()


def test_index_respects_char_cap(tmp_path: Path) -> None:
    """MEMORY.md never exceeds max_index_chars, whatever the records hold."""
    memory = MemdirMemory(str(tmp_path / "m"), create=True, max_index_chars=400)
    for i in range(30):
        memory.append(MemoryRecord("user", "long " * 50 + str(i), i))
    text = memory.index_path.read_text()
    assert 0 < len(text) <= 400
    assert "not listed" in text


def test_index_is_rebuilt_after_external_change(memdir: MemdirMemory) -> None:
    """An external addition makes the index stale; rebuild_index makes it current again."""
    memdir.append(MemoryRecord("user", "a", 0))
    _write_raw(memdir, "ext", "external")
    assert not memdir.index_is_current()
    memdir.rebuild_index()
    assert memdir.index_is_current() and "`ext`" in memdir.index_path.read_text()


def test_writes_leave_no_temp_files(memdir: MemdirMemory) -> None:
    """Atomic writes rename their temp files away; nothing but records remains."""
    for i in range(5):
        memdir.append(MemoryRecord("user", str(i), i))
    memdir.delete(memdir.retrieve()[0].record_id)
    assert all(not p.name.startswith(".tmp-") for p in memdir.records_dir.iterdir())
    assert sorted(p.name for p in memdir.root.iterdir()) == ["MEMORY.md", "records"]


def test_stale_temp_files_are_swept_and_never_recalled(memdir: MemdirMemory) -> None:
    """A temp file abandoned by a killed writer is ignored by recall and swept on the next write."""
    stale = memdir.records_dir / ".tmp-deadbeef.part"
    stale.write_text("---\nrecord_id: half\nrole: user\nstep_id: 0\n---\nhalf-writ")
    os.utime(stale, (1, 1))
    assert memdir.retrieve() == [] and memdir.scan().rejected == []
    memdir.append(MemoryRecord("user", "x", 0))
    assert not stale.exists()


# ----- events ------------------------------------------------------------------------------------


def test_append_and_recall_emit_run_events(memdir: MemdirMemory, events: list) -> None:
    """append and retrieve emit memory_append / memory_recall with the documented fields."""
    memdir.append(MemoryRecord("user", "héllo", 2, record_id="e1"))
    memdir.retrieve({"role": "user"})
    assert events[0] == (
        "memory_append",
        {"record_id": "e1", "role": "user", "step_id": 2, "namespace": "mem", "chars": 5},
    )
    assert events[1] == (
        "memory_recall",
        {
            "namespace": "mem",
            "query": {"role": "user"},
            "record_ids": ["e1"],
            "records": [{"record_id": "e1", "role": "user", "content": "héllo"}],
        },
    )


def test_no_events_outside_a_run(memdir: MemdirMemory) -> None:
    """Used from a plain script (no bound sink) the memory works and records no events."""
    from qitos.trace import sink

    assert not sink.active()
    memdir.append(MemoryRecord("user", "x", 0))
    assert len(memdir.retrieve()) == 1


def test_threads_share_one_instance_safely(memdir: MemdirMemory) -> None:
    """Recall from several threads while another thread appends and deletes raises nothing."""
    import threading

    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                memdir.retrieve()
                memdir.scan()
        except BaseException as exc:  # collected and asserted below: a failure must not vanish
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for i in range(60):
        memdir.append(MemoryRecord("user", f"t{i}", i, record_id=f"t{i}"))
        if i % 3 == 0:
            memdir.delete(f"t{i}")
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(memdir.retrieve()) == 40


def test_rejected_global_files_are_reported_with_their_scope(tmp_path: Path) -> None:
    """A malformed file in global memory is listed as rejected with scope 'global', never recalled."""
    shared = MemdirMemory(str(tmp_path / "global"), create=True)
    (shared.records_dir / record_filename("bad")).write_text("nonsense")
    local = MemdirMemory(str(tmp_path / "local"), create=True, global_memory_dir=str(tmp_path / "global"))
    scan = local.scan()
    assert [(r.scope, r.path.name) for r in scan.rejected] == [("global", record_filename("bad"))]
    assert local.retrieve() == [] and local.scan(include_global=False).rejected == []


def test_rebuild_index_sweeps_stale_temps(memdir: MemdirMemory) -> None:
    """An explicit rebuild also removes temp files a killed writer left behind."""
    memdir.append(MemoryRecord("user", "x", 0))
    stale = memdir.records_dir / ".tmp-0123.part"
    stale.write_text("half")
    os.utime(stale, (1, 1))
    memdir.rebuild_index()
    assert not stale.exists()
