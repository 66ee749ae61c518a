"""A small picker dialog: `/model` alone (the models the keys and servers reach) and
`/resume` alone (this project's other sessions).

Keys: typing filters the list (Backspace undoes), Up/Down move, Enter picks the
highlighted row, Esc closes. The filter field holds the focus, so every printable key
lands somewhere visible instead of being swallowed by the list.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from codebot.display import strip_escapes


def filter_choices(choices: list[tuple[str, str]], query: str) -> list[tuple[str, str]]:
    """The choices whose value or label holds every word of `query` (any case)."""
    words = query.casefold().split()
    return [
        (value, label)
        for value, label in choices
        if all(w in f"{value} {label}".casefold() for w in words)
    ]


class Picker(ModalScreen[str | None]):
    DEFAULT_CSS = """
    Picker { align: center middle; }
    Picker > Vertical {
        width: 70; max-width: 90%; height: auto;
        border: tall $accent; background: $panel; padding: 0 1;
    }
    Picker > Vertical > Input { height: 3; }
    Picker > Vertical > OptionList { height: auto; min-height: 3; max-height: 14; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "close"),
        # priority: the filter field has the focus, the list still moves
        Binding("up", "move(-1)", "up", show=False, priority=True),
        Binding("down", "move(1)", "down", show=False, priority=True),
        Binding("pageup", "move(-10)", "page up", show=False, priority=True),
        Binding("pagedown", "move(10)", "page down", show=False, priority=True),
    ]

    def __init__(self, title: str, choices: list[tuple[str, str]], current: str = "") -> None:
        """`choices`: (value, label) pairs; `current` is highlighted and marked."""
        super().__init__()
        self.title_text = title
        self.current = current
        self.choices = choices
        self.shown: list[tuple[str, str]] = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            # Text, not markup: labels quote a session's first prompt and model names
            # (brackets in them would be read as markup, or fail as bad markup)
            hint = " · type to filter · ↑↓ move · Enter picks · Esc closes"
            yield Static(Text(strip_escapes(self.title_text) + hint))
            yield Input(placeholder="filter…", id="picker-filter")
            yield OptionList(*self._options(self.choices))

    def _options(self, choices: list[tuple[str, str]]) -> list[Option]:
        return [
            Option(
                Text(strip_escapes(label) + ("  (current)" if value == self.current else "")),
                id=value,
            )
            for value, label in choices
        ]

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [v for v, _ in self.choices]
        options.highlighted = values.index(self.current) if self.current in values else 0
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.shown = filter_choices(self.choices, event.value)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(self.shown))
        if self.shown:
            values = [v for v, _ in self.shown]
            options.highlighted = values.index(self.current) if self.current in values else 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is not None and 0 <= index < options.option_count:
            self.dismiss(options.get_option_at_index(index).id)
        # nothing matches the filter: Enter does nothing (Esc closes, Backspace widens)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not options.option_count:
            return
        now = options.highlighted if options.highlighted is not None else 0
        options.highlighted = max(0, min(options.option_count - 1, now + step))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
