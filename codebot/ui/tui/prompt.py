"""The prompt: a multi-line TextArea with history and a completion dropdown.

Enter sends; Shift+Enter or Ctrl+J adds a line; Up/Down walk the history from the first
or last line; `/` and `@` open the dropdown, where Tab (or Enter) accepts and Escape
closes. Sending is a message to the app: the prompt itself runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from codebot.skills.prompt import truncate
from codebot.ui.tui.completer import Completer, Item, Suggestions
from codebot.ui.tui.history import History

PLACEHOLDER = (
    "Ask, or type / for commands and skills, @ for files · Enter sends · Shift+Enter new line"
)


class CompletionMenu(OptionList):
    """The dropdown. Never focused: keys stay in the prompt, which drives it."""

    can_focus = False
    DEFAULT_CSS = """
    CompletionMenu {
        height: auto; max-height: 12; display: none; border: tall $accent; margin: 0 1;
    }
    CompletionMenu.-open { display: block; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.suggestions: Suggestions | None = None

    def open(self, suggestions: Suggestions) -> None:
        self.suggestions = suggestions
        width = max(len(i.label) for i in suggestions.items) + 2
        room = max(40, self.app.size.width - 8)  # one line per item: cut the description
        self.clear_options()
        self.add_options(
            [Option(_row(item, width, room), id=str(n)) for n, item in enumerate(suggestions.items)]
        )
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        self.suggestions = None
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.suggestions is not None

    @property
    def current(self) -> Item | None:
        if self.suggestions is None or self.highlighted is None:
            return None
        return self.suggestions.items[self.highlighted]

    def move(self, step: int) -> None:
        if self.suggestions is None:
            return
        n = len(self.suggestions.items)
        self.highlighted = ((self.highlighted or 0) + step) % n


def _row(item: Item, width: int, room: int) -> Text:
    text = Text.assemble((item.label.ljust(width), "bold"))
    if item.hint:
        text.append(item.hint + "  ", style="italic")
    tag = f"  [{item.tag}]" if item.tag else ""
    if item.description:
        text.append(
            truncate(item.description, max(10, room - text.cell_len - len(tag))), style="dim"
        )
    text.append(tag, style="dim italic")
    return text


class PromptArea(TextArea):
    DEFAULT_CSS = """
    PromptArea {
        height: auto; min-height: 3; max-height: 12; border: tall $primary-darken-2; margin: 0 1;
    }
    PromptArea:focus { border: tall $primary; }
    """

    @dataclass
    class Submitted(Message):
        text: str

    def __init__(
        self, completer: Completer, history: History, menu: CompletionMenu, **kwargs
    ) -> None:
        super().__init__(
            placeholder=PLACEHOLDER,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            highlight_cursor_line=False,
            **kwargs,
        )
        self.completer = completer
        self.prompt_history = history
        self.menu = menu
        self._quiet = False  # the next Changed came from history or accept: no dropdown

    # -- keys ------------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        if self._use_key(event.key):
            event.stop()
            event.prevent_default()

    def _use_key(self, key: str) -> bool:
        """Do what `key` means here; False leaves it to the TextArea (typing, moving)."""
        if self.menu.is_open and key in ("enter", "tab"):
            self.refresh_menu()  # the dropdown may lag the text by one message
        if key == "enter":
            self._enter()
        elif key in ("shift+enter", "ctrl+j"):
            self.menu.close()
            self.insert("\n")
        elif key == "tab":
            if self.menu.is_open:
                self.accept()
            else:
                self.refresh_menu()
        elif self.menu.is_open:
            return self._menu_key(key)
        else:
            return self._history_key(key)
        return True

    def _enter(self) -> None:
        if self.menu.is_open and not self._typed_exactly():
            self.accept()
        else:
            self.menu.close()
            if self.text.strip():
                self.post_message(self.Submitted(self.text))

    def _menu_key(self, key: str) -> bool:
        """The open dropdown's keys: Escape closes it, Up and Down move in it."""
        if key == "escape":
            self.menu.close()
        elif key in ("up", "down"):
            self.menu.move(-1 if key == "up" else 1)
        else:
            return False
        return True

    def _history_key(self, key: str) -> bool:
        """Up on the first line and Down on the last walk the history."""
        if key == "up" and self.cursor_location[0] == 0:
            self._recall(self.prompt_history.older(self.text))
        elif key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            self._recall(self.prompt_history.newer())
        else:
            return False
        return True

    def _typed_exactly(self) -> bool:
        item = self.menu.current
        return item is not None and self.text.strip() == item.insert.strip()

    def _recall(self, text: str | None) -> None:
        if text is None:
            return
        self._quiet = True
        self.load_text(text)
        self.move_cursor(self.document.end)

    # -- completion ------------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is not self:
            return
        if self._quiet:
            self._quiet = False
            self.menu.close()
            return
        self.refresh_menu()

    def refresh_menu(self) -> None:
        suggestions = self.completer.suggest(self.text, self.cursor_location)
        if suggestions is None:
            self.menu.close()
        else:
            self.menu.open(suggestions)

    def accept(self, index: int | None = None) -> None:
        """Put the highlighted (or `index`) item in place of what it completes."""
        s = self.menu.suggestions
        if s is None:
            return
        item = s.items[index] if index is not None else self.menu.current
        self.menu.close()
        if item is None:
            return
        self._quiet = True
        result = self.replace(item.insert, s.start, s.end)
        self.move_cursor(result.end_location)

    def take(self) -> str:
        """The text to send, clearing the prompt and remembering it in the history."""
        text = self.text
        self.prompt_history.append(text)
        self._quiet = True
        self.clear()
        self.menu.close()
        return text
