"""The `/model` and `/resume` picker shows its labels as text: a session's first prompt
is whatever the person (or a pasted log) typed."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList

from codebot.ui.tui.picker import Picker


class _Host(App[None]):
    def __init__(self, picker: Picker) -> None:
        super().__init__()
        self.picker = picker
        self.picked: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.picker, self.picked.append)


async def test_brackets_and_escapes_in_labels_are_shown_as_text() -> None:
    picker = Picker(
        "Resume a session [/x]",
        [("s1", "fix [/oops] the [b]build"), ("s2", "paint \x1b[31mred\x1b[0m")],
        "s2",
    )
    app = _Host(picker)
    async with app.run_test() as pilot:
        await pilot.pause(0.1)
        options = picker.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown[0] == "fix [/oops] the [b]build"
        assert "\x1b" not in shown[1] and shown[1].endswith("(current)")
        await pilot.press("up", "enter")
        await pilot.pause(0.1)
    assert app.picked == ["s1"]
