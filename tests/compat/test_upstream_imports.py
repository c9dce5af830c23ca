"""Upstream QitOS's import paths work here, each as the one home of its symbol."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("qitos", ["RuntimeBudget", "TaskResourceBinding", "TaskValidationIssue", "EnvObservation"]),
        (
            "qitos.core",
            [
                "AgentModule",
                "Action",
                "Decision",
                "Env",
                "EnvSpec",
                "EnvStepResult",
                "EnvObservation",
                "History",
                "HistoryMessage",
                "HistoryPolicy",
                "Memory",
                "MemoryRecord",
                "StateSchema",
                "StopReason",
                "Task",
                "TaskBudget",
                "TaskResource",
                "TaskResourceBinding",
                "TaskResult",
                "BaseTool",
                "FunctionTool",
                "ToolPermission",
                "ToolRegistry",
                "tool",
            ],
        ),
        ("qitos.kit.parser", ["ReActTextParser", "JsonDecisionParser", "XmlDecisionParser"]),
        ("qitos.kit.env", ["HostEnv"]),
        ("qitos.kit.memory", ["WindowMemory", "SummaryMemory", "VectorMemory", "MarkdownFileMemory"]),
        ("qitos.kit.history", ["WindowHistory", "window_history"]),
        ("qitos.engine.hooks", ["EngineHook", "HookContext"]),
        (
            "qitos.engine",
            [
                "Engine",
                "EngineResult",
                "EngineHook",
                "HookContext",
                "RuntimeBudget",
                "RuntimePhase",
                "StepRecord",
            ],
        ),
    ],
)
def test_upstream_names_import(module: str, names: list[str]) -> None:
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    assert missing == []


def test_reexports_are_the_same_objects() -> None:
    """``qitos.X`` and ``qitos.core.X`` are one class, defined once."""
    import qitos
    import qitos.core
    from qitos.engine.runtime import RuntimeBudget

    assert qitos.RuntimeBudget is RuntimeBudget
    for name in ("Task", "Env", "History", "Memory", "Decision"):
        assert getattr(qitos, name) is getattr(qitos.core, name)


def test_old_parser_path_is_gone() -> None:
    """Parsers have one home: ``qitos.kit.parser`` (the former ``qitos.parsing`` is not kept)."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("qitos.parsing")


def test_unknown_lazy_name_is_an_attribute_error() -> None:
    import qitos.core

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        qitos.core.Nope  # noqa: B018


def test_memory_factories_survive_their_modules_being_imported() -> None:
    """``window_memory`` & co. name upstream's factory functions, not the same-named modules."""
    import qitos.kit.history as history
    import qitos.kit.memory as memory

    memory.MemdirMemory  # noqa: B018 - a lazy load must not clobber the factories
    importlib.import_module("qitos.kit.memory.window_memory")
    for name in ("window_memory", "summary_memory", "vector_memory", "markdown_file_memory"):
        assert callable(getattr(memory, name)), name
    assert isinstance(memory.window_memory(3), memory.WindowMemory)
    assert isinstance(history.window_history(2), history.WindowHistory)
