"""Run directories in upstream QitOS's trace format (schema "v1"), written by code for the tests.

Upstream QitOS writes ``manifest.json``, ``events.jsonl`` and ``steps.jsonl`` with its own phase
names (``INIT``, ``OBSERVE``, ``DECIDE``, ``ACT``, ``REDUCE``, ``CRITIC``, ``CHECK_STOP``, ``END``,
the ``toolset_*`` brackets) and stages inside them (``model_input``, ``model_output``,
``decision_ready``, ``action_results`` ...). No ``model_request`` / ``model_response`` events, no
request views: the model and its tokens are known only from ``run_meta`` and the manifest. The
runs built here follow that layout field by field with content of their own, so the suite needs
nothing beside the repository; the real samples in ``../shared/traces`` are read by extra tests
when they are there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

MODEL = "acme/reasoner-7b"
TASK = "Make greet() in hello.py return 'hello, world' and prove it."
TASK_ID = "greet_fix_demo"
WORKSPACE = "/home/user/work/playground"
TOOLS = ("view", "replace_lines", "run_command")


@dataclass(frozen=True)
class UpstreamStep:
    """One step of an upstream run: what the model said, the action it chose, what the tool returned."""

    thought: str
    action: dict[str, Any]
    result: dict[str, Any]
    latency_ms: float = 0.5


@dataclass
class UpstreamRun:
    """What a built run holds, for tests to compare the reader and the fold against."""

    run_dir: Path
    run_id: str
    model_id: str
    token_usage: int
    steps: list[UpstreamStep] = field(default_factory=list)
    final_result: str = ""


def _call_text(action: dict[str, Any]) -> str:
    """The ``name(k="v", n=1)`` text a ReAct model writes for an action."""
    args = ", ".join(f"{k}={json.dumps(v)}" for k, v in action["args"].items())
    return f"{action['name']}({args})"


def _scratch(action: dict[str, Any], result: dict[str, Any]) -> list[str]:
    args = ", ".join(f"{k}={v!r}" for k, v in action["args"].items())
    return [f"Action: {action['name']}({args})", f"Observation: {result!r}"]


STEPS_A = [
    UpstreamStep(
        "The task names hello.py; I will read it before changing anything.",
        {"name": "view", "args": {"path": "hello.py"}},
        {"status": "success", "stdout": "\U0001f4c4 hello.py\n1\tdef greet():\n2\t    return 'hello'\n"},
    ),
    UpstreamStep(
        "The function returns 'hello' without ', world'; line 2 needs the full greeting.",
        {
            "name": "replace_lines",
            "args": {"path": "hello.py", "start": 2, "end": 2, "text": "    return 'hello, world'"},
        },
        {"status": "success", "stdout": "replaced lines 2-2 of hello.py"},
    ),
    UpstreamStep(
        "The fix is in place; running the check proves it.",
        {
            "name": "run_command",
            "args": {"command": "python -c \"import hello; assert hello.greet() == 'hello, world'\""},
        },
        {"status": "success", "returncode": 0, "stdout": "", "stderr": ""},
        latency_ms=41.5,
    ),
]
STEPS_B = [
    UpstreamStep(
        "The greeting may already be right; the check tells.",
        {"name": "run_command", "args": {"command": 'python -c "import hello; print(hello.greet())"'}},
        {"status": "success", "returncode": 0, "stdout": "hello, world\n", "stderr": ""},
        latency_ms=38.0,
    ),
    UpstreamStep(
        "The output matches; one more look at the file confirms nothing else changed.",
        {"name": "view", "args": {"path": "hello.py"}},
        {
            "status": "success",
            "stdout": "\U0001f4c4 hello.py\n1\tdef greet():\n2\t    return 'hello, world'\n",
        },
    ),
]


def write_upstream_run(
    folder: Path, run_id: str, steps: list[UpstreamStep], *, start: datetime, token_usage: int
) -> UpstreamRun:
    """Write one completed upstream-format run directory ``folder/run_id``; what it holds."""
    run_dir = folder / run_id
    run_dir.mkdir(parents=True)
    clock = iter(start + timedelta(milliseconds=7 * n) for n in range(10_000))
    final = "The check passed: greet() returns 'hello, world'."
    tools_meta = [
        {
            "name": name,
            "description": f"The {name} tool.",
            "required_ops": ["process"] if name == "run_command" else [],
            "origin": {"source": "function", "toolset_name": None, "toolset_version": None},
        }
        for name in TOOLS
    ]
    task_meta = {
        "task_id": TASK_ID,
        "env_spec": {
            "type": "host",
            "config": {"workspace_root": "playground"},
            "required_tools": [],
            "capabilities": [],
            "metadata": {},
        },
        "budget": {"max_steps": 10, "max_runtime_seconds": None, "max_tokens": None},
        "success_criteria": [],
        "input_hash": "0f1e2d3c4b5a6978",
    }
    run_meta = {
        "model_name": MODEL,
        "parser": "ReActTextParser",
        "tool_count": len(TOOLS),
        "tools": tools_meta,
        "env": {"enabled": True, "name": "host_env", "version": "1.0"},
    }
    env = {"enabled": True, "name": "host_env", "version": "1.0"}
    env_obs = {
        "data": {"workspace_root": WORKSPACE, "file_count": 1, "files": ["hello.py"], "last_error": None}
    }
    state_repr = f"GreetState(schema_version=1, task={TASK!r}, current_step=0, max_steps=10)"
    bracket = {
        "state": state_repr,
        "trace_writer": "<qitos.trace.writer.TraceWriter object at 0x7f00c0ffee00>",
        "task": f"Task(id={TASK_ID!r})",
    }

    events: list[dict[str, Any]] = []

    def ev(step: int, phase: str, payload: dict[str, Any]) -> None:
        stamp = next(clock).isoformat()
        events.append(
            {
                "run_id": run_id,
                "step_id": step,
                "phase": phase,
                "ok": True,
                "payload": payload,
                "error": None,
                "ts": stamp,
            }
        )

    ev(0, "toolset_setup_start", bracket)
    ev(0, "toolset_setup_end", bracket)
    ev(
        0,
        "INIT",
        {"task": TASK, "task_id": TASK_ID, "task_meta": task_meta, "run_meta": run_meta, "env": env},
    )
    scratch: list[str] = []
    records: list[dict[str, Any]] = []
    for s, step in enumerate(steps):
        last = s == len(steps) - 1
        observation = {
            "task": TASK,
            "scratchpad": list(scratch),
            "memory": {"enabled": True, "records": [], "summary": ""},
            "current_step": s,
            "max_steps": 10,
        }
        raw = f"Thought: {step.thought}\nAction: {_call_text(step.action)}"
        ev(s, "OBSERVE", {"stage": "start"})
        ev(
            s,
            "OBSERVE",
            {
                "stage": "observation_ready",
                "observation": observation,
                "memory": observation["memory"],
                "env": {**env, "observation": {**env_obs, "metadata": {"state_step": s}}},
            },
        )
        ev(s, "DECIDE", {"stage": "start"})
        messages = [
            {"role": "system", "content": "You are a careful coding agent. Answer in ReAct format."},
            {"role": "user", "content": f"Task: {TASK}\n" + "\n".join(scratch)},
        ]
        ev(
            s,
            "DECIDE",
            {
                "stage": "model_input",
                "prepared": messages[1]["content"],
                "history_message_count": 0,
                "messages": messages,
            },
        )
        ev(s, "DECIDE", {"stage": "model_output", "raw_output": raw})
        ev(
            s,
            "DECIDE",
            {
                "stage": "decision_ready",
                "mode": "act",
                "rationale": None,
                "actions": [step.action],
                "final_answer": None,
                "candidate_count": 0,
            },
        )
        invocation = {
            "tool_name": step.action["name"],
            "toolset_name": None,
            "toolset_version": None,
            "source": "function",
            "attempts": 1,
            "latency_ms": step.latency_ms,
            "status": "success",
            "error_category": None,
            "error": None,
        }
        env_result = {
            "observation": {**env_obs, "metadata": {"state_step": s}},
            "done": False,
            "reward": None,
            "info": {"action_seen": ""},
            "error": None,
        }
        ev(s, "ACT", {"stage": "start"})
        ev(s, "ACT", {"stage": "env_step", "env_result": env_result})
        ev(
            s,
            "ACT",
            {
                "stage": "action_results",
                "tool_invocations": [invocation],
                "action_results": [step.result, {"env": env_result}],
            },
        )
        before = list(scratch)
        scratch.extend(_scratch(step.action, step.result))
        diff: dict[str, Any] = {"scratchpad": {"before": before, "after": list(scratch)}}
        if last:
            diff = {"final_result": {"before": None, "after": final}, **diff}
        ev(s, "REDUCE", {"stage": "start"})
        ev(s, "REDUCE", {"stage": "state_reduced", "state_diff": diff})
        critic = [{"action": "continue", "reason": "react_reflection_pass", "score": 1.0}]
        ev(s, "CRITIC", {"stage": "start", "critic_count": 1})
        ev(s, "CRITIC", {"stage": "outputs", "critic_outputs": critic})
        ev(s, "CRITIC", {"stage": "pass"})
        ev(s, "CHECK_STOP", {"stage": "start"})
        ev(
            s,
            "CHECK_STOP",
            {"stage": "stop", "stop_reason": "final_result", "final_result": final}
            if last
            else {"stage": "continue"},
        )
        records.append(
            {
                "step_id": s,
                "observation": observation,
                "decision": {
                    "mode": "act",
                    "actions": [step.action],
                    "final_answer": None,
                    "rationale": None,
                    "meta": {},
                    "candidates": [],
                },
                "actions": [step.action],
                "action_results": [step.result, {"env": env_result}],
                "tool_invocations": [invocation],
                "critic_outputs": critic,
                "state_diff": diff,
            }
        )
    ev(len(steps) - 1, "END", {"stop_reason": "final_result"})
    ev(0, "toolset_teardown_start", bracket)
    ev(0, "toolset_teardown_end", bracket)

    # Upstream writes JSON with ensure_ascii (an emoji becomes a \\ud83d\\udcc4 surrogate pair).
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (run_dir / "steps.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    summary = {
        "stop_reason": "final_result",
        "final_result": final,
        "steps": len(steps),
        "failure_report": {"failure_count": 0, "failures": [], "stop_reason": "final_result"},
        "token_usage": token_usage,
        "task_meta": task_meta,
        "task_result": {
            "task_id": TASK_ID,
            "success": False,
            "stop_reason": "final_result",
            "final_result": final,
            "criteria": [],
            "artifacts": [],
            "metrics": {"steps": len(steps), "elapsed_seconds": 4.25, "token_usage": token_usage},
            "metadata": {"task_meta": task_meta, "run_meta": run_meta},
        },
        "run_meta": run_meta,
    }
    manifest = {
        "run_id": run_id,
        "schema_version": "v1",
        "status": "completed",
        "updated_at": events[-1]["ts"],
        "event_count": len(events),
        "step_count": len(steps),
        "summary": summary,
        "model_id": MODEL,
        "prompt_hash": "a1b2c3d4e5f60718",
        "tool_versions": {
            name: {"source": "function", "toolset_name": None, "toolset_version": None} for name in TOOLS
        },
        "seed": None,
        "run_config_hash": "8192a3b4c5d6e7f8",
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return UpstreamRun(run_dir, run_id, MODEL, token_usage, list(steps), final)


def write_upstream_folder(folder: Path) -> list[UpstreamRun]:
    """Two completed upstream-format runs (3 and 2 steps) in ``folder``, like upstream's examples."""
    start = datetime(2026, 2, 1, 9, 30, tzinfo=UTC)
    return [
        write_upstream_run(
            folder, "qitos_greet_20260201_093000_000001", STEPS_A, start=start, token_usage=2480
        ),
        write_upstream_run(
            folder,
            "qitos_greet_20260201_094500_000002",
            STEPS_B,
            start=start + timedelta(minutes=15),
            token_usage=1312,
        ),
    ]
