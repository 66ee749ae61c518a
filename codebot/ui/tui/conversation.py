"""The conversation view: renders the session's typed events, nothing more.

One `Markdown` widget per assistant response, written through a `MarkdownStream` so a
long streamed answer is appended in batches instead of re-rendered per token.

A tool call that runs for a while (or prints while it runs: `ToolOutput` from Bash)
shows `running… 4s` and the last `LIVE_LINES` lines of its output under its head; when it
finishes, that gives way to the usual collapsed result. The seconds move with `tick()`,
which the turn's ticker calls (turns.py), on the app's clock (stopped in snapshot tests).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from codebot.agent.session import events as ev
from codebot.display import strip_escapes, visible
from codebot.ui.activation import ended_line, outcome_words
from codebot.ui.change_diff import change_diff
from codebot.ui.tui.describe import error_line, skill_line, tool_args, tool_status

if TYPE_CHECKING:  # the Markdown widget (markdown-it) loads after the first paint
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

RESULT_MAX_CHARS = 20_000  # a huge tool result is cut for display (the model saw it all)
LIVE_LINES = 5  # lines of a running tool's output shown while it runs
LIVE_AFTER_S = 1.0  # a silent tool says it is running once it has taken this long


def live_text(elapsed: float, lines: Iterable[str]) -> Text:
    """`running… 3s` and the output's last lines (each cut to one row by the CSS, with `…`)."""
    text = Text(f"running… {int(elapsed)}s", style="italic")
    for line in lines:
        text.append("\n")
        text.append(line.expandtabs(4))
    return text


class ToolCall(Vertical):
    """A tool call: its name and arguments, then its result, collapsed."""

    DEFAULT_CSS = """
    ToolCall { height: auto; margin: 0 0 0 2; }
    ToolCall > .tool-head { color: $text-muted; }
    ToolCall Collapsible { border: none; padding: 0; margin: 0 0 0 2; }
    ToolCall Collapsible > Contents { padding: 0 0 0 2; }
    ToolCall.-error .tool-head, ToolCall.-denied .tool-head { color: $warning; }
    ToolCall > .tool-live { color: $text-muted; margin: 0 0 0 2; display: none;
                            text-wrap: nowrap; text-overflow: ellipsis; }
    ToolCall > .tool-live.-shown { display: block; }
    """

    def __init__(self, event: ev.ToolStarted, started: float = 0.0) -> None:
        super().__init__(classes="nested" if event.depth else "")
        self.event = event
        self.started = started  # on the app's clock
        self.running = True
        self.tail: deque[str] = deque(maxlen=LIVE_LINES)
        self._live = Static("", classes="tool-live")
        self._shown_live = ""

    def compose(self):
        e = self.event
        head = Text.assemble(
            ("↳ " if e.depth else "⚙ ", "bold"),
            (e.name, "bold"),
            "  ",
            tool_args(e.name, e.arguments),
        )
        yield Static(head, classes="tool-head")
        yield self._live

    def output(self, text: str, now: float) -> None:
        """Lines the running tool printed (already display-safe; stripped again all the same)."""
        if self.running:
            self.tail.extend(strip_escapes(line) for line in text.split("\n"))
            self.tick(now)

    def tick(self, now: float) -> None:
        """Redraw the running line when what it says changed (the seconds, the lines)."""
        elapsed = max(0.0, now - self.started)
        if not self.running or (not self.tail and elapsed < LIVE_AFTER_S):
            return
        text = live_text(elapsed, self.tail)
        if text.plain != self._shown_live:
            self._shown_live = text.plain
            self._live.update(text)
            self._live.add_class("-shown")

    def stop(self) -> None:
        """No result will come (the turn was cancelled or failed): the running line goes."""
        self.running = False
        self._live.remove_class("-shown")

    async def finish(self, event: ev.ToolFinished) -> None:
        self.stop()
        self.add_class(f"-{event.status}")
        content = event.content
        if len(content) > RESULT_MAX_CHARS:
            content = (
                content[:RESULT_MAX_CHARS]
                + f"\n[... {len(event.content) - RESULT_MAX_CHARS} more characters]"
            )
        short = event.status != "ok" and content.count("\n") < 3
        body = Static(Text(content or "(no output)"), classes="tool-result")
        diff = change_diff(event.name, event.status, content)
        if diff:  # what an Edit or Write changed: shown open, as a coloured diff
            from rich.syntax import Syntax

            head = visible(content.split("\n", 1)[0])
            body = Static(
                Syntax(
                    f"{head}\n{diff}",
                    "diff",
                    word_wrap=True,
                    theme="ansi_dark",
                    background_color="default",
                ),
                classes="tool-result",
            )
            short = True
        box = Collapsible(body, title=f"result · {tool_status(event)}", collapsed=not short)
        await self.mount(box)
        # A click toggles it without taking the focus from the prompt (typing goes on there);
        # Ctrl+O does the same from the keyboard.
        for title in box.query(CollapsibleTitle):
            title.can_focus = False


class Conversation(VerticalScroll):
    # Never focused: a click in the conversation (a result to expand, text to look at)
    # leaves the keys with the prompt. PageUp/PageDown scroll it from there (app bindings).
    can_focus = False
    DEFAULT_CSS = """
    Conversation { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    Conversation > .user { margin: 1 0 0 0; padding: 0 1; background: $boost; color: $text; }
    Conversation > .notice { color: $text-muted; margin: 1 0 0 0; }
    Conversation > .warning { color: $warning; margin: 1 0 0 0; }
    Conversation > .error { color: $error; margin: 1 0 0 0; }
    Conversation > .skill { color: $accent; margin: 1 0 0 0; }
    Conversation > .skill.nested { margin: 0 0 0 2; }
    Conversation > Markdown { margin: 1 0 0 0; padding: 0; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._md: Markdown | None = None
        self._stream: MarkdownStream | None = None
        self._tools: dict[str, ToolCall] = {}
        #: Each running skill's row and its text, until its outcome is put on it.
        self._skill_rows: dict[str, tuple[Static, str]] = {}
        self._content_height = 0  # the content's height when last seen (watch_virtual_size)

    def now(self) -> float:
        """The app's clock (`clock` on the app; snapshot tests stop it), else monotonic."""
        clock = getattr(self.app, "clock", None)
        now = clock() if callable(clock) else None
        return float(now) if isinstance(now, int | float) else time.monotonic()

    def tick(self) -> None:
        """Move the seconds of the tools that are running (called by the turn's ticker)."""
        if self._tools:
            now = self.now()
            for view in self._tools.values():
                view.tick(now)

    def mount(self, *widgets, **kwargs):
        self.call_after_refresh(self._follow)
        return super().mount(*widgets, **kwargs)

    def _follow(self) -> None:
        # Anchor (stay at the bottom while content grows, until the person scrolls up) only
        # once the content overflows: an anchored view bottom-aligns short content.
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    def watch_virtual_size(self) -> None:
        """The content's height changed. A check after a mount can run before the layout
        that makes the content overflow (a loaded machine, a Markdown block appended by its
        stream task): this one runs when it does, so the first overflow always anchors. Not
        before the view knows the height it shows (then everything "overflows" it)."""
        height = self.virtual_size.height
        grew, self._content_height = height > self._content_height, height
        if grew and self.container_size.height > 0:  # more to show, not a smaller view
            self._follow()

    async def show(self, event: object) -> None:
        """Render one session event (events from sub-agents show their tools and skills only)."""
        for kind, shows in _SHOWN:
            if isinstance(event, kind):
                await shows(self, event)
                return

    async def _text_delta(self, event: ev.TextDelta) -> None:
        if event.depth == 0:
            await self.stream(event.text)

    async def _assistant_text(self, event: ev.AssistantText) -> None:
        if event.depth == 0:
            await self.end_stream(event.text)

    async def _tool_started(self, event: ev.ToolStarted) -> None:
        await self.end_stream()
        view = ToolCall(event, self.now())
        self._tools[event.call_id] = view
        await self.mount(view)

    async def _tool_output(self, event: ev.ToolOutput) -> None:
        view = self._tools.get(event.call_id)
        if view is not None:
            view.output(event.text, self.now())
            if not self.is_anchored:
                self.call_after_refresh(self._follow)

    async def _tool_finished(self, event: ev.ToolFinished) -> None:
        view = self._tools.pop(event.call_id, None)
        if view is not None:
            await view.finish(event)

    async def _skill_activated(self, event: ev.SkillActivated) -> None:
        await self.end_stream()
        text = ("↳ " if event.depth else "◆ ") + skill_line(event)
        row = Static(Text(text), classes="skill nested" if event.depth else "skill")
        self._skill_rows[event.name] = (row, text)
        await self.mount(row)

    async def _skill_ended(self, event: ev.SkillEnded) -> None:
        """The outcome goes on the skill's row (`◆ skill x · fork → success: …`)."""
        row = self._skill_rows.pop(event.name, None)
        if row is None:
            await self.add_line(("↳ " if event.depth else "◆ ") + ended_line(event), "skill")
            return
        widget, text = row
        widget.update(Text(f"{text} → {outcome_words(event)}"))
        if event.status != "success":
            widget.add_class("warning" if event.status != "failed" else "error")

    async def _notice(self, event: ev.Notice) -> None:
        await self.add_line(event.text, "warning" if event.level == "warning" else "notice")

    async def _error(self, event: ev.ErrorEvent) -> None:
        await self.end_stream()
        await self.add_line("✗ " + error_line(event), "error")

    async def _turn_ended(self, event: ev.TurnEnded) -> None:
        await self.end_stream()
        for view in self._tools.values():  # cancelled or failed while running: no result comes
            view.stop()
        self._tools.clear()
        if event.cancelled:
            await self.add_line("cancelled", "warning")

    def toggle_latest_result(self) -> bool:
        """Expand or collapse the newest tool result; False when there is none."""
        boxes = list(self.query(Collapsible))
        if not boxes:
            return False
        boxes[-1].collapsed = not boxes[-1].collapsed
        if not boxes[-1].collapsed:
            self.call_after_refresh(boxes[-1].scroll_visible)
        return True

    async def add_user(self, text: str) -> None:
        await self.end_stream()
        await self.mount(Static(Text("› " + text), classes="user"))

    async def add_line(self, text: str, classes: str = "notice") -> None:
        await self.mount(Static(Text(text), classes=classes))

    async def add_markdown(self, text: str) -> None:
        from textual.widgets import Markdown

        await self.mount(Markdown(text))

    async def stream(self, text: str) -> None:
        from textual.widgets import Markdown

        if self._stream is None:
            self._md = Markdown()
            await self.mount(self._md)
            self._stream = Markdown.get_stream(self._md)
        await self._stream.write(text)
        if not self.is_anchored:
            self.call_after_refresh(self._follow)

    async def end_stream(self, full_text: str | None = None) -> None:
        """Finish the response being streamed; with no stream, show `full_text` whole."""
        if self._stream is not None:
            stream, self._stream, self._md = self._stream, None, None
            await stream.stop()
        elif full_text:
            await self.add_markdown(full_text)

    async def clear(self) -> None:
        await self.end_stream()
        self._tools.clear()
        await self.remove_children()
        self.anchor(False)


#: How `Conversation.show` draws each kind of event, tried in order (the first that fits).
_SHOWN: tuple[tuple[type, Callable[[Conversation, Any], Awaitable[None]]], ...] = (
    (ev.TextDelta, Conversation._text_delta),
    (ev.AssistantText, Conversation._assistant_text),
    (ev.ToolStarted, Conversation._tool_started),
    (ev.ToolOutput, Conversation._tool_output),
    (ev.ToolFinished, Conversation._tool_finished),
    (ev.SkillActivated, Conversation._skill_activated),
    (ev.SkillEnded, Conversation._skill_ended),
    (ev.Notice, Conversation._notice),
    (ev.ErrorEvent, Conversation._error),
    (ev.TurnEnded, Conversation._turn_ended),
)
