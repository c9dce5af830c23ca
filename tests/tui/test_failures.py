"""Runs that go wrong: failed and retried model calls against a real HTTP server on 127.0.0.1 (and a
port with nothing listening) read as clearly as runs that go right."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer

from qitos import AgentModule, StateSchema
from qitos.kit.parser.react_parser import ReActTextParser
from qitos.models.openai_compat import OpenAICompatibleModel
from tui import screenshots
from tui.app import make_app
from tui.failures import error_line, error_sentences
from tui.live import LiveRun
from tui.panes.exchanges import ExchangesPane
from tui.screens.dialogs import ErrorScreen
from tui.screens.run import RunScreen
from tui.widgets.run_header import StatusBar
from tui.widgets.step_list import StepList

pytest.importorskip("openai")

ANSWER = "Thought: The answer is known.\nFinal Answer: 42"


class FlakyServer(ThreadingHTTPServer):
    """A chat-completions endpoint that answers HTTP 500 to its first ``failures`` requests."""

    daemon_threads = True

    def __init__(self, failures: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.failures = failures
        self.requests = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FlakyServer

    def log_message(self, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.requests += 1
        if self.server.requests <= self.server.failures:
            status, body = 500, {"error": {"message": "the model is overloaded"}}
        else:
            status = 200
            body = {
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def flaky() -> Iterator[Any]:
    servers: list[FlakyServer] = []

    def start(failures: int) -> FlakyServer:
        server = FlakyServer(failures)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"  # closed again: nothing listens there


class Asker(AgentModule):
    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task, max_steps=3)

    def build_system_prompt(self, state: StateSchema) -> str:
        return "Answer in ReAct format."

    def prepare(self, state: StateSchema) -> str:
        return f"Task: {state.task}"

    def reduce(self, state: StateSchema, observation: Any, decision: Any) -> StateSchema:
        return state


def _live(tmp_path: Path, base_url: str) -> LiveRun:
    model = OpenAICompatibleModel("m", base_url=base_url, api_key="sk-test", max_retries=0, timeout=5)
    agent = Asker(llm=model, model_parser=ReActTextParser())
    return LiveRun(agent, "What is six times seven?", trace_dir=tmp_path / "runs", run_id="r1")


def _footer_keys(app: Any) -> str:
    footer = app.screen.query_one(Footer)
    return " ".join(str(getattr(child, "key", "")) for child in footer.query("FooterKey"))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_a_refused_model_call_is_shown_where_it_happened(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(live=_live(tmp_path, _closed_port_url()))
    async with app.run_test(size=size) as pilot:
        await screenshots.settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ErrorScreen)
        # Sentences, never a repr of the details.
        assert "The model call failed at step 0." in dialog.detail
        assert "Nothing answered at the model's address." in dialog.detail
        assert "attempt 3 of 3" in dialog.detail and "The run stopped here." in dialog.detail
        assert "{" not in dialog.detail and "'kind'" not in dialog.detail
        await pilot.press("escape")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        # Once the dialog is closed, the header area keeps the cause.
        bar = screen.query_one(StatusBar).content().plain
        assert "✗ failed at step 0: model call failed (connection · attempt 3 of 3" in bar
        assert "cannot connect to" in bar
        # The Exchanges pane shows every failed attempt inline, in its exchange.
        text = screen.query_one(ExchangesPane).plain(200)
        for n in (1, 2):
            assert f"✗ model call failed (connection · attempt {n} of 3 · " in text
        assert "attempt 3 of 3" in text and "gave up" in text and text.count("retrying") == 2
        assert "waiting for the model" not in text
        # The step list marks the failed step; no live-only key is offered any more.
        assert screen.query_one(StepList).render_line(0).text.startswith("✗ 0")
        for action in ("pause", "resume", "single_step"):
            assert screen.check_action(action, ()) is False
        keys = _footer_keys(app)
        assert "q" in keys.split() and not {"p", "r", "s"} & set(keys.split())


async def test_a_retried_model_call_marks_its_step_and_shows_each_attempt(flaky: Any, tmp_path: Path) -> None:
    server = flaky(failures=1)
    app = make_app(live=_live(tmp_path, server.base_url))
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen), "a run that recovered shows no error dialog"
        assert screen.store.display_status == "finished" and server.requests == 2
        step = screen.store.steps[0]
        assert step.ok and step.retries == 1
        assert screen.query_one(StepList).render_line(0).text.startswith("↻ 0")
        text = screen.query_one(ExchangesPane).plain(200)
        assert "✗ model call failed (http · HTTP 500 · attempt 1 of 3 · " in text and "retrying" in text
        assert (
            "the model is overloaded" in text and "final answer  42" in text
        )  # the ReAct reply, read structured
        assert "failed" not in screen.query_one(StatusBar).content().plain


async def test_a_server_that_keeps_failing_says_so_in_sentences(flaky: Any, tmp_path: Path) -> None:
    server = flaky(failures=99)
    app = make_app(live=_live(tmp_path, server.base_url))
    async with app.run_test(size=(120, 30)) as pilot:
        await screenshots.settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        detail = app.screen.detail
        assert "The model server answered with an error." in detail
        assert "The server answered HTTP 500." in detail and "{" not in detail
    assert server.requests == 3


def test_error_text_of_a_tool_failure_and_of_bare_payloads() -> None:
    tool = {"category": "tool", "message": "boom", "details": {"tool": "t", "attempts": 2}}
    assert error_line(tool) == "tool call failed (2 attempts): boom"
    assert error_line({"details": "not a dict"}) == "step failed"
    assert error_sentences({"category": "system", "message": "run aborted"}, 4) == (
        "The run failed at step 4.\n\nCause: run aborted"
    )


class ToolUser(Asker):
    """Calls a tool that fails once then works, then one that always fails, then finishes."""

    def decide(self, state: StateSchema, observation: Any) -> Any:
        from qitos.core.action import Action
        from qitos.core.decision import Decision

        plan = [Decision.act([Action("flaky", {})]), Decision.act([Action("broken", {})])]
        return plan[state.current_step] if state.current_step < len(plan) else Decision.final("done")


async def test_failed_and_retried_tool_calls_show_where_they_happened(tmp_path: Path) -> None:
    from qitos import ToolRegistry, tool

    calls = {"flaky": 0}

    @tool(name="flaky", max_retries=2)
    def flaky() -> str:
        """Fails on its first call."""
        calls["flaky"] += 1
        if calls["flaky"] == 1:
            raise ConnectionError("the disk was busy")
        return "ok now"

    @tool(name="broken", max_retries=1)
    def broken() -> str:
        """Always fails."""
        raise ValueError("no such record")

    agent = ToolUser(tool_registry=ToolRegistry().register(flaky).register(broken))
    app = make_app(live=LiveRun(agent, "use the tools", trace_dir=tmp_path / "runs", run_id="t1"))
    async with app.run_test(size=(160, 48)) as pilot:
        await screenshots.settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        rows = [screen.query_one(StepList).render_line(k).text for k in range(2)]
        assert rows[0].startswith("↻ 0") and "(retried 1×)" in rows[0]
        assert rows[1].startswith("✗ 1")
        text = screen.query_one(ExchangesPane).plain(200)
        assert "tool flaky ok · attempt 2 of 3 · " in text
        assert "tool broken failed · attempt 2 of 2 · " in text and "no such record" in text
