"""A guard over the source: no widget call that parses markup is handed text built from data.

Textual parses markup in a str given to Label, Static, ``update``, a DataTable or Rich Table cell,
an OptionList option and ``notify`` (markup=True by default). Text built in place (an f-string,
``str(...)``, ``+``) is how data slips into those; inert Text (tui/text.py) is the way in.
"""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"
MARKUP_SINKS = {"Label", "Static", "update", "add_row", "OptionList", "Option", "add_option"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _built_text(node: ast.expr) -> bool:
    """An argument that builds a str in place (data would be parsed as markup in it)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return True
    if isinstance(node, ast.Call) and _name(node.func) in {"str", "format", "join", "repr"}:
        return True
    return False


def _problems(source: str, where: str) -> list[str]:
    tree = ast.parse(source, filename=where)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "from_markup":
            found.append(f"{where}:{node.lineno}: from_markup parses markup")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        for keyword in node.keywords:
            if keyword.arg == "markup" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                found.append(f"{where}:{node.lineno}: markup= other than False")
        if name == "notify":
            if not any(
                k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in node.keywords
            ):
                found.append(f"{where}:{node.lineno}: notify() without markup=False")
            continue  # its message is a str by contract: inert_str it, then markup=False
        if name in MARKUP_SINKS:
            for arg in node.args:
                if _built_text(arg):
                    found.append(f"{where}:{node.lineno}: {name}() given a str built from values")
    return found


def test_no_markup_parsing_call_gets_text_built_from_data() -> None:
    problems = [
        p
        for path in sorted(TUI.rglob("*.py"))
        for p in _problems(path.read_text(encoding="utf-8"), str(path.relative_to(TUI.parent)))
    ]
    assert not problems, "\n".join(problems)


def test_the_guard_catches_what_it_names() -> None:
    source = (
        "def f(self, x):\n"
        '    self.notify(f"{x}")\n'
        '    Label(f"{x} runs")\n'
        "    table.add_row(str(x))\n"
        "    Text.from_markup(x)\n"
        '    title.update("a " + x)\n'
    )
    assert len(_problems(source, "probe.py")) == 5
