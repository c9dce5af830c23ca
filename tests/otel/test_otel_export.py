"""OTLP export against a real loopback OTLP/HTTP receiver: span tree, names, attributes, timing, loss."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from otel_receiver import Receiver, Span

from qitos.trace.events import RunEvent
from qitos.trace.otel.values import ts_ns
from qitos.trace.reader import TraceReader
from tui.cli import main

pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is not installed")

CLIENT, INTERNAL = 3, 1  # OTLP span kinds (SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL)
STATUS_ERROR = 2


def _run_demo(tmp: Path, *extra: str) -> tuple[int, str, Path]:
    """Run the demo headless (through the CLI) and return its exit code, stdout and run directory."""
    out = io.StringIO()
    argv = ["demo", "--headless", "--step-delay", "0", "--trace-dir", str(tmp / "runs")]
    argv += ["--workspace", str(tmp / "ws"), "--memory", str(tmp / "mem"), "--skills", str(tmp / "skills.db")]
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        code = main([*argv, *extra])
    (run_dir,) = (tmp / "runs").iterdir()
    return code, out.getvalue(), run_dir


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recorded demo run, shared by the tests that export it."""
    code, _, run_dir = _run_demo(tmp_path_factory.mktemp("demo"))
    assert code == 0
    return run_dir


def _export(run_dir: Path, *args: str) -> tuple[int, str, str]:
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["export", str(run_dir), *args])
    return code, out.getvalue(), err.getvalue()


def _children(spans: list[Span], parent: Span) -> list[Span]:
    return [s for s in spans if s.parent_id == parent.span_id]


def _root(spans: list[Span]) -> Span:
    (root,) = [s for s in spans if not s.parent_id]
    return root


def _events(run_dir: Path) -> list[RunEvent]:
    with TraceReader(run_dir) as reader:
        return list(reader.events())


# ---- the demo -------------------------------------------------------------------------------
def test_demo_export_builds_the_genai_span_tree(demo_run: Path) -> None:
    events = _events(demo_run)
    with Receiver() as rx:
        code, out, err = _export(demo_run, "--otlp", rx.url)
        spans = rx.spans()
    assert code == 0, err
    assert "nothing lost" in out
    root = _root(spans)
    run_id = events[0].run_id
    assert root.name.startswith("invoke_agent")
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.conversation.id"] == run_id
    assert root.attributes["openinference.span.kind"] == "AGENT"
    assert root.attributes["qitos.run.status"] == "completed"
    assert {s.trace_id for s in spans} == {root.trace_id}
    # One span per step, under the run, in order.
    steps = _children(spans, root)
    step_ids = sorted({e.step_id for e in events if e.phase == "OBSERVE"})
    assert [s.name for s in sorted(steps, key=lambda s: s.start)] == [f"step {n}" for n in step_ids]
    assert all(s.attributes["openinference.span.kind"] == "CHAIN" for s in steps)
    # A chat span per model call, under its step, with the model, tokens and finish reasons.
    requests = [e for e in events if e.phase == "model_request"]
    responses = {e.payload["request_id"]: e for e in events if e.phase == "model_response"}
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == len(requests) > 0
    by_step = {s.span_id: s for s in steps}
    for chat, request in zip(sorted(chats, key=lambda s: s.start), requests, strict=True):
        response = responses[request.payload["request_id"]]
        assert chat.name == f"chat {request.payload['model_id']}"
        assert chat.kind == CLIENT
        assert by_step[chat.parent_id].name == f"step {request.step_id}"
        assert chat.attributes["gen_ai.request.model"] == request.payload["model_id"]
        assert chat.attributes["gen_ai.usage.input_tokens"] == response.payload["usage"]["prompt_tokens"]
        assert chat.attributes["gen_ai.usage.output_tokens"] == response.payload["usage"]["completion_tokens"]
        assert chat.attributes["gen_ai.response.finish_reasons"] == [response.payload["finish_reason"]]
        assert chat.attributes["openinference.span.kind"] == "LLM"
        assert chat.attributes["llm.token_count.prompt"] == response.payload["usage"]["prompt_tokens"]
        # Timing is the trace's: the span starts at the request's ts and ends at the response's.
        assert chat.start == ts_ns(request.ts) and chat.end == ts_ns(response.ts)
    # An execute_tool span per tool call, with the tool's name and call id.
    calls = [e for e in events if e.phase == "tool_call"]
    tools = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    assert sorted(
        (s.attributes["gen_ai.tool.name"], s.attributes["gen_ai.tool.call.id"]) for s in tools
    ) == sorted((e.payload["tool"], e.payload["call_id"]) for e in calls)
    assert all(s.name == f"execute_tool {s.attributes['gen_ai.tool.name']}" for s in tools)
    assert all(s.attributes["openinference.span.kind"] == "TOOL" for s in tools)
    # Memory: recalls are searches, appends updates.
    recalls = [e for e in events if e.phase == "memory_recall"]
    searches = [s for s in spans if s.name == "search_memory"]
    assert len(searches) == len(recalls)
    assert [
        s.attributes["gen_ai.memory.search.result.count"] for s in sorted(searches, key=lambda s: s.start)
    ] == [len(e.payload["record_ids"]) for e in recalls]
    assert all(s.attributes["openinference.span.kind"] == "RETRIEVER" for s in searches)
    appends = [e for e in events if e.phase == "memory_append"]
    updates = [s for s in spans if s.name == "update_memory"]
    assert sorted(s.attributes["gen_ai.memory.id"] for s in updates) == sorted(
        e.payload["record_id"] for e in appends
    )
    # The run's real timing: the root spans the first to the last event.
    assert root.start == ts_ns(events[0].ts) and root.end == ts_ns(events[-1].ts)


def test_demo_context_budget_and_receipts_are_qitos_attributes_and_span_events(demo_run: Path) -> None:
    events = _events(demo_run)
    with Receiver() as rx:
        assert _export(demo_run, "--otlp", rx.url)[0] == 0
        spans = rx.spans()
    with_receipts = [
        e for e in events if e.phase == "model_request" and e.payload.get("view", {}).get("receipts")
    ]
    assert with_receipts, "the demo compacts its context at least once"
    request = with_receipts[0]
    view = request.payload["view"]
    (chat,) = [s for s in spans if s.attributes.get("qitos.request.id") == request.payload["request_id"]]
    assert chat.attributes["qitos.budget.max_units"] == view["budget"]["max_units"]
    assert chat.attributes["qitos.budget.used.tools"] == view["budget"]["used"]["tools"]
    assert chat.attributes["qitos.context.selected_exchange_ids"] == view["selected_exchange_ids"]
    assert chat.attributes["qitos.compaction.receipt_ids"] == [r["receipt_id"] for r in view["receipts"]]
    receipts = [attrs for name, _, attrs in chat.events if name == "qitos.compaction.receipt"]
    assert [r["qitos.receipt.declared_losses"] for r in receipts] == [
        r["declared_losses"] for r in view["receipts"]
    ]
    contributions = [attrs for name, _, attrs in chat.events if name == "qitos.context.contribution"]
    assert [c["qitos.contribution.contribution_id"] for c in contributions] == [
        c["contribution_id"] for c in view["contributions"]
    ]
    # The pause shows on its step as a span event.
    pauses = [(s, a) for s in spans for name, _, a in s.events if name == "qitos.lifecycle_pause"]
    assert [a["qitos.lifecycle.policy_id"] for _, a in pauses] == ["demo.review-writes"]


def test_content_only_when_opted_in(demo_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content_keys = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "input.value",
    }
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    with Receiver() as rx:
        _export(demo_run, "--otlp", rx.url)
        plain = rx.spans()
    assert not any(content_keys & s.attributes.keys() for s in plain)
    assert not any("calc.add" in json.dumps(s.attributes) for s in plain)  # no message text anywhere
    with Receiver() as rx:
        _export(demo_run, "--otlp", rx.url, "--otlp-content")
        flagged = rx.spans()
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    with Receiver() as rx:
        _export(demo_run, "--otlp", rx.url)
        by_env = rx.spans()
    for spans in (flagged, by_env):
        chat = next(s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat")
        messages = json.loads(chat.attributes["gen_ai.input.messages"])
        assert messages[0]["role"] == "system" and messages[0]["parts"][0]["type"] == "text"
        out = json.loads(chat.attributes["gen_ai.output.messages"])
        assert out[0]["role"] == "assistant" and "thought" in out[0]["parts"][0]["content"]
        tool = next(s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool")
        assert "gen_ai.tool.call.result" in tool.attributes


# ---- an upstream QitOS trace, built here ----------------------------------------------------------
def _upstream_run(root: Path) -> Path:
    """A run directory in upstream QitOS's v1 format: phases with stages, no qitos-tui kinds."""
    run_id = "qitos_coding_20260222_000000_000001"
    run_dir = root / run_id
    run_dir.mkdir(parents=True)
    t = iter(range(10_000))

    def ev(step: int, phase: str, payload: dict, ms: int | None = None) -> dict:
        at = next(t) if ms is None else ms
        ts = f"2026-02-22T04:36:{31 + at // 1000:02d}.{(at % 1000) * 1000:06d}+00:00"
        return {
            "run_id": run_id,
            "step_id": step,
            "phase": phase,
            "ok": True,
            "payload": payload,
            "error": None,
            "ts": ts,
        }

    lines = [
        ev(0, "toolset_setup_start", {"state": "CodingState(...)"}, 0),
        ev(
            0,
            "INIT",
            {
                "task": "Fix the bug.",
                "task_id": "demo",
                "run_meta": {"model_name": "Qwen/Qwen3-8B", "tools": [{"name": "view"}]},
            },
            1,
        ),
    ]
    for step in range(2):
        base = 100 + step * 5000
        lines += [
            ev(step, "OBSERVE", {"stage": "start"}, base),
            ev(
                step,
                "OBSERVE",
                {
                    "stage": "observation_ready",
                    "memory": {"enabled": True, "query": {"max_items": 12}, "records": [{"k": 1}] * step},
                },
                base + 1,
            ),
            ev(
                step,
                "DECIDE",
                {"stage": "model_input", "messages": [{"role": "user", "content": "Fix it"}]},
                base + 10,
            ),
            ev(
                step,
                "DECIDE",
                {"stage": "model_output", "raw_output": "Action: view(path='a.py')"},
                base + 3010,
            ),
            ev(
                step,
                "DECIDE",
                {"stage": "decision_ready", "mode": "act", "actions": [{"name": "view", "args": {}}]},
                base + 3020,
            ),
            ev(step, "ACT", {"stage": "start"}, base + 3030),
            ev(
                step,
                "ACT",
                {
                    "stage": "action_results",
                    "tool_invocations": [
                        {"tool_name": "view", "attempts": 1, "latency_ms": 40.0, "status": "success"}
                    ],
                    "action_results": [{"stdout": "def add"}],
                },
                base + 3080,
            ),
            ev(
                step,
                "CHECK_STOP",
                {"stage": "continue" if step == 0 else "stop", "stop_reason": "final_result"},
                base + 3090,
            ),
        ]
    lines += [
        ev(1, "END", {"stop_reason": "final_result"}, 9000),
        ev(0, "toolset_teardown_end", {"state": "..."}, 9001),
    ]
    (run_dir / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    manifest = {"run_id": run_id, "schema_version": "v1", "status": "completed", "event_count": len(lines)}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (run_dir / "steps.jsonl").write_text("", encoding="utf-8")
    return run_dir


def test_upstream_trace_exports_model_calls_tools_and_memory(tmp_path: Path) -> None:
    run_dir = _upstream_run(tmp_path)
    with Receiver() as rx:
        code, out, err = _export(run_dir, "--otlp", rx.url)
        spans = rx.spans()
    assert code == 0, err
    root = _root(spans)
    assert root.attributes["gen_ai.conversation.id"] == run_dir.name
    assert root.attributes["gen_ai.request.model"] == "Qwen/Qwen3-8B"
    assert root.attributes["qitos.run.stop_reason"] == "final_result"
    assert [s.name for s in sorted(_children(spans, root), key=lambda s: s.start)] == ["step 0", "step 1"]
    chats = sorted((s for s in spans if s.name == "chat Qwen/Qwen3-8B"), key=lambda s: s.start)
    assert len(chats) == 2
    assert all(c.end - c.start == 3_000_000_000 for c in chats)  # model_input to model_output: 3 s
    tools = [s for s in spans if s.name == "execute_tool view"]
    assert len(tools) == 2 and all(t.end - t.start == 40_000_000 for t in tools)  # its recorded latency
    assert all(t.attributes["gen_ai.tool.name"] == "view" for t in tools)
    searches = sorted((s for s in spans if s.name == "search_memory"), key=lambda s: s.start)
    assert [s.attributes["gen_ai.memory.search.result.count"] for s in searches] == [0, 1]
    assert root.end == ts_ns("2026-02-22T04:36:40.001000+00:00")  # the teardown, the last event


def test_secrets_in_an_unredacted_upstream_trace_never_reach_a_span(tmp_path: Path) -> None:
    run_dir = _upstream_run(tmp_path)
    key = "sk-" + "A1b2C3d4E5f6G7h8J9k0L1m2"
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines()
    bad = json.loads(lines[2])  # OBSERVE start of step 0
    bad["payload"] = {
        "stage": "observation_ready",
        "memory": {"enabled": True, "query": key, "records": [key]},
    }
    model_input = json.loads(lines[4])
    model_input["payload"]["messages"] = [{"role": "user", "content": f"use Bearer {key} and api_key={key}"}]
    lines[2], lines[4] = json.dumps(bad), json.dumps(model_input)
    events.write_text("\n".join(lines) + "\n")
    with Receiver() as rx:
        code, _, _ = _export(run_dir, "--otlp", rx.url, "--otlp-content")
        spans = rx.spans()
    assert code == 0
    dumped = json.dumps([(s.attributes, s.events) for s in spans])
    assert key not in dumped and "[REDACTED]" in dumped


def test_shared_upstream_traces_export(upstream_trace_dirs: list[Path]) -> None:
    for run_dir in upstream_trace_dirs:
        with Receiver() as rx:
            code, _, err = _export(run_dir, "--otlp", rx.url)
            spans = rx.spans()
        assert code == 0, err
        assert _root(spans).attributes["gen_ai.conversation.id"] == run_dir.name
        assert any(s.name.startswith("chat ") for s in spans) and any(
            s.name.startswith("execute_tool ") for s in spans
        )


# ---- live ---------------------------------------------------------------------------------------
def test_live_demo_export_matches_the_export_of_its_trace(tmp_path: Path) -> None:
    with Receiver() as live_rx:
        code, out, run_dir = _run_demo(tmp_path, "--otlp", live_rx.url)
        live = live_rx.spans()
    assert code == 0 and "nothing lost" in out
    with Receiver() as rx:
        assert _export(run_dir, "--otlp", rx.url)[0] == 0
        replayed = rx.spans()

    def shape(spans: list[Span]) -> list[tuple]:
        # The live root also knows the agent's class (its name and gen_ai.agent.name); all else is equal.
        by_id = {s.span_id: s for s in spans}

        def name(s: Span) -> str:
            return "invoke_agent" if s.name.startswith("invoke_agent") else s.name

        return sorted(
            (
                name(s),
                s.start,
                s.end,
                name(by_id[s.parent_id]) if s.parent_id else "",
                json.dumps(
                    {k: v for k, v in s.attributes.items() if k != "gen_ai.agent.name"}, sort_keys=True
                ),
                json.dumps(s.events),
            )
            for s in spans
        )

    assert len(live) == len(replayed) > 20
    assert (
        _root(live).name == "invoke_agent DemoAgent"
        and _root(live).attributes["gen_ai.agent.name"] == "DemoAgent"
    )
    # Same spans, same tree, same times, attributes and span events: live is what a replay exports.
    assert shape(live) == shape(replayed)


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def test_dead_collector_run_completes_and_the_loss_is_counted(tmp_path: Path) -> None:
    code, out, run_dir = _run_demo(
        tmp_path, "--otlp", f"http://127.0.0.1:{_dead_port()}", "--otlp-file", str(tmp_path / "s.jsonl")
    )
    assert code == 0
    assert "run " in out and ": completed" in out
    (line,) = [x for x in out.splitlines() if x.startswith("OTLP export")]
    spans = int(line.split(": ", 1)[1].split(" spans")[0])
    assert spans > 20 and f"LOST: {spans} spans not delivered to http://127.0.0.1" in line
    assert "Connection refused" in line or "connect" in line.lower()
    # The file destination still got every span.
    from qitos.trace.otel.exporters import read_json_lines

    requests = read_json_lines(tmp_path / "s.jsonl")
    assert sum(len(ss.spans) for r in requests for rs in r.resource_spans for ss in rs.scope_spans) == spans


def test_slow_collector_is_given_up_on_and_the_loss_is_counted(tmp_path: Path) -> None:
    from qitos.demo import TASK, build_agent
    from qitos.trace.otel.setup import live_export
    from qitos.trace.writer import TraceWriter

    with Receiver(delay=60) as rx:
        export = live_export(otlp_url=rx.url, timeout=30)
        agent = build_agent(
            workspace=tmp_path / "ws", memory_dir=tmp_path / "mem", skills_db=tmp_path / "s.db"
        )
        writer = TraceWriter(tmp_path / "runs")
        engine = agent.build_engine(trace_writer=writer, hooks=[export])
        result = engine.run(TASK)
        while result.status == "paused":
            result = engine.resume(result.snapshot)
        writer.close()
        assert result.status == "completed"  # the hung collector did not hold the run
        stats = export.close(timeout=0.2)
    assert stats.spans_lost > 0 and not stats.lossless
    assert stats.spans_lost == stats.spans  # nothing was acknowledged by the collector
    assert export.notice() is not None and "LOST" in export.notice()


def test_full_queue_drops_events_and_counts_them() -> None:
    from qitos.trace.otel.pipeline import Batcher, OtelExport
    from qitos.trace.otel.setup import destinations

    with Receiver(delay=60) as rx:
        export = OtelExport(Batcher(destinations(rx.url, None, timeout=30), batch_spans=1), queue_events=4)
        for n in range(200):
            export.on_event(RunEvent("r", n, "tool_result", payload={"call_id": str(n), "tool": "t"}))
        stats = export.close(timeout=0.2)
    assert stats.events_dropped > 0
    assert stats.events + stats.events_dropped == 200  # every event is either mapped or counted dropped
    assert "events dropped (queue full)" in stats.summary()


# ---- the OTLP JSON file ---------------------------------------------------------------------------
def test_otlp_json_file_is_valid_otlp_with_hex_ids(demo_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    with Receiver() as rx:
        code, out, _ = _export(demo_run, "--otlp", rx.url, "--otlp-file", str(path))
        sent = rx.spans()
    assert code == 0
    first = json.loads(path.read_text().splitlines()[0])
    span = first["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 32 and int(span["traceId"], 16) >= 0  # hex, as OTLP/JSON says
    from otel_receiver import flatten

    from qitos.trace.otel.exporters import read_json_lines

    in_file = flatten(read_json_lines(path))
    assert [(s.name, s.span_id, s.parent_id, s.start, s.attributes) for s in in_file] == [
        (s.name, s.span_id, s.parent_id, s.start, s.attributes) for s in sent
    ]


def test_env_endpoint_is_used_when_no_flag(demo_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Receiver() as rx:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.url)
        code, out, _ = _export(demo_run)
        assert code == 0 and rx.spans()


# ---- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--otlp", "ftp://x"], "not an http(s) URL"),
        (["--otlp", "http://"], "not an http(s) URL"),
        ([], "nowhere to send the run"),
        (["--otlp", "http://127.0.0.1:1", "--otlp-timeout", "0"], "--otlp-timeout"),
    ],
)
def test_bad_arguments_get_a_clear_message(
    demo_run: Path, args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    code, _, err = _export(demo_run, *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_missing_run_dir_and_unreachable_export_exit_codes(tmp_path: Path) -> None:
    code, _, err = _export(tmp_path / "nope", "--otlp", "http://127.0.0.1:1")
    assert code == 2 and "no such directory" in err
    run_dir = _upstream_run(tmp_path)
    code, out, _ = _export(run_dir, "--otlp", f"http://127.0.0.1:{_dead_port()}", "--otlp-timeout", "0.5")
    assert code == 1 and "LOST" in out


def test_hostile_payloads_still_export_valid_spans(tmp_path: Path) -> None:
    from qitos.trace.otel.pipeline import Batcher, export_events
    from qitos.trace.otel.setup import destinations

    weird = [
        RunEvent("r", 0, "INIT", payload={"run_meta": {"model_name": 5, "tools": "all"}}, ts="not a time"),
        RunEvent(
            "r",
            0,
            "model_request",
            payload={
                "request_id": ["x"],
                "view": {
                    "budget": {"max_units": 10**30, "used": 3},
                    "contributions": "many",
                    "receipts": [1, None],
                },
            },
        ),
        RunEvent(
            "r",
            0,
            "model_response",
            payload={
                "usage": {"prompt_tokens": "lots", "completion_tokens": float("nan")},
                "tool_calls": 7,
                "latency_ms": -1,
            },
            ts="2026-01-01T00:00:00",
        ),
        RunEvent(
            "r",
            0,
            "tool_result",
            ok=False,
            payload={"call_id": None, "tool": "\x1b[31mevil\nname", "latency_ms": float("inf")},
        ),
        RunEvent("r", 10**20, "memory_recall", payload={"record_ids": [1, {"a": 2}], "records": "no"}),
        RunEvent("r", 1, "error", payload={"category": None, "message": {"deep": [1]}}),
        RunEvent("r", 1, "<malformed>", payload={"value": "garbage"}),
        RunEvent("r", 1, "run_end", payload={"status": "failed", "steps": "x", "token_usage": 2**70}),
    ]
    with Receiver() as rx:
        stats = export_events(weird, Batcher(destinations(rx.url, None)))
        spans = rx.spans()
    assert stats.lossless and len(spans) == stats.spans > 0
    root = _root(spans)
    assert root.status_code == STATUS_ERROR  # the run said failed
    tool = next(s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool")
    assert tool.name == "execute_tool \x1b[31mevil name" and tool.status_code == STATUS_ERROR  # one line


def test_importing_the_package_does_not_import_opentelemetry_and_a_missing_extra_is_explained(
    tmp_path: Path,
) -> None:
    code = (
        "import sys\n"
        "import qitos.trace.otel as o\n"
        "assert not any(m.startswith('opentelemetry') for m in sys.modules), 'imported eagerly'\n"
        "sys.modules['opentelemetry.sdk.trace'] = None\n"
        "from tui.cli import main\n"
        f"rc = main(['export', {str(tmp_path)!r}, '--otlp', 'http://127.0.0.1:1'])\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'qitos-tui[otel]'" in proc.stderr and "Traceback" not in proc.stderr


def test_demo_with_a_bad_otlp_url_stops_before_running(tmp_path: Path) -> None:
    from contextlib import redirect_stderr

    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["demo", "--headless", "--trace-dir", str(tmp_path / "runs"), "--otlp", "localhost:4318"])
    assert code == 2 and "Cannot export spans" in err.getvalue() and "not an http(s) URL" in err.getvalue()
    assert not (tmp_path / "runs").exists()  # nothing ran


def test_env_endpoint_without_the_extra_warns_and_the_run_goes_on(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry.sdk.trace'] = None\n"
        "from tui.cli import main\n"
        f"base = {str(tmp_path)!r}\n"
        "sys.exit(main(['demo', '--headless', '--step-delay', '0', '--trace-dir', base + '/runs',\n"
        "    '--workspace', base + '/ws', '--memory', base + '/mem', '--skills', base + '/s.db']))\n"
    )
    env = {**__import__("os").environ, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (
        "OTEL_EXPORTER_OTLP_ENDPOINT is set but not used" in proc.stderr and "qitos-tui[otel]" in proc.stderr
    )
    assert ": completed" in proc.stdout and "OTLP export" not in proc.stdout


def test_an_event_the_mapping_fails_on_is_counted_and_the_rest_still_export() -> None:
    from qitos.trace.otel.pipeline import Batcher, export_events
    from qitos.trace.otel.setup import destinations

    class Exploding(dict):
        def get(self, *args: object) -> object:
            raise RuntimeError("boom")

    events = [
        RunEvent("r", 0, "OBSERVE", payload={"stage": "start"}),
        RunEvent("r", 0, "tool_call", payload=Exploding()),
        RunEvent("r", 0, "memory_append", payload={"record_id": "m1"}),
    ]
    with Receiver() as rx:
        stats = export_events(events, Batcher(destinations(rx.url, None)))
        spans = rx.spans()
    assert stats.events_unmapped == 1 and not stats.lossless and "boom" in stats.summary()
    assert {s.name for s in spans} == {"invoke_agent", "step 0", "update_memory"}


def test_credentials_in_the_collector_url_are_not_printed(tmp_path: Path) -> None:
    run_dir = _upstream_run(tmp_path)
    with Receiver() as rx:
        url = rx.url.replace("http://", "http://user:s3cret-pass@")
        code, out, err = _export(run_dir, "--otlp", url)
    assert code == 0 and "s3cret" not in out + err and f"***@127.0.0.1:{rx.port}/v1/traces" in out
