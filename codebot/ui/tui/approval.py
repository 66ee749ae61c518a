"""The approval dialog: the exact command or diff, what "always" would save, and the answers.

Keys: `y` allow once, `a` allow for this session, `A` (or `!`) always allow (only when
offered: the line above the buttons names the rule and the file), `n` / Escape deny,
`r` deny and say why (a one-line input: Enter sends, Escape goes back to the buttons).

Nothing is approved unseen. A command is shown as `command_lines` shows it (runs of blank
lines as one `⏎ ×N` line) and the title holds its counts (`Run this command? (122 lines,
120 of them empty)`). The dialog grows with what it shows, up to the screen. When that
still does not fit, a line under it says `lines 1-20 of 80 · PgDn / ↓ / End: read to the
end to allow`, and the allowing answers (`y`, `a`, `A`, their buttons) are refused until
the end has been on screen once. Denying is always possible.
"""

from __future__ import annotations

from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from codebot.agent.permissions import (
    REASON_MAX_CHARS,
    ApprovalAnswer,
    ApprovalRequest,
    clean_reason,
)
from codebot.display import command_lines, has_hidden, visible
from codebot.skills.catalog.lookalike import lookalike_note
from codebot.ui.approval_reason import always_line, command_question, why_asked

TITLES = {
    "Bash": "Run this command?",
    "Write": "Write this file?",
    "Edit": "Make this edit?",
    "SkillOutcome": "A skill asks: go ahead? (Allow = yes; Deny, say why = your answer)",
}


ALLOWING = ("allow_once", "allow_session", "allow_always")
#: Rows of the dialog around the scrolled text (border, title, buttons...) until measured.
_CHROME = 12


class _Shown(VerticalScroll):
    """The scrolled text: tells its dialog when its size changes (the end may be in view)."""

    def on_resize(self) -> None:
        if isinstance(self.screen, ApprovalScreen):
            self.screen.seen()


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    ApprovalScreen .title { text-style: bold; margin: 0 0 1 0; }
    ApprovalScreen VerticalScroll { height: auto; max-height: 24; background: $boost; }
    ApprovalScreen #position { display: none; color: $warning; text-style: bold; }
    ApprovalScreen.-long #position { display: block; }
    ApprovalScreen .always { color: $text-muted; margin: 1 0 0 0; }
    ApprovalScreen Horizontal { height: auto; margin: 1 0 0 0; }
    ApprovalScreen Button { margin: 0 1 0 0; min-width: 10; }
    ApprovalScreen #reason { display: none; margin: 1 0 0 0; }
    ApprovalScreen.-reason #reason { display: block; }
    ApprovalScreen.-reason Horizontal { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('allow_once')", "allow once"),
        Binding("a", "answer('allow_session')", "allow for the session"),
        Binding("A,shift+a", "answer('allow_always')", "always allow"),
        Binding("exclamation_mark", "answer('allow_always')", "always allow", show=False),
        Binding("n", "answer('deny')", "deny"),
        Binding("r", "reason", "deny and say why"),
        Binding("escape", "escape", "deny", show=False),
        Binding("pagedown", "scroll('page_down')", "read on", show=False),
        Binding("pageup", "scroll('page_up')", "back", show=False),
        Binding("down", "scroll('down')", "read on", show=False),
        Binding("up", "scroll('up')", "back", show=False),
        Binding("end", "scroll('end')", "to the end", show=False),
        Binding("home", "scroll('home')", "to the start", show=False),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        #: The person has had the end of the text on screen (or it all fits): allowing works.
        self.seen_end = False

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="dialog"):
            yield Static(
                command_question(r) or TITLES.get(r.tool, f"Allow this {r.tool} call?"),
                classes="title",
            )
            with _Shown(id="shown"):
                yield Static(_preview(r))
            yield Static("", id="position")
            always = always_line(r)
            if always:
                yield Static(Text(always), classes="always")
            with Horizontal():
                yield Button("Allow once (y)", id="allow_once", variant="success")
                yield Button("This session (a)", id="allow_session", variant="primary")
                if r.always:
                    yield Button("Always (A)", id="allow_always", variant="warning")
                yield Button("Deny (n)", id="deny", variant="error")
                if r.takes_reason:
                    yield Button("Deny, say why (r)", id="reason_button", variant="error")
            yield Input(
                placeholder="Why not? The model is told. Enter sends · Esc goes back",
                max_length=REASON_MAX_CHARS,
                id="reason",
            )

    def on_mount(self) -> None:
        self.query_one("#allow_once", Button).focus()
        shown = self.query_one("#shown", VerticalScroll)
        shown.styles.max_height = max(3, self.app.size.height - _CHROME)  # until measured
        self.watch(shown, "scroll_y", self._scrolled, init=False)
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _scrolled(self, _old: float, _new: float) -> None:
        self.seen()

    def _fit(self) -> None:
        """Let the text grow up to the screen, less what stands around it; then check the end."""
        dialog, shown = self.query_one("#dialog"), self.query_one("#shown", VerticalScroll)
        around = [c for c in dialog.children if c is not shown and c.display]
        chrome = dialog.styles.gutter.height + sum(
            c.outer_size.height + c.styles.margin.height for c in around
        )
        wanted = max(3, self.size.height - chrome)
        if shown.styles.max_height is None or shown.styles.max_height.value != wanted:
            shown.styles.max_height = wanted
        self.seen()

    def seen(self) -> bool:
        """Whether the end of the text has been on screen; keeps the line under it and
        the allowing buttons up to date. False until the dialog has been laid out."""
        shown = self.query_one("#shown", VerticalScroll)
        rows, height = shown.virtual_size.height, shown.scrollable_content_region.height
        if (
            height <= 0
            or rows <= 0
            or shown.region.bottom > self.query_one("#dialog").content_region.bottom
        ):
            return self.seen_end  # not laid out yet, or cut off by the screen: not seen
        top = round(shown.scroll_y)
        self.seen_end = self.seen_end or top + height >= rows
        long = rows > height
        if long != self.has_class("-long"):  # the line under the text comes or goes: fit again
            self.set_class(long, "-long")
            self.call_after_refresh(self._fit)
        if long:
            where = f"lines {top + 1}-{min(top + height, rows)} of {rows}"
            more = (
                "seen to the end" if self.seen_end else "PgDn / ↓ / End: read to the end to allow"
            )
            self.query_one("#position", Static).update(f"{where} · {more}")
        for button in self.query(Button):
            if button.id in ALLOWING:
                button.disabled = not self.seen_end
        if not self.seen_end and self.focused is not None and self.focused.id in ALLOWING:
            shown.focus()
        return self.seen_end

    def action_scroll(self, where: str) -> None:
        if self.has_class("-reason"):
            return
        shown = self.query_one("#shown", VerticalScroll)
        {
            "page_down": shown.scroll_page_down,
            "page_up": shown.scroll_page_up,
            "down": shown.scroll_down,
            "up": shown.scroll_up,
            "end": shown.scroll_end,
            "home": shown.scroll_home,
        }[where](animate=False)
        self.seen()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reason_button":
            self.action_reason()
        else:
            self.action_answer(event.button.id or "deny")

    def action_answer(self, value: str) -> None:
        answer = ApprovalAnswer(value)
        if answer is not ApprovalAnswer.DENY and not self.seen():
            self.notify(
                "Read the whole text first: PgDn / ↓ / End scroll to its end (n or Esc denies)",
                severity="warning",
            )
            return
        if answer is ApprovalAnswer.ALLOW_ALWAYS and not self.request.always:
            why = self.request.always_unavailable or "no rule fits"
            self.notify(
                f"Always allow is not offered here: {why}",
                severity="warning",
            )
            return
        self.dismiss(answer)

    def action_reason(self) -> None:
        if not self.request.takes_reason:
            return
        self.add_class("-reason")
        self.query_one("#reason", Input).focus()

    def action_escape(self) -> None:
        if self.has_class("-reason"):  # back to the buttons; nothing is answered yet
            self.remove_class("-reason")
            self.query_one("#allow_once", Button).focus()
            return
        self.action_answer("deny")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.request.denial = clean_reason(event.value)
        self.dismiss(ApprovalAnswer.DENY)


def _preview(r: ApprovalRequest):
    # The whole text, with control, invisible and bidirectional characters as visible
    # escapes: what the person approves must be exactly what runs. A command is shown as
    # `command_lines` shows it (its preview is the command itself).
    raw = r.preview or r.subject or "(nothing to show)"
    text = (command_lines(r.subject).text or raw) if r.tool == "Bash" else visible(raw)
    notes = []
    if has_hidden(r.subject if r.tool == "Bash" else raw):
        notes.append("[it contains hidden or control characters, shown as \\x.. / \\u.... escapes]")
    if r.tool == "SkillOutcome" and (said := lookalike_note(raw)):  # a skill's question
        notes.append(f"[look-alike characters: {visible(said)}]")
    if r.outside_sandbox is not None:
        notes.append(f"failed inside the sandbox: {visible(r.outside_sandbox)}")
    why = why_asked(r.reason)
    if why:
        notes.append(f"why: {visible(why)}")
    if notes:
        text = text + "\n\n" + "\n".join(notes)
    if r.tool == "Bash":
        return Syntax(text, "bash", word_wrap=True, theme="ansi_dark", background_color="default")
    if text.startswith(("---", "@@", "diff")):
        return Syntax(text, "diff", word_wrap=True, theme="ansi_dark", background_color="default")
    return Text(text)
