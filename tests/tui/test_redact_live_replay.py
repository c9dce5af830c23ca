"""Live and replay show the same masked bytes: an agent whose tool returns credentials, run live in
the TUI and replayed from its trace; every pane at every step (plain, raw JSON, expanded) and every
``e`` export are compared, and no secret is in any of them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from pane_views import every_pane_at_every_step

from qitos import AgentModule, StateSchema, ToolRegistry, tool
from qitos.kit.parser import JsonDecisionParser
from qitos.models.scripted import ScriptedModel
from tui import screenshots
from tui.app import make_app
from tui.live import LiveRun
from tui.screens.run import WIDE

GITHUB_TOKEN = "gh" + "p_" + "R8x2Kq9LmZ4vT7nB1cW5yH3jD6fG0sA2eU8i"
AWS_KEY_ID = "AK" + "IA" + "Q3ZK7X2M9WPL4T6B"
AWS_SECRET = "wJa" + "lrXUtnFEMI/K7MDENG/bPxRfiCY3x4mPLEKEY"
ENV_SECRET = "pl" + "ain-env-value-8c1e42"  # no known shape: masked because the environment says so
SECRETS = (GITHUB_TOKEN, AWS_KEY_ID, AWS_SECRET, ENV_SECRET)


@tool(name="read_config", description="Read the deployment configuration.")
def read_config(path: str) -> dict[str, Any]:
    """What a careless config reader returns: credentials included."""
    return {
        "path": path,
        "text": f"[default]\naws_access_key_id = {AWS_KEY_ID}\naws_secret_access_key = {AWS_SECRET}\n",
        "github": f"remote uses {GITHUB_TOKEN} to push",
        "service": f"SERVICE login with {ENV_SECRET}",
        "headers": [["Authorization", f"token {GITHUB_TOKEN}"]],
    }


REPLIES = [
    json.dumps({"thought": "read it", "action": {"name": "read_config", "args": {"path": "deploy.ini"}}}),
    json.dumps({"final": f"The key is {AWS_KEY_ID} and the token {GITHUB_TOKEN}; done."}),
]


class ConfigAgent(AgentModule):
    """Reads the config through its tool, then answers (quoting the secrets, as models do)."""

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        """A plain state."""
        return StateSchema(task=task, max_steps=4)

    def reduce(self, state: StateSchema, observation: Any, decision: Any) -> StateSchema:
        """Nothing to keep."""
        return state


def _agent() -> ConfigAgent:
    return ConfigAgent(
        tool_registry=ToolRegistry().register(read_config),
        llm=ScriptedModel(REPLIES),
        model_parser=JsonDecisionParser(),
    )


def _secrets_in(text: str) -> list[str]:
    # A distinctive middle piece, so a secret cut by a line wrap is still found.
    return [secret for secret in SECRETS if secret[4:16] in text or secret in text]


async def test_live_and_replay_render_the_same_masked_panes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shown_whole: Callable[..., Awaitable[None]],
) -> None:
    monkeypatch.setenv("DEPLOY_SERVICE_PASSWORD", ENV_SECRET)
    live = LiveRun(
        _agent(),
        f"deploy with {GITHUB_TOKEN}",
        trace_dir=tmp_path / "runs",
        run_id="secret_run",
        clock=lambda: screenshots.FIXED_TS,
    )
    live_exports = tmp_path / "live_exports"
    live_exports.mkdir()
    app = make_app(live=live, export_dir=live_exports)
    async with app.run_test(size=WIDE) as pilot:
        await screenshots.settle(pilot)
        assert app.screen.store.display_status == "finished"
        live_views = await every_pane_at_every_step(pilot, live_exports)
        live_screen = app.export_screenshot()

    run_dir = tmp_path / "runs" / "secret_run"
    on_disk = "".join(p.read_text(encoding="utf-8") for p in run_dir.iterdir() if p.is_file())
    assert _secrets_in(on_disk) == []
    assert "[REDACTED]" in on_disk

    replay_exports = tmp_path / "replay_exports"
    replay_exports.mkdir()
    app = make_app(replay=run_dir, export_dir=replay_exports)
    async with app.run_test(size=WIDE) as pilot:
        await shown_whole(pilot)
        replay_views = await every_pane_at_every_step(pilot, replay_exports)
        replay_screen = app.export_screenshot()

    assert len(live_views) >= 3 and any(k.startswith("export") for v in live_views for k in v)
    assert live_views == replay_views
    everything = json.dumps(live_views) + json.dumps(replay_views) + live_screen + replay_screen
    assert _secrets_in(everything) == []
    assert "[REDACTED]" in json.dumps(live_views)


async def test_a_failing_run_shows_its_error_masked(tmp_path: Path) -> None:
    """An exception quoting a credential reaches the error panel masked, like the run's events."""
    from tui.screens.dialogs import ErrorScreen

    agent = _agent()

    def refused(messages: Any, *, tools: Any = None) -> Any:
        raise RuntimeError(f"401 Unauthorized for token {GITHUB_TOKEN}")

    agent.llm.complete = refused  # type: ignore[method-assign]
    live = LiveRun(
        agent, "go", trace_dir=tmp_path / "runs", run_id="fails", clock=lambda: screenshots.FIXED_TS
    )
    app = make_app(live=live)
    async with app.run_test(size=WIDE) as pilot:
        await screenshots.settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.detail + app.export_screenshot()
        assert "401 Unauthorized" in shown
        assert _secrets_in(shown) == []


async def test_an_exception_escaping_the_engine_is_shown_masked(tmp_path: Path) -> None:
    """Even what escapes Engine.run (here a trace writer failing) is masked on the error panel."""
    from tui.screens.dialogs import ErrorScreen

    live = LiveRun(
        _agent(), "go", trace_dir=tmp_path / "runs", run_id="crash", clock=lambda: screenshots.FIXED_TS
    )
    build = live.build

    def build_with_failing_writer(sink: Any) -> Any:
        engine = build(sink)

        def write_step(record: Any) -> None:
            raise OSError(f"cannot write to https://deploy:{ENV_SECRET}@backup.example.com/ ({GITHUB_TOKEN})")

        live.writer.write_step = write_step
        return engine

    live.build = build_with_failing_writer  # type: ignore[method-assign]
    app = make_app(live=live)
    async with app.run_test(size=WIDE) as pilot:
        await screenshots.settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        shown = app.screen.title_text + app.screen.detail + app.export_screenshot()
        assert "cannot write to https://deploy:" in shown
        assert _secrets_in(shown) == []
