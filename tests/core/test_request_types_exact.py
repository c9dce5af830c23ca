"""qitos.core.request_types to the letter: each value type refuses bad fields with a message naming
the field and the value, defaults are the documented ones, and every JSON form has exactly its keys.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (the message that says what is wrong, the trace key a reader looks up).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from qitos.core.context import ContextError
from qitos.core.request_types import (
    ArtifactRef,
    CompactionReceipt,
    ContinuationRef,
    ReasoningPolicy,
    RequestTarget,
    SelectionReport,
)

DIGEST = "ab" * 32


def raises(fn: Any, message: str) -> None:
    """``fn()`` raises a ContextError whose message is exactly ``message``."""
    with pytest.raises(ContextError) as info:
        fn()
    assert str(info.value) == message


# -- RequestTarget ---------------------------------------------------------------------------------


def test_a_target_defaults_to_an_unknown_provider_over_chat() -> None:
    assert RequestTarget("m").to_dict() == {"model_id": "m", "provider": "unknown", "api_mode": "chat"}


@pytest.mark.parametrize("field", ["model_id", "provider", "api_mode"])
def test_a_target_names_the_blank_field_it_refuses(field: str) -> None:
    kwargs = {"model_id": "m", "provider": "p", "api_mode": "chat", field: " "}
    raises(lambda: RequestTarget(**kwargs), f"{field} must be a non-empty string, got ' '")


class _Adapter:
    """A model adapter declaring its id and provider."""

    def __init__(self, model_id: Any, provider: Any = None) -> None:
        self.model_id = model_id
        if provider is not None:
            self.provider = provider


def test_a_target_from_a_model_takes_its_declared_id_and_provider() -> None:
    target = RequestTarget.from_model(_Adapter("gpt-x", "openai"))
    assert target == RequestTarget("gpt-x", "openai", "chat")


def test_a_target_from_a_model_without_declarations_is_unknown() -> None:
    assert RequestTarget.from_model(None) == RequestTarget("unknown", "unknown")
    assert RequestTarget.from_model(object()) == RequestTarget("unknown", "unknown")
    # A blank id is no id: the target says unknown rather than refusing the adapter.
    assert RequestTarget.from_model(_Adapter("")) == RequestTarget("unknown", "unknown")
    assert RequestTarget.from_model(_Adapter(7, 3)) == RequestTarget("7", "3")


# -- ReasoningPolicy -------------------------------------------------------------------------------


def test_the_reasoning_policy_defaults_to_preserving_without_loss() -> None:
    assert ReasoningPolicy().to_dict() == {"mode": "preserve_if_supported", "allow_loss": False}


@pytest.mark.parametrize("mode", ["preserve_if_supported", "drop", "inline_replay"])
def test_every_documented_reasoning_mode_is_accepted(mode: str) -> None:
    assert ReasoningPolicy(mode, allow_loss=True).to_dict() == {"mode": mode, "allow_loss": True}


def test_an_unknown_reasoning_mode_is_refused_with_the_modes_listed() -> None:
    raises(
        lambda: ReasoningPolicy("keep"),
        "reasoning mode 'keep' is not one of ['drop', 'inline_replay', 'preserve_if_supported']",
    )


# -- ContinuationRef -------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reference_id", "model_id", "provider"])
def test_a_continuation_names_the_blank_field_it_refuses(field: str) -> None:
    kwargs = {"reference_id": "r", "model_id": "m", "provider": "p", field: ""}
    raises(lambda: ContinuationRef(**kwargs), f"{field} must be a non-empty string, got ''")


def test_a_continuation_serves_only_its_own_model_and_provider() -> None:
    ref = ContinuationRef("resp_1", "m", "openai")
    ref.assert_compatible(RequestTarget("m", "openai", "responses"))  # the api mode does not matter
    message = "continuation 'resp_1' belongs to openai/m, not {}"
    raises(lambda: ref.assert_compatible(RequestTarget("m", "azure")), message.format("azure/m"))
    raises(lambda: ref.assert_compatible(RequestTarget("n", "openai")), message.format("openai/n"))


def test_a_continuation_as_json_carries_every_field() -> None:
    assert ContinuationRef("r", "m").to_dict() == {
        "reference_id": "r",
        "model_id": "m",
        "provider": "unknown",
        "exchange_id": None,
    }
    assert ContinuationRef("r", "m", "p", "ex-000002").to_dict()["exchange_id"] == "ex-000002"


# -- ArtifactRef -----------------------------------------------------------------------------------


def test_an_artifact_reference_defaults_to_optional_octet_stream() -> None:
    assert ArtifactRef("a1").to_dict() == {
        "artifact_id": "a1",
        "media_type": "application/octet-stream",
        "required": False,
        "description": "",
    }
    raises(lambda: ArtifactRef(""), "artifact_id must be a non-empty string, got ''")


# -- CompactionReceipt -----------------------------------------------------------------------------


def receipt(**kw: Any) -> CompactionReceipt:
    fields: dict[str, Any] = {
        "receipt_id": "rc",
        "input_exchange_ids": ("ex-000001",),
        "output_digest": DIGEST,
        "policy_id": "pol",
    }
    return CompactionReceipt(**{**fields, **kw})


def test_a_receipt_as_json_is_what_the_trace_records() -> None:
    made = receipt(input_exchange_ids=["ex-000001", "ex-000002"], declared_losses=["tool output", 3])
    assert made.input_exchange_ids == ("ex-000001", "ex-000002")
    assert made.declared_losses == ("tool output", "3")
    assert json.dumps(made.to_dict()) == json.dumps(
        {
            "receipt_id": "rc",
            "policy_id": "pol",
            "input_exchange_ids": ["ex-000001", "ex-000002"],
            "output_digest": DIGEST,
            "declared_losses": ["tool output", "3"],
            "model_reference": None,
        }
    )
    assert receipt(model_reference="m").to_dict()["model_reference"] == "m"
    assert receipt().declared_losses == ()


def test_a_receipt_names_its_blank_ids() -> None:
    raises(lambda: receipt(receipt_id=""), "receipt_id must be a non-empty string, got ''")
    raises(lambda: receipt(policy_id=" "), "policy_id must be a non-empty string, got ' '")


@pytest.mark.parametrize(
    "ids", [(), ("",), ("ex-1", "ex-1"), ("ex-1", 2)], ids=["none", "blank", "repeated", "not-text"]
)
def test_a_receipt_needs_unique_non_empty_input_ids(ids: tuple[Any, ...]) -> None:
    raises(
        lambda: receipt(input_exchange_ids=ids),
        "receipt 'rc' must name unique, non-empty input exchange ids",
    )


@pytest.mark.parametrize("digest", ["AB" * 32, "ab" * 31, "ab" * 32 + "\n", "g" * 64, None])
def test_a_receipt_digest_must_be_lowercase_sha256_hex(digest: Any) -> None:
    raises(
        lambda: receipt(output_digest=digest), "receipt 'rc' output_digest must be a lowercase SHA-256 hex"
    )


# -- SelectionReport -------------------------------------------------------------------------------


def test_a_selection_report_as_json_has_every_documented_key() -> None:
    decision = {"contribution_id": "c", "selected": True}
    report = SelectionReport(
        ("ex-000002/0",),
        ("ex-000001/0",),
        ("ex-000002",),
        ("ex-000001",),
        ("message",),
        ("observation",),
        ("c",),
        ("d",),
        30,
        20,
        10,
        "characters",
        reasons=("omission:none",),
        context_decisions_json=(json.dumps(decision),),
        used_by_category=(("instructions", 5), ("exchanges", 15)),
        protected_exchange_ids=("ex-000002",),
        exchange_units=(("ex-000001", 10), ("ex-000002", 15)),
        history_omitted_exchange_ids=("ex-000001",),
    )
    assert report.context_decisions == [decision]
    assert report.to_dict() == {
        "selected_item_ids": ["ex-000002/0"],
        "omitted_item_ids": ["ex-000001/0"],
        "selected_exchange_ids": ["ex-000002"],
        "omitted_exchange_ids": ["ex-000001"],
        "selected_categories": ["message"],
        "omitted_categories": ["observation"],
        "selected_context_ids": ["c"],
        "omitted_context_ids": ["d"],
        "total_units": 30,
        "selected_units": 20,
        "omitted_units": 10,
        "unit": "characters",
        "reasons": ["omission:none"],
        "context_decisions": [decision],
        "used_by_category": {"instructions": 5, "exchanges": 15},
        "protected_exchange_ids": ["ex-000002"],
        "exchange_units": {"ex-000001": 10, "ex-000002": 15},
        "history_omitted_exchange_ids": ["ex-000001"],
    }
