"""OpenAICompatibleModel against a real chat-completions HTTP server on 127.0.0.1 (no mocked client)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from qitos.core.errors import ModelExecutionError
from qitos.models.base import ToolCall, Usage
from qitos.models.openai_compat import OpenAICompatibleModel, chat_tools
from qitos.trace.redact import Redactor

KEY = "sk-loopback-0123456789abcdefABCDEF"


def completion(message: dict[str, Any], *, usage: dict | None = None, finish: str = "stop") -> dict:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "served-model",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


class ChatServer(ThreadingHTTPServer):
    """A chat-completions server whose behaviour is chosen by the request's ``model`` field."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[dict[str, Any]] = []
        self.flaky_calls = 0
        # The slow model answers only once this is set (or after 30 s): a client that returns
        # before it is set gave up on its own timeout, with no clock read by the test.
        self.release_slow = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args: Any) -> None:  # keep test output clean
        return

    def reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout test): nothing left to tell it

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        )
        if self.path != "/v1/chat/completions":
            return self.reply(404, {"error": {"message": f"no route {self.path}"}})
        model = body["model"]
        usage = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        if model == "ok":
            return self.reply(200, completion({"content": "Final Answer: 5"}, usage=usage))
        if model == "tools":
            call = {
                "id": "call_7",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
            return self.reply(
                200, completion({"content": None, "tool_calls": [call]}, usage=usage, finish="tool_calls")
            )
        if model == "bad-args":
            call = {"id": "c", "type": "function", "function": {"name": "add", "arguments": '{"a": 2,'}}
            return self.reply(200, completion({"content": None, "tool_calls": [call]}))
        if model == "no-usage":
            return self.reply(200, completion({"content": "hi"}))
        if model == "slow":
            self.server.release_slow.wait(30)
            return self.reply(200, completion({"content": "late"}))
        if model == "flaky":
            self.server.flaky_calls += 1
            if self.server.flaky_calls == 1:
                return self.reply(503, {"error": {"message": "warming up"}}, {"retry-after-ms": "10"})
            return self.reply(200, completion({"content": "recovered"}, usage=usage))
        if model.startswith("status-"):
            status = int(model.split("-")[1])
            return self.reply(status, {"error": {"message": f"server says {status}", "type": "x"}})
        if model == "not-json":
            return self.reply(200, b"<html>gateway</html>")
        if model == "no-choices":
            return self.reply(200, {"id": "x", "choices": []})
        if model == "error-200":
            return self.reply(200, {"error": {"message": "model not loaded"}})
        return self.reply(400, {"error": {"message": f"unknown model {model}"}})


@pytest.fixture
def server() -> Iterator[ChatServer]:
    pytest.importorskip("openai", reason="the openai extra is not installed")  # every model needs it
    srv = ChatServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def make(server: ChatServer, model: str, **kw: Any) -> OpenAICompatibleModel:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatibleModel(model, base_url=server.base_url, api_key=KEY, **kw)


MSGS = [{"role": "user", "content": "Add 2 and 3."}]


def test_text_reply_with_usage_and_request_shape(server: ChatServer) -> None:
    m = make(server, "ok", temperature=0.2, max_tokens=64, max_input_units=32_000, model_id="my-ok")
    r = m.complete(MSGS)
    assert (r.text, r.usage, r.model_id, r.finish_reason) == (
        "Final Answer: 5",
        Usage(12, 5, 17),
        "served-model",
        "stop",
    )
    assert m.max_input_units == 32_000 and m.model_id == "my-ok"
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == f"Bearer {KEY}"
    assert req["body"]["messages"] == MSGS
    assert (req["body"]["temperature"], req["body"]["max_tokens"]) == (0.2, 64)
    assert "tools" not in req["body"]


def test_tool_calls_and_tool_specs(server: ChatServer) -> None:
    spec = {"name": "add", "description": "Add numbers", "parameters": {"type": "object", "properties": {}}}
    r = make(server, "tools").complete(MSGS, tools=[spec])
    assert r.tool_calls == (ToolCall("add", {"a": 2, "b": 3}, "call_7"),)
    assert r.text == "" and r.finish_reason == "tool_calls"
    assert server.requests[0]["body"]["tools"] == [{"type": "function", "function": spec}]


def test_missing_usage_is_zero(server: ChatServer) -> None:
    assert make(server, "no-usage").complete(MSGS).usage == Usage(0, 0, 0)


def test_api_key_from_named_env_var_and_never_exposed(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    m = OpenAICompatibleModel("ok", base_url=server.base_url, api_key_env="MY_LLM_KEY", max_retries=0)
    m.complete(MSGS)
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert KEY not in repr(m) and KEY not in json.dumps(vars(m), default=str)
    assert KEY not in json.dumps(Redactor().redact({"model": vars(m)}), default=str)


def test_local_server_needs_no_key_but_hosted_does(
    server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    m = OpenAICompatibleModel("ok", base_url=server.base_url, max_retries=0)
    assert m.complete(MSGS).text == "Final Answer: 5"
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAICompatibleModel("gpt-4o-mini")


@pytest.mark.parametrize(
    ("status", "recoverable"),
    [(400, False), (401, False), (404, False), (422, False), (429, True), (500, True), (503, True)],
)
def test_http_errors_map_to_model_execution_error(server: ChatServer, status: int, recoverable: bool) -> None:
    with pytest.raises(ModelExecutionError, match=f"HTTP {status} from .*: server says {status}") as info:
        make(server, f"status-{status}").complete(MSGS)
    assert info.value.info.recoverable is recoverable
    assert info.value.info.category.value == "model"
    assert info.value.info.details["status"] == status


def test_retries_a_recoverable_failure(server: ChatServer) -> None:
    r = make(server, "flaky", max_retries=1).complete(MSGS)
    assert r.text == "recovered" and server.flaky_calls == 2


def test_timeout_is_recoverable(server: ChatServer) -> None:
    with pytest.raises(ModelExecutionError, match=r"no response from .* within 0.3s") as info:
        make(server, "slow", timeout=0.3).complete(MSGS)
    # The reply cannot have come yet: it waits for this event, so the client gave up on its own.
    assert not server.release_slow.is_set()
    server.release_slow.set()
    assert info.value.info.recoverable is True and info.value.info.details["kind"] == "timeout"


def test_connection_refused_is_recoverable() -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    m = OpenAICompatibleModel(
        "ok", base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, max_retries=0, timeout=2
    )
    with pytest.raises(ModelExecutionError, match="cannot connect to") as info:
        m.complete(MSGS)
    assert info.value.info.recoverable is True and info.value.info.details["kind"] == "connection"


@pytest.mark.parametrize(
    ("model", "match", "recoverable"),
    [
        ("not-json", "malformed response .*not JSON: '<html>gateway</html>'", False),
        ("no-choices", "it has no choices", False),
        ("error-200", "the server reported an error: model not loaded", False),
        ("bad-args", "arguments of tool call 'add' are not valid JSON", True),
    ],
)
def test_malformed_bodies(server: ChatServer, model: str, match: str, recoverable: bool) -> None:
    with pytest.raises(ModelExecutionError, match=match) as info:
        make(server, model).complete(MSGS)
    assert info.value.info.recoverable is recoverable


def test_chat_tools_and_argument_checks() -> None:
    wrapped = {"type": "function", "function": {"name": "x", "parameters": {}}}
    assert chat_tools([wrapped]) == [wrapped]
    assert chat_tools([{"name": "y"}]) == [
        {"type": "function", "function": {"name": "y", "parameters": {"type": "object", "properties": {}}}}
    ]
    with pytest.raises(ValueError, match="needs a 'name'"):
        chat_tools([{"description": "nameless"}])
    with pytest.raises(ValueError, match="max_input_units"):
        OpenAICompatibleModel("m", base_url="http://127.0.0.1:1/v1", max_input_units=-5)
    with pytest.raises(ValueError, match="timeout"):
        OpenAICompatibleModel("m", base_url="http://127.0.0.1:1/v1", timeout=0)


def test_openai_is_imported_lazily_with_a_clear_message_when_missing() -> None:
    code = (
        "import sys\n"
        "import qitos.models.openai_compat as oc\n"
        "assert 'openai' not in sys.modules, 'imported eagerly'\n"
        "sys.modules['openai'] = None  # as if the extra were not installed\n"
        "try:\n"
        "    oc.OpenAICompatibleModel('m', base_url='http://127.0.0.1:1/v1')\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert "needs the 'openai' package: pip install 'qitos-tui[openai]'" in out.stdout
