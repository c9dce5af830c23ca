"""Exchanges pane: estimated usage is labelled, and exchanges the history selection left out say so."""

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


async def test_history_omitted_exchanges_say_so() -> None:
    """An exchange the HistoryPolicy left out is dimmed as omitted, "(history policy)", no receipt."""
    from qitos import HistoryPolicy
    from qitos.models.scripted import ScriptedModel

    wait = '{"mode": "wait"}'
    agent = Once(llm=ScriptedModel([wait] * 3), model_parser=JsonDecisionParser())
    engine = Engine(agent, budget=RuntimeBudget(max_steps=3), history_policy=HistoryPolicy(max_messages=2))
    events = engine.run("chat").events
    store = RunStore(ListSource(events))
    store.apply(events, 0)

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ExchangesPane(store)

    async with PaneApp().run_test(size=(140, 40)) as pilot:
        pane = pilot.app.query_one(ExchangesPane)
        pane.selected = len(store.steps) - 1
        pane.revision = 1
        await pilot.pause()
        titles = [line for line in drawn(pane).splitlines() if line.startswith("── #")]
    assert "omitted from this request (history policy)" in titles[0]
    assert "omitted" not in titles[1] and "omitted" not in titles[2]
