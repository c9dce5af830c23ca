"""SqliteToolLibrary: namespaces, immutable versions, stale-write refusal, catalog, get, search."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from qitos.kit.tool.library.base import BaseToolLibrary, ToolArtifact
from qitos.kit.tool.library.sqlite_store import SqliteToolLibrary, ToolLibraryError


def art(name: str = "audit", **kw: object) -> ToolArtifact:
    """A valid artifact with overridable fields."""
    fields: dict[str, object] = {"description": "Check evidence", "source": "Read, calculate, verify."}
    fields.update(kw)
    return ToolArtifact(name=name, **fields)  # type: ignore[arg-type]


def test_documented_example(db_path: Path) -> None:
    """The page's example: publish, catalog, get_version returns the complete source."""
    artifact = art()
    with SqliteToolLibrary(db_path, namespace="research") as library:
        stored = library.add_or_update(artifact)
        assert [c["name"] for c in library.catalog("audit")] == ["audit"]
        assert library.get_version(stored.name, stored.version).source == artifact.source
    assert isinstance(library, BaseToolLibrary)


def test_versions_are_immutable_and_numbered(library: SqliteToolLibrary) -> None:
    """Each publish adds version latest+1; earlier versions stay exactly as published."""
    library.clock = lambda: "2026-01-02T00:00:00+00:00"
    v1 = library.add_or_update(art(source="step one", version=9, created_at="2025-01-01T00:00:00+00:00"))
    v2 = library.add_or_update(art(source="step two", description="Check evidence twice"))
    assert (v1.version, v2.version) == (1, 2)
    assert v2.created_at == "2025-01-01T00:00:00+00:00" and v2.updated_at == "2026-01-02T00:00:00+00:00"
    assert library.get_version("audit", 1).source == "step one"
    assert library.get("audit").source == "step two" and library.get("audit").version == 2
    assert [a.version for a in library.versions("audit")] == [1, 2]
    assert library.get_version("audit", 3) is None and library.get("missing") is None
    assert library.versions("missing") == []
    # The database itself refuses to rewrite a published version.
    conn = sqlite3.connect(library.path)
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        conn.execute("UPDATE skill_versions SET source = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        conn.execute("DELETE FROM skill_versions")
    conn.close()


def test_expected_version_refuses_stale_writes(library: SqliteToolLibrary) -> None:
    """expected_version must equal the latest version (0: absent); otherwise version_conflict."""
    assert library.add_or_update(art(), expected_version=0).version == 1
    with pytest.raises(ToolLibraryError) as err:
        library.add_or_update(art(source="late"), expected_version=0)
    assert err.value.code == "version_conflict"
    assert library.add_or_update(art(source="v2"), expected_version=1).version == 2
    with pytest.raises(ToolLibraryError) as err:
        library.add_or_update(art(source="stale"), expected_version=1)
    assert err.value.code == "version_conflict"
    assert library.get("audit").source == "v2" and len(library.versions("audit")) == 2
    with pytest.raises(ToolLibraryError) as err:
        library.add_or_update(art(), expected_version=-1)
    assert err.value.code == "invalid_expected_version"


def test_get_returns_the_complete_body(library: SqliteToolLibrary) -> None:
    """A very large body comes back whole, byte for byte (no truncation)."""
    body = "".join(f"line {i} ✓ \u00e9\n" for i in range(200_000))
    library.add_or_update(art(source=body))
    assert library.get("audit").source == body
    assert library.get_version("audit", 1).source == body


def test_catalog_has_no_source_or_metadata(library: SqliteToolLibrary) -> None:
    """catalog projects identity/description/tags only, active skills, by name, within limit."""
    library.add_or_update(
        art("b-skill", source="SECRET-SOURCE", metadata={"provenance": "run-1"}, tags=["t"])
    )
    library.add_or_update(art("a-skill", summary="short"))
    library.add_or_update(art("c-skill"))
    library.deprecate("c-skill")
    catalog = library.catalog()
    assert [c["name"] for c in catalog] == ["a-skill", "b-skill"]
    assert set(catalog[0]) == {"name", "version", "description", "summary", "tags", "active", "updated_at"}
    assert "SECRET-SOURCE" not in repr(catalog) and "provenance" not in repr(catalog)
    assert len(library.catalog(limit=1)) == 1
    with pytest.raises(ToolLibraryError) as err:
        library.catalog(limit=0)
    assert err.value.code == "invalid_limit"


def test_search_ranks_and_skips_inactive(library: SqliteToolLibrary) -> None:
    """search ranks name/description matches first; deprecated skills and empty queries give nothing."""
    library.add_or_update(art("plot", description="Draw a chart from a table", tags=["viz"]))
    library.add_or_update(art("chart-audit", description="Audit chart sources"))
    library.add_or_update(art("notes", description="Take notes", source="mentions chart once"))
    names = [a.name for a in library.search("chart")]
    assert names[0] == "chart-audit" and set(names) == {"plot", "chart-audit", "notes"}
    assert names[-1] == "notes"
    assert [a.name for a in library.search("viz")] == ["plot"]
    assert [a.name for a in library.search("char", top_k=1)] == ["chart-audit"]  # prefix match
    # User text is never FTS query syntax: operators and quotes are plain words here.
    assert library.search('" OR NEAR(x* AND -- ^') == []
    assert [a.name for a in library.search('"; DROP TABLE skills; --')] == ["plot"]  # matches "table"
    assert len(library.skills()) == 3
    assert library.search("   ") == []
    library.deprecate("plot")
    assert "plot" not in [a.name for a in library.search("chart")]
    assert library.search("chart")[0].source == "Read, calculate, verify."


def test_search_fallback_without_fts(db_path: Path) -> None:
    """With FTS disabled the weighted-term fallback ranks the same way."""

    class NoFts(SqliteToolLibrary):
        use_fts = False

    with NoFts(db_path, namespace="n") as lib:
        assert lib._fts is False
        lib.add_or_update(art("plot", description="Draw a chart"))
        lib.add_or_update(art("chart-audit", description="Audit chart sources"))
        lib.add_or_update(art("other", description="Unrelated"))
        assert [a.name for a in lib.search("chart")] == ["chart-audit", "plot"]
    # Reopening with FTS available indexes what the fallback library published.
    with SqliteToolLibrary(db_path, namespace="n") as lib:
        assert lib._fts is True
        assert [a.name for a in lib.search("chart")] == ["chart-audit", "plot"]


def test_namespaces_isolate(db_path: Path) -> None:
    """The same name in two namespaces is two independent skills."""
    with (
        SqliteToolLibrary(db_path, namespace="hermes") as a,
        SqliteToolLibrary(db_path, namespace="voyager") as b,
    ):
        a.add_or_update(art(source="procedure"))
        b.add_or_update(art(source="def run(): ..."))
        b.add_or_update(art(source="def run(): return 2"))
        assert a.get("audit").source == "procedure" and a.get("audit").version == 1
        assert b.get("audit").version == 2
        assert [c["name"] for c in a.catalog()] == ["audit"]
        assert a.deprecate("audit") and b.get("audit").active
    assert SqliteToolLibrary.list_namespaces(db_path) == ["hermes", "voyager"]
    with pytest.raises(ToolLibraryError) as err:
        SqliteToolLibrary(db_path, namespace="../x")
    assert err.value.code == "invalid_namespace"


def test_deprecate(library: SqliteToolLibrary, events: list) -> None:
    """deprecate flips active once (True), then False; versions stay loadable; republish reactivates."""
    library.add_or_update(art())
    assert library.deprecate("audit") is True
    assert library.deprecate("audit") is False
    assert library.deprecate("missing") is False
    assert library.get("audit").active is False and library.get_version("audit", 1) is not None
    assert library.skills() == [
        {
            "name": "audit",
            "latest_version": 1,
            "active": False,
            "tags": [],
            "description": "Check evidence",
            "summary": None,
            "created_at": library.get("audit").created_at,
            "updated_at": library.skills()[0]["updated_at"],
        }
    ]
    assert library.skills(include_inactive=False) == []
    library.add_or_update(art(source="revived"))
    assert library.get("audit").active is True
    assert [(k, p) for k, p in events if k == "skill_deprecate"] == [
        ("skill_deprecate", {"name": "audit", "namespace": "research", "changed": True}),
        ("skill_deprecate", {"name": "audit", "namespace": "research", "changed": False}),
        ("skill_deprecate", {"name": "missing", "namespace": "research", "changed": False}),
    ]


def test_publish_event(library: SqliteToolLibrary, events: list) -> None:
    """Each publish emits skill_publish with name, version, namespace and description."""
    library.add_or_update(art())
    library.add_or_update(art(description="v2 desc"))
    assert events == [
        (
            "skill_publish",
            {"name": "audit", "version": 1, "namespace": "research", "description": "Check evidence"},
        ),
        ("skill_publish", {"name": "audit", "version": 2, "namespace": "research", "description": "v2 desc"}),
    ]


def test_close_and_context_manager(db_path: Path) -> None:
    """After close (or leaving the with block) every call raises ToolLibraryError('closed')."""
    lib = SqliteToolLibrary(db_path, namespace="n")
    lib.add_or_update(art())
    lib.close()
    lib.close()  # idempotent
    for call in (lambda: lib.get("audit"), lambda: lib.add_or_update(art()), lambda: lib.search("x")):
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == "closed"
    with SqliteToolLibrary(db_path, namespace="n") as again:
        assert again.get("audit").version == 1
    with pytest.raises(ToolLibraryError):
        again.get("audit")


def test_wal_mode_and_concurrent_reader(library: SqliteToolLibrary, db_path: Path) -> None:
    """The database is in WAL mode; a read-only reader sees publishes while the writer stays open."""
    assert sqlite3.connect(db_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    library.add_or_update(art())
    reader = SqliteToolLibrary.open_readonly(db_path, namespace="research")
    try:
        assert reader.get("audit").version == 1
        library.add_or_update(art(source="v2"))
        assert reader.get("audit").version == 2
        assert [s["latest_version"] for s in reader.skills()] == [2]
        with pytest.raises(ToolLibraryError) as err:
            reader.add_or_update(art())
        assert err.value.code == "storage_error"
    finally:
        reader.close()


def test_readonly_open_of_missing_db_creates_nothing(tmp_path: Path) -> None:
    """open_readonly / list_namespaces on a missing file fail with storage_missing, creating nothing."""
    for call in (
        lambda: SqliteToolLibrary.open_readonly(tmp_path / "no.db", namespace="n"),
        lambda: SqliteToolLibrary.list_namespaces(tmp_path / "no.db"),
    ):
        with pytest.raises(ToolLibraryError) as err:
            call()
        assert err.value.code == "storage_missing"
    assert list(tmp_path.iterdir()) == []


def test_not_a_database(tmp_path: Path) -> None:
    """A file that is not SQLite raises storage_error without echoing its content."""
    bad = tmp_path / "bad.db"
    bad.write_text("this is my secret text, not a database" * 100)
    with pytest.raises(ToolLibraryError) as err:
        SqliteToolLibrary(bad, namespace="n")
    assert err.value.code == "storage_error" and "secret" not in str(err.value)


def test_the_library_executes_nothing(library: SqliteToolLibrary, tmp_path: Path) -> None:
    """Source that would have side effects is stored and returned as text, never run."""
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')"
    library.add_or_update(art(source=source))
    library.get("audit")
    library.search("audit")
    library.catalog()
    assert not marker.exists() and library.get("audit").source == source


def test_returned_artifacts_are_copies(library: SqliteToolLibrary) -> None:
    """Mutating a returned artifact or the caller's metadata does not change what is stored."""
    meta = {"provenance": {"run": "r1"}}
    artifact = art(metadata=meta, tags=["a"])
    stored = library.add_or_update(artifact)
    meta["provenance"]["run"] = "changed"
    stored.tags.append("b")
    again = library.get("audit")
    assert again.metadata == {"provenance": {"run": "r1"}} and again.tags == ["a"]


def test_checkpoint_leaves_every_version_in_the_database_file_alone(db_path: Path, tmp_path: Path) -> None:
    """After checkpoint (or close), a copy of just the .db file holds what was published, even while
    a reader holds the database open (the writer is then not the last connection to close)."""
    import shutil

    library = SqliteToolLibrary(db_path, namespace="research")
    library.add_or_update(art(source="v1"))
    library.add_or_update(art(source="v2"), expected_version=1)
    reader = SqliteToolLibrary.open_readonly(db_path, namespace="research")
    assert reader.get("audit").version == 2  # type: ignore[union-attr]

    def copied_versions(name: str) -> int:
        copy = tmp_path / name / "skills.db"
        copy.parent.mkdir()
        shutil.copyfile(db_path, copy)  # the file alone, without its -wal beside it
        conn = sqlite3.connect(copy)
        try:
            return conn.execute("SELECT count(*) FROM skill_versions").fetchone()[0]
        except sqlite3.OperationalError:
            return 0  # not even the tables: they are still in the log
        finally:
            conn.close()

    assert copied_versions("before") < 2  # still in the write-ahead log
    library.checkpoint()
    assert copied_versions("after") == 2
    library.add_or_update(art(source="v3"), expected_version=2)
    library.close()
    assert copied_versions("closed") == 3
    reader.close()
    with pytest.raises(ToolLibraryError):
        library.checkpoint()  # closed
