"""Command palette (Ctrl+P): the built-in commands and the skills the person may run."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from codebot.ui.commands import Completion

if TYPE_CHECKING:  # the controller's imports load after the first paint
    from codebot.ui.controller import Controller


class Host(Protocol):
    """What the palette uses of `CodebotApp` (which imports this module)."""

    controller: Controller | None

    def pick_command(self, completion: Completion) -> None: ...


class CodebotCommands(Provider):
    def _entries(self):
        app = cast(Host, self.app)
        if app.controller is None:  # still starting
            return
        for c in app.controller.completions("", limit=500):
            label = f"/{c.name}" + (f" {c.hint}" if c.hint else "")
            tag = "built-in" if c.kind == "builtin" else f"skill · {c.source}"
            yield label, f"{c.description}  [{tag}]", partial(app.pick_command, c)

    async def discover(self) -> Hits:
        for label, help_text, run in self._entries():
            yield DiscoveryHit(label, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, run in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), run, text=label, help=help_text)
