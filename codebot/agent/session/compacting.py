"""`Compactor`: measure the context, and when it is nearly full (or the person types
`/compact`), replace the older messages with a summary the model writes, re-attach the
skills in force and the listing, and keep the recent messages.

The history (in `SessionState`) is swapped only when everything is ready, so a failure or
a cancel in the middle leaves the conversation as it was. The transcript keeps every
message; the compaction is an event in it (`compact`, with the new view) that
`--continue` resumes from.
"""

from __future__ import annotations

import time
from typing import Any

from codebot.agent.model import (
    Completion,
    ModelError,
    ModelRequest,
    estimate_tokens,
    message_text,
)
from codebot.agent.model.summary import SUMMARY_PREFIX, fit_lines, render_lines, request_text
from codebot.agent.session import compact as cp
from codebot.agent.session import events as ev
from codebot.agent.session.context import ContextUse, Meter, resolve_window
from codebot.agent.session.emit import Emit
from codebot.agent.session.images import is_image_message
from codebot.agent.session.prompting import Prompter
from codebot.agent.session.state import SessionState
from codebot.agent.session.toolset import Toolset
from codebot.agent.session.transcript import Transcript
from codebot.agent.session.turn import TurnState
from codebot.units import CHARS_PER_TOKEN, DENSE_CHARS_PER_TOKEN

#: Tokens kept free for the summary request's instructions.
INSTRUCTION_TOKENS = 400


class Compactor:
    """Measures what the next request would spend and compacts the history in `state`
    (the client there writes the summary); the listing comes from `prompter`, the system
    prompt and tools from `toolset`."""

    def __init__(
        self,
        *,
        state: SessionState,
        toolset: Toolset,
        prompter: Prompter,
        emit: Emit,
        transcript: Transcript | None = None,
        base_model: str | None = None,
    ) -> None:
        self.state = state
        self.toolset = toolset
        self.prompter = prompter
        self.emit = emit
        self.transcript = transcript
        self.base_model = base_model
        self._meter_key: tuple[int, bool] | None = None
        self._meter: Meter | None = None

    # -- measuring --------------------------------------------------------------------------

    @property
    def meter(self) -> Meter:
        """The token meter of the current client; a new one when the client changes or
        litellm has loaded (its counts replace the estimate)."""
        client = self.state.client
        key = (id(client), bool(getattr(client, "loaded", True)))
        if self._meter is None or self._meter_key != key:
            self._meter_key = key
            # A client without a counter (a minimal test double) gets the estimate.
            self._meter = Meter(getattr(client, "count_tokens", None) or estimate_tokens)
        return self._meter

    def window(self, model: str | None = None, *, may_import: bool = True) -> tuple[int, str]:
        return resolve_window(self.state.settings, self.state.client, model, may_import=may_import)

    def context_use(self, turn: TurnState | None = None, *, may_import: bool = True) -> ContextUse:
        """What the next request would spend (without the next user message)."""
        turn = turn or TurnState()
        model = turn.model or self.base_model
        system, instructions = self.toolset.system_parts()
        return self.meter.use(
            system,
            self.toolset.schemas(turn),
            self.state.history,
            self.window(model, may_import=may_import),
            instructions,
        )

    async def maybe_compact(self, turn: TurnState) -> None:
        """Compact before a request that would pass the threshold (config, 85%)."""
        cfg = self.state.settings.compaction
        if not cfg.auto or len(self.state.history) < 2:
            return
        use = self.context_use(turn)
        if use.total > use.window * cfg.threshold:
            await self.compact(reason="auto", turn=turn, before=use)

    # -- compacting --------------------------------------------------------------------------

    async def compact(
        self,
        focus: str = "",
        *,
        reason: str = "manual",
        turn: TurnState | None = None,
        before: ContextUse | None = None,
        shrink: float = 1.0,
    ) -> cp.Compaction | None:
        """Compact now; the record of what was done, or None when there is nothing to
        compact. `shrink` < 1 aims lower (after the provider said the request overflowed)."""
        turn = turn or TurnState()
        state = self.state
        history = list(state.history)
        if len(cp.units(history)) < 2:
            return None
        meter = self.meter
        before = before or self.context_use(turn)
        window = before.window
        fixed = (
            before.system
            + before.instructions
            + before.tools
            + meter.text(state.last_listing or "")
        )
        room = int((window * state.settings.compaction.threshold - fixed) * shrink)
        if room < 400:
            raise ModelError(
                "context",
                f"the system prompt, tool definitions and skill listing alone take "
                f"{fixed:,} of the {window:,}-token context window, so compacting the conversation "
                "cannot make room; use a model with a larger window (or set model_context_window), "
                "or start with --lean",
            )
        trigger = "manual" if reason == "manual" else "auto"
        if state.hooks.wanted("PreCompact"):
            await state.hooks.fire(
                "PreCompact", {"trigger": trigger, "custom_instructions": focus}, subject=trigger
            )
        self.emit(
            ev.Notice(
                f"compacting the conversation ({reason}: {before.total:,} of {window:,} tokens)…"
            )
        )

        def tokens(m: dict[str, Any]) -> int:
            return sum(meter.message(m))

        start = cp.tail_start(history, tokens, int(room * cp.TAIL_SHARE))
        if start == 0:  # everything would fit in the tail: keep only the last unit
            start = cp.units(history)[-1][0]
        older, recent = history[:start], history[start:]
        results = sum(1 for m in recent if m.get("role") == "tool") or 1
        limit = max(
            400,
            min(
                int(room * cp.RESULT_SHARE * CHARS_PER_TOKEN),
                int(room * cp.TAIL_SHARE * CHARS_PER_TOKEN / results),
            ),
        )
        tail = cp.clip_results(recent, limit)
        summary, failed = await self._summary(older, focus, turn, window, room)
        cfg = state.settings.compaction
        tail_text = [message_text(m) for m in tail]
        attached = cp.reattach(
            state.in_force,
            meter.text,
            min(cfg.skill_tokens, cfg.skills_tokens),
            min(cfg.skills_tokens, int(room * cp.SKILLS_SHARE)),
            present=lambda t: any(t in c for c in tail_text),
        )
        listing = self.prompter.current_listing(self._last_request())
        pre = cp.preamble(
            summary, attached, [self.prompter.listing_reminder(listing.text)], len(older), failed
        )
        view = [pre, *tail]
        after = meter.use(
            self.toolset.system_prompt, self.toolset.schemas(turn), view, (window, before.source)
        )
        record = cp.Compaction(
            time.time(),
            reason,
            len(older),
            len(tail),
            tuple(attached.whole),
            tuple(attached.cut),
            tuple(attached.named),
            before.total,
            after.total,
            failed,
            focus.strip(),
        )
        if self.transcript is not None:
            self.transcript.mark("compact", **record.to_json(), messages=view)
        state.history[:] = view
        state.last_listing = listing.text
        state.last_compaction = record
        state.hooks.start_pending = "compact"  # SessionStart(source: compact) next turn
        meter.forget_except(view)
        self.emit(
            ev.Notice(
                ("compacted: " if not failed else "compacted without a summary: ")
                + record.describe().split(": ", 1)[1],
                "warning" if failed else "info",
            )
        )
        return record

    async def _summary(
        self, older: list[dict[str, Any]], focus: str, turn: TurnState, window: int, room: int
    ) -> tuple[str, str | None]:
        """(summary, None), or ("", why) when the model could not write one."""
        out_tokens = int(room * cp.SUMMARY_SHARE)
        system = self.toolset.system_prompt
        budget = int(window * self.state.settings.compaction.threshold) - self.meter.text(system)
        budget -= INSTRUCTION_TOKENS + out_tokens
        # Code and JSON tokenize denser than prose: the conservative rate.
        text = fit_lines(
            render_lines(older, clip=max(300, budget // 8)),
            max(budget * DENSE_CHARS_PER_TOKEN, 2000),
        )
        request = ModelRequest(
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": request_text(text, focus)},
            ],
            tools=(),
            model=turn.model or self.base_model,
            max_tokens=out_tokens,
        )
        client = self.state.client
        try:
            completion: Completion | None = None
            async for item in client.stream(request):
                if isinstance(item, Completion):
                    completion = item
        except ModelError as exc:
            return "", f"the summary request failed: {exc.message}"
        if completion is None or not completion.text.strip():
            return "", "the model answered the summary request with nothing"
        self.state.count_usage(completion.model or request.model or client.model, completion.usage)
        summary = completion.text.strip()
        if summary.startswith(SUMMARY_PREFIX):  # an echo of the request is no summary
            return "", "the model repeated the summary request instead of answering it"
        limit = out_tokens * CHARS_PER_TOKEN
        if len(summary) > limit:
            summary = summary[:limit] + "\n[… the summary was longer and was cut to fit]"
        return summary, None

    def _last_request(self) -> str:
        """What the person asked last, to rank the listing by (issue 17)."""
        for m in reversed(self.state.history):
            if m.get("role") == "user" and not cp.is_preamble(m) and not is_image_message(m):
                return message_text(m)[-2000:]
        return ""
