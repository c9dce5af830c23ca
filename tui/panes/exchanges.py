"""Exchanges pane: the exchange log up to the selected step, by role, with tool calls and results."""

from __future__ import annotations

import json
from collections.abc import Hashable
from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.reactive import reactive
from textual.strip import Strip

from qitos.trace.events import EventKind
from qitos.trace.payloads import (
    LifecycleDecision,
    Message,
    ModelRequest,
    ModelResponse,
    Receipt,
    ToolResult,
    action_results,
    payload_of,
    request_view,
)
from tui.failures import attempt_text, error_line, latency_text
from tui.panes.base import Block, Blocks, LinePane
from tui.request_diff import MessageDiff, message_diff, message_key
from tui.store import Exchange, StepSummary
from tui.structured import (
    Reply,
    action_line,
    code_text,
    is_block,
    lexer_name,
    line_count,
    understood,
    value_text,
)
from tui.text import inert, short_id
from tui.widgets.tones import BOLD, DIM, ITALIC

FOLD_LINES = 6
FOLD_CHARS = 400
# Exchanges rendered at first, the newest ones up to the selected step; scrolling up past the top
# renders this many more each time, so every exchange is reachable while a step on a trace with a
# hundred thousand exchanges renders only a screenful (each exchange a cached block of its own).
SHOWN_EXCHANGES = 8
# Stands in for a receipt where the history selection (the agent's History / HistoryPolicy), not a
# compaction, left an exchange out of the request.
HISTORY_POLICY = Receipt("history", "history policy", (), "", (), "")
ROLE_TONES = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
"""The tone (tui.widgets.tones) each message role is drawn in."""


def fold(text: str, expanded: bool) -> tuple[str, str | None]:
    """``text`` cut to a few lines unless expanded, and the note saying what was folded away."""
    if expanded:
        return text, None
    lines = text.splitlines()
    if len(lines) <= FOLD_LINES and len(text) <= FOLD_CHARS:
        return text, None
    head = "\n".join(lines[:FOLD_LINES])[:FOLD_CHARS]
    hidden_lines = max(0, len(lines) - len(head.splitlines()))
    more = f"{len(text) - len(head)} more chars" + (f" on {hidden_lines} more lines" if hidden_lines else "")
    return head, f"… {more} folded (x expands)"


def as_text(value: Any) -> str:
    """A payload value as readable text: strings as-is, the rest as indented JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def message_text(msg: Message) -> str:
    """A request message's text; an earlier reply of the model the parsers understand as its
    thought and its actions on one line each (``→ read_file path=calc.py``), not as its JSON."""
    body = as_text(msg.content)
    if msg.role != "assistant" or not isinstance(msg.content, str):
        return body
    reply = understood(msg.content)
    if reply is None:
        return body
    lines = [reply.thought] if reply.thought else []
    lines.extend(f"→ {action_line({'name': name, 'args': args})}" for name, args in reply.actions)
    if reply.final_answer is not None:
        lines.append(f"final answer: {reply.final_answer}")
    return "\n".join(lines)


class ExchangesPane(LinePane):
    """Messages by role, tool calls and results, usage; exchanges left out of this request dimmed."""

    TITLE = "Exchanges"
    RENDERS_BLOCKS = True  # each exchange a block of its own: neighbouring steps share most of them

    expanded: reactive[bool] = reactive(False, repaint=False)
    """Show long payloads whole instead of folded."""
    raw: reactive[bool] = reactive(False, repaint=False)
    """Show the exchanges' events as raw JSON."""
    search_text: reactive[str] = reactive("", repaint=False)
    """The search text to highlight."""
    whole: reactive[bool] = reactive(False, repaint=False)
    """Show each request whole (new messages marked) instead of only what changed since the last."""

    _stick_to_end = True
    _window = SHOWN_EXCHANGES  # exchanges rendered, ending at the selected step
    _counting = 0  # search highlights in the block being built

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hits: dict[Hashable, int] = {}  # search highlights per exchange block key

    def after_show(self) -> None:
        # The count of highlighted places, where they are: it is what the search found here.
        hits = self.highlight_count()
        self.border_subtitle = (
            f"{hits} {'place' if hits == 1 else 'places'} highlighted for {self.search_text!r}"
            if self.search_text
            else ""
        )
        # The selected step's exchange is the newest one: keep the end of the log in view, until
        # the user scrolls up. render_line draws from the end while stuck, so what is on screen
        # never depends on when the scroll position catches up with a new layout.
        if self._stick_to_end:
            self._to_end()
            self.call_after_refresh(self._to_end)

    def _end_y(self) -> int:
        return max(0, len(self._lines) - self.scrollable_content_region.height)

    def _to_end(self) -> None:
        if self._stick_to_end:
            self.scroll_to(y=self._end_y(), animate=False, immediate=True)

    def _unstick(self) -> None:
        if self._stick_to_end:
            self._to_end()
            self._stick_to_end = False

    def first_shown_line(self) -> int:
        return self._end_y() if self._stick_to_end else super().first_shown_line()

    def render_line(self, y: int) -> Strip:
        if y == 0 and self._stick_to_end and round(self.scroll_y) != self._end_y():
            self.call_after_refresh(self._to_end)  # bring the scrollbar along, once layout settled
        return super().render_line(y)

    def watch_selected(self) -> None:
        self._stick_to_end = True
        self._window = SHOWN_EXCHANGES
        super().watch_selected()

    def action_scroll_up(self) -> None:
        self._unstick()
        if not self._reveal_earlier():
            super().action_scroll_up()

    def action_page_up(self) -> None:
        self._unstick()
        if not self._reveal_earlier():
            super().action_page_up()

    @property
    def earlier(self) -> int:
        """How many exchanges before the rendered ones the selected step has."""
        step = self.step
        if step is None:
            return 0
        return self.store.exchanges_until(self.store.step_pos.get(step.step, 0), self._window)[0]

    def _reveal_earlier(self) -> bool:
        """At the top with earlier exchanges left out: render more of them, keeping the view still."""
        if round(self.scroll_y) > 0 or not self.earlier:
            return False
        before = len(self._lines)
        self._window += SHOWN_EXCHANGES
        self.show()
        # The lines shown before are now further down by what was added above them.
        self.scroll_to(y=max(0, len(self._lines) - before - 1), animate=False, immediate=True)
        return True

    def on_mouse_scroll_up(self) -> None:
        self._unstick()

    def scroll_to_row(self, row: int) -> None:
        self._unstick()  # the gutter moves the view away from the end
        super().scroll_to_row(row)

    def view_key(self, step: StepSummary | None) -> tuple[object, ...]:
        return (*super().view_key(step), self.expanded, self.raw, self.search_text, self.whole, self._window)

    def watch_expanded(self) -> None:
        self.show()

    def watch_raw(self) -> None:
        self.show()

    def watch_search_text(self) -> None:
        self.show()

    def watch_whole(self) -> None:
        self.show()

    def _omissions(self, step: StepSummary) -> tuple[set[str], dict[str, Receipt]]:
        """Exchanges left out of the step's request (by exchange id, and by ``step:N`` when the view
        maps its exchange ids to steps), and the receipt that accounts for each."""
        if not step.requests:
            return set(), {}
        view = request_view(payload_of(self.store.load(step.requests[-1])))
        if view is None:
            return set(), {}
        omitted = set(view.omitted_exchange_ids)
        step_of = view.exchange_steps
        keys = omitted | {f"step:{step_of[x]}" for x in omitted if x in step_of}
        receipts: dict[str, Receipt] = {}
        for ex_id in view.history_omitted_exchange_ids:
            receipts[ex_id] = HISTORY_POLICY
            if ex_id in step_of:
                receipts[f"step:{step_of[ex_id]}"] = HISTORY_POLICY
        for receipt in view.receipts:
            for ex_id in receipt.input_exchange_ids:
                receipts[ex_id] = receipt
                if ex_id in step_of:
                    receipts[f"step:{step_of[ex_id]}"] = receipt
        return keys, receipts

    def render_step(self, step: StepSummary) -> RenderableType:
        pos = self.store.step_pos.get(step.step, 0)
        begin, exchanges = self.store.exchanges_until(pos, self._window)
        omitted, receipts = self._omissions(step)
        mode = (
            "whole requests, new messages marked" if self.whole else "what changed since the previous request"
        )
        blocks: list[Block] = [Block(None, Text(f"showing {mode} (w toggles)", style="dim"))]
        if begin:
            note = f"… {begin} earlier exchanges (scroll up past the top to show {SHOWN_EXCHANGES} more)"
            blocks.append(Block(None, Text(note, style="dim italic")))
        if not exchanges:
            blocks.append(Block(None, Text("no model exchange up to this step", style="dim")))
        for ex in exchanges:
            key = ex.exchange_id if ex.exchange_id in omitted else f"step:{ex.step}"
            dim = key in omitted and ex.step != step.step
            receipt = receipts.get(key)
            title_key = ("title", ex.number, ex.tokens, dim, receipt and receipt.receipt_id)
            blocks.append(Block(title_key, partial(self._title, ex, dim, receipt)))
            # Built only when not cached yet: building reads the exchange's events from the trace.
            cache_key = (
                ex.number,
                ex.request,
                ex.response,
                len(ex.tool_results),
                len(ex.errors),
                ex.response is None and self.store.display_status,  # "waiting" holds only while live
                self.expanded,
                self.raw,
                self.search_text,
                self.whole,
            )
            blocks.append(Block(cache_key, partial(self._counted, cache_key, ex), DIM if dim else None))
        for index in step.pauses:  # a few lifecycle events at most: the rulings among them are shown
            event = self.store.load(index)
            if event.phase == EventKind.LIFECYCLE_DECISION:
                ruling = LifecycleDecision.read(event.payload).summary()
                blocks.append(Block(("ruling", index), inert("⚖ " + ruling, "bold")))
        return Blocks(blocks)

    def _counted(self, key: Hashable, ex: Exchange) -> RenderableType:
        """Build an exchange's block, counting the search highlights it carries (kept per block:
        a block whose lines are cached is not built again, its count is still known)."""
        self._counting = 0
        built = self._render_exchange(ex)
        self._hits[key] = self._counting
        return built

    def highlight_count(self) -> int:
        """How many places the pane highlights for the search now (its subtitle says the same)."""
        if not self.search_text:
            return 0
        # The blocks on show (render_step also runs for steps prepared ahead: not those).
        return sum(self._hits.get(block.key, 0) for block in self.blocks() if block.key is not None)

    def _mark(self, text: Text) -> Text:
        if self.search_text:
            self._counting += text.highlight_words([self.search_text], style="reverse", case_sensitive=False)
        return text

    def _block(self, label: str, body: str, tone: str | None, dim: bool, body_style: str = "") -> list[Text]:
        """``label  body``: the label small and in its tone, the body in the normal weight and
        colour (colour marks who wrote it, not whole blocks of text), folded unless expanded."""
        shown, note = fold(body, self.expanded)
        head = Text()
        head.append_text(inert(label, style=self.tone(tone) if tone else DIM))
        head.append("  ")
        head.append_text(self._mark(inert(shown, body_style)))
        out = [head]
        if note:
            out.append(Text(note, style="dim italic"))
        if dim:
            for line in out:
                line.stylize("dim")
        return out

    def _title(self, ex: Exchange, dim: bool, receipt: Receipt | None) -> Text:
        """The exchange's title line; exchanges left out of the selected request say so, dimmed.
        Ids in their short form (the raw view and the export have them whole)."""
        run_id = self.store.run_id
        title = inert(f"── #{ex.number} {short_id(ex.exchange_id, run_id)} · step {ex.step}", style="bold")
        if ex.tokens:
            title.append(f" · {ex.tokens} tokens", style="dim")
        if dim:
            title.stylize("dim")
            title.append(" · omitted from this request", style="dim italic")
            if receipt is HISTORY_POLICY:
                title.append(" (history policy)", style="dim italic")
            elif receipt:
                title.append_text(
                    inert(
                        f" (receipt {short_id(receipt.receipt_id, run_id)} by {receipt.policy_id})",
                        "dim italic",
                    )
                )
        return title

    def _render_exchange(self, ex: Exchange) -> RenderableType:
        """The exchange's messages, answer, tool calls and results (undimmed; see render_step)."""
        dim = False
        lines: list[RenderableType] = []
        indices = [*(i for i in (ex.request, ex.response) if i is not None), *ex.tool_calls, *ex.tool_results]
        if self.raw:
            for i in sorted(indices):
                lines.extend(self._block("event", as_text(self.store.load(i).to_dict()), "event", dim))
            return Group(*lines)
        if ex.request is not None:
            lines.extend(self._request_lines(ex, message_diff(self.store, ex)))
        if ex.response is not None:
            response = ModelResponse.read(self.store.load(ex.response).payload)
            reply = understood(response.text, response.tool_calls)
            if reply is None:  # no parser reads it: the text as it is
                lines.extend(self._block("assistant", response.text, "assistant", dim))
            else:
                lines.extend(self._reply_lines(reply))
            if response.usage.figures:
                figures = ", ".join(f"{k} {v}" for k, v in response.usage.figures)
                # The Engine estimated these (the model reported none): say so, never pass them off.
                label = "usage (estimated)" if response.usage.estimated else "usage"
                lines.append(inert(f"  {label}: {figures}", style="dim"))
        for i in ex.errors:
            # Each failed attempt where it happened: kind, attempt n of m, latency, retrying or not.
            lines.append(inert("✗ " + error_line(self.store.load(i).payload), style=self.tone("bad", BOLD)))
        if ex.request is not None and ex.response is None and not ex.errors:
            live = self.store.display_status in ("live", "paused")
            note = "… waiting for the model's answer" if live else "no answer was recorded"
            lines.append(Text(note, style="dim italic"))
        for i in ex.tool_results:
            lines.extend(self._tool_result(payload_of(self.store.load(i)), dim))
        return Group(*lines)

    def _reply_lines(self, reply: Reply) -> list[RenderableType]:
        """A reply a parser understood: its thought, each action with one argument per line (text
        blocks for long strings, highlighted by the named file's extension), or its final answer."""
        lines: list[RenderableType] = []
        if reply.thought:
            lines.extend(self._block("assistant", reply.thought, "assistant", False))
        else:
            lines.append(Text("assistant", style=self.tone("assistant")))
        for name, args in reply.actions:
            head = Text("  → ", style="dim")
            head.append_text(self._mark(inert(name, self.tone("tool", BOLD))))
            lines.append(head)
            items = list(args.items()) if isinstance(args, dict) else [("args", args)]
            width = max((len(key) for key, _ in items), default=0)
            # Looked up only when there is code to show: Pygments is not loaded for a path alone.
            code_shown = any(is_block(value) and key != "path" for key, value in items)
            lexer = lexer_name(args) if code_shown else None
            for key, value in items:
                line = inert(f"    {key:<{width}}  ", "dim")
                if is_block(value):
                    shown, note = fold(value, self.expanded)
                    line.append(f"{line_count(value)} lines, {len(value)} chars", style="dim italic")
                    lines.append(line)
                    code = self._mark(code_text(shown, lexer if key not in ("path",) else None, self.tone))
                    lines.append(Padding(code, (0, 0, 0, 6)))
                    if note:
                        lines.append(Text(f"      {note}", style="dim italic"))
                else:
                    line.append_text(self._mark(inert(value_text(value))))
                    lines.append(line)
        if reply.final_answer is not None:
            lines.extend(self._block("final answer", reply.final_answer, "good", False))
        return lines

    def _request_lines(self, ex: Exchange, diff: MessageDiff | None) -> list[Text]:
        """The request's messages: what changed since the previous request (added, then removed and
        what removed them), or the whole request with the added ones marked ``new since #N``."""
        messages = self._messages(ex.request) if ex.request is not None else ()
        if diff is None:  # the first request: everything in it is new
            lines: list[Text] = []
            for msg in messages:
                lines.extend(self._block(msg.role, message_text(msg), ROLE_TONES.get(msg.role), False))
            return lines
        added = diff.added_keys
        tag = f" · new since #{diff.previous_number}"
        lines = []
        for msg in messages:
            key = message_key(msg)
            if key not in added and not self.whole:
                continue
            label = msg.role + (tag if key in added else "")
            lines.extend(self._block(label, message_text(msg), ROLE_TONES.get(msg.role), False))
        if not self.whole:
            if not diff.added:
                lines.append(Text(f"  no message added since #{diff.previous_number}", style="dim italic"))
            for msg in diff.removed:
                # What the request lost: the label says so in its tone, the text dimmed.
                lines.extend(self._block(f"− removed {msg.role}", message_text(msg), "bad", False, "dim"))
            if diff.removed:
                cause = short_id(diff.removal_cause, self.store.run_id)
                lines.append(inert(f"  removed by: {cause}", style=self.tone("bad", ITALIC)))
        return lines

    def _messages(self, index: int) -> tuple[Message, ...]:
        """The messages of the request event at ``index`` (upstream's prepared text as one)."""
        return ModelRequest.read(self.store.load(index).payload).conversation

    def _tool_result(self, p: dict[str, Any], dim: bool) -> list[Text]:
        if "action_results" in p:  # upstream ACT/action_results
            out: list[Text] = []
            for inv in action_results(p, paired=True):
                label = f"tool {inv.tool_name} {inv.status or ''}"
                out.extend(self._block(label, as_text(inv.output), "tool", dim))
            return out
        result = ToolResult.read(p)
        label = f"tool {result.tool or '?'} {'ok' if result.ok else 'failed'}"
        facts = [attempt_text(result.attempts, result.max_attempts), latency_text(result.latency_ms)]
        if not result.ok or (result.attempts or 0) > 1:  # said when something went wrong on the way
            label += "".join(f" · {f}" for f in facts if f)
        body = result.result if result.ok else result.error
        return self._block(label, as_text(body), "tool" if result.ok else "bad", dim)
