"""The conversation follows its content once it overflows, even when it grows without a
mount (a Markdown block filled by its stream task, a tool's output) or when the layout
that makes it overflow comes after the check a mount schedules (a loaded machine)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from codebot.ui.tui.conversation import Conversation


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


async def test_content_that_grows_in_place_is_followed(async_wait_until) -> None:
    app = One()
    async with app.run_test(size=(60, 12)) as pilot:
        conversation = app.query_one(Conversation)
        line = Static("short")
        await conversation.mount(line)
        await pilot.pause()
        assert conversation.max_scroll_y == 0 and not conversation.is_anchored
        line.update("\n".join(f"line {i}" for i in range(40)))  # grows, no mount
        await async_wait_until(
            lambda: (
                conversation.max_scroll_y > 0 and conversation.scroll_y == conversation.max_scroll_y
            ),
            5,
            "the conversation to follow its grown content",
        )
        assert conversation.is_anchored
        await conversation.mount(Static("the newest line"))
        await async_wait_until(
            lambda: conversation.scroll_y == conversation.max_scroll_y, 5, "it to follow on"
        )
