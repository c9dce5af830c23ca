"""The skill-library contract, run against every kind alike: in-memory, SQLite and PostgreSQL.

Immutable numbered versions, stale-write refusal, complete bodies, a catalog without source,
ranked search that skips deprecated skills, namespaces, events, closing, and schema versions.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from skill_backends import Backend, art, code_of

from qitos.kit.tool.library.base import BaseToolLibrary, ToolArtifact
from qitos.kit.tool.library.errors import ToolLibraryError


def test_documented_example(backend: Backend) -> None:
    """The page's example: publish, catalog, get_version returns the complete source."""
    artifact = art()
    with backend.open("research") as library:
        stored = library.add_or_update(artifact)
        assert [c["name"] for c in library.catalog("audit")] == ["audit"]
        assert library.get_version(stored.name, stored.version).source == artifact.source
    assert isinstance(library, BaseToolLibrary)


def test_versions_are_immutable_and_numbered(lib: Any) -> None:
    """Each publish adds version latest+1; earlier versions stay exactly as published."""
    lib.clock = lambda: "2026-01-02T00:00:00+00:00"
    v1 = lib.add_or_update(art(source="step one", version=9, created_at="2025-01-01T00:00:00+00:00"))
    v2 = lib.add_or_update(art(source="step two", description="Check evidence twice"))
    assert (v1.version, v2.version) == (1, 2)
    assert v2.created_at == "2025-01-01T00:00:00+00:00" and v2.updated_at == "2026-01-02T00:00:00+00:00"
    assert lib.get_version("audit", 1).source == "step one"
    assert lib.get_version("audit", 1).description == "Check evidence"
    assert lib.get("audit").source == "step two" and lib.get("audit").version == 2
    assert [a.version for a in lib.versions("audit")] == [1, 2]
    assert lib.get_version("audit", 3) is None and lib.get("missing") is None
    assert lib.get_version("audit", 2**40) is None
    assert lib.versions("missing") == []


def test_expected_version_refuses_stale_writes(lib: Any) -> None:
    """expected_version must equal the latest version (0: absent); otherwise version_conflict."""
    assert code_of(lambda: lib.add_or_update(art(), expected_version=3)) == "version_conflict"
    assert lib.get("audit") is None  # a refused publish stores nothing
    assert lib.add_or_update(art(), expected_version=0).version == 1
    assert code_of(lambda: lib.add_or_update(art(source="late"), expected_version=0)) == "version_conflict"
    assert lib.add_or_update(art(source="v2"), expected_version=1).version == 2
    assert code_of(lambda: lib.add_or_update(art(source="stale"), expected_version=1)) == "version_conflict"
    assert code_of(lambda: lib.add_or_update(art(source="ahead"), expected_version=7)) == "version_conflict"
    assert lib.get("audit").source == "v2" and len(lib.versions("audit")) == 2
    assert code_of(lambda: lib.add_or_update(art(), expected_version=-1)) == "invalid_expected_version"
    assert code_of(lambda: lib.add_or_update(art(), expected_version=True)) == "invalid_expected_version"


def test_get_returns_the_complete_body(lib: Any) -> None:
    """A very large body of any Unicode comes back whole, character for character (no truncation)."""
    odd = "✓ é 漢字 😀 \u202e rtl \t tab \r\n crlf \x1b[31m esc \\ back ' quote \" dq % pct ; -- $$"
    body = "".join(f"line {i} {odd}\n" for i in range(60_000))
    lib.add_or_update(art(source=body, description=odd.strip(), summary=odd, tags=["漢字", "a'b"]))
    for got in (lib.get("audit"), lib.get_version("audit", 1), lib.versions("audit")[0]):
        assert got.source == body
        assert (got.description, got.summary, got.tags) == (odd.strip(), odd, ["漢字", "a'b"])


def test_catalog_has_no_source_or_metadata(lib: Any) -> None:
    """catalog projects identity/description/tags only, active skills, by name, within limit."""
    lib.add_or_update(art("b-skill", source="SECRET-SOURCE", metadata={"provenance": "run-1"}, tags=["t"]))
    lib.add_or_update(art("a-skill", summary="short"))
    lib.add_or_update(art("c-skill"))
    lib.deprecate("c-skill")
    catalog = lib.catalog()
    assert [c["name"] for c in catalog] == ["a-skill", "b-skill"]
    assert set(catalog[0]) == {"name", "version", "description", "summary", "tags", "active", "updated_at"}
    assert catalog[0]["summary"] == "short" and catalog[1]["tags"] == ["t"]
    assert "SECRET-SOURCE" not in repr(catalog) and "provenance" not in repr(catalog)
    assert "SECRET-SOURCE" not in repr(lib.catalog("skill"))
    assert len(lib.catalog(limit=1)) == 1
    assert code_of(lambda: lib.catalog(limit=0)) == "invalid_limit"


def test_search_ranks_and_skips_inactive(lib: Any) -> None:
    """search ranks name/description matches first; deprecated skills and empty queries give nothing."""
    lib.add_or_update(art("plot", description="Draw a chart from a table", tags=["viz"]))
    lib.add_or_update(art("chart-audit", description="Audit chart sources"))
    lib.add_or_update(art("notes", description="Take notes", source="mentions chart once"))
    names = [a.name for a in lib.search("chart")]
    assert names[0] == "chart-audit" and set(names) == {"plot", "chart-audit", "notes"}
    assert names[-1] == "notes"
    assert [a.name for a in lib.search("viz")] == ["plot"]
    assert [a.name for a in lib.search("char", top_k=1)] == ["chart-audit"]  # prefix match
    # User text is never query syntax: operators, quotes and backslashes are plain words here.
    assert lib.search('" OR NEAR(x* AND -- ^') == []
    assert lib.search("it'q \\ zz'yy & | ! <-> :* (") == []
    assert [a.name for a in lib.search('"; DROP TABLE skills; --')] == ["plot"]  # matches "table"
    assert len(lib.skills()) == 3
    assert lib.search("   ") == []
    lib.deprecate("plot")
    assert "plot" not in [a.name for a in lib.search("chart")]
    assert lib.search("chart")[0].source == "Read, calculate, verify."


def test_search_reads_the_latest_version_only(lib: Any) -> None:
    """A word only an older version had no longer finds the skill; the new one's words do."""
    lib.add_or_update(art("fetch", description="Download with curl"))
    lib.add_or_update(art("fetch", description="Download with wget"))
    assert lib.search("curl") == []
    assert [(a.name, a.version) for a in lib.search("wget")] == [("fetch", 2)]


def test_namespaces_isolate(backend: Backend) -> None:
    """The same name in two namespaces is two independent skills."""
    with backend.open("hermes") as a, backend.open("voyager") as b:
        a.add_or_update(art(source="procedure"))
        b.add_or_update(art(source="def run(): ..."))
        b.add_or_update(art(source="def run(): return 2"))
        assert a.get("audit").source == "procedure" and a.get("audit").version == 1
        assert b.get("audit").version == 2
        assert [c["name"] for c in a.catalog()] == ["audit"]
        assert a.deprecate("audit") and b.get("audit").active
        assert [x.name for x in b.search("audit")] == ["audit"] and a.search("audit") == []
    assert code_of(lambda: backend.open("../x")) == "invalid_namespace"


def test_deprecate(lib: Any, events: list) -> None:
    """deprecate flips active once (True), then False; versions stay loadable; republish reactivates."""
    lib.add_or_update(art())
    assert lib.deprecate("audit") is True
    assert lib.deprecate("audit") is False
    assert lib.deprecate("missing") is False
    assert lib.get("audit").active is False and lib.get_version("audit", 1) is not None
    assert lib.get_version("audit", 1).active is False
    assert lib.skills() == [
        {
            "name": "audit",
            "latest_version": 1,
            "active": False,
            "tags": [],
            "description": "Check evidence",
            "summary": None,
            "created_at": lib.get("audit").created_at,
            "updated_at": lib.skills()[0]["updated_at"],
        }
    ]
    assert lib.skills(include_inactive=False) == []
    lib.add_or_update(art(source="revived"))
    assert lib.get("audit").active is True
    assert [(k, p) for k, p in events if k == "skill_deprecate"] == [
        ("skill_deprecate", {"name": "audit", "namespace": "research", "changed": True}),
        ("skill_deprecate", {"name": "audit", "namespace": "research", "changed": False}),
        ("skill_deprecate", {"name": "missing", "namespace": "research", "changed": False}),
    ]


def test_publish_event(lib: Any, events: list) -> None:
    """Each publish emits skill_publish with name, version, namespace and description; a refused one none."""
    lib.add_or_update(art())
    lib.add_or_update(art(description="v2 desc"))
    with pytest.raises(ToolLibraryError):
        lib.add_or_update(art(description="stale"), expected_version=1)
    assert events == [
        (
            "skill_publish",
            {"name": "audit", "version": 1, "namespace": "research", "description": "Check evidence"},
        ),
        ("skill_publish", {"name": "audit", "version": 2, "namespace": "research", "description": "v2 desc"}),
    ]


def test_close_and_context_manager(backend: Backend) -> None:
    """After close (or leaving the with block) every call raises ToolLibraryError('closed')."""
    if not backend.persistent:
        pytest.skip("the in-memory library owns no resource: close() releases nothing")
    lib = backend.open("n")
    lib.add_or_update(art())
    lib.close()
    lib.close()  # idempotent
    for call in (
        lambda: lib.get("audit"),
        lambda: lib.add_or_update(art()),
        lambda: lib.search("x"),
        lambda: lib.catalog(),
        lambda: lib.deprecate("audit"),
    ):
        assert code_of(call) == "closed"
    with backend.open("n") as again:
        assert again.get("audit").version == 1
    assert code_of(lambda: again.get("audit")) == "closed"


def test_reopening_keeps_every_version(backend: Backend) -> None:
    """What one library object published, a later one on the same storage reads back whole."""
    if not backend.persistent:
        pytest.skip("in-memory versions live as long as the library object")
    with backend.open() as first:
        first.add_or_update(art(source="one", metadata={"provenance": {"run": "r1"}}, tags=["x"]))
        first.add_or_update(art(source="two"), expected_version=1)
        first.deprecate("audit")
    with backend.open() as second:
        assert [(a.version, a.source, a.active) for a in second.versions("audit")] == [
            (1, "one", False),
            (2, "two", False),
        ]
        assert second.get_version("audit", 1).metadata == {"provenance": {"run": "r1"}}
        assert second.add_or_update(art(source="three"), expected_version=2).version == 3


def test_a_newer_schema_is_refused(backend: Backend) -> None:
    """Storage stamped by a newer library (or with no readable version) is refused, not written."""
    if not backend.persistent:
        pytest.skip("the in-memory library has no stored schema")
    with backend.open() as lib:
        lib.add_or_update(art())
    backend.set_schema_version("2")
    err = pytest.raises(ToolLibraryError, backend.open).value
    assert err.code == "schema_unsupported" and "newer" in str(err)
    backend.set_schema_version("one")
    assert code_of(backend.open) == "schema_unsupported"
    backend.set_schema_version("1")
    with backend.open() as lib:
        assert lib.get("audit").version == 1


def test_the_library_executes_nothing(lib: Any, tmp_path: Path) -> None:
    """Source that would have side effects is stored and returned as text, never run."""
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')"
    lib.add_or_update(art(source=source))
    lib.get("audit")
    lib.search("audit")
    lib.catalog()
    assert not marker.exists() and lib.get("audit").source == source


def test_returned_artifacts_are_copies(lib: Any) -> None:
    """Mutating a returned artifact or the caller's metadata does not change what is stored."""
    meta = {"provenance": {"run": "r1"}}
    stored = lib.add_or_update(art(metadata=meta, tags=["a"]))
    meta["provenance"]["run"] = "changed"
    stored.tags.append("b")
    stored.metadata["provenance"]["run"] = "changed too"
    again = lib.get("audit")
    assert again.metadata == {"provenance": {"run": "r1"}} and again.tags == ["a"]
    again.tags.append("c")
    assert lib.get("audit").tags == ["a"]


def test_a_body_of_many_distinct_words_is_stored_whole(lib: Any) -> None:
    """Two megabytes of distinct words publish and read back whole; words at its start are found."""
    body = " ".join(f"w{i:07d}x" for i in range(200_000))
    lib.add_or_update(art(source=body))
    assert lib.get("audit").source == body
    assert [a.name for a in lib.search("w0000001x")] == ["audit"]


def test_names_order_as_bytes(lib: Any) -> None:
    """skills() and catalog() list names in byte order (upper case before lower, '-' before '_')."""
    for name in ("beta", "Zed", "a_b", "a-b", "alpha", "B"):
        lib.add_or_update(art(name))
    expected = ["B", "Zed", "a-b", "a_b", "alpha", "beta"]
    assert [s["name"] for s in lib.skills()] == expected
    assert [c["name"] for c in lib.catalog(limit=50)] == expected


# ----- exact figures every kind shares (publish, clock, search words, limits, version arguments) --


def test_publish_returns_exactly_what_get_reads_back(lib: Any) -> None:
    lib.clock = lambda: "2026-03-04T05:06:07+00:00"
    stored = lib.add_or_update(
        art(
            summary="short",
            tags=["one", "two"],
            metadata={"provenance": {"run": "r1"}},
            created_at="2025-01-01T00:00:00+00:00",
            active=False,
        )
    )
    assert stored == ToolArtifact(
        name="audit",
        description="Check evidence",
        source="Read, calculate, verify.",
        summary="short",
        tags=["one", "two"],
        version=1,
        created_at="2025-01-01T00:00:00+00:00",
        updated_at="2026-03-04T05:06:07+00:00",
        metadata={"provenance": {"run": "r1"}},
        active=False,
    )
    assert lib.get("audit") == stored


def test_the_default_clock_stamps_publishes_in_utc(lib: Any) -> None:
    stored = lib.add_or_update(art())
    assert datetime.fromisoformat(stored.updated_at).utcoffset() == timedelta(0)


def test_search_finds_a_skill_by_its_summary_and_by_each_of_its_tags(lib: Any) -> None:
    lib.add_or_update(art("plot", summary="renders histograms", tags=["viz", "matplotlib"]))
    for word in ("histograms", "viz", "matplotlib"):
        assert [a.name for a in lib.search(word)] == ["plot"], word


def test_search_finds_nothing_for_words_no_skill_holds(lib: Any) -> None:
    # Neither an absent summary nor the gaps between tags index any word of their own.
    lib.add_or_update(art("plot", tags=["viz", "maps"]))
    assert lib.search("xx") == [] and lib.search("xxxx") == []


@pytest.mark.parametrize("version", [0, -1, True, False, "1", 1.0, None])
def test_get_version_refuses_what_is_not_a_positive_int(lib: Any, version: object) -> None:
    lib.add_or_update(art())
    assert code_of(lambda: lib.get_version("audit", version)) == "invalid_version"  # type: ignore[arg-type]


def test_catalog_lists_twenty_skills_by_default(lib: Any) -> None:
    for i in range(21):
        lib.add_or_update(art(f"chart-{i:02d}", description="Chart things"))
    assert len(lib.catalog()) == 20
    assert len(lib.catalog("chart")) == 20


def test_catalog_with_a_query_keeps_to_its_limit(lib: Any) -> None:
    for i in range(7):
        lib.add_or_update(art(f"chart-{i}", description="Chart things"))
    assert len(lib.catalog("chart", limit=1)) == 1
    assert len(lib.catalog("chart", limit=6)) == 6
    assert len(lib.catalog("chart", limit=50)) == 7


def test_search_returns_five_skills_by_default(lib: Any) -> None:
    for i in range(6):
        lib.add_or_update(art(f"chart-{i}", description="Chart things"))
    assert len(lib.search("chart")) == 5
