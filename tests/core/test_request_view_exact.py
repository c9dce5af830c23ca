"""qitos.core.request_view to the letter: the exact refusal for every bad input, the whole JSON form
of a view, the report's units and reasons, the omission boundary, and the history selection.

Written against the mutants that survived the rest of the suite (issue 19): each test names the
behaviour a user relies on (the message that says why a request cannot be built, the figures and
reasons a trace reader sees, which exchanges a model is sent), not the mutant.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    ContextError,
    ContextSelection,
    canonical_json,
)
from qitos.core.request_view import (
    ArtifactRef,
    CompactionReceipt,
    ContinuationRef,
    ExchangeLog,
    ReasoningPolicy,
    RequestTarget,
    RequestView,
)
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor


def make_log(closed: int, *, size: int = 100, current: str | None = "now?") -> ExchangeLog:
    """``closed`` closed exchanges (a user turn and an answer of ``size`` characters each), then an
    open one holding ``current``."""
    log = ExchangeLog("log-1")
    for step in range(closed):
        ex = log.open(step_id=step)
        for role, fill in (("user", "u"), ("assistant", "a")):
            log.append(ex, role=role, content=str(step).ljust(size, fill))
        log.close(ex)
    if current is not None:
        log.append(log.open(step_id=closed), role="user", content=current)
    return log


def build(log: ExchangeLog | None = None, **kw: Any) -> RequestView:
    return RequestView.from_exchange_log(make_log(2) if log is None else log, **kw)


def fails(error: type[Exception], message: str, fn: Any) -> None:
    """``fn()`` raises ``error`` whose message is exactly ``message``."""
    with pytest.raises(error) as info:
        fn()
    assert type(info.value) is error
    assert str(info.value) == message


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Spy:
    """A compaction policy that answers with ``answer(**kwargs)``."""

    def __init__(self, answer: Any, policy_id: str | None = "test.spy") -> None:
        self.answer = answer
        if policy_id is not None:
            self.policy_id = policy_id

    def compact(self, **kw: Any) -> Any:
        return self.answer(**kw)


# -- the view's own checks -------------------------------------------------------------------------


def view(**kw: Any) -> RequestView:
    return RequestView("r", RequestTarget("m"), "log", "0" * 64, (), **kw)


def test_a_view_refuses_a_blank_id_or_protocol_and_an_unknown_tool_use_policy() -> None:
    fails(ContextError, "unsupported request view schema 'v0'", lambda: view(schema_version="v0"))
    fails(
        ContextError,
        "request_id must be a non-empty string, got ''",
        lambda: RequestView("", RequestTarget("m"), "log", "0" * 64, ()),
    )
    fails(ContextError, "protocol_id must be a non-empty string, got ' '", lambda: view(protocol_id=" "))
    fails(
        ContextError,
        "tool_use_policy 'always' is not one of ['auto', 'none', 'required']",
        lambda: view(tool_use_policy="always"),
    )
    for policy in ("auto", "required", "none"):
        assert view(tool_use_policy=policy).tool_use_policy == policy


@pytest.mark.parametrize(
    "name",
    ["instructions_json", "tool_schemas_json", "context_json", "correlation_facts_json"]
    + ["capability_requirements", "compaction_receipts", "artifact_refs"],
)
def test_every_sequence_of_a_view_must_be_a_tuple(name: str) -> None:
    fails(ContextError, f"{name} must be a tuple (the view is immutable)", lambda: view(**{name: []}))


def test_the_selected_items_must_be_a_tuple_too() -> None:
    fails(
        ContextError,
        "selected_items_json must be a tuple (the view is immutable)",
        lambda: RequestView("r", RequestTarget("m"), "log", "0" * 64, []),  # type: ignore[arg-type]
    )


def test_a_view_refuses_a_continuation_of_another_model() -> None:
    fails(
        ContextError,
        "continuation 'c' belongs to unknown/n, not unknown/m",
        lambda: view(continuation=ContinuationRef("c", "n")),
    )
    assert view(continuation=ContinuationRef("c", "m")).continuation == ContinuationRef("c", "m")


# -- the whole JSON form ---------------------------------------------------------------------------


def test_a_view_as_json_has_every_documented_part() -> None:
    log = ExchangeLog("L")
    first = log.open(step_id=0)
    log.append(first, role="user", content="u" * 10)
    log.append(first, role="assistant", content="", tool_calls=[{"name": "add", "args": {"a": 1}}])
    log.close(first)
    log.append(log.open(step_id=1), role="user", content="q" * 5)
    made = build(
        log,
        target=RequestTarget("m", "p"),
        instructions=[{"role": "developer", "content": "Be."}],
        tool_schemas=[{"name": "add"}],
        artifact_refs=[ArtifactRef("a1")],
        reasoning_policy=ReasoningPolicy("drop"),
        protocol_id="openai.chat",
        tool_use_policy="required",
        tool_use_satisfied=1,
    )
    items = [
        {
            "content": "u" * 10,
            "exchange_id": "ex-000001",
            "item_id": "ex-000001/0",
            "kind": "message",
            "role": "user",
        },
        {
            "content": "",
            "exchange_id": "ex-000001",
            "item_id": "ex-000001/1",
            "kind": "message",
            "role": "assistant",
            "tool_calls": [{"args": {"a": 1}, "name": "add"}],
        },
        {
            "content": "q" * 5,
            "exchange_id": "ex-000002",
            "item_id": "ex-000002/0",
            "kind": "message",
            "role": "user",
        },
    ]
    selected_digest = sha(canonical_json(items))
    data = made.to_dict()
    assert data.pop("selection") == made.selection.to_dict()
    assert data == {
        "schema_version": "qitos.request_view/v1",
        "request_id": made.request_id,
        "target": {"model_id": "m", "provider": "p", "api_mode": "chat"},
        "source": {"log_id": "L", "log_digest": log.digest()},
        "selected_items": items,
        "instructions": [{"role": "developer", "content": "Be."}],
        "tool_schemas": [{"name": "add"}],
        "context_contributions": [],
        "capability_requirements": ["tool_calls"],
        "reasoning_policy": {"mode": "drop", "allow_loss": False},
        "continuation": None,
        "context_budget": {"max_input_units": 120000, "unit": "characters", "protected_recent_exchanges": 1},
        "compaction_receipts": [],
        "artifact_refs": [ArtifactRef("a1").to_dict()],
        "steering_boundary": {"state": "open", "open_exchange_ids": ["ex-000002"]},
        "correlation_facts": [{"exchange_id": "ex-000001", "tool_calls": ["add"]}],
        "provenance": {
            "builder": "qitos.request_view.builder/v1",
            "source": "ExchangeLog",
            "selected_digest": selected_digest,
            "compaction_policy": None,
        },
        "protocol_id": "openai.chat",
        "tool_use_policy": "required",
        "tool_use_satisfied": True,
    }
    assert made.selected_digest == selected_digest
    assert made.to_json() == canonical_json(made.to_dict())
    assert made.request_id.startswith("request_") and len(made.request_id) == len("request_") + 24


def test_a_view_built_with_defaults_reports_them() -> None:
    made = build(make_log(1, current=None))
    assert made.reasoning_policy == ReasoningPolicy()
    assert made.target == RequestTarget("unknown")
    assert (made.protocol_id, made.tool_use_policy, made.tool_use_satisfied) == ("unknown", "auto", False)
    assert made.capability_requirements == ()
    # Nothing is open: the steering boundary is safe.
    assert made.to_dict()["steering_boundary"] == {"state": "safe", "open_exchange_ids": []}
    assert made.context_budget == ContextBudget()


def test_a_request_id_is_the_digest_of_its_builder_v1_identity_document() -> None:
    # The id is written into every trace: the same request must keep the same id across versions of
    # this builder, so the document it is the digest of is fixed, key by key.
    contribution = ContextContribution("c", "s", "v")
    receipt = CompactionReceipt("old", ("ex-000001",), "0" * 64, "p")
    budget = ContextBudget(10_000)
    made = build(
        target=RequestTarget("m"),
        instructions=[{"role": "system", "content": "x"}],
        tool_schemas=[{"name": "t"}],
        context_contributions=[contribution],
        compaction_receipts=[receipt],
        context_budget=budget,
    )
    identity = {
        "target": RequestTarget("m").to_dict(),
        "source_log_digest": made.source_log_digest,
        "selected_digest": made.selected_digest,
        "instructions": list(made.instructions_json),
        "tools": list(made.tool_schemas_json),
        "context": [contribution.digest + ":c"],
        "receipts": ["old"],
        "budget": budget.to_dict(),
    }
    assert made.request_id == "request_" + sha(canonical_json(identity))[:24]


def test_request_ids_are_deterministic_and_change_with_every_input_that_shapes_the_request() -> None:
    base = {"context_budget": ContextBudget(10_000)}
    same = build(**base).request_id
    assert build(**base).request_id == same
    receipt = CompactionReceipt("old", ("ex-000001",), "0" * 64, "p")
    others = [
        build(**base, target=RequestTarget("other")),
        build(make_log(2, current="later"), **base),
        build(**base, instructions=[{"role": "system", "content": "x"}]),
        build(**base, tool_schemas=[{"name": "t"}]),
        build(**base, context_contributions=[ContextContribution("c", "s", "v")]),
        build(**base, compaction_receipts=[receipt]),
        build(context_budget=ContextBudget(10_001)),
    ]
    ids = [o.request_id for o in others]
    assert same not in ids and len(set(ids)) == len(ids)


def test_capability_requirements_are_sorted_text_with_tool_calls_and_continuation_added() -> None:
    log = make_log(1)
    log.append("ex-000002", role="assistant", content="", tool_calls=[{"name": "t"}])
    made = build(
        log,
        target=RequestTarget("m"),
        continuation=ContinuationRef("c", "m"),
        capability_requirements=["vision", 3],
    )
    assert made.capability_requirements == ("3", "continuation", "tool_calls", "vision")
    assert made.to_dict()["correlation_facts"] == [{"exchange_id": "ex-000002", "tool_calls": ["t"]}]


# -- messages --------------------------------------------------------------------------------------


def test_messages_put_instructions_then_system_context_then_user_context_then_the_exchanges() -> None:
    made = build(
        make_log(1, size=2),
        instructions=[{"role": "system", "content": "S"}, {"role": "developer", "content": "D"}],
        context_contributions=[
            ContextContribution("u", "s", {"k": "é"}, requested_placement="user", priority=9),
            ContextContribution("dev", "s", "dev note", requested_placement="developer", priority=5),
            ContextContribution("sys", "s", "sys note", requested_placement="system", priority=1),
        ],
    )
    assert made.to_messages() == [
        {"role": "system", "content": "S"},
        {"role": "system", "content": "D"},
        {"role": "system", "content": "dev note"},
        {"role": "system", "content": "sys note"},
        {"role": "user", "content": '{"k":"é"}'},
        {"role": "user", "content": "0u"},
        {"role": "assistant", "content": "0a"},
        {"role": "user", "content": "now?"},
    ]
    assert [c["contribution_id"] for c in made.context_contributions] == ["u", "dev", "sys"]


# -- refusals while building -----------------------------------------------------------------------


def test_building_refuses_what_is_not_an_exchange_log() -> None:
    fails(ContextError, "log must be an ExchangeLog, got list", lambda: RequestView.from_exchange_log([]))


@pytest.mark.parametrize(
    "instruction",
    [
        {"role": "user", "content": "x"},
        {"role": "system", "content": 1},
        {"content": "x"},
        {"role": "system"},
    ],
)
def test_an_instruction_needs_a_system_or_developer_role_and_text(instruction: dict[str, Any]) -> None:
    fails(
        ContextError,
        "instructions[1] needs role system|developer and string content",
        lambda: build(instructions=[{"role": "system", "content": "ok"}, instruction]),
    )


@pytest.mark.parametrize("units", [-1, 1.5, True, None])
def test_a_unit_counter_must_return_a_non_negative_int(units: Any) -> None:
    fails(
        ContextError,
        f"unit counter returned {units!r} for instructions; it must be a non-negative int",
        lambda: build(
            instructions=[{"role": "system", "content": "x"}], context_unit_counter=lambda v, u: units
        ),
    )


def test_a_unit_counter_names_the_part_it_measured_wrongly() -> None:
    fails(
        ContextError,
        "unit counter returned -1 for tool schemas; it must be a non-negative int",
        lambda: build(tool_schemas=[{"name": "t"}], context_unit_counter=lambda v, u: -1),
    )
    fails(
        ContextError,
        "unit counter returned -1 for exchange ex-000001; it must be a non-negative int",
        lambda: build(context_unit_counter=lambda v, u: -1),
    )


def test_artifact_references_are_checked_against_what_is_available() -> None:
    fails(
        ContextError,
        "artifact_refs must hold ArtifactRef values, got str",
        lambda: build(artifact_refs=["report.md"]),
    )
    fails(
        ContextError,
        "required artifact 'report.md' is not available",
        lambda: build(
            artifact_refs=[ArtifactRef("report.md", required=True)], available_artifact_ids=["other"]
        ),
    )
    optional = ArtifactRef("notes.md")
    assert build(artifact_refs=[optional]).artifact_refs == (optional,)


def test_prior_receipts_must_be_compaction_receipts() -> None:
    fails(
        ContextError,
        "compaction_receipts must hold CompactionReceipt, got dict",
        lambda: build(compaction_receipts=[{"receipt_id": "r"}]),
    )


def test_building_refuses_a_continuation_of_another_model_before_anything_else() -> None:
    fails(
        ContextError,
        "continuation 'c' belongs to unknown/n, not unknown/m",
        lambda: build(target=RequestTarget("m"), continuation=ContinuationRef("c", "n")),
    )


def test_a_continuation_must_name_an_exchange_of_the_log() -> None:
    fails(
        ContextError,
        "continuation exchange 'ex-404' is not in the log",
        lambda: build(
            target=RequestTarget("m"), continuation=ContinuationRef("c", "m", exchange_id="ex-404")
        ),
    )


def test_protected_exchanges_that_cannot_fit_fail_with_every_figure() -> None:
    fails(
        ContextBudgetExceededError,
        "instructions (2), tools (12) and protected exchanges (204) need 218 characters but the budget "
        "is 217; protected exchanges are never removed to make a request fit",
        lambda: build(
            instructions=[{"role": "system", "content": "ab"}],
            tool_schemas=[{"name": "t"}],
            context_budget=ContextBudget(217, protected_recent_exchanges=2),
        ),
    )
    # At exactly the budget the request fits.
    fitted = build(
        instructions=[{"role": "system", "content": "ab"}],
        tool_schemas=[{"name": "t"}],
        context_budget=ContextBudget(218, protected_recent_exchanges=2),
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    assert fitted.selection.selected_units == 218


class _Greedy:
    """A selection policy that takes every contribution, whatever the budget says."""

    policy_id = "test.greedy"

    def select(self, contributions: Any, *, budget: Any, already_used_units: int, counter: Any) -> Any:
        from qitos.core.context import ContextDecision

        decisions = tuple(ContextDecision(c, c.units, True, "taken") for c in contributions)
        return ContextSelection(decisions, (), sum(d.units for d in decisions))


def test_a_selection_policy_over_the_budget_or_of_the_wrong_type_is_refused() -> None:
    big = ContextContribution("c", "s", "x" * 50)
    fails(
        ContextBudgetExceededError,
        "selection policy 'test.greedy' selected 50 characters of context, over the budget of 53",
        lambda: build(
            context_budget=ContextBudget(53), context_contributions=[big], context_selection_policy=_Greedy()
        ),
    )
    fitted = build(
        context_budget=ContextBudget(454), context_contributions=[big], context_selection_policy=_Greedy()
    )
    assert dict(fitted.selection.used_by_category)["context"] == 50
    assert fitted.selection.reasons[0] == "context_policy:test.greedy"

    class Wrong:
        def select(self, *a: Any, **kw: Any) -> Any:
            return []

    fails(
        ContextError,
        "selection policy returned list, not ContextSelection",
        lambda: build(context_selection_policy=Wrong()),
    )


def test_an_omission_without_a_policy_says_what_would_go() -> None:
    fails(
        ContextBudgetExceededError,
        "the request needs 804 characters but the budget is 450; exchanges ['ex-000001', 'ex-000002'] "
        "could be omitted only through an explicit compaction policy and none is configured "
        "(existing receipts never authorise a new omission)",
        lambda: build(make_log(4), context_budget=ContextBudget(450)),
    )


def test_a_declining_or_wrong_compaction_policy_is_named() -> None:
    log = make_log(4)
    budget = ContextBudget(450)
    fails(
        ContextBudgetExceededError,
        "compaction policy 'test.spy' declined to omit ['ex-000001', 'ex-000002']; the request needs "
        "804 characters but the budget is 450",
        lambda: build(log, context_budget=budget, compaction_policy=Spy(lambda **kw: None)),
    )
    fails(
        ContextError,
        "compaction policy 'Spy' returned str",
        lambda: build(log, context_budget=budget, compaction_policy=Spy(lambda **kw: "ok", policy_id=None)),
    )
    fails(
        ContextError,
        "compaction receipt 'r' does not match this request: it names ['ex-000002'] -> ffffffffffff, the "
        f"build omits ['ex-000001', 'ex-000002'] -> {build(log, context_budget=budget, compaction_policy=ClosedExchangeWindowCompactor()).selected_digest[:12]}",
        lambda: build(
            log,
            context_budget=budget,
            compaction_policy=Spy(lambda **kw: CompactionReceipt("r", kw["exchange_ids"][1:], "f" * 64, "p")),
        ),
    )


def test_the_compaction_policy_is_asked_with_the_figures_of_the_request() -> None:
    calls: list[dict[str, Any]] = []

    def answer(**kw: Any) -> Any:
        calls.append(kw)
        return ClosedExchangeWindowCompactor().compact(**kw)

    made = build(make_log(4), context_budget=ContextBudget(450), compaction_policy=Spy(answer))
    assert calls == [
        {
            "exchange_ids": ("ex-000001", "ex-000002"),
            "selected_digest": made.selected_digest,
            "required_units": 804,
            "available_units": 450,
        }
    ]
    assert made.provenance["compaction_policy"] == "test.spy"


# -- selection and its report ----------------------------------------------------------------------


def test_just_enough_oldest_exchanges_are_omitted() -> None:
    """The request needs exactly one exchange's units less: exactly that one goes."""
    made = build(
        make_log(4), context_budget=ContextBudget(604), compaction_policy=ClosedExchangeWindowCompactor()
    )
    assert made.selection.omitted_exchange_ids == ("ex-000001",)
    assert made.selection.selected_units == 604
    one_more = build(
        make_log(4), context_budget=ContextBudget(603), compaction_policy=ClosedExchangeWindowCompactor()
    )
    assert one_more.selection.omitted_exchange_ids == ("ex-000001", "ex-000002")


def test_a_request_that_fits_exactly_omits_nothing() -> None:
    made = build(make_log(4), context_budget=ContextBudget(804))
    assert made.selection.omitted_exchange_ids == () and made.selection.selected_units == 804


def test_the_report_of_a_compacted_request() -> None:
    made = build(
        make_log(4), context_budget=ContextBudget(450), compaction_policy=ClosedExchangeWindowCompactor()
    )
    assert made.selection.to_dict() == {
        "selected_item_ids": ["ex-000003/0", "ex-000003/1", "ex-000004/0", "ex-000004/1", "ex-000005/0"],
        "omitted_item_ids": ["ex-000001/0", "ex-000001/1", "ex-000002/0", "ex-000002/1"],
        "selected_exchange_ids": ["ex-000003", "ex-000004", "ex-000005"],
        "omitted_exchange_ids": ["ex-000001", "ex-000002"],
        "selected_categories": ["message"],
        "omitted_categories": ["message"],
        "selected_context_ids": [],
        "omitted_context_ids": [],
        "total_units": 804,
        "selected_units": 404,
        "omitted_units": 400,
        "unit": "characters",
        "reasons": [
            "context_policy:qitos.context.priority/v1",
            "protected:recent_window,open_exchanges",
            "omission:compaction_receipt",
        ],
        "context_decisions": [],
        "used_by_category": {"instructions": 0, "tools": 0, "context": 0, "exchanges": 404},
        "protected_exchange_ids": ["ex-000005"],
        "exchange_units": {
            "ex-000001": 200,
            "ex-000002": 200,
            "ex-000003": 200,
            "ex-000004": 200,
            "ex-000005": 4,
        },
        "history_omitted_exchange_ids": [],
    }
    assert made.provenance["compaction_policy"] == "qitos.context.closed_window/v1"


def test_categories_are_the_sorted_kinds_of_the_selected_and_omitted_exchanges() -> None:
    log = ExchangeLog("L")
    old = log.open(step_id=0)
    log.append(old, role="user", content="x" * 50, kind="observation")
    log.close(old)
    new = log.open(step_id=1)
    log.append(new, role="user", content="q", kind="task")
    log.append(new, role="assistant", content="a", kind="answer")
    made = build(log, context_budget=ContextBudget(10), compaction_policy=ClosedExchangeWindowCompactor())
    assert made.selection.selected_categories == ("answer", "task")
    assert made.selection.omitted_categories == ("observation",)


def test_the_recent_window_protects_the_newest_exchanges_only() -> None:
    made = build(make_log(4), context_budget=ContextBudget(100_000, protected_recent_exchanges=3))
    assert made.selection.protected_exchange_ids == ("ex-000003", "ex-000004", "ex-000005")
    wider = build(make_log(1), context_budget=ContextBudget(100_000, protected_recent_exchanges=5))
    assert wider.selection.protected_exchange_ids == ("ex-000001", "ex-000002")
    none = build(
        make_log(2, current=None), context_budget=ContextBudget(100_000, protected_recent_exchanges=0)
    )
    assert none.selection.protected_exchange_ids == ()


def test_a_continuation_protects_every_exchange_and_says_so() -> None:
    made = build(target=RequestTarget("m"), continuation=ContinuationRef("c", "m", exchange_id="ex-000001"))
    assert made.selection.protected_exchange_ids == ("ex-000001", "ex-000002", "ex-000003")
    assert made.selection.reasons[1] == "protected:recent_window,open_exchanges,continuation"


def test_a_counter_of_other_units_measures_each_item() -> None:
    def words(value: Any, unit: str) -> int:
        assert unit == "tokens"
        return len(str(value).split())

    log = ExchangeLog("L")
    ex = log.open(step_id=0)
    log.append(ex, role="user", content="one two three")
    log.append(ex, role="assistant", content="four five")
    made = build(
        log,
        instructions=[{"role": "system", "content": "be brief"}],
        context_budget=ContextBudget(100, unit="tokens"),
        context_unit_counter=words,
    )
    assert dict(made.selection.used_by_category) == {
        "instructions": 2,
        "tools": 0,
        "context": 0,
        "exchanges": 5,
    }
    assert made.selection.unit == "tokens" and made.selection.total_units == 7


# -- the history selection -------------------------------------------------------------------------


def test_exchanges_the_history_leaves_out_are_reported_and_counted() -> None:
    made = build(make_log(3), carried_exchange_ids=["ex-000002"], history_policy_id="last1")
    s = made.selection
    assert s.selected_exchange_ids == ("ex-000002", "ex-000004")
    assert s.omitted_exchange_ids == ("ex-000001", "ex-000003")  # log order
    assert s.history_omitted_exchange_ids == ("ex-000001", "ex-000003")
    assert s.omitted_item_ids == ("ex-000001/0", "ex-000001/1", "ex-000003/0", "ex-000003/1")
    assert (s.total_units, s.selected_units, s.omitted_units) == (604, 204, 400)
    assert dict(s.exchange_units) == {"ex-000002": 200, "ex-000004": 4, "ex-000001": 200, "ex-000003": 200}
    assert s.reasons[-1] == "history:last1:2_omitted"
    assert made.provenance["history_policy"] == "last1"
    assert made.compaction_receipts == ()  # not a budget omission: no receipt


def test_a_history_selection_without_a_policy_name_is_reported_as_selection() -> None:
    made = build(make_log(2), carried_exchange_ids=["ex-000001", "ex-000002"])
    assert made.selection.reasons[-1] == "history:selection:0_omitted"
    assert "history_policy" not in made.provenance
    assert len(build(make_log(2)).selection.reasons) == 3  # no history selection: no history reason


def test_history_omissions_count_with_the_configured_counter() -> None:
    made = build(
        make_log(2, size=10),
        carried_exchange_ids=[],
        context_budget=ContextBudget(100, unit="tokens"),
        context_unit_counter=lambda value, unit: len(str(value)) // 2,
    )
    assert dict(made.selection.exchange_units) == {"ex-000003": 2, "ex-000001": 10, "ex-000002": 10}
    assert made.selection.total_units == 22


def test_a_history_selection_cannot_cut_under_a_provider_continuation() -> None:
    fails(
        ContextError,
        "a provider continuation covers every exchange; the history selection cannot leave out ['ex-000001']",
        lambda: build(
            target=RequestTarget("m"),
            continuation=ContinuationRef("c", "m"),
            carried_exchange_ids=["ex-000002"],
        ),
    )
    carried_all = build(
        target=RequestTarget("m"),
        continuation=ContinuationRef("c", "m"),
        carried_exchange_ids=["ex-000001", "ex-000002"],
    )
    assert carried_all.selection.history_omitted_exchange_ids == ()


def test_prior_receipts_are_kept_ahead_of_the_new_one() -> None:
    old = CompactionReceipt("old", ("ex-000001",), "0" * 64, "p")
    made = build(
        make_log(4),
        context_budget=ContextBudget(450),
        compaction_receipts=[old],
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    assert [r.receipt_id for r in made.compaction_receipts][0] == "old"
    assert len(made.compaction_receipts) == 2


# -- what cannot be JSON, and counters that count nothing ------------------------------------------


def test_instructions_and_tool_schemas_that_are_not_json_are_refused_by_path() -> None:
    fails(
        ContextError,
        "instruction.extra holds a set, which is not JSON data",
        lambda: build(instructions=[{"role": "system", "content": "x", "extra": {1}}]),
    )
    fails(
        ContextError,
        "tool schema.parameters holds a set, which is not JSON data",
        lambda: build(tool_schemas=[{"name": "t", "parameters": {2}}]),
    )


def test_a_view_that_cannot_be_written_as_json_names_the_bad_value() -> None:
    made = build(artifact_refs=[ArtifactRef("a", description={3})])  # type: ignore[arg-type]
    fails(
        ContextError,
        "request view.artifact_refs[0].description holds a set, which is not JSON data",
        made.to_json,
    )


def test_a_counter_may_count_zero_units() -> None:
    made = build(instructions=[{"role": "system", "content": "x"}], context_unit_counter=lambda v, u: 0)
    assert made.selection.total_units == 0 and made.selection.selected_units == 0


def test_a_view_with_a_continuation_writes_it_out() -> None:
    ref = ContinuationRef("resp_1", "m", exchange_id="ex-000001")
    made = build(target=RequestTarget("m"), continuation=ref)
    assert made.to_dict()["continuation"] == ref.to_dict()


def test_a_token_budget_without_a_token_counter_is_refused_even_for_exchanges_alone() -> None:
    fails(
        ContextError,
        "default_unit_counter counts characters only; pass a counter for unit 'tokens'",
        lambda: build(context_budget=ContextBudget(100, unit="tokens")),
    )


class _Unnamed:
    """A greedy selection policy that declares no policy_id."""

    select = _Greedy.select

    def __repr__(self) -> str:
        return "<unnamed selector>"


def test_a_selection_policy_without_an_id_is_named_by_its_repr() -> None:
    fails(
        ContextBudgetExceededError,
        "selection policy <unnamed selector> selected 50 characters of context, over the budget of 53",
        lambda: build(
            context_budget=ContextBudget(53),
            context_contributions=[ContextContribution("c", "s", "x" * 50)],
            context_selection_policy=_Unnamed(),
        ),
    )
    assert build(context_selection_policy=_Unnamed()).selection.reasons[0] == "context_policy:_Unnamed"


def test_a_request_that_omits_nothing_says_so() -> None:
    assert build().selection.reasons == (
        "context_policy:qitos.context.priority/v1",
        "protected:recent_window,open_exchanges",
        "omission:none",
    )


def test_a_counter_failing_on_a_history_omission_names_that_exchange() -> None:
    fails(
        ContextError,
        "unit counter returned -1 for exchange ex-000001; it must be a non-negative int",
        lambda: build(
            carried_exchange_ids=["ex-000002"],
            context_budget=ContextBudget(1000, unit="tokens"),
            context_unit_counter=lambda value, unit: -1 if str(value).startswith("0") else 1,
        ),
    )


def test_budget_and_history_omissions_are_reported_together_in_log_order() -> None:
    made = build(
        make_log(4),
        carried_exchange_ids=["ex-000001", "ex-000003", "ex-000004"],
        context_budget=ContextBudget(450),
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    s = made.selection
    assert s.history_omitted_exchange_ids == ("ex-000002",)
    assert s.omitted_exchange_ids == ("ex-000001", "ex-000002")
    assert made.compaction_receipts[0].input_exchange_ids == ("ex-000001",)
    assert s.selected_exchange_ids == ("ex-000003", "ex-000004", "ex-000005")


def test_a_compaction_policy_without_an_id_is_provenance_none_not_an_error() -> None:
    made = build(compaction_policy=Spy(lambda **kw: None, policy_id=None))
    assert made.provenance["compaction_policy"] is None
