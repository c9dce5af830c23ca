"""Tools: the ``tool`` decorator, permissions, metadata and JSON schemas built from signatures."""

from __future__ import annotations

import inspect
import re
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar, overload

TOOL_META_ATTR = "__qitos_tool_meta__"
RUNTIME_CONTEXT_PARAM = "runtime_context"

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolPermission:
    """What a tool may touch; the author declares it, the registry reports it."""

    filesystem_read: bool = False
    filesystem_write: bool = False
    network: bool = False
    command: bool = False

    def to_dict(self) -> dict[str, bool]:
        """The permission flags as JSON data."""
        return asdict(self)


@dataclass
class ToolMeta:
    """Metadata attached to a tool: name, description, limits, permissions, required ops."""

    name: str | None = None
    description: str | None = None
    timeout_s: float | None = None
    max_retries: int = 0
    permissions: ToolPermission = field(default_factory=ToolPermission)
    required_ops: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.timeout_s is not None and (
            not isinstance(self.timeout_s, int | float) or self.timeout_s <= 0
        ):
            raise ValueError(f"tool timeout_s must be a positive number or None, got {self.timeout_s!r}")
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"tool max_retries must be an int >= 0, got {self.max_retries!r}")
        if self.permissions is None:
            self.permissions = ToolPermission()
        if not isinstance(self.permissions, ToolPermission):
            raise TypeError(
                f"tool permissions must be a ToolPermission, got {type(self.permissions).__name__}"
            )
        self.required_ops = list(self.required_ops or [])


@overload
def tool(name: _Fn, /) -> _Fn: ...


@overload
def tool(
    name: str | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
    max_retries: int = 0,
    permissions: ToolPermission | None = None,
    required_ops: list[str] | None = None,
) -> Callable[[_Fn], _Fn]: ...


def tool(
    name: str | _Fn | None = None,
    description: str | None = None,
    timeout_s: float | None = None,
    max_retries: int = 0,
    permissions: ToolPermission | None = None,
    required_ops: list[str] | None = None,
) -> _Fn | Callable[[_Fn], _Fn]:
    """Mark a callable as a QitOS tool, attaching metadata without changing how it is called."""
    if callable(name) and description is None:
        # Bare ``@tool`` use: ``name`` is the function itself.
        fn = name
        setattr(fn, TOOL_META_ATTR, ToolMeta())
        return fn
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"tool name must be a non-empty string, got {name!r}")
    meta = ToolMeta(
        name, description, timeout_s, max_retries, permissions or ToolPermission(), required_ops or []
    )

    def decorate(fn: _Fn) -> _Fn:
        if not callable(fn):
            raise TypeError(f"@tool can only decorate a callable, not {type(fn).__name__}")
        setattr(fn, TOOL_META_ATTR, meta)
        return fn

    return decorate


class BaseTool(ABC):
    """A named, described, schema-carrying callable the registry can run."""

    name: str = ""
    description: str = ""
    meta: ToolMeta
    origin: dict[str, Any]

    @abstractmethod
    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of the tool's arguments."""

    @abstractmethod
    def run(self, runtime_context: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """Execute the tool."""

    def spec(self) -> dict[str, Any]:
        """``{name, description, parameters}`` as model function-calling specs spell it."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters_schema()}


class FunctionTool(BaseTool):
    """A plain function (or bound method) exposed as a tool."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        meta: ToolMeta | None = None,
        origin: dict[str, Any] | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"a tool must be callable, got {type(fn).__name__}")
        attached = getattr(fn, TOOL_META_ATTR, None)
        self.meta = meta or attached or ToolMeta()
        self.fn = fn
        fn_name: str = getattr(fn, "__name__", "")
        self.name = name or self.meta.name or fn_name
        if not self.name or not re.fullmatch(r"[A-Za-z_][\w.\-]*", self.name):
            raise ValueError(f"invalid tool name {self.name!r}: use letters, digits, '_', '.', '-'")
        doc = inspect.getdoc(fn) or ""
        self.description = self.meta.description or _summary(doc)
        self._param_docs = _param_docs(doc)
        self._signature = inspect.signature(fn)
        self._wants_context = RUNTIME_CONTEXT_PARAM in self._signature.parameters
        self.origin = origin or {"source": "function", "toolset_name": None, "toolset_version": None}
        self._schema: dict[str, Any] | None = None

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema built from the signature, type hints and docstring ``Args:``."""
        if self._schema is None:
            self._schema = schema_from_signature(self.fn, self._param_docs)
        return self._schema

    def run(self, runtime_context: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """Bind arguments against the signature (a clear TypeError on mismatch) and call."""
        if self._wants_context:
            kwargs[RUNTIME_CONTEXT_PARAM] = runtime_context
        try:
            self._signature.bind(**kwargs)
        except TypeError as exc:
            raise TypeError(f"bad arguments for tool {self.name!r}: {exc}") from exc
        return self.fn(**kwargs)


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def schema_from_signature(fn: Callable[..., Any], param_docs: dict[str, str] | None = None) -> dict[str, Any]:
    """A JSON schema object for ``fn``'s keyword arguments (``self`` and runtime_context left out)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations: treat as untyped
        hints = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.name in ("self", "cls", RUNTIME_CONTEXT_PARAM):
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        prop = type_schema(hints.get(param.name, param.annotation))
        if param_docs and param.name in param_docs:
            prop["description"] = param_docs[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        elif _jsonable(param.default):
            prop["default"] = param.default
        properties[param.name] = prop
    return {"type": "object", "properties": properties, "required": required}


def type_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema of one Python type hint (unknown types give an unconstrained schema)."""
    if hint is inspect.Parameter.empty or hint is Any or hint is None:
        return {} if hint is not None else {"type": "null"}
    if hint is type(None):
        return {"type": "null"}
    if hint in _JSON_TYPES:
        return {"type": _JSON_TYPES[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return type_schema(options[0])
        return {"anyOf": [type_schema(a) for a in options]}
    if hint in (list, tuple, set) or origin in (list, tuple, set, frozenset):
        schema: dict[str, Any] = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = type_schema(args[0])
        return schema
    if hint is dict or origin is dict:
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = type_schema(args[1])
        return schema
    return {}


def _summary(doc: str) -> str:
    """The docstring's text before any ``Args:`` section."""
    head = re.split(r"\n\s*(Args|Arguments|Parameters|Returns|Raises):", doc)[0]
    return " ".join(head.split())


def _param_docs(doc: str) -> dict[str, str]:
    """``name: description`` lines of a Google-style ``Args:`` section."""
    match = re.search(r"\n\s*(?:Args|Arguments|Parameters):\s*\n(.*?)(?:\n\s*\n|\Z)", "\n" + doc, re.S)
    if not match:
        return {}
    out: dict[str, str] = {}
    for line in match.group(1).splitlines():
        m = re.match(r"\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
