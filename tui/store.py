"""RunStore: the one fold that turns a RunEvent stream into what the panes show, live or replayed.

The fold keeps only small summaries per step (phases, action, ok/error, tokens, budget figures) and
the *indices* of the events that carry large payloads; the panes load those few events on demand
from the :class:`EventSource` (the TraceReader for replay, an in-memory list for live runs). That
keeps a 1 GB trace foldable in bounded memory and makes selecting a step cheap.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

from qitos.trace.events import (
    KNOWN_KINDS,
    MALFORMED_PHASE,
    STATUS_COMPLETED,
    STATUS_FAILED,
    STATUS_INTERRUPTED,
    STATUS_PAUSED,
    STATUS_RUNNING,
    STATUS_STOPPED,
    EventKind,
    RunEvent,
    Stage,
)
from qitos.trace.fields import INT_LIMIT, as_bool, as_dict, as_float, as_int, as_str, as_text
from qitos.trace.parse import malformed_notice
from qitos.trace.payloads import (
    Decision,
    ErrorInfo,
    LifecycleDecision,
    LifecyclePause,
    RunEnd,
    Stop,
    ToolCall,
    ToolResult,
    action_results,
    call_id,
    init_model_name,
    request_budget,
    request_id,
    response_tool_calls,
    response_usage,
    stage_of,
)
from tui.action_brief import action_brief, actions_brief
from tui.event_kinds import category
from tui.indices import Compact, Indices, with_index
from tui.step_positions import StepPositions

# What the header says for each manifest / run_end status.
DISPLAY_STATUS = {
    STATUS_RUNNING: "live",
    STATUS_PAUSED: "paused",
    STATUS_COMPLETED: "finished",
    STATUS_STOPPED: "stopped",  # cancelled (quit while paused, or on request): not finished
    STATUS_FAILED: "failed",
    STATUS_INTERRUPTED: "interrupted",
}

# Where a step got to; the values are plain strings (a live event's phase may be an EventKind).
_SHOWN_PHASES = {
    kind.value: kind.value
    for kind in (EventKind.INIT, EventKind.OBSERVE, EventKind.DECIDE, EventKind.ACT, EventKind.END)
}
_MODEL_STAGES = frozenset({Stage.MODEL_INPUT, Stage.MODEL_OUTPUT})
_TOOLSET_KINDS = frozenset(
    {
        EventKind.TOOLSET_SETUP_START,
        EventKind.TOOLSET_SETUP_END,
        EventKind.TOOLSET_TEARDOWN_START,
        EventKind.TOOLSET_TEARDOWN_END,
    }
)
_NAMES: dict[tuple[str, ...], tuple[str, ...]] = {}  # shared category-name tuples (memory)
# Figures and texts that recur from step to step (a budget's capacity and fixed categories, the
# same action again) are kept once: a 1 GB trace has a hundred thousand steps, and each int above
# 256 or string the fold keeps would otherwise be an object of its own (32 to 80 bytes).
_SHARED: dict[object, object] = {}
_T = TypeVar("_T")
_SHARED_LIMIT = 4096  # what recurs is a few values; a bigger table only holds one-offs


def _shared(value: _T) -> _T:
    """``value``, or an equal one kept before (the table is bounded: rare values are not kept)."""
    kept = _SHARED.get(value)
    if kept is not None and type(kept) is type(value):  # 1 == True, but one is not the other
        return kept
    if len(_SHARED) < _SHARED_LIMIT:
        _SHARED[value] = value
    return value


BUDGET_CATEGORIES = ("instructions", "tools", "context", "exchanges")
ACTION_WIDTH = 60


class EventSource(Protocol):
    """Random access to a run's events by index (TraceReader satisfies it)."""

    def __len__(self) -> int: ...

    def event(self, index: int) -> RunEvent: ...

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]: ...


class ListSource:
    """An in-memory, append-only event source for live runs and tests; safe to append from a thread."""

    def __init__(self, events: Iterable[RunEvent] = ()) -> None:
        self._events: list[RunEvent] = list(events)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._events)

    def append(self, event: RunEvent) -> None:
        """Add one event at the end."""
        with self._lock:
            self._events.append(event)

    def event(self, index: int) -> RunEvent:
        """The event at ``index``."""
        return self._events[index]

    def events(self, start: int = 0, stop: int | None = None) -> Iterator[RunEvent]:
        """Events ``start`` .. ``stop`` (exclusive), a stable slice even while appending."""
        with self._lock:
            chunk = self._events[start:stop]
        return iter(chunk)


@dataclass(slots=True)
class Exchange:
    """One model round: the request, its response, and the tool results that followed."""

    number: int
    step: int
    exchange_id: str
    request: int | None = None
    response: int | None = None
    # Indices of the tool calls and results, read as tuples; most exchanges have one of each, kept
    # as the bare int (tui.indices): a 1 GB trace has a hundred thousand exchanges in memory.
    _tool_calls: Compact = ()
    _tool_results: Compact = ()
    errors: tuple[int, ...] = ()  # failed attempts of this model call (error events), in order
    tokens: int = 0

    tool_calls = Indices()
    tool_results = Indices()


class Budget(NamedTuple):
    """A request's budget: capacity, units used per category, what was left (a NamedTuple: the
    fold makes one per request, and the first frame defines it; both cost less than a dataclass)."""

    max_units: int
    unit: str
    names: tuple[str, ...]  # the categories, one tuple shared by every budget that has them
    units: tuple[int, ...]
    available_units: int | None

    @property
    def used(self) -> tuple[tuple[str, int], ...]:
        """(category, units used) pairs."""
        return tuple(zip(self.names, self.units, strict=True))

    @property
    def used_total(self) -> int:
        """Units used over all categories."""
        return sum(self.units)


@dataclass(slots=True)
class StepExtras:
    """What few steps have (a failure, retries, skills, pauses, errors, raw events): kept apart, so
    that the other steps do not carry six empty fields each (a 1 GB trace has 100k steps)."""

    error: str | None = None
    retries: int = 0  # failed attempts that were retried (the step may still have succeeded)
    skills: tuple[int, ...] = ()
    pauses: tuple[int, ...] = ()
    errors: tuple[int, ...] = ()
    raw: tuple[int, ...] = ()


_NO_EXTRAS = StepExtras()


class _Extra:
    """A StepSummary field read from its StepExtras (the defaults when it has none) and set there."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, step: StepSummary | None, owner: type | None = None) -> Any:
        if step is None:
            return self
        return getattr(step.extras if step.extras is not None else _NO_EXTRAS, self.name)

    def __set__(self, step: StepSummary, value: Any) -> None:
        if step.extras is None:
            default = getattr(_NO_EXTRAS, self.name)
            if value == default and type(value) is type(default):
                return  # 0 more retries, say: nothing to keep
            step.extras = StepExtras()
        setattr(step.extras, self.name, value)


@dataclass(slots=True)
class StepSummary:
    """What the step list shows for one step, and where its events are."""

    step: int
    first: int
    last: int
    phase: str = ""
    action: str = ""
    ok: bool = True
    tokens: int = 0
    latency_ms: float = 0.0  # model and tool latency the step's events report, summed
    used_units: int | None = None
    budget: Budget | None = None
    # Indices of the events the panes load on demand, by what they are, read as tuples (one index
    # is kept as the bare int: tui.indices), and the step's positions in RunStore.exchanges.
    _requests: Compact = ()
    _memory: Compact = ()
    _exchanges: Compact = ()
    extras: StepExtras | None = None  # what few steps have, read through the fields below

    requests = Indices()
    memory = Indices()
    exchanges = Indices()
    error = _Extra()
    retries = _Extra()
    skills = _Extra()
    pauses = _Extra()
    errors = _Extra()
    raw = _Extra()


@dataclass(slots=True)
class PauseInfo:
    """Why the run is paused and what it was about to do."""

    policy_id: str
    reason: str
    step: int
    boundary: str
    pending_actions: list[dict[str, Any]]
    own: bool = False  # paused by the TUI's own policy rather than the agent's


def short(value: Any, width: int = ACTION_WIDTH) -> str:
    """A one-line, width-capped rendering of a value for lists and headers."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


ANSWER = "answer: "
"""How a step's action starts when the model answered in text rather than calling a tool."""
FINAL = "final: "
"""How a step's action starts when the agent decided on its final answer."""


def format_action(action: Any) -> str:
    """``name(k=v, ...)`` for an action dict ``{name, args}``; anything else as short text."""
    if isinstance(action, dict) and "name" in action:
        args = action.get("args")
        if isinstance(args, dict):
            inner = ", ".join(f"{k}={short(v, 24)}" for k, v in args.items())
        else:
            inner = "" if args is None else short(args, 24)
        return short(f"{as_text(action['name'])}({inner})")
    return short(action)


class RunStore:
    """Incremental fold of one run's events into per-step views; feed it with :meth:`apply`."""

    own_policy_id = "qitos-tui.pause"

    def __init__(self, source: EventSource | None = None, *, run_id: str = "") -> None:
        self.source: EventSource = source if source is not None else ListSource()
        self.run_id = run_id
        self.status = STATUS_RUNNING
        # What the trace's manifest says (replay only): the last word when the events end early.
        self.declared_status: str | None = None
        self.model_id = ""
        self.stop_reason: str | None = None
        self.final_result: Any = None
        self.total_tokens = 0
        self.declared_tokens = 0  # the manifest's figure (replay); upstream traces have only this
        self.event_count = 0
        # One category code per event (tui.event_kinds): the Events pane filters on it, 1 byte each.
        self.categories = bytearray()
        self.steps: list[StepSummary] = []
        self._series: list[float] = []  # used_series, as of its last call
        self._series_from = 0  # the first step position changed since then
        self.step_pos = StepPositions()
        self.exchanges: list[Exchange] = []
        self._next_exchange_pos = 0  # the position the next exchange takes (see _exchange)
        self.exchange_by_id: dict[str, int] = {}
        self.pause: PauseInfo | None = None
        self.last_decision: str | None = None  # the latest ruling on a pause, as one plain line
        self.error_count = 0
        # The error that ended the run (its event payload), kept for the header and the dialog.
        self.failure: dict[str, Any] | None = None
        self.failure_step: int | None = None
        self.unknown_kinds: dict[str, int] = {}
        # Sentences for the status bar about what the fold kept raw (unknown or missing kinds).
        self.notices: list[str] = []
        self.memory_ops = 0
        self.skill_ops = 0
        self._by_call: dict[str, int] = {}
        # Our Engine writes upstream's DECIDE stages *and* model_request/response; once the latter
        # are seen, the DECIDE stages no longer make exchanges of their own.
        self._native_requests = False
        # What a fold of a later part of a trace, begun afresh, needs to be joined to the fold of
        # the events before it exactly (see absorb): which run-level fields its events set, the
        # tokens its responses added and each run_end's total with the tokens added before it,
        # what it looked up and did not find, and what it did only because no model_request came
        # before. Set on the rare paths, but for the tokens.
        self._assigned: set[str] = set()
        self._tokens_added = 0
        self._token_floors: list[tuple[int, int]] = []
        self._missed_ids: set[str] = set()
        self._missed_calls: set[str] = set()
        self._kind_notices: dict[int, str] = {}  # notice position -> the unknown kind it is first of
        self._before_native = False

    # ---- folding -------------------------------------------------------------------------------
    def apply(self, events: Iterable[RunEvent | dict[str, Any]], start: int | None = None) -> int:
        """Fold ``events`` whose first one sits at index ``start`` (default: next); returns count.

        An event is a RunEvent or a trace line's object as parsed (a *record*): the background
        fold hands over records, skipping a RunEvent per line, and a record folds exactly as
        ``RunEvent.from_dict`` of it would (tests/tui/test_fold_records.py holds the two equal)."""
        index = self.event_count if start is None else start
        n = 0
        fold = self._fold
        for event in events:
            if isinstance(event, dict):
                # RunEvent.from_dict's readings of an untrusted object, only where they differ from
                # what _fold does anyway (a step id, a phase and a payload it coerces itself).
                run_id = event.get("run_id", "")
                step = event.get("step_id", 0)
                if type(step) is not int or not -INT_LIMIT <= step <= INT_LIMIT:
                    step = as_int(step) or 0
                ok = event.get("ok", True)
                payload = event.get("payload")
                error = event.get("error")
                fold(
                    run_id if type(run_id) is str else "",
                    step,
                    event.get("phase", ""),
                    ok if ok is True or ok is False else as_bool(ok),
                    payload if type(payload) is dict else {"value": payload},
                    error if error is None or type(error) is str else as_text(error),
                    index,
                )
            else:
                fold(event.run_id, event.step_id, event.phase, event.ok, event.payload, event.error, index)
            index += 1
            n += 1
        self.event_count = max(self.event_count, index)
        return n

    def _exchange(self, step: StepSummary, exchange_id: str) -> Exchange:
        pos = self.exchange_by_id.get(exchange_id)
        if pos is None:
            # The previous exchange's number is this one's position: kept as the same int object
            # (a 1 GB trace has a hundred thousand exchanges, and each int is 28 bytes).
            pos = self._next_exchange_pos
            if pos != len(self.exchanges):
                pos = len(self.exchanges)  # one was dropped (_drop_decide_exchange)
            number = pos + 1
            self._next_exchange_pos = number
            self.exchanges.append(Exchange(number=number, step=step.step, exchange_id=exchange_id))
            self.exchange_by_id[exchange_id] = pos
            step._exchanges = with_index(step._exchanges, pos)
        return self.exchanges[pos]

    def _fold(
        self, run_id: Any, step_id: Any, phase: Any, ok: Any, payload: Any, error: str | None, i: int
    ) -> None:
        """Fold one event, given by its fields (a RunEvent's, or a record's as from_dict reads them)."""
        if not self.run_id and run_id:
            self.run_id = run_id
        if not isinstance(phase, str):
            phase = ""
        p = payload if type(payload) is dict else as_dict(payload)
        kind = _KINDS_SEEN.get(phase)
        if kind is None:
            kind = _kind_of(phase)
        code, shown, handler, tally = kind
        if ok is not True or ("attempts" in p and not _first_attempt(p)):
            code = category(phase, ok is True, p)  # else it depends on the kind alone
        categories = self.categories
        if i == len(categories):
            categories.append(code)
        elif i < len(categories):
            categories[i] = code
        else:
            categories.extend(bytes(i - len(categories)))
            categories.append(code)
        if not tally:
            return  # teardown events come after END with step 0 upstream: nothing about step 0
        if type(step_id) is not int:
            step_id = as_int(step_id) or 0
        # The step, inline (a call per event costs a tenth of the fold).
        pos = self.step_pos.get(step_id)
        if pos is None:
            pos = len(self.steps)
            self.step_pos.add(step_id, pos)
            self.steps.append(StepSummary(step=step_id, first=i, last=i))
        step = self.steps[pos]
        if i > step.last:
            step.last = i
        if pos < self._series_from:
            self._series_from = pos  # used_series recomputes from here on
        if shown:
            step.phase = shown
        # A retry is not a failure yet.
        if not ok and not (phase == EventKind.ERROR and ErrorInfo.read(p).retrying is True):
            step.ok = False
            step.error = _shared(short(error or p.get("message") or phase, 80))
        if handler is not None:
            handler(self, error, p, step, i)
        elif phase not in KNOWN_KINDS:
            self._keep_raw(error, p, phase, step, i)

    def _keep_raw(self, error: str | None, p: dict, phase: str, step: StepSummary, i: int) -> None:
        """An event of no kind this version folds: kept raw at its step, its kind noticed once."""
        step.raw += (i,)
        seen = self.unknown_kinds.get(phase, 0)
        self.unknown_kinds[phase] = seen + 1
        if phase == MALFORMED_PHASE:
            # Worded as the reader words it, so the screen shows a line parsed by either once.
            self.notices.append(malformed_notice(RunEvent("", step.step, phase, False, p, error, "")))
        elif seen:
            return
        else:
            self._kind_notices[len(self.notices)] = phase
            if phase:
                name = short(phase, 40)
                self.notices.append(
                    f"unknown event kind {name!r} (first at event {i + 1}): shown as raw events"
                )
            else:
                self.notices.append(f"events without a kind (first at event {i + 1}): shown as raw events")

    # model_request / model_response ---------------------------------------------------------------
    def _on_request(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        if not self._native_requests:
            self._native_requests = True
            self._drop_decide_exchange(step)
        rid = request_id(p) or f"req@{i}"
        ex = self._exchange(step, rid)
        ex.request = i
        step._requests = with_index(step._requests, i)
        model_id = as_str(p.get("model_id"))
        if model_id:
            self.model_id = model_id
            self._assigned.add("model_id")
        figures = request_budget(p)
        if figures is not None:
            names = tuple(name for name, _ in figures.used)
            units = tuple(_shared(units) for _, units in figures.used)
            step.budget = Budget(
                max_units=_shared(figures.max_units),
                unit=_NAMES.setdefault((figures.unit,), (figures.unit,))[0],
                names=_NAMES.setdefault(names, names),
                units=_shared(units),
                available_units=_shared(figures.available_units),
            )
            step.used_units = _shared(sum(units))

    def _on_response(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        rid = request_id(p) or f"req@{i}"
        ex = self._exchange(step, rid)
        ex.response = i
        self.exchange_by_id.pop(rid, None)  # answered: only unanswered requests are looked up
        tokens = response_usage(p).total
        # Added only when there is something to add to: a first figure keeps the object read
        # (0 + n is a new int of 28 bytes, and a 1 GB trace has a hundred thousand of each).
        ex.tokens = ex.tokens + tokens if ex.tokens else tokens
        step.tokens = step.tokens + tokens if step.tokens else tokens
        step.latency_ms = _shared(step.latency_ms + _latency(p))
        self.total_tokens += tokens
        self._tokens_added += tokens
        calls = response_tool_calls(p)
        if calls:
            step.action = _shared(short(actions_brief(calls)))
        elif p.get("text") and not step.action:
            step.action = _shared(short(ANSWER + as_text(p["text"])))

    def _last_exchange(self, step: StepSummary, i: int) -> Exchange:
        if step._exchanges != ():
            return self.exchanges[step.exchanges[-1]]
        return self._exchange(step, f"tools@{step.step}")

    def _on_tool_call(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        ex = self._last_exchange(step, i)
        ex._tool_calls = with_index(ex._tool_calls, i)
        call = ToolCall.read(p)
        self._by_call[str(call.call_id)] = ex.number - 1
        if not step.action:
            step.action = _shared(short(action_brief({"name": call.tool, "args": call.args})))

    def _on_tool_result(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        key = str(call_id(p))
        pos = self._by_call.pop(key, None)  # answered: the id is not needed again
        if pos is None:
            self._missed_calls.add(key)
        ex = self.exchanges[pos] if pos is not None else self._last_exchange(step, i)
        ex._tool_results = with_index(ex._tool_results, i)
        step.latency_ms = _shared(step.latency_ms + _latency(p))
        if p.get("ok") is not True or ("attempts" in p and not _first_attempt(p)):  # plain success
            result = ToolResult.read(p)
            step.retries += max(0, (result.attempts or 1) - 1)  # attempts that failed before the last
            if not result.ok:
                step.ok = False
                step.error = _failure_line(result.tool or "tool", result.error)

    def _drop_decide_exchange(self, step: StepSummary) -> None:
        """Forget the DECIDE-stage exchange made just before the first model_request."""
        ex_id = f"decide@{step.step}"
        pos = self.exchange_by_id.pop(ex_id, None)
        if pos is None:
            self._missed_ids.add(ex_id)
        if pos is None or pos != len(self.exchanges) - 1:
            if pos is not None:
                self.exchange_by_id[ex_id] = pos  # not the newest: leave the log as it is
            return
        ex = self.exchanges.pop()
        if step.exchanges and step.exchanges[-1] == pos:
            step.exchanges = step.exchanges[:-1]
        if ex.request is not None and ex.request in step.requests:
            step.requests = tuple(r for r in step.requests if r != ex.request)

    # upstream phases: DECIDE model_input/model_output/decision_ready, ACT action_results ----------
    def _on_decide(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        stage = stage_of(p)
        if stage in _MODEL_STAGES:
            if self._native_requests:
                return
            self._before_native = True
        if stage == Stage.MODEL_INPUT:
            self._exchange(step, f"decide@{step.step}").request = i
            step._requests = with_index(step._requests, i)
        elif stage == Stage.MODEL_OUTPUT:
            self._exchange(step, f"decide@{step.step}").response = i
        elif stage == Stage.DECISION_READY:
            decision = Decision.read(p)
            if decision.actions:
                step.action = _shared(short(actions_brief(decision.actions)))
            elif decision.final_answer is not None:
                step.action = _shared(short(FINAL + decision.final_answer))

    def _on_act(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        if stage_of(p) == Stage.ACTION_RESULTS and not self._native_requests:
            self._before_native = True
            ex = self._last_exchange(step, i)
            ex._tool_results = with_index(ex._tool_results, i)
            for inv in action_results(p):
                if inv.failed:
                    step.ok = False
                    step.error = _failure_line(inv.tool_name, inv.error)

    def _on_init(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        name = init_model_name(p)
        if name and not self.model_id:
            self.model_id = name

    def _on_check_stop(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        if stage_of(p) == Stage.STOP:
            stop = Stop.read(p)
            self.stop_reason = stop.stop_reason or self.stop_reason
            self._set_final_result(p)

    def _on_end(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        self.stop_reason = Stop.read(p).stop_reason or self.stop_reason

    def _on_memory(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step._memory = with_index(step._memory, i)
        self.memory_ops += 1

    def _on_skill(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step.skills += (i,)
        self.skill_ops += 1

    def _on_pause(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step.pauses += (i,)
        pause = LifecyclePause.read(p)
        self.pause = PauseInfo(
            policy_id=pause.policy_id,
            reason=pause.reason,
            step=step.step if pause.step_id is None else pause.step_id,
            boundary=pause.boundary,
            pending_actions=list(pause.pending_actions),
            own=pause.policy_id == self.own_policy_id,
        )
        self.status = STATUS_PAUSED
        self._assigned.update(("pause", "status"))

    def _on_resume(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step.pauses += (i,)
        self.pause = None
        self.status = STATUS_RUNNING
        self._assigned.update(("pause", "status"))

    def _on_decision(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step.pauses += (i,)
        self.last_decision = f"step {step.step}: " + LifecycleDecision.read(p).summary()

    def _on_error(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        step.errors += (i,)
        self.error_count += 1
        info = ErrorInfo.read(p)
        # A failed model call belongs to its exchange (by request id; a parse error to the answer
        # it could not read): the Exchanges pane shows it there.
        request_id = info.details.request_id
        pos = self.exchange_by_id.get(request_id) if request_id is not None else None
        if pos is None and request_id is not None:
            self._missed_ids.add(request_id)
        if pos is None and info.category in ("model", "parse") and step.exchanges:
            pos = step.exchanges[-1]
        if pos is not None:
            self.exchanges[pos].errors += (i,)
        if info.retrying is True:
            step.retries += 1
            return
        step.ok = False
        step.error = _failure_line(info.category, info.message if info.message is not None else error)
        if info.category != "tool":  # a failed tool call is the agent's to handle; the run goes on
            self.failure, self.failure_step = p, step.step

    def _on_run_end(self, error: str | None, p: dict, step: StepSummary, i: int) -> None:
        end = RunEnd.read(p)
        if end.status:
            self.status = end.status
            self._assigned.add("status")
        self.stop_reason = end.stop_reason or self.stop_reason
        self._set_final_result(p)
        total = end.token_usage or 0
        self._token_floors.append((total, self._tokens_added))
        if total > self.total_tokens:
            self.total_tokens = total
        self.pause = None
        self._assigned.add("pause")

    def _set_final_result(self, p: dict) -> None:
        if "final_result" in p:
            self.final_result = p["final_result"]
            self._assigned.add("final_result")

    # ---- joining a part folded elsewhere -----------------------------------------------------------
    def absorb(self, part: RunStore, start: int) -> bool:
        """Join ``part``, the fold, begun afresh, of the events from ``start`` on (one part of a
        trace folded in another process: tui.fold_parts), so that this store ends as if it had
        folded them itself; or change nothing and return False when the part's fold may have gone
        otherwise after this store's events (it met a step, exchange or tool call of this store's
        again, or folded DECIDE stages as if no model_request had come): the caller then folds
        those events here. ``part.categories`` holds only the part's own events."""
        if (
            start != self.event_count
            or len(self.categories) != start
            or len(part.categories) != part.event_count - start
            or not self._joins(part)
        ):
            return False
        steps_before, offset = len(self.steps), len(self.exchanges)
        # Positions in part.exchanges move to where those now sit. One int object per position,
        # as the fold keeps it (an exchange's number is the next one's position): 28 bytes each.
        moved = list(range(offset, offset + len(part.exchanges) + 1))
        add = self.step_pos.add
        for pos, step in enumerate(part.steps, steps_before):
            add(step.step, pos)
            kept = step._exchanges
            if isinstance(kept, int):
                step._exchanges = moved[kept]
            elif kept:
                step._exchanges = tuple(moved[k] for k in kept)
        for ex in part.exchanges:
            ex.number = moved[ex.number]
        self.steps += part.steps
        self.exchanges += part.exchanges
        self._next_exchange_pos = len(self.exchanges)
        self.exchange_by_id.update((key, pos + offset) for key, pos in part.exchange_by_id.items())
        self._by_call.update((key, pos + offset) for key, pos in part._by_call.items())
        self.categories += part.categories
        self.event_count = part.event_count
        self._absorb_run_fields(part)
        return True

    def _joins(self, part: RunStore) -> bool:
        """Whether ``part``, folded afresh, folded its events as this store would have from here."""
        if self._native_requests and part._before_native:
            return False
        step_pos = self.step_pos
        if any(step_pos.get(step.step) is not None for step in part.steps):
            return False
        created = {ex.exchange_id for ex in part.exchanges}  # each was looked up and not found
        return self.exchange_by_id.keys().isdisjoint(
            created | part._missed_ids
        ) and self._by_call.keys().isdisjoint(part._missed_calls)

    def _absorb_run_fields(self, part: RunStore) -> None:
        """The run-level fields after ``part``'s events, from this store's and what the part set."""
        if not self.run_id:
            self.run_id = part.run_id
        if "model_id" in part._assigned:  # a model_request names it: the last one wins
            self.model_id = part.model_id
        elif not self.model_id:  # else only the first INIT names it
            self.model_id = part.model_id
        for name in ("status", "pause", "final_result"):
            if name in part._assigned:
                setattr(self, name, getattr(part, name))
        self.stop_reason = part.stop_reason or self.stop_reason
        if part.last_decision is not None:
            self.last_decision = part.last_decision
        if part.failure is not None:
            self.failure, self.failure_step = part.failure, part.failure_step
        # Responses add to the total and each run_end raises it to its own figure, if larger.
        added = part._tokens_added
        total = self.total_tokens + added
        for floor, before in part._token_floors:
            total = max(total, floor + added - before)
        self.total_tokens = total
        self._token_floors += [(floor, before + self._tokens_added) for floor, before in part._token_floors]
        self._tokens_added += added
        self.error_count += part.error_count
        self.memory_ops += part.memory_ops
        self.skill_ops += part.skill_ops
        # Notices in order; a kind's "first at event" notice only if it is new here too.
        for k, notice in enumerate(part.notices):
            kind = part._kind_notices.get(k)
            if kind is not None:
                if kind in self.unknown_kinds:
                    continue
                self._kind_notices[len(self.notices)] = kind
            self.notices.append(notice)
        for kind, count in part.unknown_kinds.items():
            self.unknown_kinds[kind] = self.unknown_kinds.get(kind, 0) + count
        self._native_requests = self._native_requests or part._native_requests
        self._before_native = self._before_native or part._before_native
        self._assigned |= part._assigned
        self._missed_ids |= part._missed_ids
        self._missed_calls |= part._missed_calls

    # ---- queries ---------------------------------------------------------------------------------
    @property
    def display_status(self) -> str:
        """The header's status word: live, paused, finished, failed or interrupted."""
        status = self.status
        if self.declared_status and status in (STATUS_RUNNING, STATUS_PAUSED):
            status = self.declared_status
        return DISPLAY_STATUS.get(status, status)

    @property
    def tokens(self) -> int:
        """Tokens used by the run: folded from responses, or the manifest's total when larger."""
        return max(self.total_tokens, self.declared_tokens)

    def used_series(self) -> list[float]:
        """Used budget units per step (0 where a step sent no request view), for the sparkline.

        Kept up to date from the first step touched since the last call, so a run that grows at
        its end costs only its new steps (the list is shared: read it, do not change it)."""
        start = self._series_from
        if start < len(self.steps):
            del self._series[start:]
            self._series.extend(float(s.used_units or 0) for s in self.steps[start:])
        self._series_from = len(self.steps)
        return self._series

    def load(self, index: int) -> RunEvent:
        """The full event at ``index``, from the source."""
        return self.source.event(index)

    def exchanges_until(self, pos: int, limit: int) -> tuple[int, list[Exchange]]:
        """The last ``limit`` exchanges up to step position ``pos``, and how many earlier were left out."""
        if not self.steps:
            return 0, []
        end = 0
        for p in range(min(pos, len(self.steps) - 1), -1, -1):
            if self.steps[p].exchanges:
                end = self.steps[p].exchanges[-1] + 1
                break
        begin = max(0, end - limit)
        return begin, self.exchanges[begin:end]


def _failure_line(who: str, why: str | None) -> str:
    """A step's error line: what failed and why, or only what when nothing says why (never "None")."""
    return _shared(short(f"{who}: {why}" if why else who, 80))


def _first_attempt(payload: dict) -> bool:
    """Whether ``attempts`` says nothing of a retry for sure: absent, or a plain int of at most 1
    (most tool results say 1). Anything else is read the full way."""
    attempts = payload.get("attempts")
    return attempts is None or (type(attempts) is int and attempts <= 1)


def _latency(payload: dict) -> float:
    """An event's ``latency_ms``, when it is a finite, non-negative number; else 0."""
    value = as_float(payload.get("latency_ms"))
    # Capped so that a hostile figure cannot make the sum infinite.
    return min(value, 1e12) if value is not None and value >= 0 else 0.0


_Handler = Callable[[RunStore, str | None, dict[str, Any], StepSummary, int], None]
# Keyed by kind; looked up with a trace's phase string (an EventKind is that string).
_HANDLERS: dict[str, _Handler] = {
    EventKind.MODEL_REQUEST: RunStore._on_request,
    EventKind.MODEL_RESPONSE: RunStore._on_response,
    EventKind.TOOL_CALL: RunStore._on_tool_call,
    EventKind.TOOL_RESULT: RunStore._on_tool_result,
    EventKind.DECIDE: RunStore._on_decide,
    EventKind.ACT: RunStore._on_act,
    EventKind.INIT: RunStore._on_init,
    EventKind.CHECK_STOP: RunStore._on_check_stop,
    EventKind.END: RunStore._on_end,
    EventKind.MEMORY_APPEND: RunStore._on_memory,
    EventKind.MEMORY_RECALL: RunStore._on_memory,
    EventKind.MEMORY_DELETE: RunStore._on_memory,
    EventKind.SKILL_PUBLISH: RunStore._on_skill,
    EventKind.SKILL_DEPRECATE: RunStore._on_skill,
    EventKind.LIFECYCLE_PAUSE: RunStore._on_pause,
    EventKind.LIFECYCLE_RESUME: RunStore._on_resume,
    EventKind.LIFECYCLE_DECISION: RunStore._on_decision,
    EventKind.ERROR: RunStore._on_error,
    EventKind.RUN_END: RunStore._on_run_end,
}

_KindInfo = tuple[int, str, "_Handler | None", bool]
# What the fold does with each kind, looked up once per event rather than worked out: the category
# of a plain successful event of it, the phase a step shows, its handler, and whether it counts
# for a step at all. Bounded, as a hostile trace may spell a million kinds.
_KINDS_SEEN: dict[str, _KindInfo] = {}


def _kind_of(phase: str) -> _KindInfo:
    """The fold's table entry for ``phase`` (kept for the next event of that kind)."""
    info = (
        category(phase, True, {}),
        _SHOWN_PHASES.get(phase, ""),
        _HANDLERS.get(phase),
        phase not in _TOOLSET_KINDS,
    )
    if len(_KINDS_SEEN) < _SHARED_LIMIT:
        _KINDS_SEEN[phase] = info
    return info
