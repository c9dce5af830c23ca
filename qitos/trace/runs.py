"""list_runs: one summary line per run directory in a folder, for the run picker (reads manifests only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from qitos.trace.errors import TraceError
from qitos.trace.fields import as_dict, as_float, as_int, as_str, token_total
from qitos.trace.layout import (
    EVENTS_FILE,
    MANIFEST_FILE,
    STEPS_FILE,
    count_lines,
    effective_status,
    is_run_dir,
)
from qitos.trace.parse import load_manifest, trace_file_problem


@dataclass(frozen=True)
class RunSummary:
    """What the picker shows for one run, read from its manifest without touching its events."""

    run_id: str
    path: Path
    status: str
    steps: int
    tokens: int | None
    stop_reason: str | None
    model_id: str | None
    updated_at: str | None
    event_count: int | None = None
    problem: str | None = None  # why the manifest could not be used, when it could not
    parent_run_id: str | None = None  # a fork names the run it was forked from
    fork_step: int | None = None  # and the step where it went live
    task: str | None = None  # the task's id, when the run was given a Task (ours) or upstream's
    duration: float | None = None  # seconds the run was active, when its summary says
    errors: int | None = None  # failures the summary reports (0 once a run ended without any)


@dataclass(frozen=True)
class SkippedFolder:
    """A folder list_runs passed over, and why."""

    path: Path
    reason: str


def _mtime_iso(run_dir: Path) -> str | None:
    stamps = []
    for name in (MANIFEST_FILE, EVENTS_FILE, STEPS_FILE):
        try:
            stamps.append((run_dir / name).lstat().st_mtime)
        except OSError:
            continue
    return datetime.fromtimestamp(max(stamps), UTC).isoformat() if stamps else None


def summarize_run(run_dir: Path) -> RunSummary:
    """The picker summary of one run directory (which must be a run directory)."""
    manifest, problem = load_manifest(run_dir, MANIFEST_FILE)
    return summary_from_manifest(run_dir, manifest, problem)


def summary_from_manifest(run_dir: Path, manifest: dict[str, Any], problem: str | None) -> RunSummary:
    """The picker summary of ``run_dir`` from its manifest as already read (``{}`` and a
    ``problem`` when it could not be)."""
    summary = as_dict(manifest.get("summary"))
    steps = as_int(manifest.get("step_count", summary.get("steps")))
    if steps is None or steps < 0:
        steps_path = run_dir / STEPS_FILE
        steps = 0 if trace_file_problem(steps_path) else count_lines(steps_path)
    tokens = token_total(manifest.get("token_usage"))
    if tokens is None:
        tokens = token_total(summary.get("token_usage"))
    event_count = manifest.get("event_count")
    task, duration, errors = _task_duration_errors(summary)
    return RunSummary(
        run_id=as_str(manifest.get("run_id")) or run_dir.name,
        path=run_dir,
        status=effective_status(manifest, run_dir),
        steps=steps,
        tokens=tokens,
        stop_reason=as_str(summary.get("stop_reason")),
        model_id=as_str(manifest.get("model_id")),
        updated_at=as_str(manifest.get("updated_at")) or _mtime_iso(run_dir),
        event_count=as_int(event_count),
        problem=problem,
        parent_run_id=as_str(manifest.get("parent_run_id")),
        fork_step=as_int(manifest.get("fork_step")),
        task=task,
        duration=duration,
        errors=errors,
    )


def _task_duration_errors(summary: dict[str, Any]) -> tuple[str | None, float | None, int | None]:
    """The task, active seconds and failure count a manifest summary holds (ours and upstream's
    write ``task_result`` for a Task, upstream ``task_meta`` too, and ``failure_report`` on failures;
    ours also ``task`` and ``elapsed_seconds`` for every run, a plain-string task included)."""
    result = as_dict(summary.get("task_result"))
    task = (
        as_str(result.get("task_id"))
        or as_str(as_dict(summary.get("task_meta")).get("task_id"))
        or as_str(summary.get("task"))
    )
    duration = as_float(as_dict(result.get("metrics")).get("elapsed_seconds"))
    if duration is None:
        duration = as_float(summary.get("elapsed_seconds"))
    if duration is not None and duration < 0:
        duration = None
    report = summary.get("failure_report")
    if isinstance(report, dict):
        errors = as_int(report.get("failure_count"))
        if errors is None or errors < 0:
            errors = len(report["failures"]) if isinstance(report.get("failures"), list) else None
    else:
        # A summary is written when the run pauses or ends; without a failure report it had none.
        errors = 0 if "stop_reason" in summary else None
    return task, duration, errors


def scan_runs(folder: str | Path) -> tuple[list[RunSummary], list[SkippedFolder]]:
    """The runs in ``folder`` (most recently updated first) and the sub-folders skipped, with reasons."""
    root = Path(folder)
    if not root.exists():
        raise TraceError(f"{root}: no such folder")
    if not root.is_dir():
        raise TraceError(f"{root}: not a folder")
    runs: list[RunSummary] = []
    skipped: list[SkippedFolder] = []
    try:
        children = sorted(root.iterdir())
    except OSError as exc:
        raise TraceError(f"cannot list {root}: {exc}") from exc
    for child in children:
        if not child.is_dir():
            continue
        if child.name.startswith("."):
            skipped.append(SkippedFolder(child, "hidden folder"))
            continue
        try:
            if not is_run_dir(child):
                skipped.append(
                    SkippedFolder(child, f"not a run: no {MANIFEST_FILE}, {EVENTS_FILE} or {STEPS_FILE}")
                )
                continue
            runs.append(summarize_run(child))
        except OSError as exc:
            skipped.append(SkippedFolder(child, f"unreadable: {exc}"))
    runs.sort(key=lambda r: (r.updated_at or "", r.run_id), reverse=True)
    return runs, skipped


def list_runs(folder: str | Path) -> list[RunSummary]:
    """The runs in ``folder``, most recently updated first (see :func:`scan_runs` for what was skipped)."""
    return scan_runs(folder)[0]
