"""SpanBuilder: one run's events, in order, become OpenTelemetry spans (GenAI conventions, OpenInference kinds).

The tree: ``invoke_agent`` (the run) > ``step N`` > ``chat {model}``, ``execute_tool {name}``,
``search_memory`` / ``update_memory`` / ``delete_memory``. Both trace dialects are read: our
events (``model_request`` / ``model_response``, ``tool_call`` / ``tool_result``, ``memory_*``) and
upstream QitOS's (``DECIDE`` stages ``model_input`` / ``model_output``, ``ACT`` stage
``action_results``, ``OBSERVE`` memory); where a trace has both, ours win and the upstream
stage is not counted twice. Every time is the event's own ``ts``, so a replayed run keeps its real
timing. Message content (prompts, replies, tool arguments and results, memory text) is only
recorded when ``capture_content`` is set, as the conventions ask. Payloads are untrusted: every
field is read defensively, and a missing or odd one leaves its attribute out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from qitos.trace.events import EventKind, RunEvent
from qitos.trace.otel.values import integer, mapping, name_part, number, scalar, strings, text, ts_ns

# OpenInference span kinds (Arize Phoenix draws each kind natively).
OI_KIND = "openinference.span.kind"
AGENT, CHAIN, LLM, TOOL, RETRIEVER = "AGENT", "CHAIN", "LLM", "TOOL", "RETRIEVER"

# GenAI semantic conventions (attribute names as the registry spells them).
OPERATION = "gen_ai.operation.name"
CONVERSATION = "gen_ai.conversation.id"
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
MEMORY_NAMESPACE = "gen_ai.memory.namespace"
MEMORY_ID = "gen_ai.memory.id"
MEMORY_QUERY = "gen_ai.memory.query"
MEMORY_RESULT_COUNT = "gen_ai.memory.search.result.count"
MEMORY_CONTENT = "gen_ai.memory.content"
ERROR_TYPE = "error.type"

# Events whose step_id is not a step of their own: they belong to the run span.
_RUN_LEVEL = frozenset(
    {
        EventKind.INIT.value,
        EventKind.END.value,
        EventKind.RUN_END.value,
        EventKind.TOOLSET_SETUP_START.value,
        EventKind.TOOLSET_SETUP_END.value,
        EventKind.TOOLSET_TEARDOWN_START.value,
        EventKind.TOOLSET_TEARDOWN_END.value,
    }
)
_FAILED_STATUSES = frozenset({"failed", "error"})


class SpanBuilder:
    """Feeds one run's events, in order, into a Tracer; ``finish`` ends whatever is still open."""

    def __init__(self, tracer: trace.Tracer, *, capture_content: bool = False, agent_name: str | None = None):
        self._tracer = tracer
        self.capture_content = capture_content
        self._agent_name = agent_name
        self._run: trace.Span | None = None
        self._run_ctx: otel_context.Context | None = None
        self._run_id = ""
        self._steps: dict[int, tuple[trace.Span, otel_context.Context]] = {}
        self._step_last_ns: dict[int, int] = {}
        self._chats: dict[str, trace.Span] = {}  # open chat spans by request id
        self._upstream_chat: dict[int, trace.Span] = {}  # upstream model_input waiting for its output
        self._tools: dict[str, trace.Span] = {}  # open tool spans by call id
        self._steps_with_tool_events: set[int] = set()
        self._steps_with_memory_events: set[int] = set()
        self._model: str | None = None
        self._last_ns = 0
        self.events_seen = 0
        self.spans_started = 0

    # ---- the stream ------------------------------------------------------------------------
    def feed(self, event: RunEvent) -> None:
        """Map one event; never raises for odd payloads (an unknown kind is a span event of its step)."""
        self.events_seen += 1
        ns = ts_ns(getattr(event, "ts", None))
        if ns is None:
            ns = self._last_ns or _now_ns()  # an unreadable ts keeps the previous event's time
        self._last_ns = max(self._last_ns, ns)
        payload = event.payload if isinstance(event.payload, Mapping) else {}
        phase = event.phase if isinstance(event.phase, str) else str(event.phase)
        self._ensure_run(event, ns)
        if phase in _RUN_LEVEL:
            self._run_level(phase, event, payload, ns)
            return
        step = event.step_id if isinstance(event.step_id, int) and not isinstance(event.step_id, bool) else 0
        handler = self._HANDLERS.get(phase)
        if handler is not None:
            handler(self, step, event, payload, ns)
        else:
            self._phase(step, phase, event, payload, ns)
        if not event.ok and phase != EventKind.ERROR.value:
            self._fail(self._step(step, ns), phase, event.error, ns)

    def finish(self) -> None:
        """End every span still open at the last event's time (a run cut short is marked incomplete)."""
        end = self._last_ns
        for spans in (self._chats, self._tools):
            for span in spans.values():
                span.set_attribute("qitos.incomplete", True)
                span.end(end_time=end)
            spans.clear()
        for span in self._upstream_chat.values():
            span.set_attribute("qitos.incomplete", True)
            span.end(end_time=end)
        self._upstream_chat.clear()
        for step in sorted(self._steps):
            self._end_step(step)
        if self._run is not None:
            self._run.end(end_time=end)
            self._run = None

    # ---- run and steps ---------------------------------------------------------------------
    def _ensure_run(self, event: RunEvent, ns: int) -> None:
        if self._run is not None or self._run_ctx is not None:
            return
        self._run_id = event.run_id if isinstance(event.run_id, str) else str(event.run_id)
        name = "invoke_agent" + (f" {name_part(self._agent_name, '')}" if self._agent_name else "")
        attrs: dict[str, Any] = {
            OPERATION: "invoke_agent",
            CONVERSATION: self._run_id,
            OI_KIND: AGENT,
            "session.id": self._run_id,  # OpenInference: Phoenix groups a run's spans as a session
            "qitos.run.id": self._run_id,
        }
        if self._agent_name:
            attrs[AGENT_NAME] = self._agent_name
        # An empty context: a live run inside someone else's span still gets its own trace.
        self._run = self._start(name, otel_context.Context(), SpanKind.INTERNAL, attrs, ns)
        self._run_ctx = trace.set_span_in_context(self._run)

    def _run_level(self, phase: str, event: RunEvent, payload: Mapping[str, Any], ns: int) -> None:
        run = self._run
        if run is None:  # events after run_end: nothing left to attach them to
            return
        if phase == EventKind.INIT.value:
            meta = mapping(payload.get("run_meta"))
            model = meta.get("model_name")
            if isinstance(model, str) and model:
                self._model = model
                run.set_attribute(REQUEST_MODEL, model)
            _set(run, "qitos.task.id", payload.get("task_id"))
            tools = meta.get("tools")
            names = (
                [t.get("name") if isinstance(t, Mapping) else t for t in tools]
                if isinstance(tools, list)
                else []
            )
            if names:
                run.set_attribute("qitos.tool.names", strings(names))
            _set(run, "qitos.parser", meta.get("parser"))
            if self.capture_content and payload.get("task") is not None:
                run.set_attribute("input.value", text(payload.get("task")))
            run.add_event("qitos.init", timestamp=ns)
        elif phase == EventKind.END.value:
            _set(run, "qitos.run.stop_reason", payload.get("stop_reason"))
        elif phase == EventKind.RUN_END.value:
            self._run_end(run, payload, ns)
        else:
            run.add_event(f"qitos.{phase}", timestamp=ns)
        if not event.ok:
            self._fail(run, phase, event.error, ns)

    def _run_end(self, run: trace.Span, payload: Mapping[str, Any], ns: int) -> None:
        status = payload.get("status")
        _set(run, "qitos.run.status", status)
        _set(run, "qitos.run.stop_reason", payload.get("stop_reason"))
        _set(run, "qitos.run.steps", integer(payload.get("steps")))
        _set(run, "qitos.run.token_usage", integer(payload.get("token_usage")))
        if self.capture_content and payload.get("final_result") is not None:
            run.set_attribute("output.value", text(payload.get("final_result")))
        if status in _FAILED_STATUSES:
            run.set_attribute(ERROR_TYPE, "run_failed")
            run.set_status(Status(StatusCode.ERROR, f"run {status}: {text(payload.get('stop_reason'))}"))
        # The run is over: end what it left open now, so a live export sends the tree at once.
        self._last_ns = max(self._last_ns, ns)
        self.finish()

    def _step(self, step: int, ns: int) -> trace.Span:
        """The span of ``step``, started at ``ns`` if new; a later step ends the earlier ones."""
        self._step_last_ns[step] = max(self._step_last_ns.get(step, ns), ns)
        open_step = self._steps.get(step)
        if open_step is not None:
            return open_step[0]
        for earlier in [s for s in self._steps if s < step]:
            self._end_step(earlier)
        attrs = {OI_KIND: CHAIN, "qitos.step.id": step, "session.id": self._run_id}
        span = self._start(f"step {step}", self._run_ctx, SpanKind.INTERNAL, attrs, ns)
        self._steps[step] = (span, trace.set_span_in_context(span))
        return span

    def _step_ctx(self, step: int, ns: int) -> otel_context.Context:
        self._step(step, ns)
        return self._steps[step][1]

    def _end_step(self, step: int) -> None:
        span, _ = self._steps.pop(step)
        for request_id, chat in list(self._chats.items()):
            # Only the SDK's spans know their parent; the API's Span interface does not say.
            parent = chat.parent if isinstance(chat, ReadableSpan) else None
            if parent is not None and parent.span_id == span.get_span_context().span_id:
                chat.set_attribute("qitos.incomplete", True)
                chat.end(end_time=self._step_last_ns[step])
                del self._chats[request_id]
        pending = self._upstream_chat.pop(step, None)
        if pending is not None:
            pending.set_attribute("qitos.incomplete", True)
            pending.end(end_time=self._step_last_ns[step])
        span.end(end_time=self._step_last_ns.pop(step))

    # ---- model calls -----------------------------------------------------------------------
    def _model_request(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        model = p.get("model_id") if isinstance(p.get("model_id"), str) else self._model
        request_id = p.get("request_id")
        attrs, events = self._view(mapping(p.get("view")))
        _put(attrs, "qitos.request.id", request_id if isinstance(request_id, str) else None)
        tools = strings(p.get("tools"))
        if tools:
            attrs["qitos.request.tools"] = tools
        span = self._start_chat(step, model, ns, attrs)
        for name, event_attrs in events:
            span.add_event(name, event_attrs, timestamp=ns)
        if self.capture_content:
            self._input_messages(span, p.get("messages"))
        key = request_id if isinstance(request_id, str) else f"step-{step}"
        previous = self._chats.pop(key, None)
        if previous is not None:  # the same request id twice: the first never got its response
            previous.set_attribute("qitos.incomplete", True)
            previous.end(end_time=ns)
        self._chats[key] = span

    def _model_response(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        request_id = p.get("request_id")
        key = request_id if isinstance(request_id, str) else f"step-{step}"
        span = self._chats.pop(key, None)
        if span is None:  # a response without its request: a span of its own measured latency
            latency = number(p.get("latency_ms"))
            start = ns - int(latency * 1e6) if latency is not None and latency >= 0 else ns
            span = self._start_chat(step, p.get("model_id") or self._model, start)
            _set(span, "qitos.request.id", request_id if isinstance(request_id, str) else None)
        usage = mapping(p.get("usage"))
        prompt, completion = integer(usage.get("prompt_tokens")), integer(usage.get("completion_tokens"))
        attrs: dict[str, Any] = {}
        _put(attrs, INPUT_TOKENS, prompt)
        _put(attrs, OUTPUT_TOKENS, completion)
        _put(attrs, "llm.token_count.prompt", prompt)
        _put(attrs, "llm.token_count.completion", completion)
        _put(attrs, "llm.token_count.total", integer(usage.get("total_tokens")))
        _put(attrs, RESPONSE_MODEL, p.get("model_id") if isinstance(p.get("model_id"), str) else None)
        _put(attrs, "qitos.latency_ms", number(p.get("latency_ms")))
        reasons = _finish_reasons(p)
        if reasons:
            attrs[FINISH_REASONS] = reasons
        raw_calls = p.get("tool_calls")
        calls: list[Any] = raw_calls if isinstance(raw_calls, list) else []
        names = [mapping(c).get("name") for c in calls]
        if names:
            attrs["qitos.response.tool_calls"] = strings(names)
        span.set_attributes(attrs)  # one lock and pass for all of them
        if self.capture_content:
            self._output_messages(span, p.get("text"), calls, reasons)
        if not event.ok:
            self._fail(span, "model_response", event.error, ns)
        span.end(end_time=ns)

    def _start_chat(self, step: int, model: Any, ns: int, extra: dict[str, Any] | None = None) -> trace.Span:
        model_name = model if isinstance(model, str) and model else None
        attrs: dict[str, Any] = {**(extra or {}), OPERATION: "chat", OI_KIND: LLM, "session.id": self._run_id}
        if model_name:
            attrs[REQUEST_MODEL] = model_name
            attrs["llm.model_name"] = model_name
        name = f"chat {name_part(model_name, '')}".rstrip()
        return self._start(name, self._step_ctx(step, ns), SpanKind.CLIENT, attrs, ns)

    def _view(self, view: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
        """Context selection, budget and compaction receipts: ``qitos.*`` attributes and span events.

        Gathered before the span starts, so the SDK takes them in one go (set one by one they cost
        a lock and a validation pass each: a third of the export's time).
        """
        attrs: dict[str, Any] = {}
        events: list[tuple[str, dict[str, Any]]] = []
        if not view:
            return attrs, events
        attrs["qitos.context.selected_exchange_ids"] = strings(view.get("selected_exchange_ids"))
        attrs["qitos.context.omitted_exchange_ids"] = strings(view.get("omitted_exchange_ids"))
        chosen: list[str] = []
        dropped: list[str] = []
        units = {True: 0, False: 0}
        contributions = view.get("contributions")
        for item in contributions if isinstance(contributions, list) else []:
            c = mapping(item)
            is_selected = c.get("selected") is True
            (chosen if is_selected else dropped).append(text(c.get("contribution_id")))
            units[is_selected] += integer(c.get("units")) or 0
            events.append(("qitos.context.contribution", _flat(c, "qitos.contribution.")))
        attrs["qitos.context.contributions.selected"] = chosen
        attrs["qitos.context.contributions.dropped"] = dropped
        attrs["qitos.context.units.selected"] = units[True]
        attrs["qitos.context.units.dropped"] = units[False]
        for key, value in mapping(view.get("budget")).items():
            if key == "used":
                for part, amount in mapping(value).items():
                    _put(attrs, f"qitos.budget.used.{part}", integer(amount))
            elif not isinstance(value, list | dict):
                _put(attrs, f"qitos.budget.{key}", value)
        for key, value in mapping(view.get("policies")).items():
            _put(attrs, f"qitos.context.policy.{key}", value if isinstance(value, str) else None)
        receipts = view.get("receipts")
        ids = []
        for item in receipts if isinstance(receipts, list) else []:
            r = mapping(item)
            ids.append(text(r.get("receipt_id")))
            events.append(("qitos.compaction.receipt", _flat(r, "qitos.receipt.")))
        attrs["qitos.compaction.receipt_ids"] = ids
        return attrs, events

    def _input_messages(self, span: trace.Span, messages: Any) -> None:
        items = [mapping(m) for m in messages] if isinstance(messages, list) else []
        span.set_attribute(
            INPUT_MESSAGES,
            text([{"role": text(m.get("role")), "parts": [_text_part(m.get("content"))]} for m in items]),
        )
        for i, m in enumerate(items):
            span.set_attribute(f"llm.input_messages.{i}.message.role", text(m.get("role")))
            span.set_attribute(f"llm.input_messages.{i}.message.content", text(m.get("content")))
        if items:
            span.set_attribute("input.value", text(items[-1].get("content")))

    def _output_messages(self, span: trace.Span, reply: Any, calls: list[Any], reasons: list[str]) -> None:
        parts: list[dict[str, Any]] = [_text_part(reply)] if reply is not None else []
        for call in calls:
            c = mapping(call)
            parts.append({"type": "tool_call", "name": text(c.get("name")), "arguments": c.get("args")})
        message: dict[str, Any] = {"role": "assistant", "parts": parts}
        if reasons:
            message["finish_reason"] = reasons[0]
        span.set_attribute(OUTPUT_MESSAGES, text([message]))
        span.set_attribute("llm.output_messages.0.message.role", "assistant")
        span.set_attribute("llm.output_messages.0.message.content", text(reply) if reply is not None else "")
        span.set_attribute("output.value", text(reply) if reply is not None else "")

    # ---- upstream model calls (DECIDE stages) ---------------------------------------------------
    def _decide(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        stage = p.get("stage")
        if stage == "model_input" and "request_id" not in p:
            # Upstream records no model_request: this stage is the call's start. (Ours carries the
            # request id and a model_request follows, which makes the span.)
            span = self._start_chat(step, self._model, ns)
            span.set_attribute("qitos.source", "upstream_decide")
            if self.capture_content:
                self._input_messages(span, p.get("messages"))
            stale = self._upstream_chat.pop(step, None)
            if stale is not None:
                stale.set_attribute("qitos.incomplete", True)
                stale.end(end_time=ns)
            self._upstream_chat[step] = span
        elif stage == "model_output":
            waiting = self._upstream_chat.pop(step, None)
            if waiting is not None:
                if self.capture_content:
                    self._output_messages(waiting, p.get("raw_output"), [], [])
                waiting.end(end_time=ns)
            else:
                self._step(step, ns)
        elif stage == "decision_ready":
            attrs: dict[str, AttributeValue] = {"qitos.decision.mode": text(p.get("mode"))}
            actions = p.get("actions")
            names = [mapping(a).get("name") for a in actions] if isinstance(actions, list) else []
            attrs["qitos.decision.actions"] = strings([n for n in names if n is not None])
            if self.capture_content and p.get("rationale") is not None:
                attrs["qitos.decision.rationale"] = text(p.get("rationale"))
            self._step(step, ns).add_event("qitos.decision", attrs, timestamp=ns)
        else:
            self._phase(step, EventKind.DECIDE.value, event, p, ns)

    # ---- tools -----------------------------------------------------------------------------
    def _tool_call(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        self._steps_with_tool_events.add(step)
        call_id = p.get("call_id")
        span = self._start_tool(step, p.get("tool"), call_id, ns)
        if self.capture_content:
            span.set_attribute(TOOL_ARGUMENTS, text(p.get("args")))
            span.set_attribute("input.value", text(p.get("args")))
        key = text(call_id) if call_id is not None else f"step-{step}"
        previous = self._tools.pop(key, None)
        if previous is not None:
            previous.set_attribute("qitos.incomplete", True)
            previous.end(end_time=ns)
        self._tools[key] = span

    def _tool_result(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        self._steps_with_tool_events.add(step)
        call_id = p.get("call_id")
        key = text(call_id) if call_id is not None else f"step-{step}"
        span = self._tools.pop(key, None)
        if span is None:
            latency = number(p.get("latency_ms"))
            start = ns - int(latency * 1e6) if latency is not None and latency >= 0 else ns
            span = self._start_tool(step, p.get("tool"), call_id, start)
        self._tool_outcome(span, p.get("ok") is not False and event.ok, p, ns)

    def _start_tool(self, step: int, tool: Any, call_id: Any, ns: int) -> trace.Span:
        name = name_part(tool, "tool")
        attrs: dict[str, Any] = {
            OPERATION: "execute_tool",
            TOOL_NAME: name,
            TOOL_TYPE: "function",
            OI_KIND: TOOL,
            "tool.name": name,
            "session.id": self._run_id,
        }
        if call_id is not None:
            attrs[TOOL_CALL_ID] = text(call_id)
        return self._start(f"execute_tool {name}", self._step_ctx(step, ns), SpanKind.INTERNAL, attrs, ns)

    def _tool_outcome(self, span: trace.Span, ok: bool, p: Mapping[str, Any], ns: int) -> None:
        _set(span, "qitos.tool.attempts", integer(p.get("attempts")))
        _set(span, "qitos.latency_ms", number(p.get("latency_ms")))
        if self.capture_content and p.get("result") is not None:
            span.set_attribute(TOOL_RESULT, text(p.get("result")))
            span.set_attribute("output.value", text(p.get("result")))
        if not ok:
            category = p.get("error_category")
            span.set_attribute(
                ERROR_TYPE, category if isinstance(category, str) and category else "tool_error"
            )
            span.set_status(
                Status(StatusCode.ERROR, text(p.get("error")) if p.get("error") else "tool failed")
            )
        span.end(end_time=ns)

    def _act(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        invocations = p.get("tool_invocations")
        if p.get("stage") != "action_results" or step in self._steps_with_tool_events:
            self._phase(step, EventKind.ACT.value, event, p, ns)
            return
        # Upstream records each call only here, after the fact, with its latency: the spans are
        # laid back to back, ending at this event, each as long as its recorded latency.
        items = [mapping(i) for i in invocations] if isinstance(invocations, list) else []
        raw_results = p.get("action_results")
        results: list[Any] = raw_results if isinstance(raw_results, list) else []
        end = ns
        planned = []
        for index in range(len(items) - 1, -1, -1):
            latency = number(items[index].get("latency_ms"))
            start = end - int(latency * 1e6) if latency is not None and latency >= 0 else end
            planned.append((index, start, end))
            end = start
        for index, start, finish in reversed(planned):
            item = items[index]
            span = self._start_tool(step, item.get("tool_name"), None, start)
            span.set_attribute("qitos.source", "upstream_action_results")
            outcome = dict(item)
            if index < len(results):
                outcome["result"] = results[index]
            ok = item.get("status") in (None, "success", "ok")
            self._tool_outcome(span, ok, outcome, finish)

    # ---- memory ----------------------------------------------------------------------------
    def _memory_recall(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        self._steps_with_memory_events.add(step)
        ids = strings(p.get("record_ids"))
        raw_records = p.get("records")
        records: list[Any] = raw_records if isinstance(raw_records, list) else []
        span = self._memory_span(step, "search_memory", RETRIEVER, p.get("namespace"), ns)
        span.set_attribute(MEMORY_RESULT_COUNT, len(ids) if ids else len(records))
        span.set_attribute("qitos.memory.record_ids", ids)
        for i, record in enumerate(records):
            r = mapping(record)
            _set(span, f"retrieval.documents.{i}.document.id", r.get("record_id"))
            if self.capture_content:
                _set(span, f"retrieval.documents.{i}.document.content", text(r.get("content")))
        if self.capture_content and p.get("query") is not None:
            span.set_attribute(MEMORY_QUERY, text(p.get("query")))
            span.set_attribute("input.value", text(p.get("query")))
        span.end(end_time=ns)

    def _memory_append(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        self._steps_with_memory_events.add(step)
        span = self._memory_span(step, "update_memory", CHAIN, p.get("namespace"), ns)
        _set(span, MEMORY_ID, p.get("record_id") if isinstance(p.get("record_id"), str) else None)
        span.set_attribute("gen_ai.memory.update.strategy", "append")
        _set(span, "qitos.memory.role", p.get("role") if isinstance(p.get("role"), str) else None)
        _set(span, "qitos.memory.chars", integer(p.get("chars")))
        span.end(end_time=ns)

    def _memory_delete(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        self._steps_with_memory_events.add(step)
        span = self._memory_span(step, "delete_memory", CHAIN, p.get("namespace"), ns)
        _set(span, MEMORY_ID, p.get("record_id") if isinstance(p.get("record_id"), str) else None)
        _set(span, "qitos.memory.removed", p.get("removed") if isinstance(p.get("removed"), bool) else None)
        span.end(end_time=ns)

    def _memory_span(self, step: int, operation: str, kind: str, namespace: Any, ns: int) -> trace.Span:
        attrs: dict[str, Any] = {OPERATION: operation, OI_KIND: kind, "session.id": self._run_id}
        if isinstance(namespace, str) and namespace:
            attrs[MEMORY_NAMESPACE] = namespace
        return self._start(operation, self._step_ctx(step, ns), SpanKind.CLIENT, attrs, ns)

    def _observe(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        memory = mapping(p.get("memory"))
        records = memory.get("records")
        if (
            p.get("stage") == "observation_ready"
            and memory.get("enabled") is True
            and isinstance(records, list)
            and step not in self._steps_with_memory_events
        ):
            # Upstream's observation carries the recall it made: a search_memory of its own.
            span = self._memory_span(step, "search_memory", RETRIEVER, None, ns)
            span.set_attribute(MEMORY_RESULT_COUNT, len(records))
            span.set_attribute("qitos.source", "upstream_observation")
            if self.capture_content:
                query = memory.get("query")
                if query is not None:
                    span.set_attribute(MEMORY_QUERY, text(query))
                for i, record in enumerate(records):
                    span.set_attribute(f"retrieval.documents.{i}.document.content", text(record))
            span.end(end_time=ns)
            return
        self._phase(step, EventKind.OBSERVE.value, event, p, ns)

    # ---- everything else ---------------------------------------------------------------------
    def _skill(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        attrs: dict[str, AttributeValue] = {
            "qitos.skill.name": text(p.get("name")),
            "qitos.skill.namespace": text(p.get("namespace")),
        }
        version = integer(p.get("version"))
        if version is not None:
            attrs["qitos.skill.version"] = version
        if isinstance(p.get("changed"), bool):
            attrs["qitos.skill.changed"] = p["changed"]
        self._step(step, ns).add_event(f"qitos.{event.phase}", attrs, timestamp=ns)

    def _lifecycle(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        attrs: dict[str, Any] = {"qitos.lifecycle.policy_id": text(p.get("policy_id"))}
        for key in ("reason", "boundary", "verdict", "by"):  # verdict, by: a ruling on a pause
            if isinstance(p.get(key), str):
                attrs[f"qitos.lifecycle.{key}"] = p[key]
        pending = p.get("pending_actions")
        if isinstance(pending, list):
            attrs["qitos.lifecycle.pending_actions"] = strings([mapping(a).get("name") for a in pending])
        self._step(step, ns).add_event(f"qitos.{event.phase}", attrs, timestamp=ns)

    def _error(self, step: int, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        span = self._step(step, ns)
        attrs = {
            "exception.type": text(p.get("category") or "error"),
            "exception.message": text(p.get("message") or event.error or ""),
        }
        if isinstance(p.get("recoverable"), bool):
            attrs["qitos.error.recoverable"] = p["recoverable"]
        span.add_event("exception", attrs, timestamp=ns)
        if p.get("recoverable") is not True:
            self._fail(span, attrs["exception.type"], attrs["exception.message"], ns)

    def _phase(self, step: int, phase: str, event: RunEvent, p: Mapping[str, Any], ns: int) -> None:
        """Any other event: a span event on its step, named after its phase and stage."""
        stage = p.get("stage")
        if stage == "start":
            # A phase's start marker says nothing the step's own span does not: half the events
            # of a trace, and a large share of the export's time, for no information.
            self._step(step, ns)
            return
        label = f"qitos.{name_part(phase, 'event')}" + (
            f".{name_part(stage, '')}" if isinstance(stage, str) else ""
        )
        attrs: dict[str, Any] = {}
        if phase == EventKind.CHECK_STOP.value and stage == "stop":
            attrs["qitos.stop_reason"] = text(p.get("stop_reason"))
        elif phase == EventKind.CRITIC.value and isinstance(p.get("critic_outputs"), list):
            attrs["qitos.critic.actions"] = strings([mapping(o).get("action") for o in p["critic_outputs"]])
        self._step(step, ns).add_event(label, attrs, timestamp=ns)

    def _fail(self, span: trace.Span, what: Any, error: Any, ns: int) -> None:
        span.set_attribute(ERROR_TYPE, name_part(what, "error"))
        span.set_status(Status(StatusCode.ERROR, text(error) if error else f"{what} failed"))

    def _start(
        self, name: str, parent: otel_context.Context | None, kind: SpanKind, attrs: dict[str, Any], ns: int
    ) -> trace.Span:
        self.spans_started += 1
        return self._tracer.start_span(name, context=parent, kind=kind, attributes=attrs, start_time=ns)

    _HANDLERS: dict[str, Callable[..., None]] = {}


SpanBuilder._HANDLERS = {
    EventKind.MODEL_REQUEST.value: SpanBuilder._model_request,
    EventKind.MODEL_RESPONSE.value: SpanBuilder._model_response,
    EventKind.TOOL_CALL.value: SpanBuilder._tool_call,
    EventKind.TOOL_RESULT.value: SpanBuilder._tool_result,
    EventKind.MEMORY_RECALL.value: SpanBuilder._memory_recall,
    EventKind.MEMORY_APPEND.value: SpanBuilder._memory_append,
    EventKind.MEMORY_DELETE.value: SpanBuilder._memory_delete,
    EventKind.SKILL_PUBLISH.value: SpanBuilder._skill,
    EventKind.SKILL_DEPRECATE.value: SpanBuilder._skill,
    EventKind.LIFECYCLE_PAUSE.value: SpanBuilder._lifecycle,
    EventKind.LIFECYCLE_RESUME.value: SpanBuilder._lifecycle,
    EventKind.LIFECYCLE_DECISION.value: SpanBuilder._lifecycle,
    EventKind.ERROR.value: SpanBuilder._error,
    EventKind.DECIDE.value: SpanBuilder._decide,
    EventKind.ACT.value: SpanBuilder._act,
    EventKind.OBSERVE.value: SpanBuilder._observe,
}


def _set(span: trace.Span, key: str, value: Any) -> None:
    """Set an attribute when the value is there (None means the payload did not say)."""
    value = scalar(value)
    if value is not None:
        span.set_attribute(key, value)


def _put(attrs: dict[str, Any], key: str, value: Any) -> None:
    """Add an attribute to a dict being gathered, when the value is there."""
    value = scalar(value)
    if value is not None:
        attrs[key] = value


def _flat(record: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """A contribution or receipt as span-event attributes: scalars as they are, lists as texts."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, list):
            out[prefix + str(key)] = strings(value)
        else:
            v = scalar(value)
            if v is not None:
                out[prefix + str(key)] = v
    return out


def _text_part(content: Any) -> dict[str, Any]:
    return {"type": "text", "content": text(content) if content is not None else ""}


def _finish_reasons(p: Mapping[str, Any]) -> list[str]:
    """What the model said about why it stopped (``finish_reason`` or ``finish_reasons``), if it said."""
    single = p.get("finish_reason")
    if isinstance(single, str) and single:
        return [single]
    return [r for r in strings(p.get("finish_reasons")) if r]


def _now_ns() -> int:
    import time

    return time.time_ns()
