"""Ready-made environments (``from qitos.kit.env import HostEnv``, as upstream spells it)."""

from __future__ import annotations

from qitos.kit.env.host_env import HostEnv, WorkspaceError

__all__ = ["HostEnv", "WorkspaceError"]
