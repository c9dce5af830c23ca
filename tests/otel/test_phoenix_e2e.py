"""End to end: a real Arize Phoenix server on loopback receives the demo's export; its own client reads it back.

Needs the `phoenix` extra (`pip install -e ".[test,phoenix]"`, a large install); skipped without it.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest

pytest.importorskip(
    "phoenix.server.main", reason="arize-phoenix is not installed (pip install -e '.[phoenix]')"
)
pytest.importorskip(
    "phoenix.client", reason="arize-phoenix-client is not installed (pip install -e '.[phoenix]')"
)

from qitos.trace.reader import TraceReader  # noqa: E402
from tui.cli import main  # noqa: E402

STARTUP_SECONDS = 120.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"Phoenix exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"Phoenix did not become healthy in {STARTUP_SECONDS:g} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def phoenix_url(tmp_path: Path):  # noqa: ANN201 - a generator fixture
    """A Phoenix server on 127.0.0.1 with its working folder in tmp_path, no telemetry; stopped after."""
    port, grpc_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(tmp_path / "phoenix"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = tmp_path / "phoenix.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "phoenix.server.main", "serve"],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def test_phoenix_receives_the_demo_and_renders_openinference_kinds(phoenix_url: str, tmp_path: Path) -> None:
    from phoenix.client import Client

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            ["demo", "--headless", "--step-delay", "0", "--trace-dir", str(tmp_path / "runs")]
            + ["--workspace", str(tmp_path / "ws"), "--memory", str(tmp_path / "mem")]
            + ["--skills", str(tmp_path / "skills.db")]
        )
    assert code == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    with redirect_stdout(out):
        assert main(["export", str(run_dir), "--otlp", phoenix_url]) == 0
    line = out.getvalue().splitlines()[-1]
    sent = int(line.split(": ", 1)[1].split(" spans")[0])
    client = Client(base_url=phoenix_url)
    deadline = time.monotonic() + 30
    spans: list = []
    while time.monotonic() < deadline:  # Phoenix ingests in the background
        spans = client.spans.get_spans(project_identifier="default", limit=10_000)
        if len(spans) >= sent:
            break
        time.sleep(0.5)
    assert len(spans) == sent
    with TraceReader(run_dir) as reader:
        events = list(reader.events())
        run_id = reader.run_id
    (root,) = [s for s in spans if not s.get("parent_id")]
    assert root["name"] == "invoke_agent" and root["span_kind"] == "AGENT"
    assert root["attributes"]["gen_ai.conversation.id"] == run_id
    kinds = {s["name"].split(" ")[0]: s["span_kind"] for s in spans}
    assert (
        kinds["chat"] == "LLM" and kinds["execute_tool"] == "TOOL" and kinds["search_memory"] == "RETRIEVER"
    )
    assert kinds["step"] == "CHAIN"
    chats = [s for s in spans if s["span_kind"] == "LLM"]
    assert len(chats) == sum(e.phase == "model_request" for e in events)
    assert all(c["attributes"]["gen_ai.usage.input_tokens"] > 0 for c in chats)
    tools = sorted(s["attributes"]["gen_ai.tool.name"] for s in spans if s["span_kind"] == "TOOL")
    assert tools == sorted(e.payload["tool"] for e in events if e.phase == "tool_call")
    # Every span is in the one trace, hanging off the run span.
    assert {s["context"]["trace_id"] for s in spans} == {root["context"]["trace_id"]}
