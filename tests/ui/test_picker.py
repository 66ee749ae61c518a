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


async def test_typing_filters_backspace_widens_arrows_move_and_enter_picks() -> None:
    from textual.widgets import Input

    choices = [("gpt-4o", "gpt-4o"), ("gpt-4o-mini", "gpt-4o-mini"), ("offline", "offline")]
    picker = Picker("Model", choices, "gpt-4o")
    app = _Host(picker)
    async with app.run_test() as pilot:
        await pilot.pause(0.1)
        options = picker.query_one(OptionList)
        assert isinstance(app.focused, Input)
        await pilot.press("o", "f", "f")
        await pilot.pause(0.05)
        assert [v for v, _ in picker.shown] == ["offline"] and options.option_count == 1
        await pilot.press("backspace", "backspace", "backspace", "m", "i")
        await pilot.pause(0.05)
        assert [v for v, _ in picker.shown] == ["gpt-4o-mini"]
        await pilot.press("backspace", "backspace")
        await pilot.pause(0.05)
        assert options.option_count == 3 and options.highlighted == 0
        await pilot.press("down", "down", "up")
        await pilot.pause(0.05)
        assert options.highlighted == 1
        await pilot.press("enter")
        await pilot.pause(0.1)
    assert app.picked == ["gpt-4o-mini"]


async def test_enter_with_nothing_matching_stays_and_esc_closes() -> None:
    picker = Picker("Model", [("a", "alpha"), ("b", "beta")], "a")
    app = _Host(picker)
    async with app.run_test() as pilot:
        await pilot.pause(0.1)
        await pilot.press("z", "z", "enter")
        await pilot.pause(0.05)
        assert app.screen is picker and picker.query_one(OptionList).option_count == 0
        await pilot.press("escape")
        await pilot.pause(0.1)
    assert app.picked == [None]


def test_filter_matches_every_word_in_value_or_label_any_case() -> None:
    from codebot.ui.tui.picker import filter_choices

    rows = [("s1", "2026-01-02  Fix the BUILD"), ("s2", "2026-01-03  paint it red")]
    assert filter_choices(rows, "build fix") == rows[:1]
    assert filter_choices(rows, "S2") == rows[1:]
    assert filter_choices(rows, "  ") == rows


async def test_model_picker_in_the_app_takes_keys(tmp_path) -> None:
    """Through the real app: `/model` alone, type to filter, Enter switches the model."""
    from pilot_wait import until

    from codebot.agent.model import ScriptedModel
    from codebot.config import load_settings
    from codebot.ui.controller import Controller
    from codebot.ui.tui.app import CodebotApp

    (tmp_path / ".git").mkdir()
    controller = Controller(
        load_settings(cwd=tmp_path, trust=True), client=ScriptedModel([]), interactive=True
    )
    app = CodebotApp(controller, watch_skills=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/model", "enter")
        await until(pilot, lambda: isinstance(app.screen, Picker))
        await pilot.press(*"offl")
        await until(pilot, lambda: [v for v, _ in app.screen.shown] == ["offline"])
        await pilot.press("enter")
        await until(pilot, lambda: controller.model_name == "offline")
