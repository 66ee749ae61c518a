"""`Prompter`: what the model is told about skills each turn: active `paths` skills, the
listing (ranked for the request when the catalog is over its budget) and the per-turn
reminders."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from codebot.agent.session.state import SessionState
from codebot.agent.session.turn import TurnState
from codebot.skills.catalog import Catalog
from codebot.skills.invoke import Actor
from codebot.skills.route.config import LISTING_DEPTH

if TYPE_CHECKING:
    from codebot.skills.catalog import Snapshot
    from codebot.skills.files import Spec
    from codebot.skills.invoke import Decision
    from codebot.skills.prompt import Listing, UsageTracker

#: routed skills put in an over-budget listing, best first: the depth the router's second
#: stage orders, one number for both
RANKED = LISTING_DEPTH

Ranker = Callable[[Sequence["Spec"]], list[str]]


def lean_overrides(specs: Iterable[Spec], overrides: Mapping[str, str]) -> dict[str, str]:
    """Lean mode's listing (`--lean`): every skill the person left on is listed by name
    only (the `name-only` override, so the model can still invoke it); what they turned
    off or limited stays as they said."""
    from codebot.skills.files import normalize_name

    out = dict(overrides)
    for spec in specs:
        key = normalize_name(spec.name)
        if out.get(key, "on") == "on":
            out[key] = "name-only"
    return out


class Prompter:
    """Makes the listing and the reminders from the catalog, the settings and client in
    `state` (swapped by front ends), the skills in force and the usage scores; remembers
    the listing last sent in `state.last_listing`."""

    def __init__(
        self, *, state: SessionState, catalog: Catalog, usage_tracker: UsageTracker | None
    ) -> None:
        self.state = state
        self.catalog = catalog
        self.usage_tracker = usage_tracker
        self._active_cache: tuple[int, float, frozenset[str]] | None = None
        self._allowed_cache: tuple[object, list[tuple[Spec, Decision]]] | None = None
        self._sources_settled = False

    def active_keys(self) -> frozenset[str]:
        """`paths:` activation, cached for a few seconds per catalog generation."""
        from codebot.skills.catalog import active_keys

        snap = self.catalog.snapshot
        now = time.monotonic()
        c = self._active_cache
        if c is not None and c[0] == snap.generation and now - c[1] < 10:
            return c[2]
        keys = active_keys(snap, self.state.settings.project_dir)
        self._active_cache = (snap.generation, now, keys)
        return keys

    def _window(self) -> int | None:
        """The window the listing budget scales with: what the server said, else the
        client's (litellm's table)."""
        client = self.state.client
        served = getattr(client, "server_window", None)
        return served[0] if served else client.context_window

    def current_listing(self, request: str = "") -> Listing:
        """The listing for a turn whose request is `request` (preselection ranks by it)."""
        from codebot.skills.prompt import ListingOptions, listing_for

        settings = self.state.settings
        usage = self.usage_tracker.scores() if self.usage_tracker is not None else {}
        options = ListingOptions(
            settings.listing_budget,
            settings.listing_line,
            settings.listing_when,
            self._window(),
        )
        snap = self.catalog.snapshot
        specs = list(snap)
        k = settings.preselect
        if k > 0 and request:
            # Opt-in for very large catalogs: list only the top-K routed skills plus the
            # ten most used, instead of every name.
            from codebot.skills.route import preselect

            recent = sorted(usage, key=usage.__getitem__, reverse=True)[:10]
            specs = preselect(request, specs, k, recent)
        in_force = [s.key for s in reversed(self.state.in_force)]
        return listing_for(
            specs,
            overrides=self._overrides(snap),
            active=self.active_keys(),
            usage=usage,
            options=options,
            in_force=in_force,
            rank=self._ranker(request),
            allowed=None if k > 0 and request else self._allowed(snap),
        )

    def _overrides(self, snap: Snapshot) -> Mapping[str, str]:
        """The person's overrides; in lean mode with every other skill name-only."""
        settings = self.state.settings
        if settings.requests.lean:
            return lean_overrides(snap, settings.overrides)
        return settings.overrides

    def _allowed(self, snap: Snapshot) -> list[tuple[Spec, Decision]]:
        """What the model may invoke, kept while the snapshot and the overrides stay."""
        from codebot.skills.invoke import eligible

        overrides = self._overrides(snap)
        key = (snap.generation, id(snap), tuple(sorted(overrides.items())))
        got = self._allowed_cache
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

    def _ranker(self, request: str) -> Ranker | None:
        """For a catalog whose names overflow the listing: the router's ranking of the
        skills for this turn's request (it loads the router's index only then)."""
        if not request.strip():
            return None

        def rank(_specs: Sequence[Spec]) -> list[str]:
            from codebot.skills.route.router import default_router

            found = default_router().route(
                request,
                self.catalog.snapshot,
                Actor.MODEL,
                self.state.settings.overrides,
                top=RANKED,
            )
            return [c.spec.key for c in found.candidates[:RANKED]]

        return rank

    @staticmethod
    def listing_reminder(text: str) -> str:
        from codebot.skills.prompt import reminder

        return reminder(text)

    def reminders(
        self, turn: TurnState, request: str = "", listing: Listing | None = None
    ) -> list[str]:
        """The turn's reminder blocks (`listing`: `current_listing(request)`, if made)."""
        from codebot.skills.prompt import build_reminders

        listing = self.current_listing(request) if listing is None else listing
        blocks, sent = build_reminders(
            now=datetime.now(),
            listing=listing,
            last_listing_text=self.state.last_listing,
            path_hints=turn.path_hints,
        )
        self.state.last_listing = sent
        return blocks

    async def turn_reminders(self, turn: TurnState, request: str) -> list[str]:
        """`reminders`, with the listing made in a thread: over its budget it ranks the
        catalog for the request (and may wait for the router's index being loaded), and the
        event loop must go on drawing meanwhile (the skill line, the spinner). What the
        session remembers is only set back here, so a turn cancelled meanwhile leaves the
        session as it was."""
        import asyncio

        sources = self.catalog.sources
        if sources is not None and not self._sources_settled:
            # The first listing waits for servers still starting (like their tools), so
            # their skills are in it; each is bounded by its startup_timeout.
            self._sources_settled = True
            await sources.settle()
        listing = await asyncio.to_thread(self.current_listing, request)
        return self.reminders(turn, request, listing)
