"""`Fitter`: make each request fit the model: ask the server its window once (first
request), give every request a `max_tokens`, say when an answer was cut at it, learn the
window from an overflow refusal, and warn once when codebot's own fixed overhead takes
more than half the window (docs/local-models.md).

The numbers and texts are `agent/model/limits.py`'s pure functions; this collaborator
only applies them to the session's state (its client, settings and context meter).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from codebot.agent.model import Completion, ModelError, ModelRequest, TextDelta
from codebot.agent.model.limits import output_budget, stop_reason
from codebot.agent.session import events as ev
from codebot.agent.session.compacting import Compactor
from codebot.agent.session.context import ContextUse
from codebot.agent.session.emit import Emit
from codebot.agent.session.state import SessionState
from codebot.agent.session.turn import TurnState

#: Over this share of the window, codebot's own overhead is said at start.
OVERHEAD_SHARE = 0.5
#: What the model is told after an answer that overflowed was kept and compacted.
GO_ON = (
    "[codebot: your answer above was cut off because the context window was full; the "
    "conversation was compacted. Continue from where it stopped.]"
)


@runtime_checkable
class _SaysRetries(Protocol):
    """A client that can tell the session it is about to retry (ProviderClient)."""

    on_retry: Callable[[int, int, float, str], None] | None


@runtime_checkable
class _SaysWaits(Protocol):
    """A client that can say it has had no data for a while (ProviderClient)."""

    on_wait: Callable[[float, float], None] | None


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

    # -- streaming one request ------------------------------------------------------------

    async def complete(self, request: ModelRequest, depth: int = 0) -> Completion:
        """Stream `request`: each piece of text as an event, the Completion returned. A
        failure carries the text streamed before it (`ModelError.partial`)."""
        client = self.state.client
        if isinstance(client, _SaysRetries):
            client.on_retry = self._say_retry
        if isinstance(client, _SaysWaits):
            client.on_wait = self._say_wait
        completion: Completion | None = None
        streamed: list[str] = []
        try:
            async for item in client.stream(request):
                if isinstance(item, TextDelta):
                    streamed.append(item.text)
                    self.emit(ev.TextDelta(item.text, depth))
                else:
                    completion = item
        except ModelError as exc:
            exc.partial = "".join(streamed)
            raise
        if completion is None:
            raise ModelError("unknown", "the model's stream ended without a result")
        return completion

    def _say_wait(self, silent: float, limit: float) -> None:
        self.emit(
            ev.Notice(
                f"no data from the server for {silent:g} s (still waiting, up to {limit:g} s)",
                "warning",
            )
        )

    def _say_retry(self, attempt: int, of: int, delay: float, why: str) -> None:
        first = why.splitlines()[0] if why else "a passing error"
        self.emit(
            ev.Notice(f"retrying in {delay:.0f} s (attempt {attempt} of {of}): {first}", "warning")
        )

    # -- overflow -------------------------------------------------------------------------

    def learn_refusal(self, exc: ModelError) -> bool:
        """An overflow refusal that names the window teaches it to the client's server
        view; whether the window changed."""
        server = getattr(self.state.client, "server", None)
        if not exc.window or server is None or server.window() == (exc.window, "refusal"):
            return False
        server.refused(exc.window)
        self.emit(ev.Notice(f"the server's context window is {exc.window:,} tokens (it said so)"))
        return True

    async def recover(
        self, exc: ModelError, turn: TurnState, add: Callable[[dict[str, Any]], None]
    ) -> bool:
        """After an overflow refusal: learn the window, compact harder, and keep what was
        streamed after the compacted view (with a note to go on when the request is sent
        again). Whether it is worth sending again."""
        learned = self.learn_refusal(exc)
        state = self.state
        compacted = None
        if state.settings.compaction.auto and len(state.history) >= 2:
            compacted = await self.compactor.compact(reason="overflow", turn=turn, shrink=0.6)
        again = compacted is not None or learned
        if exc.partial.strip():  # what the person saw stays in the conversation
            add({"role": "assistant", "content": exc.partial})
            self.emit(ev.AssistantText(exc.partial))
            if again:
                add({"role": "user", "content": GO_ON})
        return again

    # -- codebot's own overhead ---------------------------------------------------------------

    def overhead_warning(self, turn: TurnState) -> str | None:
        """Once per window: the warning when the system prompt, tool definitions, listing
        and instructions take more than half of it, else None."""
        use = self.compactor.context_use(turn)
        listing = use.listing or self._listing_tokens()  # at start: the one to be sent
        fixed = use.system + use.instructions + use.tools + listing
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
            f"({fixed / use.window:.0%}: system prompt {use.system:,}, "
            + (f"instructions {use.instructions:,}, " if use.instructions else "")
            + f"tool definitions {use.tools:,}, skill listing {listing:,}); little is left "
            f"for the conversation. {how}"
        )

    def _listing_tokens(self) -> int:
        compactor = self.compactor
        return compactor.meter.text(compactor.prompter.current_listing().text)

    def warn_overhead(self, turn: TurnState) -> None:
        text = self.overhead_warning(turn)
        if text:
            self.emit(ev.Notice(text, "warning"))
