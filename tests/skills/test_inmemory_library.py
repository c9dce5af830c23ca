"""The in-memory library keeps the documented ToolArtifact/BaseToolLibrary contract usable."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

from qitos.kit.tool.library.base import BaseToolLibrary, InMemoryToolLibrary, ToolArtifact
from qitos.kit.tool.library.sqlite_store import ToolLibraryError


def test_tool_artifact_documented_fields() -> None:
    """ToolArtifact has the documented fields, in order, with the documented defaults."""
    names = [f.name for f in fields(ToolArtifact)]
    assert names == [
        "name", "description", "source", "summary", "tags", "version",
        "created_at", "updated_at", "metadata", "active",
    ]  # fmt: skip
    a = ToolArtifact(name="n", description="d", source="s")
    assert (a.summary, a.tags, a.version, a.metadata, a.active) == (None, [], 1, {}, True)
    assert a.created_at.endswith("+00:00") and a.tags is not ToolArtifact("m", "d", "s").tags


def test_base_is_abstract() -> None:
    """BaseToolLibrary declares add_or_update, get and search abstract."""
    assert inspect.isabstract(BaseToolLibrary)
    assert BaseToolLibrary.__abstractmethods__ == {"add_or_update", "get", "search"}


def test_in_memory_versions_conflicts_and_catalog(events: list) -> None:
    """Versions, stale writes, complete get, catalog projection, search and deprecate work in memory."""
    lib = InMemoryToolLibrary(namespace="hermes", clock=lambda: "2026-01-01T00:00:00+00:00")
    v1 = lib.add_or_update(ToolArtifact("audit", "Check evidence", "one"), expected_version=0)
    v2 = lib.add_or_update(ToolArtifact("audit", "Check evidence again", "two" * 10_000), expected_version=1)
    assert (v1.version, v2.version) == (1, 2) and v2.updated_at == "2026-01-01T00:00:00+00:00"
    with pytest.raises(ToolLibraryError) as err:
        lib.add_or_update(ToolArtifact("audit", "d", "stale"), expected_version=1)
    assert err.value.code == "version_conflict"
    assert lib.get("audit").source == "two" * 10_000 and lib.get_version("audit", 1).source == "one"
    assert [a.version for a in lib.versions("audit")] == [1, 2]
    lib.add_or_update(ToolArtifact("plot", "Draw a chart", "src", tags=["viz"]))
    assert [c["name"] for c in lib.catalog()] == ["audit", "plot"]
    assert "source" not in lib.catalog()[0] and "metadata" not in lib.catalog()[0]
    assert [a.name for a in lib.search("chart")] == ["plot"]
    assert lib.deprecate("plot") is True and lib.deprecate("plot") is False
    assert lib.search("chart") == [] and lib.get("plot").active is False
    assert [(s["name"], s["latest_version"], s["active"]) for s in lib.skills()] == [
        ("audit", 2, True),
        ("plot", 1, False),
    ]
    assert [s["name"] for s in lib.skills(include_inactive=False)] == ["audit"]
    assert [k for k, _ in events] == [
        "skill_publish",
        "skill_publish",
        "skill_publish",
        "skill_deprecate",
        "skill_deprecate",
    ]
    assert events[1][1] == {
        "name": "audit",
        "version": 2,
        "namespace": "hermes",
        "description": "Check evidence again",
    }


def test_in_memory_copies_are_isolated() -> None:
    """Mutating what was passed in or returned never changes a stored version."""
    lib = InMemoryToolLibrary()
    meta = {"p": {"run": "r1"}}
    stored = lib.add_or_update(ToolArtifact("a", "d", "s", metadata=meta, tags=["x"]))
    meta["p"]["run"] = "changed"
    stored.metadata["p"]["run"] = "changed"
    stored.tags.append("y")
    assert lib.get("a").metadata == {"p": {"run": "r1"}} and lib.get("a").tags == ["x"]
