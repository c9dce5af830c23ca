"""Exact tests of the crash-safe file primitives: what each write flushes and renames, what a failed
write leaves, what the reads and the temp sweep refuse, and how a held directory is kept."""

from __future__ import annotations

import errno
import os
import resource
import signal
import stat
import types
from pathlib import Path

import pytest

from qitos.kit.memory import atomic

NOW = 1_000_000.0  # the sweep's fixed clock: seconds
NOW_NS = int(NOW) * 1_000_000_000


def _temp_name(tag: str) -> str:
    """A name the sweep treats as an atomic-write temp file."""
    return f"{atomic.TEMP_PREFIX}{tag}{atomic.TEMP_SUFFIX}"


def _spy_on_writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Record every data flush, fsync and rename from now on as (what, which file); the real calls run."""
    calls: list[tuple[str, str]] = []
    real_flush, real_fsync, real_replace = atomic.flush_data, os.fsync, os.replace

    def described(fd: int) -> str:
        return os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))

    def flush_data(fd: int, dir_fd: int) -> str:
        calls.append(("flush data", described(fd)))
        return real_flush(fd, dir_fd)

    def fsync(fd: int) -> None:
        calls.append(("fsync", described(fd)))
        real_fsync(fd)

    def replace(src, dst, **kwargs):  # type: ignore[no-untyped-def]  # a spy: the real rename runs
        calls.append(("rename", f"{os.path.basename(src)} -> {dst}"))
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(atomic, "flush_data", flush_data)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return calls


# ----- what a write flushes and how it lands ----------------------------------------------------


def test_atomic_write_is_durable_by_default_data_then_rename_then_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(tmp_path / "target.md", b"payload")
    assert [kind for kind, _ in calls] == ["flush data", "rename", "fsync"]
    assert calls[0][1].startswith(atomic.TEMP_PREFIX) and calls[0][1].endswith(atomic.TEMP_SUFFIX)
    assert calls[1][1] == f"{calls[0][1]} -> target.md"
    assert calls[2][1] == tmp_path.name  # the directory holding the new name
    assert (tmp_path / "target.md").read_bytes() == b"payload"


def test_a_non_durable_write_flushes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(tmp_path / "MEMORY.md", b"derived", durable=False)
    assert [kind for kind, _ in calls if kind != "rename"] == []
    assert (tmp_path / "MEMORY.md").read_bytes() == b"derived"


def test_a_durable_rewrite_of_an_existing_file_renames_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "record.md"
    target.write_bytes(b"old")
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(target, b"new")
    assert [kind for kind, _ in calls] == ["flush data", "rename", "fsync"]
    assert target.read_bytes() == b"new"


@pytest.mark.skipif(atomic._renameat2 is None, reason="needs renameat2 (Linux)")
def test_a_non_durable_rewrite_of_an_existing_file_swaps_it_in_without_a_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old index")
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(target, b"new index", durable=False)
    assert calls == []
    assert target.read_bytes() == b"new index"
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]  # the old bytes went with the temp


def test_the_swap_reports_whether_it_exchanged(tmp_path: Path) -> None:
    if atomic._renameat2 is None:
        pytest.skip("needs renameat2 (Linux)")
    (tmp_path / "tmp").write_bytes(b"new")
    dir_fd = atomic.open_dir(tmp_path)
    try:
        assert atomic._swap_in(dir_fd, "tmp", "absent") is False  # nothing to exchange with
        assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]
        (tmp_path / "target").write_bytes(b"old")
        assert atomic._swap_in(dir_fd, "tmp", "target") is True
    finally:
        os.close(dir_fd)
    assert [p.name for p in tmp_path.iterdir()] == ["target"]
    assert (tmp_path / "target").read_bytes() == b"new"


def test_without_renameat2_the_swap_declines_and_the_write_renames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "_renameat2", None)
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old index")
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(target, b"new index", durable=False)
    assert [kind for kind, _ in calls] == ["rename"]
    assert target.read_bytes() == b"new index"


def test_a_written_file_gets_mode_0644_less_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        atomic.atomic_write(tmp_path / "open.md", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "open.md").stat().st_mode) == 0o644


def test_every_byte_of_a_large_write_lands(tmp_path: Path) -> None:
    data = bytes(range(256)) * (3 * 4096 + 7)
    atomic.atomic_write(tmp_path / "big", data)
    assert (tmp_path / "big").read_bytes() == data


def test_a_write_cut_short_by_the_file_size_limit_fails_and_leaves_no_torn_target(tmp_path: Path) -> None:
    """A short write (here past RLIMIT_FSIZE) is followed by another: the error it meets is raised
    instead of a truncated file being renamed into place."""
    target = tmp_path / "target.md"
    target.write_bytes(b"old")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(OSError) as raised:
            atomic.atomic_write(target, b"x" * 10_000)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert raised.value.errno == errno.EFBIG
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["target.md"]


def test_a_write_that_fails_leaves_neither_the_target_nor_a_temp(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        atomic.atomic_write(tmp_path / "target.md", "not bytes")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_a_rename_that_fails_removes_its_temp_and_keeps_the_target(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()  # a file cannot be renamed over a directory
    (tmp_path / "target" / "inside").write_bytes(b"kept")
    with pytest.raises(IsADirectoryError):
        atomic.atomic_write(tmp_path / "target", b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["target"]
    assert (tmp_path / "target" / "inside").read_bytes() == b"kept"


def test_a_planted_file_at_the_temp_name_is_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic.os, "urandom", lambda n: b"\x00" * n)
    planted = tmp_path / _temp_name("00" * 16)
    outside = tmp_path / "outside"
    outside.write_bytes(b"precious")
    planted.symlink_to(outside)
    with pytest.raises(FileExistsError):
        atomic.atomic_write(tmp_path / "target", b"attack")
    assert outside.read_bytes() == b"precious"
    assert planted.is_symlink()  # not ours: the failed write leaves it, the sweep removes it later
    assert not (tmp_path / "target").exists()


def test_the_temp_name_carries_32_random_hex_digits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real_urandom = os.urandom

    def urandom(n: int) -> bytes:
        asked.append(n)
        return real_urandom(n)

    monkeypatch.setattr(atomic.os, "urandom", urandom)
    calls = _spy_on_writes(monkeypatch)
    atomic.atomic_write(tmp_path / "target", b"x")
    assert asked == [16]
    name = calls[0][1]
    assert len(name) == len(atomic.TEMP_PREFIX) + 32 + len(atomic.TEMP_SUFFIX)


# ----- reads and directories --------------------------------------------------------------------


def test_read_no_follow_returns_every_byte_past_one_read_chunk(tmp_path: Path) -> None:
    data = os.urandom(3 * (1 << 20) + 5)
    (tmp_path / "big").write_bytes(data)
    assert atomic.read_no_follow(tmp_path / "big") == data


def test_read_no_follow_refuses_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"secret")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OSError) as raised:
        atomic.read_no_follow(tmp_path / "link")
    assert raised.value.errno == errno.ELOOP


def test_open_dir_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(NotADirectoryError):
        atomic.open_dir(tmp_path / "file")


def test_open_dir_follows_a_symlink_unless_told_not_to(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    fd = atomic.open_dir(tmp_path / "link")
    try:
        assert os.fstat(fd).st_ino == (tmp_path / "real").stat().st_ino
    finally:
        os.close(fd)
    with pytest.raises(OSError) as raised:
        atomic.open_dir(tmp_path / "link", follow=False)
    assert raised.value.errno in (errno.ELOOP, errno.ENOTDIR)  # Linux says ENOTDIR for a directory open


def test_fsync_dir_flushes_the_directory_and_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = len(os.listdir("/proc/self/fd"))
    calls = _spy_on_writes(monkeypatch)
    atomic.fsync_dir(tmp_path)
    assert calls == [("fsync", tmp_path.name)]
    assert len(os.listdir("/proc/self/fd")) == before


# ----- the temp sweep ---------------------------------------------------------------------------


def _age(path: Path, mtime_ns: int) -> None:
    """Set a file's (or a symlink's own) modification time."""
    os.utime(path, ns=(mtime_ns, mtime_ns), follow_symlinks=False)


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep reads NOW as the current time."""
    monkeypatch.setattr(atomic, "time", types.SimpleNamespace(time=lambda: NOW))


@pytest.mark.usefixtures("fixed_clock")
def test_the_sweep_removes_temps_older_than_a_minute_and_counts_them(tmp_path: Path) -> None:
    stale = [tmp_path / _temp_name(f"stale{i}") for i in range(3)]
    for path in stale:
        path.write_bytes(b"abandoned")
        _age(path, NOW_NS - 61 * 1_000_000_000)
    edge = tmp_path / _temp_name("edge")
    edge.write_bytes(b"exactly a minute old")
    _age(edge, NOW_NS - 60 * 1_000_000_000)
    just_past = tmp_path / _temp_name("just-past")
    just_past.write_bytes(b"a minute and a bit")
    _age(just_past, NOW_NS - 60 * 1_000_000_000 - 1_000)
    assert atomic.sweep_stale_temps(tmp_path) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == [edge.name]


@pytest.mark.usefixtures("fixed_clock")
def test_the_sweep_takes_its_age_limit_from_the_caller(tmp_path: Path) -> None:
    path = tmp_path / _temp_name("ten-seconds")
    path.write_bytes(b"x")
    _age(path, NOW_NS - 10 * 1_000_000_000)
    assert atomic.sweep_stale_temps(tmp_path) == 0
    assert atomic.sweep_stale_temps(tmp_path, older_than_s=9.5) == 1
    assert not path.exists()


@pytest.mark.usefixtures("fixed_clock")
def test_the_sweep_leaves_every_name_that_is_not_a_temp(tmp_path: Path) -> None:
    others = [
        "MEMORY.md",
        f"{atomic.TEMP_PREFIX}no-suffix.md",
        f"no-prefix{atomic.TEMP_SUFFIX}",
        *(f"note{i}.md" for i in range(8)),
    ]
    stale = [_temp_name(f"s{i}") for i in range(4)]
    for name in [*others, *stale]:
        (tmp_path / name).write_bytes(b"x")
        _age(tmp_path / name, 0)
    assert atomic.sweep_stale_temps(tmp_path) == len(stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(others)


@pytest.mark.usefixtures("fixed_clock")
def test_the_sweep_judges_a_symlink_by_its_own_age_and_never_follows_it(tmp_path: Path) -> None:
    young_target = tmp_path / "young-target"
    young_target.write_bytes(b"live")
    _age(young_target, NOW_NS)
    old_link = tmp_path / _temp_name("old-link")
    old_link.symlink_to(young_target)
    _age(old_link, 0)
    dangling = tmp_path / _temp_name("dangling")
    dangling.symlink_to(tmp_path / "gone")
    _age(dangling, 0)
    assert atomic.sweep_stale_temps(tmp_path) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["young-target"]
    assert young_target.read_bytes() == b"live"


@pytest.mark.usefixtures("fixed_clock")
def test_a_temp_another_sweeper_removed_first_is_skipped_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(4):
        (tmp_path / _temp_name(f"s{i}")).write_bytes(b"x")
        _age(tmp_path / _temp_name(f"s{i}"), 0)
    real_unlink = os.unlink
    raced: list[str] = []

    def unlink(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        # The first removal loses a race: another sweeper unlinks the file just before (fault injection).
        if not raced:
            raced.append(str(path))
            real_unlink(path, *args, **kwargs)
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    assert atomic.sweep_stale_temps(tmp_path) == 3
    assert len(raced) == 1
    assert list(tmp_path.iterdir()) == []


def test_temp_names_need_both_the_prefix_and_the_suffix() -> None:
    assert atomic.is_temp_name(_temp_name("abc"))
    assert not atomic.is_temp_name(f"{atomic.TEMP_PREFIX}abc.md")
    assert not atomic.is_temp_name(f"abc{atomic.TEMP_SUFFIX}")
    assert not atomic.is_temp_name("MEMORY.md")


def test_unlinking_an_absent_temp_is_quiet(tmp_path: Path) -> None:
    dir_fd = atomic.open_dir(tmp_path)
    try:
        atomic._unlink_quietly("never-there", dir_fd)
        (tmp_path / "there").write_bytes(b"x")
        atomic._unlink_quietly("there", dir_fd)
    finally:
        os.close(dir_fd)
    assert list(tmp_path.iterdir()) == []


# ----- the held directory -----------------------------------------------------------------------


def test_a_held_directory_is_kept_while_the_stat_names_it(tmp_path: Path) -> None:
    """fd() trusts the identity it is given: the stat of the held directory keeps the held one,
    even after the path was pointed elsewhere (the caller's lstat is what decides)."""
    folder = tmp_path / "d"
    folder.mkdir()
    held = atomic.OpenDir(folder)
    try:
        old_stat = os.lstat(folder)
        first = held.fd(old_stat)
        folder.rename(tmp_path / "d-old")
        folder.mkdir()
        assert held.fd(old_stat) == first
        assert os.fstat(first).st_ino == old_stat.st_ino
        reopened = held.fd(os.lstat(folder))
        assert os.fstat(reopened).st_ino == os.lstat(folder).st_ino
    finally:
        held.close()


def test_a_held_directory_refuses_a_symlink_at_its_path(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    link = tmp_path / "d"
    link.symlink_to(tmp_path / "real")
    held = atomic.OpenDir(link)
    with pytest.raises(OSError) as raised:
        held.fd(os.lstat(link))
    assert raised.value.errno in (errno.ELOOP, errno.ENOTDIR)


def test_an_open_dir_dropped_unclosed_closes_its_descriptor(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    held = atomic.OpenDir(tmp_path)
    fd = held.fd(os.lstat(tmp_path))
    assert len(os.listdir("/proc/self/fd")) == before + 1
    del held  # the last reference: the finalizer runs at once under CPython
    assert len(os.listdir("/proc/self/fd")) == before
    assert not os.path.exists(f"/proc/self/fd/{fd}")


def test_closing_a_held_directory_twice_is_harmless(tmp_path: Path) -> None:
    held = atomic.OpenDir(tmp_path)
    held.fd(os.lstat(tmp_path))
    held.close()
    held.close()
    again = held.fd(os.lstat(tmp_path))
    assert os.fstat(again).st_ino == tmp_path.stat().st_ino
    held.close()
