"""One model call inside DECIDE: build the request, call the model, record usage, parse a Decision."""

from __future__ import annotations

import inspect
from typing import Any

from qitos.core.action import Action
from qitos.core.context import ContextError
from qitos.core.decision import Decision
from qitos.core.errors import (
    ModelExecutionError,
    ParseExecutionError,
    QitosRuntimeError,
    SystemExecutionError,
)
from qitos.engine.serialize import jsonable
from qitos.models.base import ModelResponse, as_model
from qitos.models.estimate import estimate_usage
from qitos.trace.events import EventKind


class ModelCaller:
    """Calls the agent's model through the engine's RequestBuilder and emits the request/response events."""

    def __init__(self, engine: Any, llm: Any) -> None:
        self.engine = engine
        try:
            self.model = as_model(llm)
        except TypeError as exc:
            raise TypeError(f"agent.llm is unusable: {exc}") from exc
        self.model_id = getattr(self.model, "model_id", None) if self.model is not None else None
        if self.model is not None and engine.request_builder.model is None:
            engine.request_builder.model = self.model

    def call(self, run: Any, parser: Any) -> Decision[Any]:
        """Run the model for this step and return the parsed Decision (typed errors on failure)."""
        engine = self.engine
        agent = engine.agent
        step_id = run.step_count
        if self.model is None:
            raise SystemExecutionError.make(
                "agent.decide returned None and the agent has no llm to ask", phase="DECIDE", step_id=step_id
            )
        registry = agent.tool_registry
        tool_specs = registry.get_all_specs() if registry is not None else []
        system_prompt = agent.build_system_prompt(run.state)
        user_text = agent.prepare(run.state)
        if not isinstance(user_text, str):
            raise SystemExecutionError.make(
                f"agent.prepare must return a str, got {type(user_text).__name__}",
                phase="DECIDE",
                step_id=step_id,
            )
        try:
            request = engine.request_builder.build(
                step_id=step_id,
                system_prompt=system_prompt,
                user_text=user_text,
                tool_specs=tool_specs,
                history=agent.history,
                state=run.state,
                observation=getattr(run.current_record, "observation", None),
            )
        except ContextError as exc:
            # A request that cannot fit (required context or protected exchanges over the budget,
            # a compactor whose receipt does not match) is a failed run, not a crash of the Engine.
            raise SystemExecutionError.make(
                f"the model request could not be built: {type(exc).__name__}: {exc}",
                phase="DECIDE",
                step_id=step_id,
            ) from exc
        engine._emit(
            run,
            EventKind.DECIDE,
            {
                "stage": "model_input",
                "prepared": user_text,
                "history_message_count": max(len(request.messages) - 1 - (1 if system_prompt else 0), 0),
                # The messages themselves are in the model_request event that follows; writing them
                # twice doubled the trace size and the redaction cost per step.
                "request_id": request.request_id,
            },
        )
        payload: dict[str, Any] = {
            "request_id": request.request_id,
            "model_id": self.model_id,
            "messages": request.messages,
            "tools": [spec["name"] for spec in tool_specs],
        }
        if request.view is not None:
            payload["view"] = request.view
        engine._emit(run, EventKind.MODEL_REQUEST, payload)
        start = engine.clock()
        try:
            response = self.model.complete(request.messages, tools=tool_specs or None)
        except QitosRuntimeError as exc:
            # Which request failed and how long it took: the UI shows the failure where it happened.
            exc.info.details.setdefault("request_id", request.request_id)
            exc.info.details.setdefault("latency_ms", round((engine.clock() - start) * 1000, 3))
            raise
        except Exception as exc:  # noqa: BLE001 - any provider failure is a model error
            raise ModelExecutionError.make(
                f"model {self.model_id!r} failed: {type(exc).__name__}: {exc}",
                phase="DECIDE",
                step_id=step_id,
                request_id=request.request_id,
                latency_ms=round((engine.clock() - start) * 1000, 3),
            ) from exc
        latency_ms = (engine.clock() - start) * 1000
        if not isinstance(response, ModelResponse):
            raise ModelExecutionError.make(
                f"model returned {type(response).__name__}, not a ModelResponse",
                phase="DECIDE",
                step_id=step_id,
            )
        usage = response.usage
        if not usage.reported:
            # A plain callable (the documented llm form) or a server omitting usage: estimate it,
            # marked as such, so max_tokens still binds and the trace does not claim 0 tokens.
            usage = estimate_usage(request.messages, response.text, response.tool_calls)
        run.tokens += usage.total_tokens
        engine._emit(
            run,
            EventKind.MODEL_RESPONSE,
            {
                "request_id": request.request_id,
                "text": response.text,
                "tool_calls": [{"name": c.name, "args": jsonable(c.args)} for c in response.tool_calls],
                "usage": usage.to_dict(),
                "latency_ms": round(latency_ms, 3),
                # Why the model stopped, and which model answered (GenAI span attributes need both).
                "finish_reason": response.finish_reason,
                "model_id": response.model_id,
            },
        )
        engine._emit(run, EventKind.DECIDE, {"stage": "model_output", "raw_output": response.text})
        engine.request_builder.record_response(request, response, step_id=step_id)
        engine._history_append("user", user_text, step_id)
        engine._history_append("assistant", response.text, step_id)
        if response.tool_calls and not _takes_tool_calls(parser):
            actions = [
                Action(name=c.name, args=dict(c.args), action_id=c.call_id) for c in response.tool_calls
            ]
            return Decision.act(actions, rationale=response.text or None)
        return parse(parser, response.text, step_id, tool_calls=response.tool_calls)


def _takes_tool_calls(parser: Any) -> bool:
    fn = getattr(parser, "parse", None)
    if fn is None:
        return False
    try:
        return "tool_calls" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def parse(parser: Any, text: str, step_id: int, *, tool_calls: Any = ()) -> Decision[Any]:
    """Parse model text with ``parser`` (``.parse(text)`` or a callable); failures are ParseExecutionError."""
    if parser is None:
        raise SystemExecutionError.make(
            "no parser for model output: pass Engine(parser=...) or AgentModule(model_parser=...)",
            phase="DECIDE",
            step_id=step_id,
        )
    fn = getattr(parser, "parse", None)
    if fn is None:
        if not callable(parser):
            raise SystemExecutionError.make(
                f"parser {type(parser).__name__} has no parse() and is not callable",
                phase="DECIDE",
                step_id=step_id,
            )
        fn = parser
    try:
        decision = fn(text, tool_calls=tool_calls) if tool_calls and _takes_tool_calls(parser) else fn(text)
    except QitosRuntimeError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure is a parse error the policy may retry
        raise ParseExecutionError.make(
            f"{type(parser).__name__} could not parse model output: {type(exc).__name__}: {exc}",
            phase="DECIDE",
            step_id=step_id,
            raw_output=text[:2000],
        ) from exc
    if inspect.isawaitable(decision):
        raise SystemExecutionError.make("async parsers are not supported by the sync Engine", phase="DECIDE")
    if not isinstance(decision, Decision):
        raise ParseExecutionError.make(
            f"parser returned {type(decision).__name__}, not a Decision", phase="DECIDE", step_id=step_id
        )
    return decision
