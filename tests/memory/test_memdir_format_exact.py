"""Exact tests of the Memdir record format: the bytes a record becomes, the file name its id gives,
and each reason a malformed file (or a record about to be written) is refused, word for word."""

from __future__ import annotations

import math
from typing import Any

import pytest

from qitos.core.memory import MemoryRecord
from qitos.kit.memory.memdir_format import (
    RecordFormatError,
    content_text,
    parse_record,
    record_filename,
    render_record,
    validate_record_id,
)

CREATED = "2026-11-30T10:00:00+00:00"


def _file(header: str, body: str = "text", *, record_id: str = "r-1") -> tuple[bytes, str]:
    """A record file's bytes from a hand-written header, and the name its id hashes to."""
    return f"---\n{header}---\n{body}".encode(), record_filename(record_id)


def _refusal(data: bytes, name: str) -> str:
    """The reason parse_record gives for refusing ``data`` read from the file ``name``."""
    with pytest.raises(RecordFormatError) as raised:
        parse_record(data, expected_name=name)
    return str(raised.value)


def _render_refusal(record: MemoryRecord, *, created: str = CREATED) -> str:
    """The reason render_record gives for refusing ``record``."""
    with pytest.raises(ValueError) as raised:
        render_record(record, created=created, seq=1)
    return str(raised.value)


# ----- identity and file names ------------------------------------------------------------------


def test_a_record_file_is_named_from_the_first_32_hex_digits_of_the_ids_sha256() -> None:
    assert record_filename("fact") == "1e7dc6d6c16565406afd121a89164b99.md"
    assert len(record_filename("x")) == 32 + len(".md")


def test_a_record_id_that_is_not_a_str_is_refused_naming_its_type() -> None:
    with pytest.raises(ValueError) as raised:
        validate_record_id(17)
    assert str(raised.value) == "record_id must be a str, got int"


def test_a_malformed_record_id_is_refused_with_the_alphabet_rule() -> None:
    with pytest.raises(ValueError) as raised:
        validate_record_id("../x")
    assert str(raised.value) == (
        "malformed record_id: use 1-128 characters from [A-Za-z0-9_.:-], not starting with '.' or ':'"
    )


def test_a_well_formed_record_id_is_returned_as_given() -> None:
    assert validate_record_id("a.b:c-d_9") == "a.b:c-d_9"
    assert validate_record_id("x" * 128) == "x" * 128


# ----- content ----------------------------------------------------------------------------------


def test_json_content_is_stored_with_sorted_keys_and_unescaped_text() -> None:
    assert content_text({"b": "é", "a": [1, 2]}) == '{"a": [1, 2], "b": "é"}'
    assert content_text("as is") == "as is"


@pytest.mark.parametrize("content", [object(), {1j: 2}])
def test_content_json_cannot_hold_is_refused_as_not_storable(content: Any) -> None:
    with pytest.raises(TypeError) as raised:
        content_text(content)
    assert str(raised.value).startswith("MemdirMemory stores text or JSON data; ")


def test_circular_content_is_refused_as_not_storable() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(TypeError) as raised:
        content_text(loop)
    assert str(raised.value) == "MemdirMemory stores text or JSON data; list content is not storable"


# ----- rendering --------------------------------------------------------------------------------


def test_a_record_without_metadata_renders_to_these_exact_bytes() -> None:
    record = MemoryRecord("user", "body\n---\nkept", 3, record_id="r-1")
    data, text = render_record(record, created=CREATED, seq=42)
    assert data == (
        b"---\nrecord_id: r-1\nrole: user\nstep_id: 3\ncreated: 2026-11-30T10:00:00+00:00\nseq: 42\n---\n"
        b"body\n---\nkept"
    )
    assert text == "body\n---\nkept"


def test_metadata_renders_as_one_line_of_sorted_unescaped_json() -> None:
    record = MemoryRecord("user", "x", 0, metadata={"z": 1, "a": "é"}, record_id="r-1")
    data, _ = render_record(record, created=CREATED, seq=1)
    assert data.endswith('seq: 1\nmetadata: {"a": "é", "z": 1}\n---\nx'.encode())


def test_json_content_renders_as_its_text_and_is_returned() -> None:
    data, text = render_record(
        MemoryRecord("tool", {"b": 1, "a": 2}, 0, record_id="r-1"), created=CREATED, seq=1
    )
    assert text == '{"a": 2, "b": 1}'
    assert data.endswith(b'\n---\n{"a": 2, "b": 1}')


@pytest.mark.parametrize("role", [7, "", "-dash", "a b", "x" * 65])
def test_a_malformed_role_is_refused(role: Any) -> None:
    assert (
        _render_refusal(MemoryRecord(role, "x", 0))
        == "malformed role: use 1-64 characters from [A-Za-z0-9_.:-]"
    )


def test_a_longest_role_is_accepted() -> None:
    data, _ = render_record(MemoryRecord("r" * 64, "x", 0, record_id="r-1"), created=CREATED, seq=1)
    assert b"\nrole: " + b"r" * 64 + b"\n" in data


@pytest.mark.parametrize(("step", "type_name"), [(True, "bool"), ("1", "str"), (1.0, "float")])
def test_a_step_id_that_is_not_an_int_is_refused(step: Any, type_name: str) -> None:
    assert _render_refusal(MemoryRecord("user", "x", step)) == f"step_id must be an int, got {type_name}"


def test_metadata_that_is_not_a_dict_is_refused() -> None:
    assert _render_refusal(MemoryRecord("user", "x", 0, metadata=[1])) == "metadata must be a dict"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "metadata", [{"n": math.nan}, {"n": math.inf}, {(1, 2): "tuple key"}, {"o": object()}]
)
def test_metadata_that_is_not_plain_json_is_refused(metadata: dict[Any, Any]) -> None:
    reason = _render_refusal(MemoryRecord("user", "x", 0, metadata=metadata))
    assert reason == "metadata must be plain JSON data (str keys, JSON values)"


@pytest.mark.parametrize("created", ["2026\n-11", "2026\r-11"])
def test_a_created_stamp_of_more_than_one_line_is_refused(created: str) -> None:
    record = MemoryRecord("user", "x", 0, metadata={"k": 1})
    assert _render_refusal(record, created=created) == "created timestamp must be a single line"


def test_content_not_encodable_as_utf8_is_refused() -> None:
    reason = _render_refusal(MemoryRecord("user", "lone \udc00", 0))
    assert reason == "content is not encodable as UTF-8 (lone surrogate?)"


def test_a_malformed_record_id_is_refused_before_anything_is_rendered() -> None:
    assert _render_refusal(MemoryRecord("user", "x", 0, record_id=":x")).startswith("malformed record_id")


# ----- parsing ----------------------------------------------------------------------------------


def test_a_rendered_record_parses_back_with_its_header_facts() -> None:
    record = MemoryRecord("assistant", "a\n---\nb", -4, metadata={"k": [1]}, record_id="r-1")
    data, _ = render_record(record, created=CREATED, seq=99)
    parsed = parse_record(data, expected_name=record_filename("r-1"))
    assert parsed.record == record
    assert (parsed.created, parsed.seq) == (CREATED, 99)


def test_a_hand_written_file_without_created_seq_or_metadata_parses_with_empty_facts() -> None:
    data, name = _file("record_id: r-1\nrole: user\nstep_id: 2\n")
    parsed = parse_record(data, expected_name=name)
    assert parsed.record == MemoryRecord("user", "text", 2, {}, "r-1")
    assert parsed.created == ""
    assert parsed.seq is None


def test_header_values_and_keys_are_trimmed_and_blank_lines_skipped() -> None:
    data, name = _file("\n  record_id :  r-1  \n\nrole:user\nstep_id: 5\nmetadata:\n")
    parsed = parse_record(data, expected_name=name)
    assert (parsed.record.record_id, parsed.record.role, parsed.record.step_id) == ("r-1", "user", 5)
    assert parsed.record.metadata == {}  # an empty metadata line is no metadata


def test_only_the_first_colon_splits_a_header_line() -> None:
    data, name = _file('record_id: r-1\nrole: user\nstep_id: 0\ncreated: 10:00:00\nmetadata: {"a": "b:c"}\n')
    parsed = parse_record(data, expected_name=name)
    assert parsed.created == "10:00:00"
    assert parsed.record.metadata == {"a": "b:c"}


def test_a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() -> None:
    assert _refusal(b"---\nrecord_id\xff: x\n---\n", "x.md") == "not UTF-8 (byte 13)"


def test_a_file_without_front_matter_is_refused() -> None:
    assert _refusal(b"record_id: r-1\n", "x.md") == "missing front matter (file must start with '---')"
    assert _refusal(b"--\n", "x.md") == "missing front matter (file must start with '---')"


def test_front_matter_with_crlf_endings_is_refused_saying_so() -> None:
    assert _refusal(b"---\r\nrecord_id: r-1\r\n---\r\n", "x.md") == (
        "front matter has CRLF line endings (save the file with LF endings)"
    )


def test_front_matter_without_a_closing_fence_is_refused() -> None:
    assert _refusal(b"---\nrecord_id: r-1\nrole: user\n", "x.md") == (
        "unterminated front matter (no closing '---' line)"
    )


def test_an_empty_header_closed_at_once_lacks_every_required_field() -> None:
    assert _refusal(b"---\n---\nbody", "x.md") == "missing header field(s): record_id, role, step_id"


def test_the_missing_required_fields_are_named() -> None:
    data, name = _file("role: user\n")
    assert _refusal(data, name) == "missing header field(s): record_id, step_id"


@pytest.mark.parametrize(
    ("header", "number"),
    [("record_id: r-1\nno colon here\n", 3), ("record_id: r-1\nrole: user\n: value\n", 4)],
)
def test_a_header_line_that_is_not_key_value_is_refused_by_its_line_number(header: str, number: int) -> None:
    data, name = _file(header)
    assert _refusal(data, name) == f"malformed header line {number} (expected 'key: value')"


def test_a_duplicate_header_field_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: user\nrole: tool\nstep_id: 0\n")
    assert _refusal(data, name) == "duplicate header field 'role'"


def test_a_malformed_record_id_in_the_header_is_a_format_error() -> None:
    data, _ = _file("record_id: ../up\nrole: user\nstep_id: 0\n")
    assert _refusal(data, "x.md") == "malformed record_id in header"


def test_a_file_whose_name_is_not_its_ids_hash_is_refused() -> None:
    data, _ = _file("record_id: r-1\nrole: user\nstep_id: 0\n")
    assert _refusal(data, record_filename("r-2")) == (
        "file name does not match the hash of its record_id (copied or renamed?)"
    )


def test_a_malformed_role_in_the_header_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: two words\nstep_id: 0\n")
    assert _refusal(data, name) == "malformed role in header"


def test_a_step_id_that_is_not_an_integer_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: user\nstep_id: three\n")
    assert _refusal(data, name) == "step_id is not an integer"


def test_a_seq_that_is_not_an_integer_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: user\nstep_id: 0\nseq: soon\n")
    assert _refusal(data, name) == "seq is not an integer"


def test_metadata_that_is_not_json_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: user\nstep_id: 0\nmetadata: {nope\n")
    assert _refusal(data, name) == "metadata is not valid JSON"


def test_metadata_that_is_not_a_json_object_is_refused() -> None:
    data, name = _file("record_id: r-1\nrole: user\nstep_id: 0\nmetadata: [1, 2]\n")
    assert _refusal(data, name) == "metadata is not a JSON object"
