"""Lazy package exports: a package names its public symbols and loads each one's module on first use."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for ``exports`` (symbol -> defining module).

    Importing one submodule of a package (``qitos.core.context``, say) then does not pay for every
    module the package re-exports; each symbol is imported the first time it is asked for.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
