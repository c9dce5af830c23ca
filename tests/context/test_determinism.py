"""Projections and digests are byte-identical across processes with different hash seeds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

# Builds a run through the RequestBuilder (contributors with dict values whose key order differs,
# unicode, sets turned into lists by the contributor, a compactor and a small budget) and prints
# every projection the trace and the model see, plus their digests.
SCRIPT = r"""
import json, sys
from qitos.core.context import ContextContribution, StaticContextContributor, canonical_json
from qitos.engine.request_builder import RequestBuilder
from qitos.kit.context.compaction import ClosedExchangeWindowCompactor
from qitos.models.base import ModelResponse, ToolCall
from qitos.core.context import DeclaredContextBudgetPolicy

class Tags:
    contributor_id = "tags"
    def contribute(self, request):
        tags = {"zeta", "alpha", "mu", "éclair", "π"}  # set order depends on PYTHONHASHSEED
        return (ContextContribution("tags", "session", {"tags": sorted(tags), "z": 1, "a": {"y": 2, "b": 3}}),)

builder = RequestBuilder(
    contributors=[StaticContextContributor("notes", "project", {"k2": "v", "k1": ["ü", 1.5, None]}, required=True),
                  StaticContextContributor("big", "project", "x" * 900, priority=9), Tags()],
    budget_policy=DeclaredContextBudgetPolicy(default_max_input_units=700, protected_recent_exchanges=2),
    compactor=ClosedExchangeWindowCompactor(),
)
builder.start_run("det-run")
out = []
for step in range(6):
    built = builder.build(step_id=step, system_prompt="sys ☃", user_text=f"step {step} " + "q" * 60,
                          tool_specs=[{"name": "add", "parameters": {"type": "object", "properties": {"b": {}, "a": {}}}}])
    builder.record_response(built, ModelResponse("r" * 50, (ToolCall("add", {"b": 2, "a": 1}),)), step_id=step)
    builder.record_tool_results([{"tool": "add", "result": {"y": 1, "x": [3, 2]}, "error": None}], step_id=step)
    view = builder.last_view
    out.append({"messages": built.messages, "view": built.view, "full": view.to_json(),
                "selected_digest": view.selected_digest, "log_digest": builder.exchange_log.digest()})
sys.stdout.write(canonical_json(out))
"""


def run_with_seed(seed: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, env=env, check=True, timeout=60
    )
    return proc.stdout


def test_projection_bytes_and_digests_match_across_hash_seeds() -> None:
    outputs = [run_with_seed(seed) for seed in ("0", "1", "4242")]
    assert outputs[0] and outputs[0] == outputs[1] == outputs[2]
    digests = {hashlib.sha256(o).hexdigest() for o in outputs}
    assert len(digests) == 1
    # The run really compacted and dropped context, so the comparison covers receipts too.
    text = outputs[0].decode("utf-8")
    assert '"receipts":[{"declared_losses"' in text and '"selected":false' in text
