"""Skill validation to the letter: where each boundary sits, which key names and values count as
credentials, and the exact stable code and fixed message of every refusal.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a caller relies on (a name length that is still accepted, a secret that is refused, a
schema version that is still readable), not the mutant.
"""

from __future__ import annotations

from typing import Any

import pytest

from qitos.kit.tool.library.base import ToolArtifact
from qitos.kit.tool.library.errors import ERROR_MESSAGES, ToolLibraryError
from qitos.kit.tool.library.validation import (
    check_metadata,
    check_schema_version,
    validate_artifact,
    validate_expected_version,
    validate_limit,
    validate_name,
    validate_namespace,
    validate_query_text,
)

STAMP = "2026-01-02T03:04:05+00:00"


def art(**kw: Any) -> ToolArtifact:
    """A valid artifact with fixed timestamps and overridable fields."""
    fields: dict[str, Any] = {
        "name": "audit",
        "description": "Check evidence",
        "source": "steps",
        "created_at": STAMP,
        "updated_at": STAMP,
    }
    fields.update(kw)
    return ToolArtifact(**fields)


def code_of(call: Any) -> str:
    """The code of the ToolLibraryError ``call()`` raises; its message is the fixed one for it."""
    with pytest.raises(ToolLibraryError) as info:
        call()
    assert str(info.value) == f"{info.value.code}: {ERROR_MESSAGES[info.value.code]}"
    return info.value.code


# -- the error itself ------------------------------------------------------------------------------


def test_an_error_reads_code_then_its_fixed_message() -> None:
    err = ToolLibraryError("closed")
    assert err.code == "closed"
    assert str(err) == "closed: the library is closed"
    assert err.args == ("closed: the library is closed",)


def test_an_unknown_code_gets_a_generic_message() -> None:
    err = ToolLibraryError("something_new")
    assert err.code == "something_new"
    assert str(err) == "something_new: tool library failure"


# -- names and namespaces --------------------------------------------------------------------------


@pytest.mark.parametrize("check", [validate_name, validate_namespace])
@pytest.mark.parametrize("good", ["a", "_", "7", "a" * 128, "Team_1.skills:v2-beta", "a.", "a-"])
def test_well_formed_names_are_returned_as_given(check: Any, good: str) -> None:
    assert check(good) == good


@pytest.mark.parametrize(
    ("check", "code"), [(validate_name, "invalid_name"), (validate_namespace, "invalid_namespace")]
)
@pytest.mark.parametrize("bad", ["", "a" * 129, ".hidden", "-x", ":x", "a b", "a/b", "é", None, 3, b"ab"])
def test_malformed_names_are_refused(check: Any, code: str, bad: Any) -> None:
    assert code_of(lambda: check(bad)) == code


# -- credentials in metadata -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "token",
        "password",
        "passwd",
        "secret",
        "apikey",
        "credential",
        "credentials",
        "authorization",
        "bearer",
        "cookie",
        "passphrase",
        "api_key",
        "private_key",
        "access_key",
        "secret_key",
        "apiKey",
        "APIKey",
        "privateKey",
        "accessKey",
        "x-api-key",
        "myHTTPCookie",
        "AUTHORIZATION",
        "db.password",
        "session_token_2",
    ],
)
def test_secret_like_keys_are_refused(key: str) -> None:
    assert code_of(lambda: check_metadata({key: "x"})) == "metadata_credential"


@pytest.mark.parametrize(
    "key",
    ["max_tokens", "secretary", "keyboard", "api", "key", "key_api", "api_base_key", "access", "tokenizer"],
)
def test_ordinary_keys_that_merely_resemble_secrets_are_allowed(key: str) -> None:
    check_metadata({key: "x"})


@pytest.mark.parametrize("key", ["api_XX_XX_key", "API-XX-XX-KEY", "private.XX.XX.key"])
def test_a_key_pair_kept_apart_by_placeholder_words_is_allowed(key: str) -> None:
    # "XX" is a word like any other: it stands between "api" and "key", so they are not a pair.
    check_metadata({key: "x"})


@pytest.mark.parametrize(
    "value",
    [
        "Bearer abc.def",
        "bearer x",
        "BEARER\tx",
        "  Bearer abc",
        "sk-" + "a" * 16,
        "sk-AB_cd-" + "9" * 10,
        "ghp_" + "a" * 20,
        "gho_" + "A" * 20,
        "ghu_" + "1" * 20,
        "ghs_" + "b" * 20,
        "ghr_" + "c" * 20,
        "GHP_" + "a" * 20,
        "sk-" + "a" * 16 + " trailing words",
    ],
)
def test_token_shaped_values_are_refused_whatever_the_key(value: str) -> None:
    assert code_of(lambda: check_metadata({"note": value})) == "metadata_credential"
    assert code_of(lambda: check_metadata({"notes": [value]})) == "metadata_credential"


@pytest.mark.parametrize(
    "value",
    [
        "bearer",
        "bearer ",
        "sk-" + "a" * 15,
        "ghp_" + "a" * 19,
        "gha_" + "a" * 20,
        "see sk-" + "a" * 16,
        "risk-" + "a" * 16,
    ],
)
def test_values_short_of_a_token_shape_are_allowed(value: str) -> None:
    check_metadata({"note": value})


# -- plain JSON data only --------------------------------------------------------------------------


def nested(levels: int) -> Any:
    """A value whose innermost None sits ``levels`` lists deep."""
    value: Any = None
    for _ in range(levels):
        value = [value]
    return value


def test_metadata_may_nest_32_levels_but_not_33() -> None:
    check_metadata(nested(32))
    assert code_of(lambda: check_metadata(nested(33))) == "invalid_metadata"
    check_metadata({"a": nested(31)})
    assert code_of(lambda: check_metadata({"a": nested(32)})) == "invalid_metadata"


@pytest.mark.parametrize(
    "value", [None, True, False, 0, -5, 10**30, 0.5, -1e300, "", "text", [], {}, [1, "a", None]]
)
def test_plain_json_values_are_accepted(value: Any) -> None:
    check_metadata(value)
    check_metadata({"k": value})


class SubList(list):  # type: ignore[type-arg]
    """A list subclass: may carry behaviour, so it is not plain data."""


class SubDict(dict):  # type: ignore[type-arg]
    """A dict subclass: may carry behaviour, so it is not plain data."""


@pytest.mark.parametrize(
    "value", [float("inf"), float("-inf"), float("nan"), (1,), {1}, b"x", SubList(), SubDict(), object()]
)
def test_non_json_values_are_refused(value: Any) -> None:
    assert code_of(lambda: check_metadata({"k": value})) == "invalid_metadata"


def test_metadata_text_must_be_valid_unicode() -> None:
    assert code_of(lambda: check_metadata({"k": "\ud800"})) == "invalid_text"
    assert code_of(lambda: check_metadata({"k\x00": 1})) == "invalid_text"
    assert code_of(lambda: check_metadata({"\udfff": 1})) == "invalid_text"
    assert code_of(lambda: check_metadata({1: 1})) == "invalid_metadata"


def test_every_key_and_item_of_a_mapping_is_checked() -> None:
    """A bad entry after good ones is still found."""
    assert code_of(lambda: check_metadata({"a": 1, "b": 2, "token": 3})) == "metadata_credential"
    assert code_of(lambda: check_metadata({"a": 1, "b": [1, float("nan")]})) == "invalid_metadata"
    assert code_of(lambda: check_metadata([1, 2, {"password": 1}])) == "metadata_credential"


# -- whole artifacts -------------------------------------------------------------------------------


def test_a_valid_artifact_passes() -> None:
    validate_artifact(art(summary="short", tags=["a", "b c"], version=3, metadata={"k": [1]}, active=False))
    validate_artifact(art(description=" x ", source="", summary=None, tags=[]))


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"name": "a" * 129}, "invalid_name"),
        ({"description": ""}, "invalid_description"),
        ({"description": " \n\t"}, "invalid_description"),
        ({"description": 3}, "invalid_description"),
        ({"description": "x\ud800"}, "invalid_text"),
        ({"source": None}, "invalid_source"),
        ({"source": "\ud800"}, "invalid_text"),
        ({"summary": b"s"}, "invalid_summary"),
        ({"summary": "a\x00"}, "invalid_text"),
        ({"tags": ("a",)}, "invalid_tags"),
        ({"tags": [1]}, "invalid_tags"),
        ({"tags": ["a", " "]}, "invalid_tags"),
        ({"tags": ["a\nb"]}, "invalid_tags"),
        ({"tags": ["ok", "a\x00"]}, "invalid_text"),
        ({"version": 0}, "invalid_version"),
        ({"version": -1}, "invalid_version"),
        ({"version": 1.0}, "invalid_version"),
        ({"version": "1"}, "invalid_version"),
        ({"version": False}, "invalid_version"),
        ({"created_at": None}, "invalid_timestamp"),
        ({"created_at": 1700000000}, "invalid_timestamp"),
        ({"updated_at": "later"}, "invalid_timestamp"),
        ({"updated_at": None}, "invalid_timestamp"),
        ({"metadata": SubDict()}, "invalid_metadata"),
        ({"metadata": None}, "invalid_metadata"),
        ({"metadata": {"cookie": "c"}}, "metadata_credential"),
        ({"active": 1}, "invalid_active"),
        ({"active": None}, "invalid_active"),
    ],
)
def test_each_invalid_field_is_refused_with_its_code(fields: dict[str, Any], code: str) -> None:
    assert code_of(lambda: validate_artifact(art(**fields))) == code


def test_version_one_is_the_least_accepted() -> None:
    validate_artifact(art(version=1))


def test_the_first_failing_field_names_the_refusal() -> None:
    """Fields are checked in declaration order, so the code is predictable."""
    assert code_of(lambda: validate_artifact(art(name="", description=""))) == "invalid_name"
    assert code_of(lambda: validate_artifact(art(description="", source=None))) == "invalid_description"
    assert code_of(lambda: validate_artifact(art(version=0, created_at=None))) == "invalid_version"
    assert code_of(lambda: validate_artifact({"name": "audit"})) == "invalid_artifact"


# -- arguments -------------------------------------------------------------------------------------


def test_expected_version_is_none_or_a_non_negative_int() -> None:
    assert validate_expected_version(None) is None
    assert validate_expected_version(0) == 0
    assert validate_expected_version(7) == 7
    for bad in (-1, True, False, 1.0, "1"):
        assert code_of(lambda bad=bad: validate_expected_version(bad)) == "invalid_expected_version"


def test_a_limit_is_a_positive_int() -> None:
    assert validate_limit(1) == 1
    assert validate_limit(50) == 50
    for bad in (0, -3, True, 2.0, "5", None):
        assert code_of(lambda bad=bad: validate_limit(bad)) == "invalid_limit"


def test_a_query_is_valid_text() -> None:
    assert validate_query_text("") == ""
    assert validate_query_text("find audit") == "find audit"
    assert code_of(lambda: validate_query_text(b"x")) == "invalid_query"
    assert code_of(lambda: validate_query_text("a\x00")) == "invalid_text"


# -- schema versions -------------------------------------------------------------------------------


@pytest.mark.parametrize(("stored", "expected"), [("1", 1), (3, 3), (" 2 ", 2), ("3\n", 3), (1, 1)])
def test_a_known_schema_version_is_read_as_an_int(stored: Any, expected: int) -> None:
    assert check_schema_version(stored, 3) == expected


@pytest.mark.parametrize("stored", [4, "4", 0, "0", -1, "-1", True, "2.0", 2.0, None, "", "two", b"2"])
def test_an_unreadable_schema_version_is_unsupported(stored: Any) -> None:
    assert code_of(lambda: check_schema_version(stored, 3)) == "schema_unsupported"


class PrintsAsTwo:
    """A value that is neither text nor an int, though it prints as a version number."""

    def __str__(self) -> str:
        return "2"


def test_only_text_or_an_int_is_read_as_a_schema_version() -> None:
    """A stored value is never coerced: what merely prints as a number is not a version."""
    assert code_of(lambda: check_schema_version(PrintsAsTwo(), 3)) == "schema_unsupported"
