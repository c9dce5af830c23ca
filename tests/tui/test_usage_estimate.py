"""The exchanges pane says when a response's usage was estimated by the Engine (no usage reported)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from qitos import AgentModule, Engine, RuntimeBudget, StateSchema
from qitos.kit.parser import JsonDecisionParser
from qitos.models.base import ModelResponse, Usage
from tui.panes.exchanges import ExchangesPane
from tui.store import ListSource, RunStore


class Once(AgentModule):
    """One model call, then done."""

    def init_state(self, task: str, **kwargs: Any) -> StateSchema:
        return StateSchema(task=task)

    def reduce(self, state: StateSchema, observation: Any, decision: Any) -> StateSchema:
        return state


def drawn(pane: ExchangesPane) -> str:
    return "\n".join(pane.line_at(i).text for i in range(pane.virtual_size.height))


async def shown_usage(llm: Any) -> str:
    agent = Once(llm=llm, model_parser=JsonDecisionParser())
    events = Engine(agent, budget=RuntimeBudget(max_steps=1)).run("say done").events
    store = RunStore(ListSource(events))
    store.apply(events, 0)

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ExchangesPane(store)

    async with PaneApp().run_test(size=(120, 30)) as pilot:
        pane = pilot.app.query_one(ExchangesPane)
        pane.selected = len(store.steps) - 1
        pane.revision = 1
        await pilot.pause()
        return next(line for line in drawn(pane).splitlines() if "usage" in line)


async def test_estimated_usage_is_labelled() -> None:
    line = await shown_usage(lambda messages: '{"final": "done"}')
    assert "usage (estimated): prompt_tokens" in line and "estimated True" not in line


async def test_reported_usage_is_not_labelled() -> None:
    line = await shown_usage(lambda messages: ModelResponse(text='{"final": "done"}', usage=Usage(5, 2, 7)))
    assert "usage: prompt_tokens 5, completion_tokens 2, total_tokens 7" in line
