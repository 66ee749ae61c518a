"""The status bar: model (and a skill's temporary model), OFFLINE, context use, skills."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


@dataclass(frozen=True)
class Status:
    model: str = ""
    skill_model: str | None = None  # from a SkillActivated delta, until the turn ends
    skill: str | None = None
    offline: bool = False
    context: str = ""  # "12% context" or "3.1k chars"
    skills: int = 0
    busy: bool = False
    untrusted: bool = False
    progress: str = ""  # spinner, seconds, tokens while a turn runs


def context_text(used: int, window: int) -> str:
    """`context 34% (2.1k/6.0k)`: tokens the next request spends against the window."""

    def k(n: int) -> str:
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)

    return (
        f"context {used / window:.0%} ({k(used)}/{k(window)})"
        if window
        else f"context {k(used)} tokens"
    )


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { dock: bottom; height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    status: reactive[Status] = reactive(Status, layout=False)

    def render(self) -> Text:
        s = self.status
        text = Text()
        if s.offline:
            text.append(" OFFLINE ", style="bold reverse red")
            text.append(" ")
        if s.untrusted:
            text.append("untrusted", style="bold yellow")
            text.append(" · ")
        text.append(s.model, style="bold")
        if s.skill_model:
            text.append(f" → {s.skill_model}", style="bold yellow")
            text.append(f" (skill {s.skill})" if s.skill else "")
        if s.busy:
            text.append("  " + (s.progress or "working… Esc cancels"), style="italic")
        width = self.content_size.width
        # The right side loses its least useful parts first when the bar is narrow.
        parts = [s.context, f"{s.skills} skill{'s' if s.skills != 1 else ''}", "Ctrl+P commands"]
        right = " · ".join(parts)
        while len(parts) > 1 and text.cell_len + 2 + len(right) > width:
            parts.pop()
            right = " · ".join(parts)
        pad = max(2, width - text.cell_len - len(right))
        text.append(" " * pad)
        text.append(right)
        return text


class UpdateStatus(Protocol):
    """The app's `update_status`: with_context asks for the context use to be measured now
    (True), kept as shown (False), or measured once the screen is painted (None)."""

    def __call__(self, with_context: bool | None = None) -> None: ...
