"""The Memdir record file format: a small front-matter header, then the record text as the body.

```
---
record_id: 5f0c...
role: user
step_id: 3
created: 2026-11-30T10:00:00+00:00
seq: 1764496800000000000
metadata: {"source": "chat"}
---
the text, byte for byte, to the end of the file
```

Only the first ``---`` block is the header, so a body that itself looks like front matter is kept
verbatim. Header values are single-line; ``metadata`` is one line of JSON. The file is named from
a hash of the record id (:func:`record_filename`), so an id can never steer a path.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from qitos.core.memory import MemoryRecord

RECORD_ID_RE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.:-]{0,127}")
ROLE_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}")
RECORD_FILE_RE = re.compile(r"[0-9a-f]{32}\.md")
FENCE = b"---\n"
REQUIRED_FIELDS = ("record_id", "role", "step_id")


class RecordFormatError(ValueError):
    """A record file (or a record about to be written) does not follow the Memdir format."""


def validate_record_id(record_id: object) -> str:
    """Return ``record_id`` if it is a well-formed identity, else raise ValueError saying why."""
    if not isinstance(record_id, str):
        raise ValueError(f"record_id must be a str, got {type(record_id).__name__}")
    if not RECORD_ID_RE.fullmatch(record_id):
        raise ValueError(
            "malformed record_id: use 1-128 characters from [A-Za-z0-9_.:-], not starting with '.' or ':'"
        )
    return record_id


def record_filename(record_id: str) -> str:
    """The file name of a record: a hash of its (validated) id, so ids cannot form paths."""
    return hashlib.sha256(validate_record_id(record_id).encode("utf-8")).hexdigest()[:32] + ".md"


def content_text(content: Any) -> str:
    """The text stored for ``content``: str as-is, other JSON data as its JSON text."""
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"MemdirMemory stores text or JSON data; {type(content).__name__} content is not storable"
        ) from exc


def render_record(record: MemoryRecord, *, created: str, seq: int) -> tuple[bytes, str]:
    """Serialise a record into file bytes; returns (bytes, stored text). Rejects invalid records."""
    validate_record_id(record.record_id)
    if not isinstance(record.role, str) or not ROLE_RE.fullmatch(record.role):
        raise ValueError("malformed role: use 1-64 characters from [A-Za-z0-9_.:-]")
    if isinstance(record.step_id, bool) or not isinstance(record.step_id, int):
        raise ValueError(f"step_id must be an int, got {type(record.step_id).__name__}")
    if not isinstance(record.metadata, dict):
        raise ValueError("metadata must be a dict")
    text = content_text(record.content)
    lines = [
        f"record_id: {record.record_id}",
        f"role: {record.role}",
        f"step_id: {record.step_id}",
        f"created: {created}",
        f"seq: {seq}",
    ]
    if record.metadata:
        try:
            meta = json.dumps(record.metadata, ensure_ascii=False, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError("metadata must be plain JSON data (str keys, JSON values)") from exc
        lines.append(f"metadata: {meta}")
    if "\n" in created or "\r" in created:
        raise ValueError("created timestamp must be a single line")
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("content is not encodable as UTF-8 (lone surrogate?)") from exc
    header = ("---\n" + "\n".join(lines) + "\n---\n").encode("utf-8")
    return header + body, text


@dataclass(frozen=True)
class ParsedRecord:
    """A record file read back: the record plus the header facts the browser shows."""

    record: MemoryRecord
    created: str
    seq: int | None


def parse_record(data: bytes, *, expected_name: str) -> ParsedRecord:
    """Parse a record file's bytes; raise RecordFormatError with a human reason if malformed."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordFormatError(f"not UTF-8 (byte {exc.start})") from exc
    if not text.startswith("---\n"):
        if text.startswith("---\r\n"):
            raise RecordFormatError("front matter has CRLF line endings (save the file with LF endings)")
        raise RecordFormatError("missing front matter (file must start with '---')")
    end = text.find("\n---\n", 3)
    if end < 0:
        raise RecordFormatError("unterminated front matter (no closing '---' line)")
    header_text = text[4:end]
    body = text[end + 5 :]
    fields: dict[str, str] = {}
    for number, line in enumerate(header_text.split("\n"), start=2):
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or not key:
            raise RecordFormatError(f"malformed header line {number} (expected 'key: value')")
        if key in fields:
            raise RecordFormatError(f"duplicate header field {key!r}")
        fields[key] = value.strip()
    missing = [name for name in REQUIRED_FIELDS if name not in fields]
    if missing:
        raise RecordFormatError(f"missing header field(s): {', '.join(missing)}")
    record_id = fields["record_id"]
    if not RECORD_ID_RE.fullmatch(record_id):
        raise RecordFormatError("malformed record_id in header")
    if record_filename(record_id) != expected_name:
        raise RecordFormatError("file name does not match the hash of its record_id (copied or renamed?)")
    role = fields["role"]
    if not ROLE_RE.fullmatch(role):
        raise RecordFormatError("malformed role in header")
    try:
        step_id = int(fields["step_id"])
    except ValueError as exc:
        raise RecordFormatError("step_id is not an integer") from exc
    seq: int | None = None
    if "seq" in fields:
        try:
            seq = int(fields["seq"])
        except ValueError as exc:
            raise RecordFormatError("seq is not an integer") from exc
    metadata: dict[str, Any] = {}
    if fields.get("metadata"):
        try:
            loaded = json.loads(fields["metadata"])
        except ValueError as exc:
            raise RecordFormatError("metadata is not valid JSON") from exc
        if not isinstance(loaded, dict):
            raise RecordFormatError("metadata is not a JSON object")
        metadata = loaded
    record = MemoryRecord(role=role, content=body, step_id=step_id, metadata=metadata, record_id=record_id)
    return ParsedRecord(record=record, created=fields.get("created", ""), seq=seq)
