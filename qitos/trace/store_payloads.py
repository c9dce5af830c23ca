"""Typed payloads of the events memory stores and skill libraries emit during a run.

Part of the vocabulary of :mod:`qitos.trace.payloads` (which re-exports these classes): each
class's ``read(payload)`` takes any value and coerces it field by field.
"""

# No `from __future__ import annotations`: NamedTuple turns string annotations into ForwardRefs,
# compiling each one (half the module's import time); the few that name their own class are quoted.
from typing import Any, NamedTuple

from qitos.trace.fields import as_bool, as_dict, as_dicts, as_int, as_text, as_texts


# ---- memory --------------------------------------------------------------------------------------
class MemoryRecord(NamedTuple):
    """One recalled record: id, role, content."""

    record_id: str
    role: str
    content: str


class MemoryRecall(NamedTuple):
    """``memory_recall``: the namespace, the query, the records (or only their ids) recalled."""

    namespace: str
    query: Any  # the query text, or the JSON query object the memory was asked
    record_ids: tuple[str, ...]
    records: tuple[MemoryRecord, ...]

    @classmethod
    def read(cls, payload: Any) -> "MemoryRecall":
        """The recall from its payload."""
        p = as_dict(payload)
        records = tuple(
            MemoryRecord(as_text(r.get("record_id")), as_text(r.get("role")), as_text(r.get("content")))
            for r in as_dicts(p.get("records"))
        )
        return cls(
            namespace=as_text(p.get("namespace")),
            query=p.get("query"),
            record_ids=tuple(as_texts(p.get("record_ids"))),
            records=records,
        )


class MemoryAppend(NamedTuple):
    """``memory_append``: the record written, its role and size."""

    record_id: str
    role: str
    step_id: int | None
    namespace: str
    chars: int | None

    @classmethod
    def read(cls, payload: Any) -> "MemoryAppend":
        """The append from its payload."""
        p = as_dict(payload)
        return cls(
            record_id=as_text(p.get("record_id")),
            role=as_text(p.get("role")),
            step_id=as_int(p.get("step_id")),
            namespace=as_text(p.get("namespace")),
            chars=as_int(p.get("chars")),
        )


class MemoryDelete(NamedTuple):
    """``memory_delete``: the record, its namespace, whether it was there to remove."""

    record_id: str
    namespace: str
    removed: bool

    @classmethod
    def read(cls, payload: Any) -> "MemoryDelete":
        """The delete from its payload."""
        p = as_dict(payload)
        return cls(
            record_id=as_text(p.get("record_id")),
            namespace=as_text(p.get("namespace")),
            removed=as_bool(p.get("removed")),
        )


# ---- skills --------------------------------------------------------------------------------------
class SkillPublish(NamedTuple):
    """``skill_publish``: the skill, the version published, its namespace and description."""

    name: str
    version: int | None
    namespace: str
    description: str

    @classmethod
    def read(cls, payload: Any) -> "SkillPublish":
        """The publication from its payload."""
        p = as_dict(payload)
        return cls(
            name=as_text(p.get("name")),
            version=as_int(p.get("version")),
            namespace=as_text(p.get("namespace")),
            description=as_text(p.get("description")),
        )


class SkillDeprecate(NamedTuple):
    """``skill_deprecate``: the skill and whether this call changed it."""

    name: str
    namespace: str
    changed: bool

    @classmethod
    def read(cls, payload: Any) -> "SkillDeprecate":
        """The deprecation from its payload."""
        p = as_dict(payload)
        return cls(
            name=as_text(p.get("name")),
            namespace=as_text(p.get("namespace")),
            changed=as_bool(p.get("changed")),
        )
