"""list_runs: one summary line per run directory in a folder, for the run picker (reads manifests only)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from qitos.trace.errors import TraceError
from qitos.trace.layout import (
    EVENTS_FILE,
    MANIFEST_FILE,
    STEPS_FILE,
    count_lines,
    effective_status,
    is_run_dir,
)


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


@dataclass(frozen=True)
class SkippedFolder:
    """A folder list_runs passed over, and why."""

    path: Path
    reason: str


def token_total(value: Any) -> int | None:
    """A token figure as one int: upstream writes an int, a usage dict gives its total."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, dict):
        total = value.get("total_tokens")
        if isinstance(total, int | float) and not isinstance(total, bool):
            return int(total)
        parts = [value.get(k) for k in ("prompt_tokens", "completion_tokens")]
        if all(isinstance(p, int | float) and not isinstance(p, bool) for p in parts):
            return int(sum(parts))  # type: ignore[arg-type]
    return None


def _mtime_iso(run_dir: Path) -> str | None:
    stamps = []
    for name in (MANIFEST_FILE, EVENTS_FILE, STEPS_FILE):
        try:
            stamps.append((run_dir / name).stat().st_mtime)
        except OSError:
            continue
    return datetime.fromtimestamp(max(stamps), UTC).isoformat() if stamps else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def summarize_run(run_dir: Path) -> RunSummary:
    """The picker summary of one run directory (which must be a run directory)."""
    manifest: dict[str, Any] = {}
    problem: str | None = None
    try:
        data = json.loads((run_dir / MANIFEST_FILE).read_bytes())
    except FileNotFoundError:
        problem = f"no {MANIFEST_FILE}"
    except (OSError, ValueError) as exc:
        problem = f"unreadable {MANIFEST_FILE}: {exc}"
    else:
        if isinstance(data, dict):
            manifest = data
        else:
            problem = f"{MANIFEST_FILE} is not a JSON object"
    summary = manifest.get("summary") if isinstance(manifest.get("summary"), dict) else {}
    steps = _int_or_none(manifest.get("step_count", summary.get("steps")))
    if steps is None:
        steps = count_lines(run_dir / STEPS_FILE)
    tokens = token_total(manifest.get("token_usage"))
    if tokens is None:
        tokens = token_total(summary.get("token_usage"))
    event_count = manifest.get("event_count")
    return RunSummary(
        run_id=_str_or_none(manifest.get("run_id")) or run_dir.name,
        path=run_dir,
        status=effective_status(manifest, run_dir),
        steps=steps,
        tokens=tokens,
        stop_reason=_str_or_none(summary.get("stop_reason")),
        model_id=_str_or_none(manifest.get("model_id")),
        updated_at=_str_or_none(manifest.get("updated_at")) or _mtime_iso(run_dir),
        event_count=_int_or_none(event_count),
        problem=problem,
    )


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
