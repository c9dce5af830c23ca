"""The execution kernel: Engine, AsyncEngine, runtime budgets, lifecycle policies and hooks.

Upstream's ``qitos.engine`` names are available here (``from qitos.engine import EngineHook``),
each loaded from its module on first use, so importing one engine module stays cheap.
"""

from __future__ import annotations

from qitos._exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "AsyncEngine": "qitos.engine.async_engine",
    "Engine": "qitos.engine.engine",
    "EngineHook": "qitos.engine.hooks",
    "EngineResult": "qitos.engine.result",
    "HookContext": "qitos.engine.hooks",
    "LifecyclePolicy": "qitos.engine.runtime",
    "RuntimeBudget": "qitos.engine.runtime",
    "RuntimePhase": "qitos.engine.runtime",
    "StepRecord": "qitos.engine.result",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
