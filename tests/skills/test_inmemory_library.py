"""ToolArtifact and BaseToolLibrary keep their documented shape (the in-memory library's behaviour is
checked with the other kinds' in test_library_contract.py)."""

from __future__ import annotations

import inspect
from dataclasses import fields

from qitos.kit.tool.library.base import BaseToolLibrary, ToolArtifact


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
