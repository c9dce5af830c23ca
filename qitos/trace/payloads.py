"""Typed payloads: one small immutable record per event kind, read from untrusted JSON field by field.

The records are NamedTuples rather than frozen dataclasses: a frozen, slotted dataclass costs
~0.4 ms to define (the generated methods are compiled one by one), a NamedTuple ~0.07 ms, and the
replay's first frame imports all twenty-five of them.

Each class names the fields its kind carries on disk (see the table in :mod:`qitos.trace.events`)
and its ``read(payload)`` takes *any* value: every field goes through a coercer from
:mod:`qitos.trace.fields`, so a wrong type, a non-finite or huge number costs that one field (it
reads as None, empty or 0), never the event, and never an exception. The fold, the panes, search
and export read payloads only through these classes and the few narrow readers below (the fold
reads just what it keeps, for speed: :func:`request_budget`, :func:`response_usage`, ...).
Memory and skill payloads live in :mod:`qitos.trace.store_payloads`.
"""

# No `from __future__ import annotations`: NamedTuple turns string annotations into ForwardRefs,
# compiling each one (half the module's import time); the few that name their own class are quoted.
import json
from typing import Any, NamedTuple, Protocol

from qitos.trace.events import EventKind, RunEvent
from qitos.trace.fields import (
    as_bool,
    as_count,
    as_dict,
    as_dicts,
    as_float,
    as_int,
    as_list,
    as_str,
    as_text,
    as_texts,
)
from qitos.trace.store_payloads import (
    MemoryAppend,
    MemoryDelete,
    MemoryRecall,
    SkillDeprecate,
    SkillPublish,
)


def payload_of(event: RunEvent) -> dict[str, Any]:
    """The event's payload as a dict (an empty one if something put another type there)."""
    return as_dict(event.payload)


def stage_of(payload: dict[str, Any]) -> str | None:
    """Upstream's ``payload["stage"]`` marker, when it is a string."""
    return as_str(payload.get("stage"))


# ---- model_request ---------------------------------------------------------------------------------
class Message(NamedTuple):
    """One chat message of a request: its role and content (text, or JSON data for multi-part content)."""

    role: str
    content: Any

    @classmethod
    def read(cls, value: Any) -> "Message":
        """A message from any value (a non-dict gives an empty user message)."""
        data = as_dict(value)
        return cls(role=as_text(data.get("role")), content=data.get("content", ""))


class Contribution(NamedTuple):
    """One context contribution the request builder weighed: chosen or dropped, and why."""

    contribution_id: str
    source: str
    units: int | None
    priority: int | None
    required: bool
    selected: bool
    reason: str

    @classmethod
    def read(cls, data: dict[str, Any]) -> "Contribution":
        """A contribution from its JSON object."""
        return cls(
            contribution_id=as_text(data.get("contribution_id")) or "?",
            source=as_text(data.get("source")),
            units=as_int(data.get("units")),
            priority=as_int(data.get("priority")),
            required=as_bool(data.get("required")),
            selected=as_bool(data.get("selected")),
            reason=as_text(data.get("reason")),
        )


class Receipt(NamedTuple):
    """A compaction receipt: which exchanges were compacted, by which policy, and what was lost."""

    receipt_id: str
    policy_id: str
    input_exchange_ids: tuple[str, ...]
    output_digest: str
    declared_losses: tuple[str, ...]
    model_reference: str

    @classmethod
    def read(cls, data: dict[str, Any]) -> "Receipt":
        """A receipt from its JSON object."""
        return cls(
            receipt_id=as_text(data.get("receipt_id")) or "?",
            policy_id=as_text(data.get("policy_id")),
            input_exchange_ids=tuple(as_texts(data.get("input_exchange_ids"))),
            output_digest=as_text(data.get("output_digest")),
            declared_losses=tuple(as_texts(data.get("declared_losses"))),
            model_reference=as_text(data.get("model_reference")),
        )


class BudgetFigures(NamedTuple):
    """A request's budget: capacity, units used per category (in written order), what was left."""

    max_units: int
    unit: str
    used: tuple[tuple[str, int], ...]
    available_units: int | None

    @classmethod
    def read(cls, value: Any) -> "BudgetFigures | None":
        """The budget from a view's ``budget`` object; None when it is not an object."""
        if not isinstance(value, dict):
            return None
        used = as_dict(value.get("used"))
        return cls(
            max_units=as_count(value.get("max_units")),
            unit=as_str(value.get("unit")) or "units",
            used=tuple((str(name), as_count(units)) for name, units in used.items()),
            available_units=as_int(value.get("available_units")),
        )


class RequestView(NamedTuple):
    """What a request was built from: exchanges selected and omitted, contributions, budget, receipts."""

    selected_exchange_ids: tuple[str, ...]
    omitted_exchange_ids: tuple[str, ...]
    # Left out by the history selection (the agent's History / HistoryPolicy), not by a compaction.
    history_omitted_exchange_ids: tuple[str, ...]
    exchange_steps: dict[str, int]  # exchange id -> step id, when the view records them
    contributions: tuple[Contribution, ...]
    budget: BudgetFigures | None
    receipts: tuple[Receipt, ...]

    @classmethod
    def read(cls, value: Any) -> "RequestView | None":
        """The view from a request's ``view`` object; None when it has none (upstream traces)."""
        if not isinstance(value, dict):
            return None
        steps: dict[str, int] = {}
        for item in as_dicts(value.get("exchanges")):
            step = as_int(item.get("step_id"))
            if step is not None:
                steps[as_text(item.get("exchange_id"))] = step
        return cls(
            selected_exchange_ids=tuple(as_texts(value.get("selected_exchange_ids"))),
            omitted_exchange_ids=tuple(as_texts(value.get("omitted_exchange_ids"))),
            history_omitted_exchange_ids=tuple(as_texts(value.get("history_omitted_exchange_ids"))),
            exchange_steps=steps,
            contributions=tuple(Contribution.read(c) for c in as_dicts(value.get("contributions"))),
            budget=BudgetFigures.read(value.get("budget")),
            receipts=tuple(Receipt.read(r) for r in as_dicts(value.get("receipts"))),
        )


class ModelRequest(NamedTuple):
    """``model_request`` — and upstream's DECIDE ``model_input``, which has ``prepared`` text instead."""

    request_id: str | None
    model_id: str | None
    messages: tuple[Message, ...]
    prepared: Any  # upstream's prompt text, when the payload has it instead of messages
    tools: tuple[str, ...]
    view: RequestView | None
    history_message_count: int | None

    @property
    def conversation(self) -> tuple[Message, ...]:
        """The messages sent, or upstream's prepared text as one user message when there are none."""
        if self.messages or self.prepared is None:
            return self.messages
        return (Message("user", self.prepared),)

    @classmethod
    def read(cls, payload: Any) -> "ModelRequest":
        """The request from its payload."""
        p = as_dict(payload)
        return cls(
            request_id=as_str(p.get("request_id")),
            model_id=as_str(p.get("model_id")),
            messages=tuple(Message.read(m) for m in as_dicts(p.get("messages"))),
            prepared=None if isinstance(p.get("messages"), list) else p.get("prepared"),
            tools=tuple(as_texts(p.get("tools"))),
            view=RequestView.read(p.get("view")),
            history_message_count=as_int(p.get("history_message_count")),
        )


def request_id(payload: dict[str, Any]) -> str | None:
    """A request's or response's ``request_id`` as text, when it has a usable one."""
    value = payload.get("request_id")
    if isinstance(value, bool) or value is None or value == "":
        return None
    return value if isinstance(value, str) else (as_text(value) if isinstance(value, int) else None)


def request_view(payload: dict[str, Any]) -> RequestView | None:
    """Just the view of a ``model_request`` payload (what the context panes show), or None."""
    return RequestView.read(payload.get("view"))


def request_budget(payload: dict[str, Any]) -> BudgetFigures | None:
    """Just the budget of a ``model_request`` payload (what the fold keeps), or None."""
    view = payload.get("view")
    return BudgetFigures.read(view.get("budget")) if isinstance(view, dict) else None


# ---- model_response --------------------------------------------------------------------------------
class Usage(NamedTuple):
    """Token usage of a response; ``figures`` gives every field as written, for display."""

    prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    written: dict[str, Any]  # the usage object as it is in the trace

    @property
    def estimated(self) -> bool:
        """Whether the Engine estimated these figures because the model reported none."""
        return self.written.get("estimated") is True

    @property
    def figures(self) -> tuple[tuple[str, str], ...]:
        """Every (field, value) of the usage object as written, as text (the estimate flag aside)."""
        return tuple((str(k), as_text(v)) for k, v in self.written.items() if k != "estimated")

    @property
    def total(self) -> int:
        """The total, or prompt + completion when the total is missing; 0 when neither is usable."""
        if self.total_tokens:
            return max(0, self.total_tokens)
        return max(0, self.prompt_tokens or 0) + max(0, self.completion_tokens or 0)

    @classmethod
    def read(cls, value: Any) -> "Usage":
        """Usage from a ``usage`` object (anything else reads as no usage)."""
        data = as_dict(value)
        return cls(
            prompt_tokens=as_int(data.get("prompt_tokens")),
            completion_tokens=as_int(data.get("completion_tokens")),
            total_tokens=as_int(data.get("total_tokens")),
            written=data,
        )


def response_usage(payload: dict[str, Any]) -> Usage:
    """The usage of a ``model_response`` payload."""
    return Usage.read(payload.get("usage"))


class ModelResponse(NamedTuple):
    """``model_response`` — and upstream's DECIDE ``model_output``, which has ``raw_output`` instead."""

    request_id: str | None
    text: str
    tool_calls: tuple[dict[str, Any], ...]
    usage: Usage
    latency_ms: float | None

    @classmethod
    def read(cls, payload: Any) -> "ModelResponse":
        """The response from its payload."""
        p = as_dict(payload)
        return cls(
            request_id=request_id(p),
            text=as_text(p.get("text", p.get("raw_output", ""))),
            tool_calls=tuple(as_dicts(p.get("tool_calls"))),
            usage=response_usage(p),
            latency_ms=as_float(p.get("latency_ms")),
        )


def response_tool_calls(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``{name, args}`` tool calls a ``model_response`` asked for."""
    return as_dicts(payload.get("tool_calls"))


# ---- tools ---------------------------------------------------------------------------------------
class ToolCall(NamedTuple):
    """``tool_call``: the call id, the tool's name and its arguments."""

    call_id: str | None
    tool: str
    args: Any

    @classmethod
    def read(cls, payload: Any) -> "ToolCall":
        """The call from its payload."""
        p = as_dict(payload)
        return cls(call_id=call_id(p), tool=as_text(p.get("tool")) or "?", args=p.get("args"))


def call_id(payload: dict[str, Any]) -> str | None:
    """A tool call's or result's ``call_id`` as text, when it has one."""
    value = payload.get("call_id")
    return None if value is None or isinstance(value, dict | list) else as_text(value)


class ToolResult(NamedTuple):
    """``tool_result``: which call, whether it went well, its result or error."""

    call_id: str | None
    tool: str
    ok: bool
    result: Any
    error: str | None
    attempts: int | None
    max_attempts: int | None
    latency_ms: float | None

    @classmethod
    def read(cls, payload: Any) -> "ToolResult":
        """The result from its payload; ``ok`` is false only when the payload says so."""
        p = as_dict(payload)
        error = p.get("error")
        return cls(
            call_id=call_id(p),
            tool=as_text(p.get("tool")),
            ok=as_bool(p.get("ok", True), default=True),
            result=p.get("result"),
            error=None if error is None else as_text(error),
            attempts=as_int(p.get("attempts")),
            max_attempts=as_int(p.get("max_attempts")),
            latency_ms=as_float(p.get("latency_ms")),
        )


class ToolInvocation(NamedTuple):
    """One entry of upstream's ACT ``action_results``: the tool, its status, its output."""

    tool_name: str
    status: str | None
    error: str | None
    output: Any

    @property
    def failed(self) -> bool:
        """Whether the invocation says it did not succeed."""
        return self.status not in (None, "success")


def action_results(payload: dict[str, Any], *, paired: bool = False) -> list[ToolInvocation]:
    """Upstream ACT ``action_results``: invocations with their results (stdout when given); with
    ``paired``, only the invocations that have a result."""
    invocations = as_list(payload.get("tool_invocations"))
    results = as_list(payload.get("action_results"))
    if paired:
        invocations = invocations[: len(results)]
    out: list[ToolInvocation] = []
    for pos, inv in enumerate(invocations):
        data = as_dict(inv)
        res = results[pos] if pos < len(results) else None
        error = data.get("error")
        out.append(
            ToolInvocation(
                tool_name=as_text(data.get("tool_name")) or "tool",
                status=as_text(data["status"]) if data.get("status") is not None else None,
                error=None if error is None else as_text(error),
                output=res.get("stdout", res) if isinstance(res, dict) else res,
            )
        )
    return out


# ---- upstream phases: DECIDE decision_ready, INIT, CHECK_STOP, END ---------------------------------
class Decision(NamedTuple):
    """Upstream's DECIDE ``decision_ready``: the actions chosen, or the final answer."""

    actions: tuple[dict[str, Any], ...]
    final_answer: str | None

    @classmethod
    def read(cls, payload: Any) -> "Decision":
        """The decision from its payload."""
        p = as_dict(payload)
        final = p.get("final_answer")
        return cls(
            actions=tuple(as_dicts(p.get("actions"))), final_answer=None if final is None else as_text(final)
        )


def init_model_name(payload: dict[str, Any]) -> str | None:
    """The model name upstream's INIT event records in ``run_meta``."""
    return as_str(as_dict(payload.get("run_meta")).get("model_name"))


class Stop(NamedTuple):
    """Why a run stopped and what it produced (CHECK_STOP ``stop``, END)."""

    stop_reason: str | None
    final_result: Any

    @classmethod
    def read(cls, payload: Any) -> "Stop":
        """The stop figures from a CHECK_STOP or END payload."""
        p = as_dict(payload)
        return cls(stop_reason=as_str(p.get("stop_reason")), final_result=p.get("final_result"))


# ---- lifecycle, errors, run end ------------------------------------------------------------------
class LifecyclePause(NamedTuple):
    """``lifecycle_pause``: which policy paused, why, where, and what the run was about to do."""

    policy_id: str
    reason: str
    step_id: int | None
    boundary: str
    pending_actions: tuple[dict[str, Any], ...]

    @classmethod
    def read(cls, payload: Any) -> "LifecyclePause":
        """The pause from its payload."""
        p = as_dict(payload)
        return cls(
            policy_id=as_text(p.get("policy_id")) or "?",
            reason=as_text(p.get("reason")),
            step_id=as_int(p.get("step_id")),
            boundary=as_text(p.get("boundary")),
            pending_actions=tuple(as_dicts(p.get("pending_actions"))),
        )


class LifecycleResume(NamedTuple):
    """``lifecycle_resume``: which policy let the run go on, at which step."""

    policy_id: str
    step_id: int | None

    @classmethod
    def read(cls, payload: Any) -> "LifecycleResume":
        """The resume from its payload."""
        p = as_dict(payload)
        return cls(policy_id=as_text(p.get("policy_id")) or "?", step_id=as_int(p.get("step_id")))


class LifecycleDecision(NamedTuple):
    """``lifecycle_decision``: who ruled on a pause, which policy paused, the verdict, args before/after."""

    policy_id: str
    step_id: int | None
    boundary: str
    verdict: str
    by: str
    reason: str
    actions: tuple[dict[str, Any], ...]
    changed_actions: tuple[dict[str, Any], ...] | None

    @classmethod
    def read(cls, payload: Any) -> "LifecycleDecision":
        """The decision from its payload."""
        p = as_dict(payload)
        changed = p.get("changed_actions")
        return cls(
            policy_id=as_text(p.get("policy_id")) or "?",
            step_id=as_int(p.get("step_id")),
            boundary=as_text(p.get("boundary")),
            verdict=as_text(p.get("verdict")) or "?",
            by=as_text(p.get("by")) or "?",
            reason=as_text(p.get("reason")),
            actions=tuple(as_dicts(p.get("actions"))),
            changed_actions=tuple(as_dicts(changed)) if isinstance(changed, list) else None,
        )

    def summary(self) -> str:
        """One line saying what was decided (plain text: show it through ``inert``)."""
        names = ", ".join(as_text(a.get("name")) or "?" for a in self.actions) or "nothing"
        line = f"{self.verdict} by {self.by}: {names} (paused by {self.policy_id})"
        if self.changed_actions is not None:
            line += " -> " + "; ".join(
                f"{as_text(a.get('name'))}({json_line(a.get('args'))})" for a in self.changed_actions
            )
        return line + (f" — {self.reason}" if self.reason else "")


def json_line(value: Any) -> str:
    """A value as one line of JSON (anything not JSON shown by its repr)."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return repr(value)


class ErrorDetails(NamedTuple):
    """An error's ``details``: the adapter's failure kind, HTTP status, attempt n of m, latency."""

    kind: str | None
    status: int | None
    attempt: int | None
    max_attempts: int | None
    attempts: int | None  # a tool call's attempts in all, when no attempt number is given
    latency_ms: float | None
    request_id: str | None

    @classmethod
    def read(cls, value: Any) -> "ErrorDetails":
        """The details from their object (anything else reads as none known)."""
        d = as_dict(value)
        return cls(
            kind=as_str(d.get("kind")) or None,
            status=as_int(d.get("status")),
            attempt=as_int(d.get("attempt")),
            max_attempts=as_int(d.get("max_attempts")),
            attempts=as_int(d.get("attempts")),
            latency_ms=as_float(d.get("latency_ms")),
            request_id=as_str(d.get("request_id")),
        )


class ErrorInfo(NamedTuple):
    """``error``: its category, message, the phase it came from, whether the run went on, and
    whether the Engine is retrying (None when the event does not say)."""

    category: str
    message: str | None
    phase: str
    recoverable: bool
    retrying: bool | None
    details: ErrorDetails

    @classmethod
    def read(cls, payload: Any) -> "ErrorInfo":
        """The error from its payload."""
        p = as_dict(payload)
        message = p.get("message")
        retrying = p.get("retrying")
        return cls(
            category=as_text(p.get("category")) or "error",
            message=None if message is None else as_text(message),
            phase=as_text(p.get("phase")),
            recoverable=as_bool(p.get("recoverable")),
            retrying=retrying if isinstance(retrying, bool) else None,
            details=ErrorDetails.read(p.get("details")),
        )


class RunEnd(NamedTuple):
    """``run_end``: the final status, why it stopped, the result, steps and tokens."""

    status: str | None
    stop_reason: str | None
    final_result: Any
    steps: int | None
    token_usage: int | None

    @classmethod
    def read(cls, payload: Any) -> "RunEnd":
        """The run end from its payload (a usage object gives its total)."""
        p = as_dict(payload)
        usage = p.get("token_usage")
        tokens = Usage.read(usage).total if isinstance(usage, dict) else as_int(usage)
        return cls(
            status=as_str(p.get("status")),
            stop_reason=as_str(p.get("stop_reason")),
            final_result=p.get("final_result"),
            steps=as_int(p.get("steps")),
            token_usage=tokens,
        )


class _PayloadClass(Protocol):
    """A payload class: ``read`` builds one from an event's payload."""

    def read(self, data: dict[str, Any], /) -> object: ...


PAYLOAD_TYPES: dict[EventKind, _PayloadClass] = {
    EventKind.MODEL_REQUEST: ModelRequest,
    EventKind.MODEL_RESPONSE: ModelResponse,
    EventKind.TOOL_CALL: ToolCall,
    EventKind.TOOL_RESULT: ToolResult,
    EventKind.MEMORY_APPEND: MemoryAppend,
    EventKind.MEMORY_RECALL: MemoryRecall,
    EventKind.MEMORY_DELETE: MemoryDelete,
    EventKind.SKILL_PUBLISH: SkillPublish,
    EventKind.SKILL_DEPRECATE: SkillDeprecate,
    EventKind.LIFECYCLE_PAUSE: LifecyclePause,
    EventKind.LIFECYCLE_RESUME: LifecycleResume,
    EventKind.LIFECYCLE_DECISION: LifecycleDecision,
    EventKind.ERROR: ErrorInfo,
    EventKind.RUN_END: RunEnd,
}
"""The payload class of each kind that has one of its own (engine phases carry ``stage`` payloads)."""


def read_payload(event: RunEvent) -> Any:
    """The event's payload read as its kind's class; None for kinds without one (and unknown kinds)."""
    kind = event.kind
    cls = PAYLOAD_TYPES.get(kind) if kind is not None else None
    return cls.read(event.payload) if cls is not None else None
