"""The model client every real provider goes through: streaming, tool-call assembly,
retries, timeouts and usage, whichever of two paths carries the request.

The direct path (`direct.py`: OpenAI chat completions and Anthropic messages over HTTP/1.1)
serves OpenAI, every OpenAI-compatible server given by `--api-base`, OpenRouter and
Anthropic; litellm (`litellm_wire.py`, imported only when needed) serves everything else.
Both give chunks of one shape, read by the one loop below, so errors, usage, cost and
token counts read the same whichever path served a turn. Failures are put into plain
words by `errors`; provider key tables live in `providers`.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from codebot.agent.model import counting, direct, litellm_wire, model_facts
from codebot.agent.model.errors import model_error
from codebot.agent.model.limits import quiet_notice_after, stream_timeouts
from codebot.agent.model.protocol import (
    Completion,
    ModelError,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)
from codebot.agent.model.providers import PLACEHOLDER_MODEL
from codebot.agent.model.server_window import ServerView

__all__ = ["ProviderClient", "warm_up"]


def warm_up() -> None:
    """Load the token counter and litellm now (from a background thread)."""
    counting.load()
    litellm_wire.litellm()


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class _ToolCallAccumulator:
    """Tool-call deltas keyed by their index: id and name from the first, arguments joined."""

    def __init__(self) -> None:
        self._slots: list[dict[str, str]] = []
        self._by_index: dict[Any, int] = {}

    def add(self, delta: Any) -> None:
        index = _get(delta, "index")
        fn = _get(delta, "function")
        call_id, name = _get(delta, "id"), _get(fn, "name")
        slot = self._by_index.get(index)
        # Some providers give every parallel call index 0; a new id with a name is a new call.
        if slot is None or (call_id and name and self._slots[slot]["id"] not in ("", call_id)):
            slot = len(self._slots)
            self._by_index[index] = slot
            self._slots.append({"id": "", "name": "", "arguments": ""})
        entry = self._slots[slot]
        if call_id and not entry["id"]:
            entry["id"] = call_id
        if name and not entry["name"]:
            entry["name"] = name
        entry["arguments"] += _get(fn, "arguments") or ""

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall(s["id"] or f"call_{uuid.uuid4().hex[:24]}", s["name"], s["arguments"])
            for s in self._slots
            if s["name"]
        )


class ProviderClient:
    """A `ModelClient` for a real provider (see the module docstring for the two paths)."""

    offline = False

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        max_retries: int = 3,
        backoff: float = 0.5,
        timeout: float = 600.0,
        completion_kwargs: Mapping[str, Any] | None = None,
        first_token_timeout: float | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        #: Seconds to wait for the first chunk, and between chunks (`limits.stream_timeouts`:
        #: the configured ones, else 60/30 for a local server, 120/90 for a hosted one).
        self.first_token_timeout, self.idle_timeout = stream_timeouts(
            api_base, first_token_timeout, idle_timeout
        )
        #: Called as (silent_s, limit_s) when no data has come for a while (the session
        #: says "no data from the server for N s" as it happens).
        self.on_wait: Any = None
        #: Extra arguments for `litellm.acompletion` (e.g. `mock_response` in tests); a
        #: client given any sends every request through litellm.
        self.completion_kwargs = dict(completion_kwargs or {})
        self._context_window: int | None = None
        self._context_known = False
        self._connections = direct.Connections()
        #: What the configured server says of itself (window, model ids); asked on the
        #: first request, or by a front end's warm-up thread (`learn_server`).
        self.server: ServerView | None = ServerView(api_base, api_key=api_key) if api_base else None
        #: Called as (attempt, max_retries, delay_s, why) before each retry (the session
        #: sets it to say "retrying in N s (attempt k of n)").
        self.on_retry: Any = None

    @property
    def context_window(self) -> int | None:
        """Max input tokens from litellm's model table (read without importing litellm)."""
        if not self._context_known:
            self._context_window = model_facts.context_window(self.model)
            self._context_known = True
        return self._context_window

    @property
    def output_limit(self) -> int | None:
        """The model's own limit on an answer (litellm's table), when it is known."""
        return model_facts.output_limit(self.model)

    @context_window.setter
    def context_window(self, value: int | None) -> None:
        """An explicit window (e.g. from the config) wins over litellm's map."""
        self._context_window, self._context_known = value, True

    @property
    def server_window(self) -> tuple[int, str] | None:
        """(tokens, source) when the server told its window or a refusal named it."""
        return self.server.window() if self.server is not None else None

    def learn_server(self, *, again: bool = False) -> None:
        """Ask the configured server what it serves (blocking, bounded: call it from a
        thread). A placeholder model (`openai/default`, no model was configured) becomes
        the first model the server lists."""
        if self.server is None:
            return
        _, _, model_id = self.model.partition("/")
        placeholder = self.model == PLACEHOLDER_MODEL
        info = self.server.learn(None if placeholder else model_id or None, again=again)
        if placeholder and info.models:
            self.model = f"openai/{info.models[0]}"

    def count_tokens(self, text: str) -> int:
        """tiktoken's count once the counter is loaded (`counting`), the estimate before."""
        return counting.count(self.model, text)

    @property
    def loaded(self) -> bool:
        """Always: the window and prices come from a table read without litellm."""
        return True

    def warm_up(self) -> None:
        """Load what this client's first request needs (call from a background thread once
        the UI is up): the token counter, and litellm when the direct path cannot serve."""
        counting.load()
        if self.path_for() == "litellm":
            litellm_wire.litellm()

    def path_for(self, model: str | None = None) -> str:
        """ "direct" or "litellm": which path serves `model` (the client's by default)."""
        if self.completion_kwargs:
            return "litellm"
        route = direct.route_for(model or self.model, self.api_base, self.api_key)
        return "litellm" if route is None else "direct"

    # -- the request ---------------------------------------------------------------
    def _opener(self, request: ModelRequest, model: str) -> Callable[[], Awaitable[Any]]:
        """What starts the request: the direct path when it can carry it, else litellm."""
        route = (
            None if self.completion_kwargs else direct.route_for(model, self.api_base, self.api_key)
        )
        body = direct.request_body(route, request, model) if route is not None else None
        if route is not None and body is not None:
            connections = self._connections
            return lambda: direct.open_stream(connections, route, body)
        timeout = min(request.timeout, self.timeout)

        async def via_litellm() -> Any:
            if not litellm_wire.loaded():
                await asyncio.to_thread(litellm_wire.litellm)
            kwargs = litellm_wire.completion_kwargs(
                request,
                model,
                api_base=self.api_base,
                api_key=self.api_key,
                timeout=timeout,
                extra=self.completion_kwargs,
            )
            return await litellm_wire.open_stream(kwargs)

        return via_litellm

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        if self.server is not None and not self.server.asked:
            await asyncio.to_thread(self.learn_server)
        counting.load_soon()  # in the background, while the request is under way
        model = request.model or self.model
        start = self._opener(request, model)
        first = min(request.timeout, self.timeout, self.first_token_timeout)
        idle = min(request.timeout, self.timeout, self.idle_timeout)
        response, iterator, chunk = await self._open(start, model, first)
        try:
            text: list[str] = []
            calls = _ToolCallAccumulator()
            usage = Usage()
            finish: str | None = None
            while chunk is not None:
                piece, finish_now, usage_now = self._absorb(chunk, calls)
                finish = finish_now or finish
                if usage_now is not None:
                    usage = usage_now
                if piece:
                    text.append(piece)
                    yield TextDelta(piece)
                try:
                    chunk = await _within(iterator.__anext__(), idle, self._quiet(idle))
                except StopAsyncIteration:
                    chunk = None
                except Exception as exc:
                    raise self._error(exc, model, idle, received=True) from exc
            done = Completion("".join(text), calls.calls(), _cost(model, usage), model, finish)
            if done.tool_calls and not counting.loaded():
                # Another request follows, and its fit is measured: with the exact counter
                # from here on, always (not whichever the loading thread's timing gives).
                await asyncio.to_thread(counting.load)
            yield done
        finally:
            if response is not None:
                await _close(response)

    async def _open(
        self, start: Callable[[], Awaitable[Any]], model: str, timeout: float
    ) -> tuple[Any, Any, Any]:
        """Start the request and read its first chunk, retrying what may be retried.

        Returns the response (the caller closes it), its iterator and the first chunk (None
        for an empty stream). Retries happen only here: once a chunk has arrived, the text
        may already be on screen, so a later failure is raised instead of retried.
        """
        attempt = 0
        while True:
            response: Any = None
            iterator: Any = None
            try:
                try:
                    async with _Limit(timeout, self._quiet(timeout)):  # to the first chunk
                        response = await start()
                        iterator = response.__aiter__()
                        chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    chunk = None
                except Exception as exc:
                    error = self._error(exc, model, timeout, received=False, retries=attempt)
                    if not error.retryable or attempt >= self.max_retries:
                        raise error from exc
                    if response is not None:
                        await _close(response)
                        response = None
                    await self._wait_retry(attempt, exc, error.message)
                    attempt += 1
                    continue
                # Ownership passes to the caller: the finally below must not close it.
                opened, response = response, None
                return opened, iterator, chunk
            finally:
                if response is not None:
                    await _close(response)

    def _quiet(self, limit: float) -> tuple[float, Any] | None:
        """(after how long, what to call) to say a silence while waiting up to `limit`."""
        on_wait = self.on_wait
        if on_wait is None:
            return None
        after = quiet_notice_after(limit)
        return after, lambda: on_wait(after, limit)

    async def _wait_retry(self, attempt: int, exc: BaseException, message: str) -> None:
        delay = self._delay(attempt, exc)
        if self.on_retry is not None:  # the person sees it, not a silent pause
            self.on_retry(attempt + 1, self.max_retries, delay, message)
        await asyncio.sleep(delay)

    @staticmethod
    def _absorb(chunk: Any, calls: _ToolCallAccumulator) -> tuple[str, str | None, Usage | None]:
        """Feed one chunk: returns its text, its finish reason and its usage (if any)."""
        raw_usage = _get(chunk, "usage")
        usage = None
        if raw_usage is not None:
            usage = Usage(
                int(_get(raw_usage, "prompt_tokens") or 0),
                int(_get(raw_usage, "completion_tokens") or 0),
            )
        choices = _get(chunk, "choices") or []
        if not choices:
            return "", None, usage
        choice = choices[0]
        delta = _get(choice, "delta")
        for call in (_get(delta, "tool_calls") or []) if delta is not None else []:
            calls.add(call)
        text = (_get(delta, "content") or "") if delta is not None else ""
        return text, _get(choice, "finish_reason"), usage

    def _delay(self, attempt: int, exc: BaseException) -> float:
        delay = self.backoff * 2**attempt * random.uniform(0.5, 1.5)
        headers = _get(getattr(exc, "response", None), "headers")
        try:
            retry_after = float(headers.get("retry-after")) if headers else None
        except (TypeError, ValueError):
            retry_after = None
        if retry_after is not None and 0 <= retry_after <= 60:
            delay = max(delay, retry_after)
        return delay

    def _error(
        self, exc: BaseException, model: str, timeout: float, *, received: bool, retries: int = 0
    ) -> ModelError:
        """`exc` in plain words (see `model_errors`).

        Retryable only when nothing has streamed yet.
        """
        return model_error(
            exc,
            model,
            timeout,
            received=received,
            retries=retries,
            api_base=self.api_base,
            api_key=self.api_key,
        )


def _cost(model: str, usage: Usage) -> Usage:
    """`usage` with its price from litellm's table (`model_facts`), the same on both paths."""
    if not (usage.prompt_tokens or usage.completion_tokens):
        return usage
    price = model_facts.cost(model, usage.prompt_tokens, usage.completion_tokens)
    return Usage(usage.prompt_tokens, usage.completion_tokens, price)


class _Limit:
    """`async with _Limit(timeout, quiet)`: TimeoutError after `timeout` seconds; `quiet`
    (after, call): `call()` once when the block has waited `after` seconds (the wait is
    said as it happens, before it becomes an error).

    Not `asyncio.wait_for`: on Python 3.11 it runs the awaitable as a task of its own, and
    when that task finishes in the same loop step as the caller is cancelled (Esc while
    chunks stream every few milliseconds), it returns the result and drops the
    cancellation, so the turn went on streaming. `asyncio.timeout` awaits in the caller's
    own task, where a cancellation is never lost.
    """

    def __init__(self, timeout: float, quiet: tuple[float, Any] | None = None) -> None:
        self._timeout = asyncio.timeout(timeout)
        self._limit = timeout
        self._quiet = quiet
        self._handle: asyncio.TimerHandle | None = None

    async def __aenter__(self) -> None:
        await self._timeout.__aenter__()
        if self._quiet is not None and self._quiet[0] < self._limit:
            self._handle = asyncio.get_running_loop().call_later(*self._quiet)

    async def __aexit__(self, *exc: Any) -> bool | None:
        if self._handle is not None:
            self._handle.cancel()
        return await self._timeout.__aexit__(*exc)


async def _within(awaitable: Any, timeout: float, quiet: tuple[float, Any] | None = None) -> Any:
    """`await awaitable` within `_Limit(timeout, quiet)`."""
    async with _Limit(timeout, quiet):
        return await awaitable


async def _close(response: Any) -> None:
    close = getattr(response, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:
        pass
