"""Runs one action against the tool registry with its timeout and retries enforced."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qitos.core.action import Action
from qitos.core.errors import QitosRuntimeError, ToolExecutionError


@dataclass
class ToolOutcome:
    """The result of one action after all attempts."""

    ok: bool
    result: Any = None
    error: str | None = None
    error_category: str | None = None
    attempts: int = 0
    max_attempts: int = 0  # the first try and the retries allowed ("attempt n of m")
    latency_ms: float = 0.0
    timed_out: bool = False
    origin: dict[str, Any] = field(default_factory=dict)

    def as_action_result(self) -> Any:
        """What ``reduce`` sees: the tool's return value, or an error dict when it failed."""
        if self.ok:
            return self.result
        return {"status": "error", "error": self.error, "error_category": self.error_category}


class ToolExecutor:
    """Executes actions; a slow tool is abandoned at its timeout, failures retried up to the limit."""

    def __init__(
        self,
        registry: Any,
        runtime_context: dict[str, Any] | None = None,
        *,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.registry = registry
        self.runtime_context = runtime_context or {}
        # Seconds from an arbitrary origin; the Engine passes its own clock so that a test with a
        # fixed clock gets reproducible latencies in the trace.
        self.timer = timer

    def limits(self, action: Action) -> tuple[float | None, int]:
        """The timeout and retry count for ``action`` (the action's own values override the tool's)."""
        tool_obj = self.registry.get(action.name) if self.registry is not None else None
        meta = getattr(tool_obj, "meta", None)
        timeout = action.timeout_s if action.timeout_s is not None else getattr(meta, "timeout_s", None)
        retries = action.max_retries if action.max_retries else getattr(meta, "max_retries", 0)
        return timeout, retries if action.idempotent else 0

    def execute(self, action: Action) -> ToolOutcome:
        """Run ``action`` with its timeout and retries; never raises for tool failures."""
        start = self.timer()
        tool_obj = self.registry.get(action.name) if self.registry is not None else None
        if tool_obj is None:
            known = ", ".join(self.registry.list_tools()) if self.registry is not None else "no registry"
            return ToolOutcome(
                ok=False,
                error=f"unknown tool {action.name!r} (registered: {known or 'none'})",
                error_category="tool",
                attempts=0,
                latency_ms=(self.timer() - start) * 1000,
            )
        timeout, retries = self.limits(action)
        attempts = 0
        error = ""
        timed_out = False
        while attempts <= retries:
            attempts += 1
            ok, value, timed_out = self._attempt(tool_obj, action, timeout)
            if ok:
                return ToolOutcome(
                    ok=True,
                    result=value,
                    attempts=attempts,
                    max_attempts=retries + 1,
                    latency_ms=(self.timer() - start) * 1000,
                    origin=dict(tool_obj.origin),
                )
            error = value
        return ToolOutcome(
            ok=False,
            error=error,
            error_category="tool",
            attempts=attempts,
            max_attempts=retries + 1,
            latency_ms=(self.timer() - start) * 1000,
            timed_out=timed_out,
            origin=dict(tool_obj.origin),
        )

    def _attempt(self, tool_obj: Any, action: Action, timeout: float | None) -> tuple[bool, Any, bool]:
        """One call: (ok, result or error message, timed out)."""
        if timeout is None:
            try:
                return True, tool_obj.run(runtime_context=self.runtime_context, **action.args), False
            except Exception as exc:  # noqa: BLE001 - a tool failure is a result, not a crash
                return False, _describe(action.name, exc), False
        box: dict[str, Any] = {}
        done = threading.Event()
        context = contextvars.copy_context()

        def target() -> None:
            try:
                box["value"] = context.run(tool_obj.run, runtime_context=self.runtime_context, **action.args)
            except BaseException as exc:  # noqa: BLE001 - carried back to the engine thread
                box["error"] = exc
            finally:
                done.set()

        # A daemon thread: a tool that never returns is abandoned, it cannot block interpreter exit.
        thread = threading.Thread(target=target, name=f"qitos-tool-{action.name}", daemon=True)
        thread.start()
        if not done.wait(timeout):
            return False, f"tool {action.name!r} timed out after {timeout:g}s (abandoned)", True
        if "error" in box:
            return False, _describe(action.name, box["error"]), False
        return True, box.get("value"), False


def _describe(name: str, exc: BaseException) -> str:
    if isinstance(exc, QitosRuntimeError):
        return f"tool {name!r} failed: {exc.info.message}"
    return f"tool {name!r} failed: {type(exc).__name__}: {exc}"


def tool_error(outcome: ToolOutcome, action: Action, step_id: int) -> ToolExecutionError:
    """The typed error describing a failed outcome (for error events)."""
    return ToolExecutionError.make(
        outcome.error or "tool failed",
        phase="ACT",
        step_id=step_id,
        tool=action.name,
        attempts=outcome.attempts,
        timed_out=outcome.timed_out,
    )
