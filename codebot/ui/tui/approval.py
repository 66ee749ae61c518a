"""The approval dialog: the exact command or diff, what "always" would save, and the answers.

Keys: `y` allow once, `a` allow for this session, `A` (or `!`) always allow (only when
offered: the line above the buttons names the rule and the file), `n` / Escape deny,
`r` deny and say why (a one-line input: Enter sends, Escape goes back to the buttons).
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
from codebot.display import has_hidden, visible
from codebot.ui.approval_reason import always_line, why_asked

TITLES = {"Bash": "Run this command?", "Write": "Write this file?", "Edit": "Make this edit?"}


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    ApprovalScreen .title { text-style: bold; margin: 0 0 1 0; }
    ApprovalScreen VerticalScroll { height: auto; max-height: 24; background: $boost; }
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
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical():
            yield Static(TITLES.get(r.tool, f"Allow this {r.tool} call?"), classes="title")
            with VerticalScroll():
                yield Static(_preview(r))
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
            yield Input(placeholder="Why not? The model is told. Enter sends · Esc goes back",
                        max_length=REASON_MAX_CHARS, id="reason")  # fmt: skip

    def on_mount(self) -> None:
        self.query_one("#allow_once", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reason_button":
            self.action_reason()
        else:
            self.action_answer(event.button.id or "deny")

    def action_answer(self, value: str) -> None:
        answer = ApprovalAnswer(value)
        if answer is ApprovalAnswer.ALLOW_ALWAYS and not self.request.always:
            self.notify(f"Always allow is not offered here: {self.request.always_unavailable or 'no rule fits'}",
                        severity="warning")  # fmt: skip
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
    # escapes: what the person approves must be exactly what runs.
    raw = r.preview or r.subject or "(nothing to show)"
    text = visible(raw)
    notes = []
    if has_hidden(raw):
        notes.append("[it contains hidden or control characters, shown as \\x.. / \\u.... escapes]")
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
