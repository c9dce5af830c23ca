"""Task, TaskBudget, TaskResource, TaskResult: validation, resources and dict round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from qitos import EnvSpec, Task, TaskBudget, TaskResource, TaskResult


def test_documented_defaults() -> None:
    """Field defaults as documented."""
    t = Task(id="t1", objective="do")
    assert t.inputs == {} and t.resources == [] and t.env_spec is None
    assert t.budget == TaskBudget(None, None, None)
    r = TaskResource(kind="file")
    assert (r.path, r.uri, r.mount_to, r.required, r.description) == (None, None, None, True, "")
    res = TaskResult(task_id="t1", success=True, stop_reason="final", final_result="x")
    assert res.criteria == [] and res.artifacts == [] and res.metrics == {}


def test_validate_lists_structural_problems() -> None:
    """validate raises one ValueError naming each problem."""
    bad = Task(
        id="",
        objective=" ",
        resources=[TaskResource(kind="blob"), TaskResource(kind="url")],
        budget=TaskBudget(max_steps=0),
    )
    with pytest.raises(ValueError) as info:
        bad.validate()
    text = str(info.value)
    for part in ("task id", "objective", "kind 'blob'", "needs a uri", "budget.max_steps"):
        assert part in text
    Task(id="ok", objective="fine").validate()


def test_validate_structured_reports_missing_required_resources(tmp_path: Path) -> None:
    """A required file missing under the workspace is an issue; an optional one is not."""
    (tmp_path / "present.txt").write_text("x")
    task = Task(
        id="t",
        objective="o",
        resources=[
            TaskResource(kind="file", path="present.txt"),
            TaskResource(kind="file", path="missing.txt"),
            TaskResource(kind="file", path="optional.txt", required=False),
            TaskResource(kind="dir", path="present.txt"),
        ],
    )
    issues = task.validate_structured(str(tmp_path))
    codes = [(i.code, i.field) for i in issues]
    assert codes == [
        ("TASK_RESOURCE_MISSING", "resources[1].path"),
        ("TASK_RESOURCE_KIND_MISMATCH", "resources[3].path"),
    ]


def test_resolve_resources_binds_paths_and_urls(tmp_path: Path) -> None:
    """Relative paths resolve under the workspace; URLs stay remote."""
    (tmp_path / "a.txt").write_text("x")
    task = Task(
        id="t",
        objective="o",
        resources=[
            TaskResource(kind="file", path="a.txt", mount_to="/in/a.txt"),
            TaskResource(kind="url", uri="https://example.org/x"),
        ],
    )
    file_b, url_b = task.resolve_resources(str(tmp_path))
    assert file_b.resolved_path == str(tmp_path / "a.txt") and file_b.exists and file_b.target == "/in/a.txt"
    assert url_b.resolved_path is None and url_b.source == "https://example.org/x"


def test_dict_round_trip_and_errors() -> None:
    """to_dict/from_dict keep nested types; unknown keys and missing ids are errors."""
    task = Task(
        id="t",
        objective="o",
        resources=[TaskResource(kind="file", path="a")],
        env_spec=EnvSpec(type="host", config={"workspace_root": "w"}, capabilities=["file"]),
        budget=TaskBudget(max_steps=3, max_tokens=100),
        success_criteria=["tests pass"],
    )
    back = Task.from_dict(task.to_dict())
    assert back == task and isinstance(back.env_spec, EnvSpec) and isinstance(back.budget, TaskBudget)
    with pytest.raises(ValueError, match="unknown field"):
        Task.from_dict({"id": "t", "objective": "o", "owner": "me"})
    with pytest.raises(ValueError, match="missing required field 'objective'"):
        Task.from_dict({"id": "t"})
    with pytest.raises(ValueError, match="unknown field"):
        Task.from_dict({"id": "t", "objective": "o", "resources": [{"kind": "file", "size": 1}]})
