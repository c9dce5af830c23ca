"""ToolRegistry: the named tools and toolsets an agent may call."""

from __future__ import annotations

import inspect
from typing import Any

from qitos.core.errors import ToolExecutionError
from qitos.core.tool import TOOL_META_ATTR, BaseTool, FunctionTool, ToolMeta


class ToolRegistry:
    """Stores tools and toolsets; passed to AgentModule and used by the Engine to run actions."""

    def __init__(self) -> None:
        self._tools: dict[str, BaseTool] = {}
        self._toolsets: dict[str, Any] = {}
        self._specs: list[dict[str, Any]] | None = None  # built once per registry change

    def register(self, item: Any, name: str | None = None, meta: ToolMeta | None = None) -> ToolRegistry:
        """Register one callable or BaseTool (a duplicate name is an error); returns self."""
        if isinstance(item, BaseTool):
            tool_obj = item
            if name:
                tool_obj.name = name
        else:
            tool_obj = FunctionTool(item, name=name, meta=meta)
        self._add(tool_obj)
        return self

    def register_toolset(self, toolset: Any, namespace: str | None = None) -> ToolRegistry:
        """Register every tool of ``toolset`` as ``namespace.tool`` (namespace defaults to toolset.name)."""
        prefix = namespace or getattr(toolset, "name", None)
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("register_toolset needs a namespace or a toolset with a non-empty .name")
        if prefix in self._toolsets:
            raise ValueError(f"toolset namespace {prefix!r} is already registered")
        version = getattr(toolset, "version", None)
        origin = {"source": "toolset", "toolset_name": prefix, "toolset_version": version}
        items = toolset.tools() if callable(getattr(toolset, "tools", None)) else _decorated_methods(toolset)
        if not items:
            raise ValueError(f"toolset {prefix!r} provides no tools")
        staged: list[BaseTool] = []
        for item in items:
            if isinstance(item, BaseTool):
                item.name = f"{prefix}.{item.name}"
                item.origin = origin
                staged.append(item)
            else:
                meta = getattr(item, TOOL_META_ATTR, None)
                base = (meta.name if meta else None) or getattr(item, "__name__", "")
                staged.append(FunctionTool(item, name=f"{prefix}.{base}", origin=dict(origin)))
        for tool_obj in staged:
            if tool_obj.name in self._tools:
                raise ValueError(f"tool {tool_obj.name!r} is already registered")
        for tool_obj in staged:
            self._tools[tool_obj.name] = tool_obj
        self._specs = None
        self._toolsets[prefix] = toolset
        return self

    def include(self, obj: Any) -> ToolRegistry:
        """Register every ``@tool``-decorated method of ``obj``; none found is an error."""
        found = _decorated_methods(obj)
        if not found:
            raise ValueError(f"{type(obj).__name__} has no @tool-decorated methods")
        for method in found:
            self.register(method)
        return self

    def get(self, name: str) -> BaseTool | None:
        """The tool named ``name``, or None."""
        return self._tools.get(name)

    def list_tools(self) -> list[str]:
        """Every registered tool name, sorted."""
        return sorted(self._tools)

    def list_toolsets(self) -> list[str]:
        """Every registered toolset namespace, sorted."""
        return sorted(self._toolsets)

    def describe_tool(self, name: str) -> dict[str, Any]:
        """Name, description, parameter schema, limits, permissions, required ops and origin."""
        tool_obj = self._require(name)
        meta = tool_obj.meta
        return {
            "name": tool_obj.name,
            "description": tool_obj.description,
            "parameters": tool_obj.parameters_schema(),
            "timeout_s": meta.timeout_s,
            "max_retries": meta.max_retries,
            "permissions": meta.permissions.to_dict(),
            "required_ops": list(meta.required_ops),
            "origin": dict(tool_obj.origin),
        }

    def call(self, name: str, runtime_context: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """Call the tool once (no timeout or retry: the Engine adds those)."""
        return self._require(name).run(runtime_context=runtime_context, **kwargs)

    def get_tool_descriptions(self) -> str:
        """A prompt-ready text listing each tool with its arguments."""
        lines = []
        for name in self.list_tools():
            tool_obj = self._tools[name]
            props = tool_obj.parameters_schema().get("properties", {})
            required = set(tool_obj.parameters_schema().get("required", []))
            args = ", ".join(
                f"{arg}: {schema.get('type', 'any')}{'' if arg in required else '?'}"
                for arg, schema in props.items()
            )
            lines.append(f"- {name}({args}): {tool_obj.description}".rstrip(": "))
        return "\n".join(lines)

    def get_all_specs(self) -> list[dict[str, Any]]:
        """``{name, description, parameters}`` for every tool, sorted by name.

        Built once per registry change; each call returns new top-level dicts, but the nested
        ``parameters`` schemas are shared: treat them as read-only.
        """
        if self._specs is None:
            self._specs = [self._tools[name].spec() for name in self.list_tools()]
        return [dict(spec) for spec in self._specs]

    def setup(self, context: dict[str, Any] | None = None) -> None:
        """Call ``setup(context)`` on every toolset that has it."""
        for toolset in self._toolsets.values():
            hook = getattr(toolset, "setup", None)
            if callable(hook):
                hook(context or {})

    def teardown(self, context: dict[str, Any] | None = None) -> None:
        """Call ``teardown(context)`` on every toolset that has it (all of them, even if one fails)."""
        errors: list[str] = []
        for name, toolset in self._toolsets.items():
            hook = getattr(toolset, "teardown", None)
            if callable(hook):
                try:
                    hook(context or {})
                except Exception as exc:  # noqa: BLE001 - keep tearing down the others
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")
        if errors:
            raise ToolExecutionError.make("toolset teardown failed: " + "; ".join(errors), phase="teardown")

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def _add(self, tool_obj: BaseTool) -> None:
        if tool_obj.name in self._tools:
            raise ValueError(f"tool {tool_obj.name!r} is already registered")
        self._tools[tool_obj.name] = tool_obj
        self._specs = None

    def _require(self, name: str) -> BaseTool:
        tool_obj = self._tools.get(name)
        if tool_obj is None:
            known = ", ".join(self.list_tools()) or "none"
            raise ToolExecutionError.make(
                f"unknown tool {name!r} (registered: {known})", phase="ACT", tool=name
            )
        return tool_obj


def _decorated_methods(obj: Any) -> list[Any]:
    """Bound methods of ``obj`` carrying ``@tool`` metadata, in name order."""
    found = []
    for attr in sorted(dir(type(obj))):
        if attr.startswith("__"):
            continue
        raw = inspect.getattr_static(type(obj), attr, None)
        target = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
        if target is not None and hasattr(target, TOOL_META_ATTR):
            found.append(getattr(obj, attr))
    return found
