"""XML decision parser: ``<decision mode="act"><think>..</think><action name="t"><arg name="k">v</arg>..``.

Reads upstream QitOS's XmlDecisionParser format: an optional ``mode`` attribute on the root
(``act``, ``final`` or ``wait``), a thought tag (``think``/``thought``/``thinking``/``rationale``),
a final-answer tag (``final_answer``/``final``/``answer``) and an action tag
(``action``/``tool``/``call``) that either names the tool in ``name=`` with ``<arg name=...>``
children or holds a call such as ``add(a=1, b=2)``. Text with several top-level elements is read as
if wrapped in one root. Model output is untrusted: documents declaring a DTD or entities are
refused rather than expanded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from qitos.core.action import Action
from qitos.core.decision import Decision
from qitos.kit.parser.base import Parser, parse_failure
from qitos.kit.parser.call_syntax import CallSyntaxError, parse_call

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def _norm(tag: str) -> str:
    """A tag name compared loosely: lower case, without ``_``, ``-`` or a namespace."""
    return re.sub(r"[_\-\s]", "", tag.rsplit("}", 1)[-1].lower())


def _arg_value(text: str) -> object:
    """An argument's text as JSON when it is JSON (``40`` -> 40), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class XmlDecisionParser(Parser):
    """Parses an XML decision into act, final or wait (see the module docstring for the format)."""

    name = "XmlDecisionParser"

    def __init__(
        self,
        *,
        tool_names: Collection[str] | None = None,
        xml_think_tags: Sequence[str] | None = None,
        xml_action_tags: Sequence[str] | None = None,
        xml_final_tags: Sequence[str] | None = None,
    ) -> None:
        super().__init__(tool_names=tool_names)
        self.think_tags = {_norm(t) for t in xml_think_tags or ("think", "thought", "thinking", "rationale")}
        self.action_tags = {_norm(t) for t in xml_action_tags or ("action", "tool", "call")}
        self.final_tags = {_norm(t) for t in xml_final_tags or ("final_answer", "final", "answer")}

    def parse_text(self, text: str) -> Decision[Action]:
        """The Decision in an XML-formatted model output."""
        root = self._root(text)
        rationale = self._first_text(root, self.think_tags)
        final = self._first_text(root, self.final_tags)
        mode = root.attrib.get("mode", "").strip().lower()
        if mode == "wait":
            return Decision.wait(rationale=rationale)
        if mode == "final" or (not mode and final):
            if not final:
                raise parse_failure(self.name, 'mode="final" needs a non-empty final answer tag', text)
            return Decision.final(final, rationale=rationale)
        if mode not in ("", "act"):
            raise parse_failure(self.name, f"unknown mode {mode!r}; use act, final or wait", text)
        action = self._action_of(root, text)
        if action is None:
            raise parse_failure(self.name, "found no parseable action and no final answer tag", text)
        return Decision.act([action], rationale=rationale)

    def _root(self, text: str) -> ET.Element:
        body = text.strip()
        if not body:
            raise parse_failure(self.name, "the output is empty", text)
        if "<" not in body:
            # Plain prose, the usual reply that no parser reads: no element, no decision, and
            # no need for ElementTree (and expat), a few ms to import.
            raise parse_failure(self.name, "the output holds no XML element", text)
        import xml.etree.ElementTree as ET  # imported here: see above

        if _DECLARATION.search(body):
            raise parse_failure(self.name, "DTD and entity declarations are not accepted", text)
        try:
            return ET.fromstring(body)
        except ET.ParseError:
            pass
        try:
            return ET.fromstring(f"<root>{body}</root>")
        except ET.ParseError as exc:
            raise parse_failure(self.name, f"not well-formed XML: {exc}", text) from exc

    @staticmethod
    def _first_text(root: ET.Element, tags: set[str]) -> str | None:
        for node in root.iter():
            if node is not root and _norm(node.tag) in tags:
                content = "".join(node.itertext()).strip()
                if content:
                    return content
        return None

    def _action_of(self, root: ET.Element, text: str) -> Action | None:
        for node in root.iter():
            if _norm(node.tag) not in self.action_tags:
                continue
            name = node.attrib.get("name", "").strip()
            if name:
                args = {}
                for arg in node.iter("arg"):
                    key = arg.attrib.get("name", "").strip()
                    if key:
                        args[key] = _arg_value("".join(arg.itertext()).strip())
                return self._action(name, args, text)
            body = "".join(node.itertext()).strip()
            if body:
                try:
                    call_name, call_args = parse_call(body)
                except CallSyntaxError as exc:
                    raise parse_failure(self.name, f"cannot read the action: {exc}", text) from exc
                return self._action(call_name, call_args, text)
        return None
