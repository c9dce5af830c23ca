"""Failed model and tool calls in words: one line inline where they happened, sentences for dialogs.

Error events carry structured details (``kind``, ``status``, ``attempt``, ``latency_ms`` ...); a
person reads sentences, so every place that shows a failure goes through here, never a repr.
"""

from __future__ import annotations

from typing import Any

from qitos.trace.payloads import ErrorInfo

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


def attempt_text(attempt: int | None, of: int | None) -> str:
    """``attempt 2 of 3`` (or ``attempt 2`` when the limit is unknown); "" without an attempt."""
    if attempt is None:
        return ""
    return f"attempt {attempt} of {of}" if of else f"attempt {attempt}"


def latency_text(ms: float | None) -> str:
    """``12 ms`` / ``1.4 s``; "" when unknown."""
    if ms is None:
        return ""
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


def error_facts(error: ErrorInfo) -> list[str]:
    """The short facts of an ``error`` event: kind, HTTP status, attempt n of m, latency, outcome."""
    details = error.details
    facts = []
    if details.kind:
        facts.append(details.kind)
    if details.status is not None:
        facts.append(f"HTTP {details.status}")
    attempts = attempt_text(details.attempt, details.max_attempts)
    if not attempts and details.attempts is not None:
        attempts = f"{details.attempts} attempts"
    facts.extend(x for x in (attempts, latency_text(details.latency_ms)) if x)
    if error.retrying is True:
        facts.append("retrying")
    elif error.retrying is False and error.category in ("model", "parse"):
        facts.append("gave up")
    return facts


def error_line(payload: Any) -> str:
    """One line for an error event's payload where it happened: ``model call failed (connection ·
    attempt 1 of 3 · 4 ms · retrying): <message>``."""
    error = ErrorInfo.read(payload)
    what = WHAT.get(error.category, "step")
    facts = error_facts(error)
    head = f"{what} failed" + (f" ({' · '.join(facts)})" if facts else "")
    return f"{head}: {error.message}" if error.message else head


def error_sentences(payload: Any, step: int | None = None) -> str:
    """A few sentences for the error dialog: what failed, where, how often, and the cause."""
    error = ErrorInfo.read(payload)
    details = error.details
    what = WHAT.get(error.category, "step")
    where = f" at step {step}" if step is not None else ""
    parts = [f"The {what} failed{where}."]
    if details.kind in KINDS:
        meaning = KINDS[details.kind]
        parts.append(meaning[0].upper() + meaning[1:] + ".")
    if details.status is not None:
        parts.append(f"The server answered HTTP {details.status}.")
    attempts = attempt_text(details.attempt, details.max_attempts)
    took = latency_text(details.latency_ms)
    if attempts:
        parts.append(f"That was {attempts}" + (f", after {took}." if took else "."))
    elif took:
        parts.append(f"It took {took}.")
    if error.retrying is False:
        parts.append("The run stopped here.")
    text = " ".join(parts)
    if error.message:
        text += f"\n\nCause: {error.message}"
    return text
