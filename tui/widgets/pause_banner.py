"""The pause banner: who paused the run, the action it holds, and the keys, on one line.

The most the width allows: a wide screen gets the policy's full wording, where it stopped, its
reason and every key; at 80 columns the line keeps the policy's name, the pending action in brief
(``write_file calc.py``) and the keys that act on it (r and s are in the footer too); only a
narrower screen wraps it. ``i`` shows the whole pending action. Keys are drawn as their words with
the key letter marked (``approve`` for a), as a menu bar does, so that every key fits.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from tui.action_brief import actions_brief
from tui.store import PauseInfo
from tui.text import inert, pause_mark
from tui.widgets.tones import BOLD, ITALIC

KEY = Style(bold=True, underline=True)
"""How a key's letter is marked in its word."""
ACT_KEYS = ("approve", "deny", "change", "inspect")
"""The keys that act on a pending action, each the first letter of its word (a, d, c, i)."""
RUN_KEYS = ("resume", "step")
"""The keys that go on (r, s)."""


@dataclass(frozen=True, slots=True)
class _Rung:
    """How much one version of the line says (from the richest to the tersest)."""

    long_who: bool  # "by the agent's policy X" rather than "by X"
    where: bool = False  # "at step 5 before_act"
    reason: bool = False  # the policy's reason
    label: bool = True  # " · pending write_file calc.py" rather than ": write_file calc.py"
    run_keys: bool = True  # r and s beside a/d/c/i
    gap: str = " · "  # between the keys


_LADDER = (
    _Rung(long_who=True, where=True, reason=True),
    _Rung(long_who=True, reason=True),
    _Rung(long_who=True),
    _Rung(long_who=False),
    _Rung(long_who=False, label=False, gap=" "),
    _Rung(long_who=False, label=False, run_keys=False, gap=" "),
)


def keys_text(words: tuple[str, ...], gap: str) -> Text:
    """``words`` with their first letter marked as the key, ``gap`` between them."""
    out = Text()
    for number, word in enumerate(words):
        if number:
            out.append(gap, style="dim")
        out.append(word[0], style=KEY)
        out.append(word[1:])
    return out


def pause_line(pause: PauseInfo, width: int, *, resumable: bool, paused: Style = BOLD) -> Text:
    """The banner for ``pause`` in ``width`` cells: the first rung of the ladder that fits on one
    line (the tersest one wraps); ``paused`` is the style of its "‖ paused" (the warn tone)."""
    line = Text()
    for rung in _LADDER:
        line = _line(pause, rung, resumable, paused)
        if line.cell_len <= width:
            return line
    return line


def _line(pause: PauseInfo, rung: _Rung, resumable: bool, paused: Style) -> Text:
    """One version of the banner: mark, who, where and why, the pending action, the keys."""
    out = Text()
    out.append(f"{pause_mark()} paused ", style=paused)
    # The policy id, reason, boundary and pending actions come from the agent and the model: inert.
    if pause.own:
        out.append_text(inert("by the TUI's request (p/s)" if rung.long_who else "by you (p/s)"))
    else:
        out.append_text(
            inert(f"by the agent's policy {pause.policy_id}" if rung.long_who else f"by {pause.policy_id}")
        )
    if rung.where:
        out.append_text(inert(f" at step {pause.step} {pause.boundary}".rstrip()))
    if rung.reason and pause.reason and not pause.reason.startswith(pause.policy_id):  # not just the id again
        out.append_text(inert(f": {pause.reason}", ITALIC))
    acts = pause.boundary == "before_act" and bool(pause.pending_actions)
    if pause.pending_actions:
        out.append(" · pending " if rung.label else ": ", style="dim")
        out.append_text(inert(actions_brief(pause.pending_actions), BOLD))
    if not resumable:
        # A replay (even of a run paused in another process) never offers keys that would do nothing.
        out.append(
            " · only the process running it can resume it" if rung.label else "  its own process resumes it",
            "dim",
        )
        return out
    words = (ACT_KEYS if acts else ()) + (RUN_KEYS if rung.run_keys or not acts else ())
    out.append(" · " if rung.label else "  ", style="dim")
    out.append_text(keys_text(words, rung.gap))
    return out
