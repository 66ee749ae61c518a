"""The transcript view: the whole session on one full screen (Ctrl+T, `/transcript`).

Every message typed, every answer, every tool call with its arguments and its whole
result (not collapsed as in the conversation), the skills loaded, `/clear` and every
compaction, from `transcript_view.session_entries`. Read only: j/k or Up/Down scroll a
line, PageUp/PageDown a page, Home/End to the start or the end (where it opens); Esc, q
or Ctrl+T close it and the prompt has the keys again. Text is shown as plain text
(no markup, no Markdown) and was stripped of escape sequences.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from codebot.ui.transcript_view import Entry

KEYS = "Esc, q or Ctrl+T close · j/k PgUp/PgDn Home/End scroll"


class TranscriptScreen(Screen[None]):
    DEFAULT_CSS = """
    TranscriptScreen { layout: vertical; }
    TranscriptScreen #transcript-title {
        height: auto; padding: 0 1; background: $panel; color: $text-muted;
    }
    TranscriptScreen VerticalScroll { height: 1fr; padding: 0 1; }
    TranscriptScreen VerticalScroll:focus { background-tint: $foreground 0%; }
    TranscriptScreen Static { margin-bottom: 1; }
    TranscriptScreen .heading { text-style: bold; color: $accent; }
    TranscriptScreen .user { text-style: bold; color: $primary; }
    TranscriptScreen .tool { margin-bottom: 0; color: $secondary; }
    TranscriptScreen .args { margin-bottom: 0; padding-left: 4; color: $text-muted; }
    TranscriptScreen .result { padding-left: 2; border-left: solid $panel-lighten-2; }
    TranscriptScreen .skill, TranscriptScreen .note { color: $text-muted; text-style: italic; }
    TranscriptScreen .marker { color: $warning; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,ctrl+t", "close", "close"),
        Binding("j", "scroll(1)", "down", show=False),
        Binding("k", "scroll(-1)", "up", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "edge(0)", "start", show=False),
        Binding("end", "edge(1)", "end", show=False),
    ]

    def __init__(self, entries: Sequence[Entry]) -> None:
        super().__init__()
        self.entries = list(entries)

    def compose(self) -> ComposeResult:
        yield Static(f"Transcript · {KEYS}", id="transcript-title", markup=False)
        with VerticalScroll(id="transcript-body"):
            for entry in self.entries:
                yield from entry_widgets(entry)

    def on_mount(self) -> None:
        body = self.body
        body.focus()
        self.call_after_refresh(body.scroll_end, animate=False)  # the latest is where you were

    @property
    def body(self) -> VerticalScroll:
        return self.query_one("#transcript-body", VerticalScroll)

    def text(self) -> str:
        """Everything shown, as plain text (for tests and copying)."""
        return "\n".join(str(w.content) for w in self.body.query(Static))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.body.scroll_relative(y=lines, animate=False)

    def action_page(self, direction: int) -> None:
        (self.body.scroll_page_down if direction > 0 else self.body.scroll_page_up)(animate=False)

    def action_edge(self, end: int) -> None:
        (self.body.scroll_end if end else self.body.scroll_home)(animate=False)


def entry_widgets(entry: Entry) -> Iterator[Widget]:
    if entry.kind == "user":
        yield Static("> " + entry.text, classes="user", markup=False)
    elif entry.kind == "tool":
        yield Static(f"● {entry.text}  [{entry.status}]", classes="tool", markup=False)
        if entry.detail:
            yield Static(entry.detail, classes="args", markup=False)
        yield Static(
            entry.result if entry.result is not None else "(no result)",
            classes="result",
            markup=False,
        )
    elif entry.kind == "marker":
        yield Static(f"── {entry.text} ──", classes="marker", markup=False)
    else:  # heading, assistant, skill, note
        yield Static(entry.text, classes=entry.kind, markup=False)
