"""The direct path: OpenAI chat completions and Anthropic messages spoken over HTTP/1.1
(`http1`, on h11; httpx only through a proxy), without litellm (whose import takes seconds).

`route_for` decides, from the model string and the environment alone, whether a request
can go this way; `open_stream` sends it and returns a `DirectStream` of OpenAI-shaped
chunks, which the client reads exactly as it reads litellm's. Everything else — other
providers, a reasoning effort for Claude, content other than text and base64 images,
test mocks — goes through litellm, and `CODEBOT_WIRE=litellm` sends everything there.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from codebot.agent.model import http1, model_facts, sse, wire_anthropic, wire_openai
from codebot.agent.model.protocol import ModelRequest
from codebot.agent.model.providers import provider_of
from codebot.agent.model.wire_errors import (
    APIConnectionError,
    AuthenticationError,
    WireError,
    error_for_status,
)

if TYPE_CHECKING:
    import httpx

#: The environment variable that sends every request through litellm.
WIRE_VARIABLE = "CODEBOT_WIRE"
#: An error body is read up to this many bytes (enough for any provider's message).
ERROR_BODY_MAX = 64_000
#: Seconds to wait for the end of a body after the stream said it is complete.
DRAIN_TIMEOUT = 1.0
#: What Anthropic's API is sent as `max_tokens` when neither the request nor litellm's
#: table gives a limit (the API requires one).
ANTHROPIC_DEFAULT_MAX_TOKENS = 8192


@dataclass(frozen=True, slots=True)
class Route:
    """Where and how a model's requests go on the direct path."""

    wire: str  # "openai" | "anthropic"
    url: str  # the full endpoint
    model_id: str  # the model as the server names it
    key: str | None  # None: no key was found (the request fails as auth, unsent)
    key_header: str  # "authorization" (Bearer) | "x-api-key"


def _first(env: Mapping[str, str], *names: str) -> str | None:
    return next((env[n] for n in names if env.get(n, "").strip()), None)


def route_for(
    model: str,
    api_base: str | None,
    api_key: str | None,
    env: Mapping[str, str] | None = None,
) -> Route | None:
    """The direct route for `model`, or None when litellm must carry it."""
    env = os.environ if env is None else env
    if env.get(WIRE_VARIABLE, "").strip().lower() == "litellm":
        return None
    provider = provider_of(model)
    prefixed = "/" in model
    name = model.partition("/")[2] if prefixed else model
    if provider == "openai":
        # A bare name is OpenAI's only when litellm's table says so (litellm refuses others).
        if not (prefixed or api_base or _table_provider(model) == "openai"):
            return None
        base = api_base or _first(env, "OPENAI_BASE_URL", "OPENAI_API_BASE")
        key = api_key or _first(env, "OPENAI_API_KEY")
        url = (base or "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        return Route("openai", url, name, key, "authorization")
    if provider == "openrouter":
        base = api_base or _first(env, "OPENROUTER_API_BASE") or "https://openrouter.ai/api/v1"
        key = api_key or _first(env, "OPENROUTER_API_KEY")
        return Route("openai", base.rstrip("/") + "/chat/completions", name, key, "authorization")
    if provider == "anthropic":
        base = api_base or _first(env, "ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL")
        base = (base or "https://api.anthropic.com").rstrip("/")
        url = base if base.endswith("/v1/messages") else base + "/v1/messages"
        key = api_key or _first(env, "ANTHROPIC_API_KEY")
        if key is None and (token := _first(env, "ANTHROPIC_AUTH_TOKEN")):
            return Route("anthropic", url, name, token, "authorization")
        return Route("anthropic", url, name, key, "x-api-key")
    return None


def _table_provider(model: str) -> object:
    entry = model_facts.facts(model)
    return entry.get("litellm_provider") if entry else None


def request_body(route: Route, request: ModelRequest, model: str) -> dict[str, Any] | None:
    """The body for `request`, or None when this route cannot carry it faithfully."""
    if route.wire == "openai":
        reasoning = model_facts.supports_reasoning(model)
        # OpenAI's o-series: system messages go as user messages unless the table says
        # the model takes them (litellm's o-series rule).
        entry = model_facts.facts(model) or {}
        o_series = route.model_id.rpartition("/")[2].startswith(("o1", "o3", "o4"))
        no_system = o_series and entry.get("supports_system_messages") is not True
        return wire_openai.request_body(
            request, route.model_id, reasoning=reasoning, system_as_user=no_system
        )
    if request.effort and model_facts.supports_reasoning(model):
        return None  # Claude's thinking budgets: litellm's conversion, not a second one
    limit = model_facts.output_limit(model) or ANTHROPIC_DEFAULT_MAX_TOKENS
    return wire_anthropic.request_body(request, route.model_id, default_max_tokens=limit)


def headers(route: Route) -> dict[str, str]:
    out = {"content-type": "application/json", "accept": "text/event-stream"}
    if route.key_header == "x-api-key":
        out["x-api-key"] = route.key or ""
    else:
        out["authorization"] = f"Bearer {route.key}"
    if route.wire == "anthropic":
        out["anthropic-version"] = wire_anthropic.VERSION
    return out


class _Answer(Protocol):
    """An HTTP answer being read (`http1.Response`, or httpx's)."""

    status_code: int

    def aiter_lines(self) -> AsyncIterator[str]: ...

    async def aclose(self) -> None: ...


class DirectStream:
    """One streaming answer: iterate it for OpenAI-shaped chunks; `aclose()` ends it."""

    def __init__(self, response: _Answer, wire: str) -> None:
        self._response = response
        lines = sse.events(response.aiter_lines())
        read = wire_openai.chunks if wire == "openai" else wire_anthropic.chunks
        self._chunks = self._whole(read(lines))

    async def _whole(self, chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        async for chunk in chunks:
            yield chunk
        # The answer said it is complete: read the body's end (a few bytes, at once) so
        # the connection can serve the next request; a server that dawdles loses it.
        if isinstance(self._response, http1.Response):
            with contextlib.suppress(Exception):
                async with asyncio.timeout(DRAIN_TIMEOUT):
                    await self._response.aread(ERROR_BODY_MAX)

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._chunks

    async def aclose(self) -> None:
        try:
            await self._chunks.aclose()  # pyright: ignore[reportAttributeAccessIssue]
        finally:
            await self._response.aclose()


class Connections:
    """Kept connections for one event loop at a time (a connection belongs to the loop
    that opened it; the TUI and print mode each run one loop, tests many): `http1`'s pool,
    and an httpx client only for requests that go through a proxy."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: http1.Pool | None = None
        self._httpx: httpx.AsyncClient | None = None

    def _same_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._pool, self._httpx = loop, None, None

    def pool(self) -> http1.Pool:
        self._same_loop()
        if self._pool is None:
            self._pool = http1.Pool()
        return self._pool

    def proxied(self) -> httpx.AsyncClient:
        import httpx  # 70-400 ms; only for a request through a proxy

        self._same_loop()
        if self._httpx is None or self._httpx.is_closed:
            # No overall timeout here: the client's own limits (first chunk, idle) apply.
            self._httpx = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=30.0))
        return self._httpx


async def _send(
    connections: Connections, route: Route, body: dict[str, object]
) -> http1.Response | httpx.Response:
    """POST `body`; the answer once its status and headers are in."""
    if http1.proxy_for(route.url) is None:
        try:
            return await connections.pool().post(route.url, body, headers(route))
        except h11_errors() as exc:  # a server that does not speak HTTP/1.1 properly
            raise APIConnectionError(f"the server's answer is not valid HTTP: {exc}") from exc
    client = connections.proxied()
    request = client.build_request("POST", route.url, json=body, headers=headers(route))
    return await client.send(request, stream=True)


def h11_errors() -> tuple[type[Exception], ...]:
    import h11

    return (h11.RemoteProtocolError, h11.LocalProtocolError)


async def _error_body(response: http1.Response | httpx.Response) -> bytes:
    if isinstance(response, http1.Response):
        return await response.aread(ERROR_BODY_MAX)
    raw = b""
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) >= ERROR_BODY_MAX:
            break
    return raw


async def open_stream(
    connections: Connections, route: Route, body: dict[str, object]
) -> DirectStream:
    """Send the request; an HTTP error answer raises the matching `wire_errors` class."""
    if not route.key:
        # litellm refuses before sending too, and `errors` reads this as a missing key.
        raise AuthenticationError("Missing credentials: the api_key client option must be set.")
    response = await _send(connections, route, body)
    if 300 <= response.status_code < 400:
        # Never followed: the key would go wherever the answer points.
        await response.aclose()
        where = str(response.headers.get("location") or "?")[:300]
        raise WireError(
            f"the server answered {response.status_code} (a redirect to {where!r}); codebot "
            "does not follow redirects with your key: set the API base to the final URL",
            response.status_code,
        )
    if response.status_code >= 400:
        try:
            raw = await _error_body(response)
        finally:
            await response.aclose()
        raise error_for_status(response.status_code, raw, response)
    return DirectStream(response, route.wire)
