"""The approval dialog: the exact command or diff, and three answers."""

from __future__ import annotations

from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from codebot.agent.permissions import ApprovalAnswer, ApprovalRequest
from codebot.display import has_hidden, visible
from codebot.ui.approval_reason import why_asked

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
    ApprovalScreen Horizontal { height: auto; margin: 1 0 0 0; }
    ApprovalScreen Button { margin: 0 1 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('allow_once')", "allow once"),
        Binding("a", "answer('allow_session')", "allow for the session"),
        Binding("n", "answer('deny')", "deny"),
        Binding("escape", "answer('deny')", "deny", show=False),
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
            with Horizontal():
                yield Button("Allow once (y)", id="allow_once", variant="success")
                yield Button("Allow for this session (a)", id="allow_session", variant="primary")
                yield Button("Deny (n / Esc)", id="deny", variant="error")

    def on_mount(self) -> None:
        self.query_one("#allow_once", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "deny")

    def action_answer(self, value: str) -> None:
        self.dismiss(ApprovalAnswer(value))


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
