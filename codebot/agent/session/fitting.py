"""`Fitter`: make each request fit the model: ask the server its window once (first
request), give every request a `max_tokens`, say when an answer was cut at it, learn the
window from an overflow refusal, and warn once when codebot's own fixed overhead takes
more than half the window (docs/local-models.md).

The numbers and texts are `agent/model/limits.py`'s pure functions; this collaborator
only applies them to the session's state (its client, settings and context meter).
"""

from __future__ import annotations

import asyncio
from typing import Any

from codebot.agent.model import Completion, ModelError
from codebot.agent.model.limits import output_budget, stop_reason
from codebot.agent.session import events as ev
from codebot.agent.session.compacting import Compactor
from codebot.agent.session.context import ContextUse
from codebot.agent.session.emit import Emit
from codebot.agent.session.state import SessionState
from codebot.agent.session.turn import TurnState

#: Over this share of the window, codebot's own overhead is said at start.
OVERHEAD_SHARE = 0.5


class Fitter:
    def __init__(self, *, state: SessionState, compactor: Compactor, emit: Emit) -> None:
        self.state = state
        self.compactor = compactor
        self.emit = emit
        #: The `max_tokens` of the last request (named when its answer is cut).
        self.last_max_tokens: int | None = None
        self._warned: set[int] = set()  # windows the overhead warning was said for

    # -- the server --------------------------------------------------------------------------

    async def learn_server(self) -> None:
        """Ask the client's server once (its window, its model ids), off the event loop."""
        client: Any = self.state.client
        server = getattr(client, "server", None)
        if server is not None and not server.asked and hasattr(client, "learn_server"):
            await asyncio.to_thread(client.learn_server)

    # -- max_tokens and the length stop ---------------------------------------------------

    def max_tokens(self, turn: TurnState, use: ContextUse | None = None) -> int:
        """The answer's limit for the next request (`limits.output_budget`)."""
        use = use or self.compactor.context_use(turn)
        configured = self.state.settings.requests.max_output_tokens
        limit = getattr(self.state.client, "output_limit", None)
        self.last_max_tokens = output_budget(
            use.window, use.total, configured, limit if isinstance(limit, int) else None
        )
        return self.last_max_tokens

    def cut(self, completion: Completion) -> str | None:
        """What to say when `completion` was cut at its limit, else None."""
        if stop_reason(completion.finish_reason) != "max_tokens":
            return None
        n = completion.usage.completion_tokens or self.last_max_tokens
        at = f" at {n:,} tokens" if n else ""
        return (
            f"the answer was cut{at} (its limit: max_tokens {self.last_max_tokens or '?'}); "
            "it is incomplete. Raise max_output_tokens in the config, or ask for a shorter "
            "answer"
        )

    # -- overflow -------------------------------------------------------------------------

    def learn_refusal(self, exc: ModelError) -> None:
        """An overflow refusal that names the window teaches it to the client's server view."""
        window = getattr(exc, "window", None)
        server = getattr(self.state.client, "server", None)
        if window and server is not None:
            server.refused(window)

    # -- codebot's own overhead ---------------------------------------------------------------

    def overhead_warning(self, turn: TurnState) -> str | None:
        """Once per window: the warning when the system prompt, tool definitions, listing
        and instructions take more than half of it, else None."""
        use = self.compactor.context_use(turn)
        fixed = use.system + use.tools + use.listing + use.skills
        if use.window in self._warned or fixed <= use.window * OVERHEAD_SHARE:
            return None
        self._warned.add(use.window)
        lean = self.state.settings.requests.lean
        how = (
            "lean mode is on and still does not fit: use a model with a larger window"
            if lean
            else "start with --lean (or set lean: true in the config) for fewer tools and a "
            "names-only skill listing"
        )
        return (
            f"codebot's own prompt takes {fixed:,} of the {use.window:,}-token window "
            f"({fixed / use.window:.0%}: system prompt {use.system:,}, tool definitions "
            f"{use.tools:,}, skill listing {use.listing:,}); little is left for the "
            f"conversation. {how}"
        )

    def warn_overhead(self, turn: TurnState) -> None:
        text = self.overhead_warning(turn)
        if text:
            self.emit(ev.Notice(text, "warning"))
