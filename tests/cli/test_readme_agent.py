"""The README's own-agent example runs through `qitos-tui run --headless` against a real local model server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECRET = "sk-readme-test-0123456789abcdefXYZ"
SCRIPT = [
    'Thought: I should count them with the tool.\nAction: word_count(text="the quick brown fox jumps")',
    "Thought: The tool said 5.\nFinal Answer: 5 words",
]


def readme_agent_source() -> str:
    """The python block that follows the `readme-example: my_agent.py` marker in the README."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- readme-example: my_agent.py -->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match, "the README lost its my_agent.py example"
    return match.group(1)


class ScriptedChatServer(ThreadingHTTPServer):
    """A chat-completions endpoint on 127.0.0.1 that answers from SCRIPT and records requests."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: list[dict] = []
        self.auth: list[str] = []


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedChatServer

    def log_message(self, *args: object) -> None:
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        self.server.auth.append(self.headers.get("Authorization", ""))
        text = SCRIPT[min(len(self.server.bodies), len(SCRIPT)) - 1]
        data = json.dumps(
            {
                "id": f"chatcmpl-{len(self.server.bodies)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def chat_server() -> Iterator[ScriptedChatServer]:
    """A running scripted chat server, shut down after the test."""
    server = ScriptedChatServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_readme_agent_runs_headless_against_a_real_server(
    tmp_path: Path, chat_server: ScriptedChatServer
) -> None:
    """The example agent answers through the server, the trace holds the exchanges, no key leaks."""
    pytest.importorskip("openai")
    agent_file = tmp_path / "my_agent.py"
    agent_file.write_text(readme_agent_source(), encoding="utf-8")
    env = {
        **os.environ,
        "OPENAI_BASE_URL": f"http://127.0.0.1:{chat_server.server_address[1]}/v1",
        "OPENAI_API_KEY": SECRET,
        "QITOS_MODEL": "test-model",
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tui.cli import main; sys.exit(main())",
            "run",
            str(agent_file),
            "--headless",
            "--trace-dir",
            str(tmp_path / "runs"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "result: 5 words" in proc.stdout
    assert [b["model"] for b in chat_server.bodies] == ["test-model", "test-model"]
    assert chat_server.auth[0] == f"Bearer {SECRET}"
    # The tool result went back to the model in the second request, once (the Engine sends the
    # observations itself: the example does not copy them again), and the task once.
    second = [m["content"] for m in chat_server.bodies[1]["messages"]]
    assert sum(c.count("word_count: 5") + c.count("Observation: 5") for c in second) == 1, second
    assert sum(c.count("How many words") for c in second) == 1, second
    (run_dir,) = (tmp_path / "runs").iterdir()
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    responses = [e["payload"] for e in events if e["phase"] == "model_response"]
    assert [r["usage"]["total_tokens"] for r in responses] == [52, 52]
    assert any(e["phase"] == "tool_result" and e["payload"]["result"] == 5 for e in events)
    for name in ("events.jsonl", "steps.jsonl", "manifest.json"):
        assert SECRET not in (run_dir / name).read_text(), f"the API key leaked into {name}"
