"""Stage 6: what the model is shown. Usage-weighted ordering, the listing within its
budget, per-turn reminders, and the `SkillSearch` result cards.

May import: every earlier stage (`files`, `catalog`, `watch`, `invoke`, `route`).
"""

from typing import TYPE_CHECKING

from codebot._exports import lazy_exports

if TYPE_CHECKING:  # what the lazy table loads, spelled out for the type checker
    from codebot.skills.prompt.cards import search_cards, tokens
    from codebot.skills.prompt.listing import (
        UNCHANGED,
        Listing,
        ListingOptions,
        listing_for,
        one_line,
        order_for_prompt,
        promote,
        render_listing,
    )
    from codebot.skills.prompt.reminders import build_reminders, path_hint, reminder
    from codebot.skills.prompt.shorten import shorten, truncate
    from codebot.skills.prompt.usage import DAY, FLOOR, UsageTracker, default_path


_EXPORTS = {
    "DAY": "usage",
    "FLOOR": "usage",
    "Listing": "listing",
    "ListingOptions": "listing",
    "UNCHANGED": "listing",
    "UsageTracker": "usage",
    "build_reminders": "reminders",
    "default_path": "usage",
    "listing_for": "listing",
    "one_line": "listing",
    "order_for_prompt": "listing",
    "path_hint": "reminders",
    "promote": "listing",
    "reminder": "reminders",
    "render_listing": "listing",
    "search_cards": "cards",
    "tokens": "cards",
    "shorten": "shorten",
    "truncate": "shorten",
}
__all__ = [
    "DAY",
    "FLOOR",
    "UNCHANGED",
    "Listing",
    "ListingOptions",
    "UsageTracker",
    "build_reminders",
    "default_path",
    "listing_for",
    "one_line",
    "order_for_prompt",
    "path_hint",
    "promote",
    "reminder",
    "render_listing",
    "search_cards",
    "shorten",
    "tokens",
    "truncate",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
