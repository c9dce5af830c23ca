"""The run-event vocabulary: every event kind the Engine writes to a trace and the TUI folds.

One trace line (``events.jsonl``) is one :class:`RunEvent`, with the field names upstream QitOS
uses: ``{run_id, step_id, phase, ok, payload, error, ts}``. The ``phase`` field names the kind.

Upstream QitOS writes the engine phases in upper case (``INIT``, ``OBSERVE``, ``DECIDE``, ``ACT``,
``REDUCE``, ``CRITIC``, ``CHECK_STOP``, ``END``) with a ``payload["stage"]`` saying where inside the
phase the event was emitted (``start``, ``model_input``, ``model_output``, ``decision_ready``,
``action_results``, ``state_reduced``, ``outputs``, ``stop``, ...). We keep those, so our traces
read like upstream ones, and add lower-case kinds for what upstream does not record. Kinds nobody
here knows are kept as raw events by readers, never rejected.

Payloads of the added kinds (all JSON data; secrets are redacted before writing):

``model_request``   {request_id, model_id, messages: [{role, content}], tools: [names],
                     view: {selected_exchange_ids, omitted_exchange_ids,
                            contributions: [{contribution_id, source, units, priority, required,
                                             selected, reason}],
                            budget: {max_units, unit, used: {instructions, tools, context,
                                     exchanges}, available_units, protected_recent_exchanges},
                            receipts: [{receipt_id, policy_id, input_exchange_ids, output_digest,
                                        declared_losses, model_reference}]} | absent}
``model_response``  {request_id, text, tool_calls: [{name, args}], usage: {prompt_tokens,
                     completion_tokens, total_tokens}, latency_ms}
``tool_call``       {call_id, tool, args}
``tool_result``     {call_id, tool, ok, result, error, attempts, latency_ms}
``memory_append``   {record_id, role, step_id, namespace, chars}
``memory_recall``   {namespace, query, record_ids: [..], records: [{record_id, role, content}]}
``memory_delete``   {record_id, namespace, removed: bool}
``skill_publish``   {name, version, namespace, description}
``skill_deprecate`` {name, namespace, changed: bool}
``lifecycle_pause`` {policy_id, reason, step_id, boundary: "before_decide" | "before_act",
                     pending_actions: [{name, args}]}
``lifecycle_resume``{policy_id, step_id}
``lifecycle_decision`` {policy_id, step_id, boundary, verdict: "approved" | "denied" | "changed", by,
                     reason, actions: [{name, args}], changed_actions: [{name, args}] | null}
``error``           {category, message, phase, recoverable, details}
``run_end``         {status, stop_reason, final_result, steps, token_usage}

Each of these payloads has a small frozen dataclass in :mod:`qitos.trace.payloads` that reads it
field by field from untrusted JSON (``ModelRequest`` with ``RequestView``, ``Contribution``,
``BudgetFigures`` and ``Receipt``; ``ModelResponse`` with ``Usage``; ``ToolCall``; ``ToolResult``;
``MemoryAppend``, ``MemoryRecall``, ``MemoryDelete``, ``SkillPublish`` and ``SkillDeprecate`` (in
:mod:`qitos.trace.store_payloads`);
``LifecyclePause``; ``LifecycleResume``; ``ErrorInfo``; ``RunEnd``; ``PAYLOAD_TYPES`` maps each kind to its
class), and upstream's stage payloads have ``Decision`` (DECIDE ``decision_ready``),
``action_results`` (ACT), ``Stop`` (CHECK_STOP ``stop``, END) and ``init_model_name`` (INIT).
Producers name kinds by :class:`EventKind` and stages by :class:`Stage`; consumers read payloads
only through those classes and the coercers of :mod:`qitos.trace.fields`, so a wrong type or a
non-finite number in a trace costs one field, never the event. A line that cannot be read at all
becomes an event of phase :data:`MALFORMED_PHASE` with the reason (:mod:`qitos.trace.parse`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from qitos.trace.fields import INT_LIMIT, as_bool, as_int, as_text


class EventKind(StrEnum):
    """Every event kind a run trace may hold; the value is what ``phase`` says on disk.

    A ``str`` enum whose ``str()`` and formatting give the value, so a member passed as a phase is
    written, compared and shown exactly as the plain string upstream writes."""

    # Upstream-compatible engine phases (payload["stage"] says where inside the phase).
    INIT = "INIT"
    OBSERVE = "OBSERVE"
    DECIDE = "DECIDE"
    ACT = "ACT"
    REDUCE = "REDUCE"
    CRITIC = "CRITIC"
    CHECK_STOP = "CHECK_STOP"
    END = "END"
    TOOLSET_SETUP_START = "toolset_setup_start"
    TOOLSET_SETUP_END = "toolset_setup_end"
    TOOLSET_TEARDOWN_START = "toolset_teardown_start"
    TOOLSET_TEARDOWN_END = "toolset_teardown_end"

    # What qitos-tui adds: one event per thing a pane shows.
    MODEL_REQUEST = "model_request"
    MODEL_RESPONSE = "model_response"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    MEMORY_APPEND = "memory_append"
    MEMORY_RECALL = "memory_recall"
    MEMORY_DELETE = "memory_delete"
    SKILL_PUBLISH = "skill_publish"
    SKILL_DEPRECATE = "skill_deprecate"
    LIFECYCLE_PAUSE = "lifecycle_pause"
    LIFECYCLE_RESUME = "lifecycle_resume"
    LIFECYCLE_DECISION = "lifecycle_decision"
    ERROR = "error"
    RUN_END = "run_end"


class Stage(StrEnum):
    """Where inside an engine phase an upstream-style event was emitted: its ``payload["stage"]``."""

    START = "start"
    OBSERVATION_READY = "observation_ready"
    MODEL_INPUT = "model_input"
    MODEL_OUTPUT = "model_output"
    DECISION_READY = "decision_ready"
    ACTION_RESULTS = "action_results"
    ENV_STEP = "env_step"
    STATE_REDUCED = "state_reduced"
    OUTPUTS = "outputs"
    PASS = "pass"
    RETRY = "retry"
    STOP = "stop"
    CONTINUE = "continue"
    CANCEL = "cancel"


KNOWN_KINDS: frozenset[str] = frozenset(kind.value for kind in EventKind)
MALFORMED_PHASE = "<malformed>"  # the phase readers give a line they could not read (never on disk)

# Run statuses as the manifest and the TUI header spell them.
STATUS_RUNNING = "running"
STATUS_COMPLETED = "completed"
STATUS_FAILED = "failed"
STATUS_PAUSED = "paused"
STATUS_STOPPED = "stopped"
STATUS_INTERRUPTED = "interrupted"  # said by readers only: "running" with no writer alive


def utc_now() -> str:
    """The current time as an ISO-8601 UTC string, the trace's ``ts`` format."""
    return datetime.now(UTC).isoformat()


@dataclass
class RunEvent:
    """One trace line: what happened, at which step, whether it went well."""

    run_id: str
    step_id: int
    phase: str
    ok: bool = True
    payload: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    ts: str = field(default_factory=utc_now)

    @property
    def kind(self) -> EventKind | None:
        """The known kind of this event, or None for a phase this version does not know."""
        try:
            return EventKind(self.phase)
        except ValueError:
            return None

    @property
    def stage(self) -> str | None:
        """The upstream ``payload["stage"]`` marker, when there is one."""
        stage = self.payload.get("stage") if isinstance(self.payload, dict) else None
        return stage if isinstance(stage, str) else None

    def to_dict(self) -> dict[str, Any]:
        """The event as the JSON object written to ``events.jsonl``."""
        return {
            "run_id": self.run_id,
            "step_id": self.step_id,
            "phase": self.phase,
            "ok": self.ok,
            "payload": self.payload,
            "error": self.error,
            "ts": self.ts,
        }

    def to_json(self) -> str:
        """One ``events.jsonl`` line, without the newline."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunEvent:
        """Build an event from a trace line's object, field by field: a bad field costs that field.

        Upstream writes step ids as strings at times and foreign traces spell booleans as words;
        a step id that is not a usable integer (a float like ``1e999``, a bool, a 400-digit number)
        reads as 0, a non-string run id, phase or timestamp as empty, a non-object payload is
        wrapped as ``{"value": ...}``."""
        # The usual, well-typed line takes the fast path of each test; the coercers take the rest.
        step = data.get("step_id", 0)
        if type(step) is not int or not -INT_LIMIT <= step <= INT_LIMIT:
            step = as_int(step) or 0
        run_id = data.get("run_id", "")
        phase = data.get("phase", "")
        ts = data.get("ts", "")
        ok = data.get("ok", True)
        payload = data.get("payload")
        error = data.get("error")
        return cls(
            run_id=run_id if type(run_id) is str else "",
            step_id=step,
            phase=phase if type(phase) is str else "",
            ok=ok if ok is True or ok is False else as_bool(ok),
            payload=payload if type(payload) is dict else {"value": payload},
            error=error if error is None or type(error) is str else as_text(error),
            ts=ts if type(ts) is str else "",
        )
