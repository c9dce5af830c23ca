"""A ruling on a pause (approved / denied / changed) reaches an OTLP collector as a span event."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from otel_receiver import Receiver

from qitos import Decision, Engine
from qitos.engine.approval import ApprovalPolicy, PauseDecision
from qitos.trace.writer import TraceWriter
from tui.cli import main

pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_agents import ScriptAgent, add_decision  # noqa: E402


def test_a_denial_is_exported_with_its_verdict_and_who(tmp_path: Path) -> None:
    agent = ScriptAgent(
        [add_decision(1, 1), Decision.final("done")],
        extensions={"approve": lambda: ApprovalPolicy("add")},
        lifecycle=["approve"],
    )
    engine = Engine(agent, trace_writer=TraceWriter(tmp_path, run_id="ruled"))
    paused = engine.run("t")
    assert engine.resume(paused.snapshot, decision=PauseDecision.deny("no adding")).status == "completed"
    with Receiver() as rx, redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["export", str(tmp_path / "ruled"), "--otlp", rx.url]) == 0
        spans = rx.spans()
    (ruling,) = [a for s in spans for name, _, a in s.events if name == "qitos.lifecycle_decision"]
    assert ruling["qitos.lifecycle.verdict"] == "denied" and ruling["qitos.lifecycle.by"] == "person"
    assert ruling["qitos.lifecycle.reason"] == "no adding"
    assert ruling["qitos.lifecycle.policy_id"] == "qitos.approve"
