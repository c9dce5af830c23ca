"""The screenshot script runs the demo agent and saves both browser screenshots from the real apps."""

from __future__ import annotations

from pathlib import Path

from tui.browsers import screenshots


def test_screenshot_script_writes_both_svgs(tmp_path: Path) -> None:
    """memory-browser.svg shows a changed recall side by side; skills-diff.svg the v1 → v2 diff."""
    assert screenshots.main(["--out", str(tmp_path)]) == 0
    memory = (tmp_path / "memory-browser.svg").read_text(encoding="utf-8").replace("&#160;", " ")
    skills = (tmp_path / "skills-diff.svg").read_text(encoding="utf-8").replace("&#160;", " ")
    assert "changed on disk since" in memory and "on disk now" in memory
    assert "Edited after the run" in memory
    assert "diff fix-failing-check v1 → v2" in skills and "2 published in the run" in skills
