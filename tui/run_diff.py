"""Two runs side by side: what each step did, the steps aligned, where they went apart, and how.

:func:`scan_run` reads what alignment needs from a run directory fast: it classifies every line by
its ``phase`` with a regular expression and parses only the lines that carry a decision, an action,
a result or an error (about a third of a trace), so two 100k-event runs are compared in well under
the time folding them would take. :func:`align` pairs the steps on their actions (names and
arguments) so that an inserted or a missing step shifts nothing after it; :func:`pair_differences`
loads the few events of one aligned pair and says how they differ.
"""

from __future__ import annotations

import difflib
import json
import mmap
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qitos.trace.events import EventKind, RunEvent, Stage
from qitos.trace.fields import INT_LIMIT, as_dict, as_text, as_texts
from qitos.trace.parse import (
    event_from_line,
    load_manifest,
    open_trace_file,
    parse_object,
    trace_file_problem,
)
from qitos.trace.payloads import (
    Decision,
    ModelRequest,
    ToolCall,
    ToolResult,
    action_results,
    payload_of,
    response_tool_calls,
    response_usage,
    stage_of,
)
from tui.store import short

_PHASE = re.compile(rb'"phase"\s*:\s*"([A-Za-z_]{1,40})"')
_STEP = re.compile(rb'"step_id"\s*:\s*(-?\d{1,9})')
_FAILED = re.compile(rb'"ok"\s*:\s*false')
# The same, found over the whole trace at once: spaces but no newline (a line is searched alone).
_FAILED_ANYWHERE = re.compile(rb'"ok"[ \t\r\f\v]*:[ \t\r\f\v]*false')
FAST_PATHS = True  # off in the twin tests, which hold the fast paths equal to the plain ones
# Lines parsed in full; the rest only counted (their step id and kind read by the patterns above).
_PARSED = frozenset(
    k.value.encode()
    for k in (
        EventKind.INIT,
        EventKind.DECIDE,
        EventKind.ACT,
        EventKind.MODEL_RESPONSE,
        EventKind.TOOL_CALL,
        EventKind.TOOL_RESULT,
        EventKind.ERROR,
    )
)
_TOOL_RESULT = EventKind.TOOL_RESULT.value.encode()
_RESPONSE = EventKind.MODEL_RESPONSE.value.encode()
_UNPARSED_WHEN_OK = frozenset({_TOOL_RESULT, EventKind.TOOL_CALL.value.encode()})
_KEEP = b"\0keep"  # a line whose index is kept without parsing it
_KEPT = frozenset(k.value.encode() for k in (EventKind.MODEL_REQUEST,))  # indices kept, not parsed
MAX_ALIGN_CELLS = 4_000_000  # the differing middle of two runs aligned exactly up to this size
LOOKAHEAD = 64  # beyond it, steps resynchronised greedily within this many steps


def action_key(name: Any, args: Any) -> str:
    """An action as comparable text: its name and its arguments as canonical JSON."""
    try:
        text = json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        text = repr(args)
    return f"{as_text(name)}({text})"


@dataclass(slots=True)
class StepFacts:
    """What one step did, as far as comparing two runs needs."""

    step: int
    actions: list[str] = field(default_factory=list)
    decision: str = ""
    tokens: int = 0
    ok: bool = True
    events: list[int] = field(default_factory=list)  # indices of its request/response/call/result events

    @property
    def signature(self) -> str:
        """What the alignment compares: the actions, or the final answer's presence."""
        if self.actions:
            return "; ".join(self.actions)
        return "answer" if self.decision else ""


@dataclass(slots=True)
class RunFacts:
    """A run's identity (task, agent, model) and its steps in order."""

    run_dir: Path
    run_id: str
    task: str = ""
    agent: str = ""
    model: str = ""
    events: int = 0
    steps: list[StepFacts] = field(default_factory=list)
    problem: str | None = None  # why the trace could not be read, when it could not
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)  # kept events: index -> bytes


def _step(run: RunFacts, by_id: dict[int, StepFacts], step_id: int) -> StepFacts:
    facts = by_id.get(step_id)
    if facts is None:
        facts = by_id[step_id] = StepFacts(step_id)
        run.steps.append(facts)
    return facts


def scan_run(run_dir: Path, progress: Callable[[float], object] = lambda _: None) -> RunFacts:
    """The steps of the run in ``run_dir`` with their actions, decisions, tokens and failures."""
    manifest, _ = load_manifest(run_dir)
    run_id = manifest.get("run_id")
    run = RunFacts(run_dir, run_id if isinstance(run_id, str) and run_id else run_dir.name)
    model = manifest.get("model_id")
    run.model = model if isinstance(model, str) else ""
    path = run_dir / "events.jsonl"
    problem = trace_file_problem(path)
    if problem is not None or not path.is_file():
        run.problem = problem or f"{path}: no events.jsonl"
        return run
    try:
        fd = open_trace_file(path)
    except OSError as exc:
        run.problem = f"{path}: {exc.strerror or exc}"
        return run
    with open(fd, "rb", closefd=True) as handle:
        size = handle.seek(0, 2)
        if size == 0:
            return run
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            _scan_lines(run, data, size, progress)
    return run


def _scan_lines(run: RunFacts, data: mmap.mmap, size: int, progress: Callable[[float], object]) -> None:
    # Searched in place (patterns and finds over the mapping, between a line's ends): only a line
    # that is parsed is copied out. Copying every line cost more than the patterns did.
    by_id: dict[int, StepFacts] = {}
    spans = run.spans
    find, phase_of, step_of = data.find, _PHASE.search, _STEP.search
    index = line_no = start = 0
    next_report = size // 20
    # Where "ok": false stands, found in one pass (few lines have it): a line asks only whether
    # the next one is before its end.
    failures = (m.start() for m in _FAILED_ANYWHERE.finditer(data)) if FAST_PATHS else iter(())
    next_failure = next(failures, size)
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            break  # an incomplete last line (a run killed mid-write): the reader skips it too
        line_no += 1
        if end == start:
            start += 1
            continue  # empty lines are no events (the reader's rule)
        first, start = start, end + 1
        phase_match = phase_of(data, first, end)
        phase = phase_match.group(1) if phase_match else b""
        if phase == b"DECIDE" and find(b'"decision_ready"', first, end) < 0:
            # A DECIDE start or model input/output: its index matters (the exchange), not its body.
            if find(b'"model_input"', first, end) >= 0 or find(b'"model_output"', first, end) >= 0:
                phase = _KEEP
            else:
                phase = b""  # a failure in it is still seen below
        elif phase == b"ACT" and find(b'"action_results"', first, end) < 0:
            phase = b""
        if FAST_PATHS:
            failed = phase != _KEEP and next_failure < end
            while next_failure < end:
                next_failure = next(failures, size)
        else:
            failed = phase != _KEEP and _FAILED.search(data, first, end) is not None
        if not failed and phase in _UNPARSED_WHEN_OK:
            # A tool call adds nothing when its step's response listed its actions; a result that
            # did not fail, nothing but its index.
            step_match = step_of(data, first, end)
            facts = by_id.get(int(step_match.group(1))) if step_match is not None else None
            if facts is not None and (phase == _TOOL_RESULT or facts.actions):
                facts.events.append(index)
                spans[index] = (first, end)
                phase = b""
        if phase in _PARSED or failed:
            raw = data[first:end]
            if not (
                FAST_PATHS
                and phase == _RESPONSE
                and not failed
                and _fold_response_line(run, by_id, raw, index)
            ):
                event, _ = event_from_line(raw, line_no, run.run_id)
                _fold(run, by_id, event, index)
            spans[index] = (first, end)
        elif phase in _KEPT or phase == _KEEP:
            step_match = step_of(data, first, end)
            if step_match is not None:
                _step(run, by_id, int(step_match.group(1))).events.append(index)
                spans[index] = (first, end)
        index += 1
        if start >= next_report:
            progress(start / size)
            next_report += size // 20
    run.events = index


class EventLoader:
    """The events a scan kept, read back by index from where the scan saw their lines (no index of
    the whole trace is built, as a TraceReader would)."""

    def __init__(self, run: RunFacts) -> None:
        self.run = run
        self._fd: int | None = None

    def __call__(self, index: int) -> RunEvent:
        """The event at ``index``; IndexError for an event the scan did not keep, OSError when the
        trace cannot be read any more."""
        span = self.run.spans.get(index)
        if span is None:
            raise IndexError(f"event {index} was not kept by the scan")
        if self._fd is None:
            self._fd = open_trace_file(self.run.run_dir / "events.jsonl")
        first, end = span
        raw = os.pread(self._fd, end - first, first)
        event, _ = event_from_line(raw, index + 1, self.run.run_id)
        return event

    def close(self) -> None:
        """Close the trace file."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _fold(run: RunFacts, by_id: dict[int, StepFacts], event: RunEvent, index: int) -> None:
    p = payload_of(event)
    phase = event.phase
    if phase == EventKind.INIT:
        run.task = as_text(p.get("task") or p.get("task_id") or "")
        meta = as_dict(p.get("run_meta"))
        tools = ", ".join(sorted(as_texts(meta.get("tools"))))
        run.agent = " · ".join(x for x in (as_text(meta.get("parser") or ""), tools) if x)
        run.model = run.model or as_text(meta.get("model_name") or "")
        return
    step = _step(run, by_id, event.step_id if type(event.step_id) is int else 0)
    if not event.ok:
        step.ok = False
    if phase == EventKind.MODEL_RESPONSE:
        _fold_response(step, p, index)
    elif phase == EventKind.TOOL_CALL:
        step.events.append(index)
        if not step.actions:  # no response listed its tool calls
            call = ToolCall.read(p)
            step.actions.append(action_key(call.tool, call.args))
    elif phase == EventKind.TOOL_RESULT:
        step.events.append(index)
        if not ToolResult.read(p).ok:
            step.ok = False
    elif phase == EventKind.DECIDE:
        stage = stage_of(p)
        if stage == Stage.DECISION_READY:
            decision = Decision.read(p)
            if not step.actions:
                step.actions.extend(action_key(a.get("name"), a.get("args")) for a in decision.actions)
            if decision.final_answer is not None:
                step.decision = decision.final_answer
        elif stage in (Stage.MODEL_INPUT, Stage.MODEL_OUTPUT):
            step.events.append(index)
    elif phase == EventKind.ACT and stage_of(p) == Stage.ACTION_RESULTS:
        step.events.append(index)
        if any(inv.failed for inv in action_results(p)):
            step.ok = False
    elif phase == EventKind.ERROR:
        step.events.append(index)


def _fold_response(step: StepFacts, p: dict[str, Any], index: int) -> None:
    """A model response: what ModelResponse.read gives, for the three fields compared."""
    step.events.append(index)
    step.tokens += response_usage(p).total
    step.actions.extend(action_key(c.get("name"), c.get("args")) for c in response_tool_calls(p))
    text = as_text(p.get("text", p.get("raw_output", "")))
    if text and not step.decision:
        step.decision = text


def _fold_response_line(run: RunFacts, by_id: dict[int, StepFacts], raw: bytes, index: int) -> bool:
    """Fold a well-formed ``model_response`` line straight from its JSON object (a third of the
    lines parsed; building an event for each cost as much as reading it); False for anything
    unusual, which then takes the event path."""
    data, _ = parse_object(raw)
    if data is None:
        return False
    step_id, payload = data.get("step_id", 0), data.get("payload")
    if (
        type(step_id) is not int
        or not -INT_LIMIT <= step_id <= INT_LIMIT
        or type(payload) is not dict
        or data.get("ok", True) is not True
        or data.get("phase") != EventKind.MODEL_RESPONSE.value
    ):
        return False
    _fold_response(_step(run, by_id, step_id), payload, index)
    return True


# ---- alignment -----------------------------------------------------------------------------------
Pair = tuple[int | None, int | None]  # positions in run A's and run B's step lists (None: no step)


def align(a: list[str], b: list[str]) -> list[Pair]:
    """Pairs of step positions, in order: equal signatures paired, a step only one run has alone.

    The common head and tail are paired directly; the differing middle is aligned exactly (a
    longest common subsequence) when small enough, else resynchronised greedily."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    pairs: list[Pair] = [(k, k) for k in range(head)]
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(mid_a) * len(mid_b) <= MAX_ALIGN_CELLS:
        middle = _align_exact(mid_a, mid_b)
    else:
        middle = _align_greedy(mid_a, mid_b)
    pairs.extend((None if x is None else x + head, None if y is None else y + head) for x, y in middle)
    pairs.extend((len(a) - tail + k, len(b) - tail + k) for k in range(tail))
    return pairs


def _align_exact(a: list[str], b: list[str]) -> list[Pair]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[Pair] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "replace":
            # A changed step is paired with its counterpart (a divergence), the surplus left alone.
            common = min(i2 - i1, j2 - j1)
            out.extend((i1 + k, j1 + k) for k in range(common))
            out.extend((i, None) for i in range(i1 + common, i2))
            out.extend((None, j) for j in range(j1 + common, j2))
        elif tag == "delete":
            out.extend((i, None) for i in range(i1, i2))
        else:
            out.extend((None, j) for j in range(j1, j2))
    return out


def _align_greedy(a: list[str], b: list[str]) -> list[Pair]:
    out: list[Pair] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append((i, j))
            i += 1
            j += 1
            continue
        ahead_b = next((k for k in range(j + 1, min(len(b), j + LOOKAHEAD)) if b[k] == a[i]), None)
        ahead_a = next((k for k in range(i + 1, min(len(a), i + LOOKAHEAD)) if a[k] == b[j]), None)
        if ahead_b is not None and (ahead_a is None or ahead_b - j <= ahead_a - i):
            out.extend((None, k) for k in range(j, ahead_b))  # steps only B took
            j = ahead_b
        elif ahead_a is not None:
            out.extend((k, None) for k in range(i, ahead_a))  # steps only A took
            i = ahead_a
        else:
            out.append((i, j))  # the same place, different steps
            i += 1
            j += 1
    out.extend((k, None) for k in range(i, len(a)))
    out.extend((None, k) for k in range(j, len(b)))
    return out


@dataclass(slots=True)
class RunDiff:
    """Two runs, their aligned steps and where they first went apart."""

    a: RunFacts
    b: RunFacts
    pairs: list[Pair]
    same: list[bool]  # per pair: the steps did the same (signature, outcome)
    first_divergence: int | None  # index into pairs

    def headline(self) -> str:
        """``first divergence at step N`` (N: run A's step, else B's), or ``no divergence``."""
        if self.first_divergence is None:
            return "no divergence"
        x, y = self.pairs[self.first_divergence]
        step = self.a.steps[x].step if x is not None else self.b.steps[y].step  # type: ignore[index]  # a pair has a side: y when x is None
        return f"first divergence at step {step}"

    def mismatches(self) -> list[str]:
        """Sentences saying plainly when the two runs are of different tasks, agents or models."""
        out: list[str] = []
        for what, x, y in (
            ("tasks", self.a.task, self.b.task),
            ("agents", self.a.agent, self.b.agent),
            ("models", self.a.model, self.b.model),
        ):
            if x != y:
                out.append(f"different {what}: {short(x or '?', 50)!r} vs {short(y or '?', 50)!r}")
        return out


def _same(x: StepFacts, y: StepFacts) -> bool:
    """Whether two steps did the same: actions (names, arguments) and outcome; a step without
    actions by its final answer. A model's wording around its actions may differ."""
    if x.signature != y.signature or x.ok != y.ok:
        return False
    return bool(x.actions) or x.decision == y.decision


def compare(a: RunFacts, b: RunFacts) -> RunDiff:
    """Align ``a`` and ``b`` and find where they first differ."""
    pairs = align([s.signature for s in a.steps], [s.signature for s in b.steps])
    same = [x is not None and y is not None and _same(a.steps[x], b.steps[y]) for x, y in pairs]
    first = next((k for k, equal in enumerate(same) if not equal), None)
    return RunDiff(a, b, pairs, same, first)


# ---- one aligned pair ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Difference:
    """One way the two steps differ: what (decision, args, ...), A's side and B's side."""

    what: str
    a: str
    b: str


def step_details(load: Callable[[int], RunEvent], facts: StepFacts) -> dict[str, str]:
    """A step's decision, actions, tool results, tokens and context as comparable text."""
    results: list[str] = []
    context = ""
    for index in facts.events:
        event = load(index)
        p = payload_of(event)
        if event.phase == EventKind.TOOL_RESULT:
            r = ToolResult.read(p)
            body = r.result if r.ok else r.error
            results.append(f"{r.tool} {'ok' if r.ok else 'failed'}: {short(as_text(body), 200)}")
        elif event.phase == EventKind.ACT:
            results.extend(
                f"{i.tool_name} {i.status or ''}: {short(as_text(i.output), 200)}" for i in action_results(p)
            )
        elif event.phase == EventKind.MODEL_REQUEST:
            view = ModelRequest.read(p).view
            if view is not None:
                chosen = [f"{c.contribution_id} {c.units}" for c in view.contributions if c.selected]
                used = sum(u for _, u in view.budget.used) if view.budget is not None else 0
                context = f"{used} units used · " + ", ".join(chosen)
    return {
        "decision": short(facts.decision, 200),
        "action arguments": "; ".join(facts.actions),
        "tool result": " | ".join(results),
        "tokens": str(facts.tokens),
        "context": context,
    }


def pair_differences(
    diff: RunDiff, pos: int, load_a: Callable[[int], RunEvent], load_b: Callable[[int], RunEvent]
) -> tuple[dict[str, str] | None, dict[str, str] | None, list[Difference]]:
    """Both sides' details of aligned pair ``pos`` and the fields in which they differ."""
    x, y = diff.pairs[pos]
    left = step_details(load_a, diff.a.steps[x]) if x is not None else None
    right = step_details(load_b, diff.b.steps[y]) if y is not None else None
    if left is None or right is None:
        return left, right, []
    return left, right, [Difference(k, left[k], right[k]) for k in left if left[k] != right[k]]
