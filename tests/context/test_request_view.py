"""ExchangeLog, RequestView.from_exchange_log, compaction receipts and the closed-window compactor."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from qitos.core.context import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextContribution,
    ContextError,
)
from qitos.core.request_view import (
    REQUEST_VIEW_SCHEMA_VERSION,
    ArtifactRef,
    CompactionReceipt,
    ContinuationRef,
    ExchangeLog,
    RequestTarget,
    RequestView,
)
from qitos.core.request_view import ContextBudgetExceededError as ReExported
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor


def make_log(closed: int, *, size: int = 100, current: str | None = "now?") -> ExchangeLog:
    """``closed`` closed exchanges of ``2 * size`` characters, then an open one with ``current``."""
    log = ExchangeLog("log-1")
    for step in range(closed):
        ex = log.open(step_id=step)
        log.append(ex, role="user", content=f"{step}".ljust(size, "u"))
        log.append(ex, role="assistant", content=f"{step}".ljust(size, "a"))
        log.close(ex)
    if current is not None:
        log.append(log.open(step_id=closed), role="user", content=current)
    return log


def test_request_view_fields_in_documented_order_with_defaults() -> None:
    names = [f.name for f in dataclasses.fields(RequestView)]
    assert names == [
        "request_id", "target", "source_log_id", "source_log_digest", "selected_items_json",
        "instructions_json", "tool_schemas_json", "context_json", "capability_requirements",
        "reasoning_policy", "continuation", "context_budget", "selection", "compaction_receipts",
        "artifact_refs", "steering_boundary_json", "correlation_facts_json", "provenance_json",
        "protocol_id", "tool_use_policy", "tool_use_satisfied", "schema_version",
    ]  # fmt: skip
    v = RequestView("r", RequestTarget("m"), "log", "0" * 64, ())
    assert (v.protocol_id, v.tool_use_policy, v.tool_use_satisfied) == ("unknown", "auto", False)
    assert v.schema_version == REQUEST_VIEW_SCHEMA_VERSION == "qitos.request_view/v1"
    assert v.selection.unit == "characters" and v.selection.total_units == 0
    assert v.context_budget == ContextBudget() and v.steering_boundary_json == "{}"
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.request_id = "other"  # type: ignore[misc]
    with pytest.raises(ContextError, match="schema"):
        RequestView("r", RequestTarget("m"), "log", "0" * 64, (), schema_version="v0")
    with pytest.raises(ContextError, match="tool_use_policy"):
        RequestView("r", RequestTarget("m"), "log", "0" * 64, (), tool_use_policy="always")


def test_from_exchange_log_documented_parameters() -> None:
    """The documented parameters in order; the history selection's two keywords follow them."""
    params = inspect.signature(RequestView.from_exchange_log).parameters
    assert list(params)[:-2] == [
        "log", "model", "target", "instructions", "tool_schemas", "capability_requirements",
        "reasoning_policy", "continuation", "context_budget", "context_contributions",
        "context_selection_policy", "context_unit_counter", "compaction_receipts", "compaction_policy",
        "artifact_refs", "available_artifact_ids", "protocol_id", "tool_use_policy", "tool_use_satisfied",
    ]  # fmt: skip
    assert list(params)[-2:] == ["carried_exchange_ids", "history_policy_id"]
    defaults = {n: p.default for n, p in params.items() if n != "log"}
    assert defaults["protocol_id"] == "unknown" and defaults["tool_use_policy"] == "auto"
    assert all(
        defaults[n] is None for n in ("model", "target", "compaction_policy", "available_artifact_ids")
    )
    assert ReExported is ContextBudgetExceededError


def test_exchange_log_is_append_only_with_stable_ids() -> None:
    log = ExchangeLog("L")
    a = log.open(step_id=0)
    b = log.open(step_id=1)
    assert (a, b) == ("ex-000001", "ex-000002")
    item = log.append(a, role="user", content="hi")
    assert item.item_id == "ex-000001/0"
    before = log.digest()
    log.append(a, role="assistant", content="hello", tool_calls=[{"name": "add", "args": {"x": 1}}])
    assert log.digest() != before
    log.close(a)
    assert log.is_closed(a) and not log.is_closed(b)
    with pytest.raises(ContextError, match="closed"):
        log.append(a, role="user", content="late")
    with pytest.raises(ContextError, match="not in log"):
        log.append("ex-999999", role="user", content="x")
    with pytest.raises(ContextError, match="role"):
        log.append(b, role="system", content="x")
    with pytest.raises(ContextError, match="string"):
        log.append(b, role="user", content=42)  # type: ignore[arg-type]
    snap = log.get(a)
    assert snap.closed and [i.content for i in snap.items] == ["hi", "hello"]
    assert snap.items[1].to_dict()["tool_calls"] == [{"name": "add", "args": {"x": 1}}]
    assert [e.exchange_id for e in log.exchanges] == [a, b] and log.last_exchange_id == b


def test_fitting_request_selects_everything_and_projects_messages() -> None:
    log = make_log(3)
    v = RequestView.from_exchange_log(
        log,
        instructions=[{"role": "system", "content": "Be brief."}],
        tool_schemas=[{"name": "add", "parameters": {"type": "object"}}],
        context_contributions=[
            ContextContribution("notes", "project", "Use notes.", requested_placement="developer"),
            ContextContribution("pref", "user", {"lang": "en"}, requested_placement="user"),
        ],
    )
    s = v.selection
    assert s.selected_exchange_ids == ("ex-000001", "ex-000002", "ex-000003", "ex-000004")
    assert s.omitted_exchange_ids == () and v.compaction_receipts == ()
    used = dict(s.used_by_category)
    assert used["instructions"] == len("Be brief.") and used["exchanges"] == 600 + len("now?")
    assert used["context"] == len("Use notes.") + len('{"lang":"en"}')
    assert s.selected_units == sum(used.values()) == s.total_units and s.omitted_units == 0
    messages = v.to_messages()
    assert messages[:3] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Use notes."},
        {"role": "user", "content": '{"lang":"en"}'},
    ]
    assert messages[-1] == {"role": "user", "content": "now?"}
    assert len(messages) == 3 + 7
    # What is sent is exactly what was budgeted (tool schemas travel outside the messages).
    assert sum(len(m["content"]) for m in messages) == s.selected_units - used["tools"]
    assert v.tool_schemas == [{"name": "add", "parameters": {"type": "object"}}]
    assert v.request_id.startswith("request_") and v.source_log_digest == log.digest()


def test_over_budget_without_compaction_policy_fails_explicitly() -> None:
    log = make_log(5)
    with pytest.raises(ContextBudgetExceededError, match="explicit compaction policy"):
        RequestView.from_exchange_log(log, context_budget=ContextBudget(700))


def test_existing_receipts_never_authorise_a_new_omission() -> None:
    log = make_log(5)
    budget = ContextBudget(700)
    view = RequestView.from_exchange_log(
        log, context_budget=budget, compaction_policy=ClosedExchangeWindowCompactor()
    )
    (receipt,) = view.compaction_receipts
    with pytest.raises(ContextBudgetExceededError, match="never authorise"):
        RequestView.from_exchange_log(log, context_budget=budget, compaction_receipts=[receipt])
    # With a policy, the old receipt is carried but the new omission gets its own matching receipt.
    again = RequestView.from_exchange_log(
        log,
        context_budget=budget,
        compaction_receipts=[receipt],
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    assert again.compaction_receipts == (receipt, receipt)


def test_compactor_omits_oldest_closed_and_receipt_matches_ids_and_digest() -> None:
    log = make_log(5)
    digest_before = log.digest()
    budget = ContextBudget(700, protected_recent_exchanges=2)
    v = RequestView.from_exchange_log(
        log, context_budget=budget, compaction_policy=ClosedExchangeWindowCompactor()
    )
    s = v.selection
    assert s.omitted_exchange_ids == ("ex-000001", "ex-000002")  # just enough, oldest first
    assert s.selected_exchange_ids == ("ex-000003", "ex-000004", "ex-000005", "ex-000006")
    assert s.protected_exchange_ids == ("ex-000005", "ex-000006")
    (receipt,) = v.compaction_receipts
    assert receipt.input_exchange_ids == s.omitted_exchange_ids
    assert receipt.output_digest == v.selected_digest
    assert receipt.policy_id == "qitos.context.closed_window/v1" and receipt.model_reference is None
    assert receipt.declared_losses == tuple(
        f"exchange {i} omitted whole, without a summary" for i in s.omitted_exchange_ids
    )
    assert s.selected_units <= 700 and s.selected_units + s.omitted_units == s.total_units
    assert log.digest() == digest_before and len(log) == 6  # the log is never modified
    assert v.context_budget == budget  # nor is the budget widened


class _Returning:
    policy_id = "test.returning"

    def __init__(self, fn):  # type: ignore[no-untyped-def]
        self.fn = fn
        self.calls: list[dict] = []

    def compact(self, **kw):  # type: ignore[no-untyped-def]
        self.calls.append(kw)
        return self.fn(**kw)


def test_compaction_policy_receives_eligible_ids_digest_and_units() -> None:
    log = make_log(4)
    spy = _Returning(lambda **kw: ClosedExchangeWindowCompactor().compact(**kw))
    v = RequestView.from_exchange_log(log, context_budget=ContextBudget(450), compaction_policy=spy)
    (call,) = spy.calls
    assert call["exchange_ids"] == v.selection.omitted_exchange_ids == ("ex-000001", "ex-000002")
    assert call["selected_digest"] == v.selected_digest
    assert call["required_units"] == 804 and call["available_units"] == 450


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda **kw: None, ContextBudgetExceededError, "declined"),
        (lambda **kw: "receipt", ContextError, "returned str"),
        (
            lambda **kw: CompactionReceipt("r", kw["exchange_ids"][1:], kw["selected_digest"], "p"),
            ContextError,
            "does not match",
        ),
        (
            lambda **kw: CompactionReceipt("r", kw["exchange_ids"], "f" * 64, "p"),
            ContextError,
            "does not match",
        ),
    ],
)
def test_mismatching_or_missing_receipt_fails_the_build(make, error, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=message):
        RequestView.from_exchange_log(
            make_log(4), context_budget=ContextBudget(450), compaction_policy=_Returning(make)
        )


def test_protected_window_is_never_removed_to_fit() -> None:
    log = make_log(4)
    with pytest.raises(ContextBudgetExceededError, match="protected exchanges"):
        RequestView.from_exchange_log(
            log,
            context_budget=ContextBudget(350, protected_recent_exchanges=3),
            compaction_policy=ClosedExchangeWindowCompactor(),
        )


def test_open_exchanges_are_protected_even_without_a_window() -> None:
    log = make_log(2)
    big = log.open(step_id=9)
    log.append(big, role="user", content="x" * 300)
    view = RequestView.from_exchange_log(
        log,
        context_budget=ContextBudget(400, protected_recent_exchanges=0),
        compaction_policy=ClosedExchangeWindowCompactor(),
    )
    assert "ex-000003" in view.selection.selected_exchange_ids
    assert view.selection.omitted_exchange_ids == ("ex-000001", "ex-000002")
    assert view.selection.protected_exchange_ids == ("ex-000003", "ex-000004")
    with pytest.raises(ContextBudgetExceededError):
        RequestView.from_exchange_log(
            log,
            context_budget=ContextBudget(250, protected_recent_exchanges=0),
            compaction_policy=ClosedExchangeWindowCompactor(),
        )


def test_continuation_protects_every_exchange_conservatively() -> None:
    log = make_log(4)
    target = RequestTarget("m1", provider="p")
    cont = ContinuationRef("resp-1", "m1", "p", exchange_id="ex-000002")
    with pytest.raises(ContextBudgetExceededError, match="protected"):
        RequestView.from_exchange_log(
            log, target=target, continuation=cont, context_budget=ContextBudget(450),
            compaction_policy=ClosedExchangeWindowCompactor(),
        )  # fmt: skip
    v = RequestView.from_exchange_log(log, target=target, continuation=cont)
    assert "continuation" in v.capability_requirements and v.continuation == cont
    with pytest.raises(ContextError, match="belongs to"):
        RequestView.from_exchange_log(log, target=RequestTarget("m2", provider="p"), continuation=cont)
    with pytest.raises(ContextError, match="not in the log"):
        RequestView.from_exchange_log(
            log, target=target, continuation=ContinuationRef("r", "m1", "p", "ex-404")
        )


def test_context_competes_after_protected_exchanges_and_required_context_fails_closed() -> None:
    log = make_log(1, current="q" * 100)
    optional = ContextContribution("opt", "project", "o" * 260, priority=5)
    required = ContextContribution("req", "project", "r" * 50, required=True)
    v = RequestView.from_exchange_log(
        log, context_budget=ContextBudget(300), context_contributions=[optional, required],
        compaction_policy=ClosedExchangeWindowCompactor(),
    )  # fmt: skip
    assert v.selection.selected_context_ids == ("req",) and v.selection.omitted_context_ids == ("opt",)
    decisions = {d["contribution_id"]: d for d in v.selection.context_decisions}
    assert decisions["opt"]["selected"] is False and decisions["opt"]["reason"].startswith("over budget")
    assert decisions["req"] == decisions["req"] | {"selected": True, "required": True, "units": 50}
    assert v.selection.omitted_exchange_ids == ("ex-000001",)  # the older exchange went, with a receipt
    with pytest.raises(ContextBudgetExceededError, match="required context 'req'"):
        RequestView.from_exchange_log(
            log, context_budget=ContextBudget(140), context_contributions=[required]
        )


def test_context_never_adds_a_tool() -> None:
    tool_like = {"type": "function", "function": {"name": "rm_rf", "parameters": {}}}
    v = RequestView.from_exchange_log(
        make_log(1),
        tool_schemas=[{"name": "add"}],
        context_contributions=[ContextContribution("sneaky", "project", tool_like, priority=100)],
    )
    assert v.tool_schemas == [{"name": "add"}]
    assert all(m["role"] in ("system", "user", "assistant") for m in v.to_messages())
    assert v.context_contributions[0]["value"] == tool_like  # it stays data


def test_artifacts_and_bad_inputs() -> None:
    log = make_log(1)
    ref = ArtifactRef("report.md", required=True)
    with pytest.raises(ContextError, match="required artifact"):
        RequestView.from_exchange_log(log, artifact_refs=[ref])
    v = RequestView.from_exchange_log(log, artifact_refs=[ref], available_artifact_ids=["report.md"])
    assert v.artifact_refs == (ref,)
    with pytest.raises(ContextError, match="instructions\\[0\\]"):
        RequestView.from_exchange_log(log, instructions=[{"role": "user", "content": "x"}])
    with pytest.raises(ContextError, match="ExchangeLog"):
        RequestView.from_exchange_log([])  # type: ignore[arg-type]
    with pytest.raises(ContextError, match="non-negative int"):
        RequestView.from_exchange_log(log, context_unit_counter=lambda v, u: 1.5)


def test_model_declared_capacity_is_the_default_budget() -> None:
    class Declared:
        model_id = "some-model-with-1m-context"
        max_input_units = 450

    log = make_log(4)
    with pytest.raises(ContextBudgetExceededError, match="budget is 450"):
        RequestView.from_exchange_log(log, model=Declared())
    v = RequestView.from_exchange_log(
        log, model=Declared(), compaction_policy=ClosedExchangeWindowCompactor()
    )
    assert v.context_budget.max_input_units == 450 and v.target.model_id == "some-model-with-1m-context"


def test_receipt_validation() -> None:
    with pytest.raises(ContextError, match="SHA-256"):
        CompactionReceipt("r", ("ex-1",), "abc", "p")
    with pytest.raises(ContextError, match="input exchange ids"):
        CompactionReceipt("r", (), "0" * 64, "p")
    r = CompactionReceipt("r", ["ex-1"], "0" * 64, "p", ["lost"])  # type: ignore[arg-type]
    assert r.input_exchange_ids == ("ex-1",) and r.declared_losses == ("lost",)
    assert r.to_dict()["input_exchange_ids"] == ["ex-1"]


def test_closed_window_compactor_is_stateless_and_validates() -> None:
    c = ClosedExchangeWindowCompactor()
    with pytest.raises(AttributeError):
        c.memory = []  # type: ignore[attr-defined]
    digest = "a" * 64
    assert (
        c.compact(exchange_ids=["ex-1"], selected_digest=digest, required_units=10, available_units=10)
        is None
    )
    one = c.compact(
        exchange_ids=["ex-1", "ex-2"], selected_digest=digest, required_units=20, available_units=10
    )
    two = ClosedExchangeWindowCompactor().compact(
        exchange_ids=("ex-1", "ex-2"), selected_digest=digest, required_units=99, available_units=1
    )
    assert one is not None and two is not None and one.receipt_id == two.receipt_id
    for bad in (
        {"exchange_ids": "ex-1"},
        {"exchange_ids": ["ex-1", "ex-1"]},
        {"selected_digest": "XYZ"},
        {"required_units": -1},
    ):
        args = {
            "exchange_ids": ["ex-1"],
            "selected_digest": digest,
            "required_units": 20,
            "available_units": 10,
        }
        with pytest.raises(ContextError):
            c.compact(**(args | bad))
