"""Command palette (Ctrl+P): the built-in commands and the skills the person may run."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class CodebotCommands(Provider):
    def _entries(self):
        app = self.app
        if app.controller is None:  # type: ignore[attr-defined]  (still starting)
            return
        for c in app.controller.completions("", limit=500):  # type: ignore[attr-defined]
            label = f"/{c.name}" + (f" {c.hint}" if c.hint else "")
            tag = "built-in" if c.kind == "builtin" else f"skill · {c.source}"
            yield label, f"{c.description}  [{tag}]", partial(app.pick_command, c)  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for label, help_text, run in self._entries():
            yield DiscoveryHit(label, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, run in self._entries():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), run, text=label, help=help_text)
