"""What the model is told about skills each turn, for `Session`: active `paths` skills,
the listing (ranked for the request when the catalog is over its budget) and the
per-turn reminders. A mixin: it uses the session's catalog, settings, client, usage
tracker, skills in force and `last_listing`.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from codebot.agent.session.turn import TurnState
from codebot.skills.invoke import Actor

RANKED = 40  # routed skills put in an over-budget listing, best first


class Prompting:
    last_listing: str | None
    in_force: list[Any]

    def active_keys(self) -> frozenset[str]:
        """`paths:` activation, cached for a few seconds per catalog generation."""
        from codebot.skills.catalog import active_keys

        snap = self.catalog.snapshot
        now = time.monotonic()
        c = self._active_cache
        if c is not None and c[0] == snap.generation and now - c[1] < 10:
            return c[2]
        keys = active_keys(snap, self.settings.project_dir)
        self._active_cache = (snap.generation, now, keys)
        return keys

    def current_listing(self, request: str = ""):
        """The listing for a turn whose request is `request` (preselection ranks by it)."""
        from codebot.skills.prompt import ListingOptions, listing_for

        usage = self.usage_tracker.scores() if self.usage_tracker is not None else {}
        options = ListingOptions(
            self.settings.listing_budget,
            self.settings.listing_line,
            self.settings.listing_when,
            self.client.context_window,
        )
        snap = self.catalog.snapshot
        specs = list(snap)
        k = self.settings.preselect
        if k > 0 and request:
            # Opt-in for very large catalogs: list only the top-K routed skills plus the
            # ten most used, instead of every name.
            from codebot.skills.route import preselect

            recent = sorted(usage, key=usage.__getitem__, reverse=True)[:10]
            specs = preselect(request, specs, k, recent)
        in_force = [s.key for s in reversed(self.in_force)]
        return listing_for(
            specs,
            overrides=self.settings.overrides,
            active=self.active_keys(),
            usage=usage,
            options=options,
            in_force=in_force,
            rank=self._ranker(request),
            allowed=None if k > 0 and request else self._allowed(snap),
        )

    def _allowed(self, snap: Any) -> list[Any]:
        """What the model may invoke, kept while the snapshot and the overrides stay."""
        from codebot.skills.invoke import eligible

        overrides = self.settings.overrides
        key = (snap.generation, id(snap), tuple(sorted(overrides.items())))
        got = getattr(self, "_allowed_cache", None)
        if got is None or got[0] != key:
            got = self._allowed_cache = (key, eligible(snap, Actor.MODEL, overrides))
        return got[1]

    def warm(self, listing: bool = True) -> None:
        """What a first turn would otherwise compute or import on the event loop (front
        ends call it from a background thread once the session exists): the templates,
        then (with `listing`) `paths:` activation and the listing's per-skill decisions."""
        from codebot import templates

        templates.environment()
        if listing:
            self.current_listing("")

    def _ranker(self, request: str):
        """For a catalog whose names overflow the listing: the router's ranking of the
        skills for this turn's request (it loads the router's index only then)."""
        if not request.strip():
            return None

        def rank(_specs) -> list[str]:
            from codebot.skills.route.router import default_router

            found = default_router().route(
                request, self.catalog.snapshot, Actor.MODEL, self.settings.overrides, top=RANKED
            )
            return [c.spec.key for c in found.candidates[:RANKED]]

        return rank

    @staticmethod
    def listing_reminder(text: str) -> str:
        from codebot.skills.prompt import reminder

        return reminder(text)

    def reminders(self, turn: TurnState, request: str = "", listing: Any = None) -> list[str]:
        """The turn's reminder blocks (`listing`: `current_listing(request)`, if made)."""
        from codebot.skills.prompt import build_reminders

        listing = self.current_listing(request) if listing is None else listing
        blocks, sent = build_reminders(
            now=datetime.now(),
            listing=listing,
            last_listing_text=self.last_listing,
            path_hints=turn.path_hints,
        )
        self.last_listing = sent
        return blocks

    async def turn_reminders(self, turn: TurnState, request: str) -> list[str]:
        """`reminders`, with the listing made in a thread: over its budget it ranks the
        catalog for the request (and may wait for the router's index being loaded), and the
        event loop must go on drawing meanwhile (the skill line, the spinner). What the
        session remembers is only set back here, so a turn cancelled meanwhile leaves the
        session as it was."""
        import asyncio

        listing = await asyncio.to_thread(self.current_listing, request)
        return self.reminders(turn, request, listing)
