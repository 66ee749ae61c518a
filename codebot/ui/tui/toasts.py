"""Toasts never cover the prompt or the completion menu.

Textual stacks toasts in a rack docked to an edge of the screen; codebot docks it at the
top right (app.py's CSS), over the conversation. That alone is not enough: the menu
(up to 14 rows) and a multi-line prompt grow upwards, and on a short terminal three
toasts reach down over them. So after every layout of the main screen the rack is given
at most the rows the conversation has: toasts that do not fit are cut off (or not drawn)
until the menu closes or the prompt shrinks, and are drawn again then, until their time
is up.
"""

from __future__ import annotations

from typing import Any

from textual.css.query import NoMatches

RACK_ID = "textual-toastrack"  # Textual's own id for the rack of each screen


def keep_toasts_clear(app: Any) -> None:
    """Call once, from `on_mount`, with the main screen current."""
    screen = app.screen

    def fit(_screen: Any = None) -> None:
        try:
            rack = screen.get_child_by_id(RACK_ID)
            view = app.conversation
        except NoMatches:
            return
        room = max(0, view.region.bottom - rack.styles.margin.top)
        if rack.styles.max_height is None or rack.styles.max_height.value != room:
            rack.styles.max_height = room

    screen.screen_layout_refresh_signal.subscribe(screen, fit, immediate=True)
    fit()
