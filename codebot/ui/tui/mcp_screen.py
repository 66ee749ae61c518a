"""The MCP question at start (`ui/mcp_start.py`) as a dialog over the main app, one per
server not approved, after the first paint and before any server starts.

Keys: `a` approve (remembered), `s` skip this run; Escape skips this one and every server
still to be asked about. Arrows and Enter pick an option too. What is shown comes from
`mcp_start.question` (escaped; no secret value), as plain text (never markup). Nothing is
approved unseen: when the definition is taller than its box, approving is refused until
its end has been on screen (PgDn / End scroll it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from codebot.ui.mcp_start import CHOICES, Ask, question

if TYPE_CHECKING:
    from textual.app import App

    from codebot.config import Settings
    from codebot.mcp.config import ServerDef
    from codebot.ui.tui.conversation import Conversation

#: The answer of Escape: skip this server and the rest.
SKIP_ALL = "S"


class McpQuestion(ModalScreen[str]):
    DEFAULT_CSS = """
    McpQuestion { align: center middle; }
    McpQuestion > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 100%;
        border: round $warning; background: $surface; padding: 1 2;
    }
    McpQuestion VerticalScroll { height: auto; max-height: 24; }
    McpQuestion #position { color: $text-muted; }
    McpQuestion OptionList { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "choose('a')", "approve"),
        Binding("s", "choose('s')", "skip this run"),
        Binding("escape", f"choose('{SKIP_ALL}')", "skip all", show=False),
        Binding("pagedown", "scroll('page_down')", "read on", show=False, priority=True),
        Binding("pageup", "scroll('page_up')", "back", show=False, priority=True),
        Binding("end", "scroll('end')", "to the end", show=False, priority=True),
        Binding("home", "scroll('home')", "to the start", show=False, priority=True),
    ]

    def __init__(self, ask: Ask, position: str = "") -> None:
        super().__init__()
        self.ask = ask
        self.position = position
        self.seen_end = False

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll(id="shown"):
                yield Static("\n".join(question(self.ask)), markup=False, id="question")
            if self.position:
                yield Static(self.position, markup=False, id="position")
            # Text, not a markup string: "[a]" would be read as a style tag.
            yield OptionList(
                *(Option(Text(f"[{k}] {label}"), id=k) for k, label in CHOICES),
                Option(Text("[Esc] skip this and the rest for this run"), id=SKIP_ALL),
                id="choices",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.watch(self.query_one("#shown"), "scroll_y", self._scrolled, init=False)
        self.call_after_refresh(self.seen)  # a short definition is seen once laid out

    def _scrolled(self, _old: float, _new: float) -> None:
        self.seen()

    def seen(self) -> bool:
        """Whether the end of the definition has been on screen (False until laid out).
        The screen is on the app's stack before its children are composed: until they
        are, nothing has been seen."""
        try:
            shown = self.query_one("#shown", VerticalScroll)
        except NoMatches:
            return False
        rows, height = shown.virtual_size.height, shown.scrollable_content_region.height
        if height > 0 and rows > 0:
            self.seen_end = self.seen_end or round(shown.scroll_y) + height >= rows
        return self.seen_end

    def action_scroll(self, where: str) -> None:
        shown = self.query_one("#shown", VerticalScroll)
        move = {
            "page_down": shown.scroll_page_down,
            "page_up": shown.scroll_page_up,
            "end": shown.scroll_end,
            "home": shown.scroll_home,
        }[where]
        move(animate=False)
        self.seen()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(event.option.id or "s")

    def action_choose(self, key: str) -> None:
        if key == "a" and not self.seen():
            self.notify(
                "Read the whole definition first: PgDn / End scroll to its end (s skips)",
                severity="warning",
            )
            return
        self.dismiss(key)


async def ask_at_start(
    app: App[object], conversation: Conversation, settings: Settings
) -> frozenset[str]:
    """Ask about each server not approved (in a worker: `push_screen_wait`), record the
    approvals, say what was decided in the conversation; the servers that may start."""
    import asyncio

    from codebot.ui.mcp_start import answer, may_start, pending, summary

    asks = await asyncio.to_thread(pending, settings)
    if not asks:
        return await asyncio.to_thread(may_start, settings)
    approved: list[ServerDef] = []
    skipped: list[str] = []
    for i, ask in enumerate(asks):
        position = f"server {i + 1} of {len(asks)}" if len(asks) > 1 else ""
        choice = await app.push_screen_wait(McpQuestion(ask, position))
        if choice == SKIP_ALL:
            skipped += [a.server.name for a in asks[i:]]
            break
        if choice == "a":
            approved.append(ask.server)
        else:
            skipped.append(ask.server.name)
    problem = await asyncio.to_thread(answer, settings, approved)
    said = summary([d.name for d in approved], skipped, problem)
    if said:
        await conversation.add_line(said, "warning" if problem or skipped else "notice")
    return await asyncio.to_thread(may_start, settings)
