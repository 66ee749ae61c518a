"""A small picker dialog: `/model` alone (the models the keys and servers reach) and
`/resume` alone (this project's other sessions)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from codebot.display import strip_escapes


class Picker(ModalScreen[str | None]):
    DEFAULT_CSS = """
    Picker { align: center middle; }
    Picker > Vertical {
        width: 70; max-width: 90%; height: auto;
        border: tall $accent; background: $panel; padding: 0 1;
    }
    Picker OptionList { height: auto; max-height: 14; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "close")]

    def __init__(self, title: str, choices: list[tuple[str, str]], current: str = "") -> None:
        """`choices`: (value, label) pairs; `current` is highlighted and marked."""
        super().__init__()
        self.title_text = title
        self.current = current
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            # Text, not markup: labels quote a session's first prompt and model names
            # (brackets in them would be read as markup, or fail as bad markup)
            yield Static(Text(strip_escapes(f"{self.title_text} · Enter picks · Esc closes")))
            yield OptionList(
                *[
                    Option(
                        Text(
                            strip_escapes(label) + ("  (current)" if value == self.current else "")
                        ),
                        id=value,
                    )
                    for value, label in self.choices
                ]
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [v for v, _ in self.choices]
        options.highlighted = values.index(self.current) if self.current in values else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
