"""Failed model and tool calls in words: one line inline where they happened, sentences for dialogs.

Error events carry structured details (``kind``, ``status``, ``attempt``, ``latency_ms`` ...); a
person reads sentences, so every place that shows a failure goes through here, never a repr.
"""

from __future__ import annotations

from typing import Any

from qitos.trace.fields import as_float

# What failed, by the error's category.
WHAT = {
    "model": "model call",
    "parse": "reading of the model's answer",
    "tool": "tool call",
    "state": "state check",
    "task": "task check",
    "env": "environment",
    "system": "run",
}
# What a model adapter's failure kind means, said plainly.
KINDS = {
    "connection": "nothing answered at the model's address",
    "timeout": "the model did not answer in time",
    "http": "the model server answered with an error",
    "server_error": "the model server reported an error",
    "malformed": "the model server's answer could not be read",
    "tool_arguments": "the model asked for a tool with unreadable arguments",
    "client": "the request could not be sent",
}


def _number(value: Any) -> float | None:
    # Finite only: a trace may hold 1e999 or a 400-digit int, and int(inf) raises.
    return as_float(value)


def _details(payload: dict[str, Any]) -> dict[str, Any]:
    details = payload.get("details")
    return details if isinstance(details, dict) else {}


def attempt_text(attempt: Any, of: Any) -> str:
    """``attempt 2 of 3`` (or ``attempt 2`` when the limit is unknown); "" without an attempt."""
    n, m = _number(attempt), _number(of)
    if n is None:
        return ""
    return f"attempt {int(n)} of {int(m)}" if m else f"attempt {int(n)}"


def latency_text(value: Any) -> str:
    """``12 ms`` / ``1.4 s``; "" when unknown."""
    ms = _number(value)
    if ms is None:
        return ""
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


def error_facts(payload: dict[str, Any]) -> list[str]:
    """The short facts of an ``error`` event: kind, HTTP status, attempt n of m, latency, outcome."""
    details = _details(payload)
    facts = []
    kind = details.get("kind")
    if isinstance(kind, str) and kind:
        facts.append(kind)
    if _number(details.get("status")) is not None:
        facts.append(f"HTTP {int(details['status'])}")
    attempts = attempt_text(details.get("attempt"), details.get("max_attempts"))
    if not attempts and _number(details.get("attempts")) is not None:
        attempts = f"{int(details['attempts'])} attempts"
    facts.extend(x for x in (attempts, latency_text(details.get("latency_ms"))) if x)
    if payload.get("retrying") is True:
        facts.append("retrying")
    elif payload.get("retrying") is False and payload.get("category") in ("model", "parse"):
        facts.append("gave up")
    return facts


def error_line(payload: dict[str, Any]) -> str:
    """One line for an error where it happened: ``model call failed (connection · attempt 1 of 3 ·
    4 ms · retrying): <message>``."""
    what = WHAT.get(str(payload.get("category")), "step")
    facts = error_facts(payload)
    head = f"{what} failed" + (f" ({' · '.join(facts)})" if facts else "")
    message = payload.get("message")
    return f"{head}: {message}" if isinstance(message, str) and message else head


def error_sentences(payload: dict[str, Any], step: int | None = None) -> str:
    """A few sentences for the error dialog: what failed, where, how often, and the cause."""
    details = _details(payload)
    what = WHAT.get(str(payload.get("category")), "step")
    where = f" at step {step}" if step is not None else ""
    parts = [f"The {what} failed{where}."]
    kind = details.get("kind")
    if isinstance(kind, str) and kind in KINDS:
        parts.append(KINDS[kind][0].upper() + KINDS[kind][1:] + ".")
    if _number(details.get("status")) is not None:
        parts.append(f"The server answered HTTP {int(details['status'])}.")
    attempts = attempt_text(details.get("attempt"), details.get("max_attempts"))
    took = latency_text(details.get("latency_ms"))
    if attempts:
        parts.append(f"That was {attempts}" + (f", after {took}." if took else "."))
    elif took:
        parts.append(f"It took {took}.")
    if payload.get("retrying") is False:
        parts.append("The run stopped here.")
    message = payload.get("message")
    text = " ".join(parts)
    if isinstance(message, str) and message:
        text += f"\n\nCause: {message}"
    return text
