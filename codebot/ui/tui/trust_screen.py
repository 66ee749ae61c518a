"""The trust question as a full screen, before the main app starts.

A small app of its own: it runs only in an untrusted project, so the main app's first
paint is not slowed for everyone else. Keys: t trust, u continue untrusted, q quit;
arrows and Enter pick an option too.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from codebot.ui.trust_prompt import CHOICES, explanation


class TrustApp(App[str]):
    CSS = """
    Screen { align: center middle; }
    #box { width: 90; height: auto; border: round $warning; padding: 1 2; }
    #choices { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "choose('t')", "trust"),
        Binding("u", "choose('u')", "untrusted"),
        Binding("q", "choose('q')", "quit"),
        Binding("escape", "choose('q')", "quit", show=False),
        Binding("ctrl+c", "choose('q')", "quit", show=False),
    ]

    def __init__(self, project: Path) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("\n".join(explanation(self.project)), markup=False)
            # Text, not a markup string: "[t]" would be read as a style tag.
            yield OptionList(
                *(Option(Text(f"[{k}] {label}"), id=k) for k, label in CHOICES), id="choices"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(event.option.id or "q")

    def action_choose(self, key: str) -> None:
        self.exit(key)


def ask_tui(project: Path) -> str:
    """Show the screen; "t", "u" or "q"."""
    return TrustApp(project).run() or "q"
