"""The line above the prompt that shows messages waiting for the running turn to end."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from codebot.display import strip_escapes
from codebot.skills.prompt import one_line, truncate


class QueuedBar(Static):
    DEFAULT_CSS = """
    QueuedBar { height: auto; margin: 0 2; color: $text-muted; display: none; }
    QueuedBar.-shown { display: block; }
    """

    def show(self, queued: list[str]) -> None:
        if not queued:
            self.remove_class("-shown")
            self.update("")
            return
        lines = [f"⏸ queued: {truncate(one_line(strip_escapes(q)), 100)}" for q in queued]
        lines.append(
            "  sent when this turn ends · Esc cancels the turn and puts them back in the prompt"
        )
        self.update(Text("\n".join(lines)))
        self.add_class("-shown")
