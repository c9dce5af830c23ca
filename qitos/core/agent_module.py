"""AgentModule: the strategy layer an agent author subclasses (state shape, prompts, decisions, reduction)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from qitos.core.decision import Decision
from qitos.core.history import History
from qitos.core.memory import Memory

if TYPE_CHECKING:
    from qitos.core.task import Task
    from qitos.core.tool_registry import ToolRegistry
    from qitos.engine.engine import Engine

StateT = TypeVar("StateT")
ObservationT = TypeVar("ObservationT")
ActionT = TypeVar("ActionT")


class AgentModule(ABC, Generic[StateT, ObservationT, ActionT]):
    """Subclass this to define an agent; the Engine drives the loop and calls each hook in order.

    ``**config`` is kept as ``self.config``. Its composition keys (``extensions``, ``context``,
    ``compaction``, ``memory_sources``, ``lifecycle``) are resolved when the Engine is built.
    """

    def __init__(
        self,
        tool_registry: ToolRegistry | None = None,
        llm: Any = None,
        model_parser: Any = None,
        memory: Memory | None = None,
        history: History | None = None,
        **config: Any,
    ) -> None:
        if memory is not None and not isinstance(memory, Memory):
            raise TypeError(f"memory must be a qitos Memory, got {type(memory).__name__}")
        if history is not None and not isinstance(history, History):
            raise TypeError(f"history must be a qitos History, got {type(history).__name__}")
        self.tool_registry = tool_registry
        self.llm = llm
        self.model_parser = model_parser
        self.memory = memory
        self.history = history
        self.config: dict[str, Any] = dict(config)

    @abstractmethod
    def init_state(self, task: str, **kwargs: Any) -> StateT:
        """Create the initial typed state for a run."""

    @abstractmethod
    def reduce(self, state: StateT, observation: ObservationT, decision: Decision[ActionT]) -> StateT:
        """Fold the observation (with ``action_results``) and decision into the next state."""

    def build_system_prompt(self, state: StateT) -> str | None:
        """The system prompt for this step, or None for none."""
        return None

    def prepare(self, state: StateT) -> str:
        """The state as model-ready text (the user turn)."""
        return str(state)

    def observe(self, state: StateT, env_view: Any = None) -> Any:
        """The observation for this step; by default the task, step and environment view."""
        observation: dict[str, Any] = {
            "task": getattr(state, "task", None),
            "current_step": getattr(state, "current_step", None),
        }
        if env_view is not None:
            observation["env"] = env_view
        return observation

    def decide(self, state: StateT, observation: ObservationT) -> Decision[ActionT] | None:
        """Return a Decision to bypass the model call, or None to let the Engine call the LLM."""
        return None

    def should_stop(self, state: StateT) -> bool:
        """An extra stop condition checked after each step (``agent_condition``)."""
        return False

    def build_engine(self, **engine_kwargs: Any) -> Engine[StateT, ObservationT, ActionT]:
        """An Engine for this agent; keyword arguments go to the Engine constructor."""
        from qitos.engine.engine import Engine

        return Engine(self, **engine_kwargs)

    def run(
        self,
        task: str | Task,
        return_state: bool = False,
        hooks: list[Any] | None = None,
        render_hooks: list[Any] | None = None,
        engine_kwargs: dict[str, Any] | None = None,
        workspace: str | None = None,
        max_steps: int | None = None,
        env: Any = None,
        parser: Any = None,
        search: Any = None,
        critics: list[Any] | None = None,
        stop_criteria: list[Any] | None = None,
        history_policy: Any = None,
        trace: Any = None,
        render: Any = None,
        trace_logdir: str = "./runs",
        trace_prefix: str | None = None,
        theme: str = "research",
        **state_kwargs: Any,
    ) -> Any:
        """Build an Engine, run ``task`` and return ``state.final_result`` (or the EngineResult)."""
        from qitos.engine.assembly import assemble_engine

        engine = assemble_engine(
            self,
            hooks=hooks,
            render_hooks=render_hooks,
            engine_kwargs=engine_kwargs,
            workspace=workspace,
            max_steps=max_steps,
            env=env,
            parser=parser,
            search=search,
            critics=critics,
            stop_criteria=stop_criteria,
            history_policy=history_policy,
            trace=trace,
            render=render,
            trace_logdir=trace_logdir,
            trace_prefix=trace_prefix,
            theme=theme,
        )
        result = engine.run(task, **state_kwargs)
        return result if return_state else getattr(result.state, "final_result", None)
