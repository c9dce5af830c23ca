"""Load a user's agent file: import it, build its agent, find its task — with one clear error line."""

from __future__ import annotations

import importlib.util
import sys
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qitos.core.agent_module import AgentModule
    from qitos.core.task import Task


class AgentLoadError(Exception):
    """An agent file that cannot be used; the message names the file and the cause in one line."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason  # the cause alone, for messages that name the file already


@dataclass(frozen=True)
class LoadedAgent:
    """An agent built from a file, the task to give it, and where it came from."""

    # What the Engine takes: the loader checks the agent's methods and that there is a task, the
    # Engine checks the rest when it is built and run.
    agent: AgentModule[Any, Any, Any]
    task: str | Task
    source: Path


def _where(exc: BaseException, path: Path) -> str:
    """The line of ``path`` an exception came from, as ' (line N)', when the traceback has one."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f" (line {exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return f" (line {frames[-1].lineno})" if frames else ""


def describe_exception(exc: BaseException, path: Path | None = None) -> str:
    """``TypeName: message`` plus the line in the agent file, for one-line error reports."""
    # A SyntaxError's str() names the file and line itself ("(x.py, line 1)"): its bare message.
    message = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    text = message.strip().splitlines()[0] if message.strip() else ""
    where = _where(exc, path) if path is not None else ""
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def import_agent_module(path: str | Path) -> ModuleType:
    """Import ``path`` as a fresh module, so its own imports of siblings work as in a script."""
    file = Path(path).expanduser()
    if not file.exists():
        raise AgentLoadError(path, "no such file")
    if not file.is_file():
        raise AgentLoadError(path, "not a file")
    if file.suffix != ".py":
        raise AgentLoadError(path, "not a Python file (expected a .py file)")
    file = file.resolve()
    name = f"qitos_user_agent_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise AgentLoadError(path, "cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    # The file's folder goes first on sys.path so `import helpers` next to it works.
    sys.path.insert(0, str(file.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        sys.modules.pop(name, None)
        raise AgentLoadError(path, f"exited while importing (SystemExit {exc.code})") from None
    except BaseException as exc:  # noqa: BLE001 - any import failure becomes one clear line
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AgentLoadError(path, f"failed to import: {describe_exception(exc, file)}") from exc
    finally:
        if sys.path and sys.path[0] == str(file.parent):
            sys.path.pop(0)
    return module


def build_agent_from_module(module: ModuleType, path: str | Path) -> AgentModule[Any, Any, Any]:
    """The agent a module offers: ``build_agent()`` if it has one, else a module-level ``agent``."""
    factory = getattr(module, "build_agent", None)
    if factory is not None:
        if not callable(factory):
            raise AgentLoadError(path, "build_agent is not callable")
        try:
            agent = factory()
        except Exception as exc:  # noqa: BLE001 - a failing factory is the user's error to see
            raise AgentLoadError(
                path, f"build_agent() raised {describe_exception(exc, Path(path).resolve())}"
            ) from exc
        if agent is None:
            raise AgentLoadError(path, "build_agent() returned None instead of an agent")
        return agent
    agent = getattr(module, "agent", None)
    if agent is None:
        raise AgentLoadError(path, "defines neither build_agent() nor a module-level `agent`")
    return agent


def load_agent_file(path: str | Path, task_override: str | None = None) -> LoadedAgent:
    """Import an agent file and return its agent and task (``--task`` wins over a module ``TASK``)."""
    module = import_agent_module(path)
    agent = build_agent_from_module(module, path)
    if not hasattr(agent, "init_state") or not hasattr(agent, "reduce"):
        raise AgentLoadError(path, f"the agent ({type(agent).__name__}) is not a qitos AgentModule")
    task = task_override if task_override is not None else getattr(module, "TASK", None)
    if task is None or (isinstance(task, str) and not task.strip()):
        raise AgentLoadError(path, "no task: pass --task or define a module-level TASK")
    return LoadedAgent(agent=agent, task=task, source=Path(path).resolve())
