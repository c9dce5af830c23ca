"""The tool decorator, JSON schemas from signatures, and every ToolRegistry method."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from qitos import ToolExecutionError, ToolPermission, ToolRegistry, tool
from qitos.core.tool import TOOL_META_ATTR, FunctionTool


@tool(name="search_web", timeout_s=30.0, permissions=ToolPermission(network=True), required_ops=["net"])
def search_web(query: str, limit: int = 5, mode: Literal["fast", "deep"] = "fast") -> str:
    """Search the web and return results.

    Args:
        query: what to look for
        limit: how many results
    """
    return f"{query}:{limit}:{mode}"


def test_decorator_keeps_call_semantics_and_attaches_meta() -> None:
    """The decorated function still works; metadata is attached."""
    assert search_web("q") == "q:5:fast"
    meta = getattr(search_web, TOOL_META_ATTR)
    assert (meta.name, meta.timeout_s, meta.permissions.network, meta.required_ops) == (
        "search_web",
        30.0,
        True,
        ["net"],
    )


def test_bare_decorator_and_bad_arguments() -> None:
    """@tool without arguments works; invalid limits are rejected."""

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert ping() == "pong" and hasattr(ping, TOOL_META_ATTR)
    with pytest.raises(ValueError, match="timeout_s"):
        tool(timeout_s=-1)
    with pytest.raises(ValueError, match="max_retries"):
        tool(max_retries=-2)


def test_schema_from_signature_and_type_hints() -> None:
    """Types, defaults, Literal enums, Optional, containers and docstring descriptions."""

    def f(
        a: str,
        b: int | None = None,
        c: list[str] | None = None,
        d: dict[str, float] | None = None,
        e: bool = True,
    ) -> None:
        """F."""

    schema = FunctionTool(f).parameters_schema()
    assert schema["required"] == ["a"]
    props = schema["properties"]
    assert props["a"] == {"type": "string"}
    assert props["b"] == {"type": "integer", "default": None}
    assert props["c"] == {"type": "array", "items": {"type": "string"}, "default": None}
    assert props["d"] == {"type": "object", "additionalProperties": {"type": "number"}, "default": None}
    assert props["e"] == {"type": "boolean", "default": True}
    spec = FunctionTool(search_web).spec()
    assert spec["description"] == "Search the web and return results."
    assert spec["parameters"]["properties"]["query"] == {"type": "string", "description": "what to look for"}
    assert spec["parameters"]["properties"]["mode"] == {"enum": ["fast", "deep"], "default": "fast"}


class MathToolset:
    """A toolset with a name, version, setup and teardown."""

    name = "math"
    version = "2.0"

    def __init__(self) -> None:
        self.events: list[str] = []

    @tool(description="Double a number.")
    def double(self, x: int) -> int:
        """Double."""
        return 2 * x

    @tool()
    def negate(self, x: int) -> int:
        """Negate."""
        return -x

    def helper(self) -> None:
        """Not a tool."""

    def setup(self, context: dict[str, Any]) -> None:
        self.events.append(f"setup:{context.get('run')}")

    def teardown(self, context: dict[str, Any]) -> None:
        self.events.append("teardown")


def test_registry_register_get_list_describe_call() -> None:
    """Register, look up, describe and call; duplicates and unknown names are errors."""
    reg = ToolRegistry()
    assert reg.register(search_web) is reg
    assert reg.list_tools() == ["search_web"]
    assert reg.get("nope") is None
    described = reg.describe_tool("search_web")
    assert described["timeout_s"] == 30.0 and described["permissions"]["network"] is True
    assert described["origin"]["source"] == "function"
    assert reg.call("search_web", query="x", limit=1) == "x:1:fast"
    with pytest.raises(ValueError, match="already registered"):
        reg.register(search_web)
    with pytest.raises(ToolExecutionError, match="unknown tool 'nope'"):
        reg.call("nope")
    with pytest.raises(TypeError, match="bad arguments for tool 'search_web'"):
        reg.call("search_web", wrong=1)
    reg.register(lambda x: x, name="echo")
    assert reg.list_tools() == ["echo", "search_web"]


def test_registry_runtime_context_is_passed_to_tools_that_ask() -> None:
    """A tool with a runtime_context parameter receives it; it is not in the schema."""

    def where(path: str, runtime_context: dict[str, Any] | None = None) -> str:
        """Where."""
        return f"{(runtime_context or {}).get('root')}/{path}"

    reg = ToolRegistry().register(where)
    assert reg.call("where", runtime_context={"root": "/w"}, path="f") == "/w/f"
    assert "runtime_context" not in reg.describe_tool("where")["parameters"]["properties"]


def test_toolsets_namespaces_include_setup_teardown() -> None:
    """register_toolset prefixes names and records origin; include scans @tool methods."""
    ts = MathToolset()
    reg = ToolRegistry().register_toolset(ts)
    assert reg.list_tools() == ["math.double", "math.negate"]
    assert reg.list_toolsets() == ["math"]
    assert reg.call("math.double", x=4) == 8
    assert reg.describe_tool("math.double")["origin"] == {
        "source": "toolset",
        "toolset_name": "math",
        "toolset_version": "2.0",
    }
    reg.setup({"run": "r1"})
    reg.teardown()
    assert ts.events == ["setup:r1", "teardown"]
    with pytest.raises(ValueError, match="already registered"):
        reg.register_toolset(MathToolset())
    other = ToolRegistry().register_toolset(MathToolset(), namespace="m2")
    assert other.list_tools() == ["m2.double", "m2.negate"]
    inc = ToolRegistry().include(MathToolset())
    assert inc.list_tools() == ["double", "negate"]
    with pytest.raises(ValueError, match="no @tool-decorated methods"):
        ToolRegistry().include(object())


def test_descriptions_and_specs() -> None:
    """get_tool_descriptions lists signatures; get_all_specs gives function-calling specs."""
    reg = ToolRegistry().include(MathToolset())
    text = reg.get_tool_descriptions()
    assert "- double(x: integer): Double a number." in text
    specs = reg.get_all_specs()
    assert [s["name"] for s in specs] == ["double", "negate"]
    assert specs[0]["parameters"]["required"] == ["x"]


def test_teardown_reports_every_failure() -> None:
    """A failing teardown is reported with a typed error, after trying every toolset."""

    class Broken(MathToolset):
        name = "broken"

        def teardown(self, context: dict[str, Any]) -> None:
            raise OSError("disk gone")

    good = MathToolset()
    reg = ToolRegistry().register_toolset(Broken()).register_toolset(good)
    with pytest.raises(ToolExecutionError, match="broken: OSError: disk gone"):
        reg.teardown()
    assert good.events == ["teardown"]


def test_specs_are_rebuilt_after_registering_more_tools() -> None:
    """The cached specs follow registry changes."""
    reg = ToolRegistry().register(search_web)
    assert [s["name"] for s in reg.get_all_specs()] == ["search_web"]
    reg.register(lambda x: x, name="echo")
    assert [s["name"] for s in reg.get_all_specs()] == ["echo", "search_web"]
    reg.register_toolset(MathToolset())
    assert len(reg.get_all_specs()) == 4
