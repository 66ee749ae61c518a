"""The plugin offer (`ui/plugin_prompt.py`) as a small screen before the main app starts,
like the trust question: y loads the project's plugin, n (or Esc) does not."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from codebot.ui.plugin_prompt import question

if TYPE_CHECKING:
    from codebot.skills.catalog.plugins import Plugin


class PluginApp(App[bool]):
    CSS = """
    Screen { align: center middle; }
    #box { width: 90; height: auto; border: round $accent; padding: 1 2; }
    #choices { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose(True)", "load"),
        Binding("n", "choose(False)", "do not load"),
        Binding("escape", "choose(False)", "do not load", show=False),
        Binding("ctrl+c", "choose(False)", "do not load", show=False),
    ]

    def __init__(self, plugin: Plugin) -> None:
        super().__init__()
        self.plugin = plugin

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static(Text("\n".join(question(self.plugin))))
            yield OptionList(
                Option(Text("[y] load it"), id="y"),
                Option(Text("[n] do not load it"), id="n"),
                id="choices",
            )

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        choices.highlighted = 1  # the default is no
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(event.option.id == "y")

    def action_choose(self, load: bool) -> None:
        self.exit(load)


def ask_tui(plugin: Plugin) -> bool:
    """Show the screen; True to load the plugin."""
    return bool(PluginApp(plugin).run())
