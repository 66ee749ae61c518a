"""Stage 6: what the model is shown. Usage-weighted ordering, the listing within its
budget, per-turn reminders, and the `SkillSearch` result cards.

May import: every earlier stage (`files`, `catalog`, `watch`, `invoke`, `route`).
"""

from codebot._exports import lazy_exports

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
    "truncate": "listing",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
