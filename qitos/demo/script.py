"""What the demo's scripted model answers, step by step: a realistic fix-the-bug session."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from qitos.demo.workspace import FIXED_SOURCE

SKILL_NAME = "fix-failing-check"

SKILL_V1 = """1. Run the project's checks and read the failing assertion.
2. Open the module under test and find the function the assertion names.
3. Fix the smallest thing that makes the assertion true."""

SKILL_V2 = (
    SKILL_V1
    + """
4. Re-run the checks; never stop on a fix that was not verified.
5. Remember the cause in project memory so the next run starts from it."""
)


@dataclass(frozen=True)
class ScriptedTurn:
    """One model answer: a thought and either a tool call or the final answer."""

    thought: str
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    final: str | None = None

    def to_text(self) -> str:
        """The answer as the JSON text the demo's parser reads."""
        body: dict[str, Any] = {"thought": self.thought}
        if self.final is not None:
            body["final"] = self.final
        else:
            body["action"] = {"name": self.tool, "args": self.args}
        return json.dumps(body, ensure_ascii=False)


TURNS: tuple[ScriptedTurn, ...] = (
    ScriptedTurn("Start by seeing what the project holds.", "list_files"),
    ScriptedTurn(
        "The README says test_calc.py is the check; read it first.", "read_file", {"path": "test_calc.py"}
    ),
    ScriptedTurn("The check calls calc.add and calc.mean. Run it to see what fails.", "run_tests"),
    ScriptedTurn("add(20, 22) is not 42. Read calc.py to find out why.", "read_file", {"path": "calc.py"}),
    ScriptedTurn(
        "add() subtracts. Remember the cause before fixing it.",
        "remember",
        {"fact": "calc.add subtracted its arguments; test_calc.py expects add(20, 22) == 42"},
    ),
    ScriptedTurn(
        "Fix add() to return a + b, keeping the rest of the file as it is.",
        "write_file",
        {"path": "calc.py", "content": FIXED_SOURCE},
    ),
    ScriptedTurn("Re-run the checks to verify the fix.", "run_tests"),
    ScriptedTurn(
        "That procedure will be useful again: publish it as a skill.",
        "publish_skill",
        {
            "name": SKILL_NAME,
            "description": "Diagnose and fix a failing project check",
            "procedure": SKILL_V1,
        },
    ),
    ScriptedTurn(
        "The procedure misses verification and memory; publish a revised version.",
        "publish_skill",
        {
            "name": SKILL_NAME,
            "description": "Diagnose, fix and verify a failing project check",
            "procedure": SKILL_V2,
        },
    ),
    ScriptedTurn(
        "Record that the fix is verified.",
        "remember",
        {"fact": "calc.add fixed to return a + b; python test_calc.py prints 'all checks passed'"},
    ),
    ScriptedTurn(
        "Everything is verified and recorded.",
        final="Fixed calc.add (it subtracted instead of adding); the checks pass; "
        f"published the skill {SKILL_NAME} and a revision of it.",
    ),
)


def script_texts() -> list[str]:
    """The scripted model's replies, in order."""
    return [turn.to_text() for turn in TURNS]
