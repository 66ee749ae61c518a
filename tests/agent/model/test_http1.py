"""The direct path's HTTP/1.1 client (`http1`): kept connections, chunked bodies, line
splitting at every boundary, a server that lies or hangs up, and which requests it leaves
to httpx (proxies)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from codebot.agent.model import http1
from codebot.agent.model.direct import Connections, Route, open_stream

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    return head + await reader.readexactly(length)


class Server:
    """An HTTP/1.1 server on 127.0.0.1 that answers each request on a connection with the
    next of `answers` (raw bytes), keeping the connection open; counts connections."""

    def __init__(self, answers: list[bytes]) -> None:
        self.answers = list(answers)
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Server:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1/chat/completions"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.answers:
                self.requests.append(await _read_request(reader))
                answer = self.answers.pop(0)
                writer.write(answer)
                await writer.drain()
                if b"connection: close" in answer.lower():
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def chunked(*pieces: bytes) -> bytes:
    body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    return (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        + body
    )


SSE_PIECES = (
    b'data: {"choices": [{"index": 0, "delta": {"content": "he"}, "finish_reason": null}]}\r',
    b'\n\r\ndata: {"choices": [{"index": 0, "delta": {"content": "llo \xe4\xb8',
    b'\x96"}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n',
)
ROUTE = Route("openai", "", "m", "sk-test", "authorization")


def route(url: str) -> Route:
    return Route("openai", url, "m", "sk-test", "authorization")


async def texts(connections: Connections, url: str) -> str:
    stream = await open_stream(connections, route(url), {"model": "m", "messages": []})
    out = []
    async for chunk in stream:
        delta = chunk["choices"][0]["delta"]
        out.append(delta.get("content") or "")
    await stream.aclose()
    return "".join(out)


async def test_lines_split_across_chunks_and_a_split_utf8_character_arrive_whole() -> None:
    async with Server([chunked(*SSE_PIECES)]) as server:
        assert await texts(Connections(), server.url) == "hello 世"


async def test_a_turns_second_request_reuses_the_connection() -> None:
    async with Server([chunked(*SSE_PIECES), chunked(*SSE_PIECES)]) as server:
        connections = Connections()
        await texts(connections, server.url)
        await texts(connections, server.url)
        assert (server.connections, len(server.requests)) == (1, 2)
        assert b"authorization: Bearer sk-test" in server.requests[0]


async def test_a_stream_abandoned_midway_is_not_reused() -> None:
    async with Server([chunked(*SSE_PIECES), chunked(*SSE_PIECES)]) as server:
        connections = Connections()
        stream = await open_stream(connections, route(server.url), {})
        async for _ in stream:
            break  # the person pressed Esc after the first piece
        await stream.aclose()
        assert await texts(connections, server.url) == "hello 世"
        assert server.connections == 2


async def test_a_kept_connection_the_server_closed_meanwhile_is_replaced() -> None:
    closing = chunked(*SSE_PIECES).replace(b"chunked\r\n", b"chunked\r\nconnection: keep-alive\r\n")
    async with Server([closing]) as server:
        connections = Connections()
        await texts(connections, server.url)
        server.answers.append(chunked(*SSE_PIECES))
        # the server's handler ended (no answers left): the kept connection is dead
        await asyncio.sleep(0)
        assert await texts(connections, server.url) == "hello 世"
        assert server.connections == 2


async def test_garbage_instead_of_http_is_a_connection_error_not_a_crash() -> None:
    from codebot.agent.model.wire_errors import APIConnectionError

    async with Server([b"SSH-2.0-OpenSSH_9.6\r\n\r\n"]) as server:
        with pytest.raises(APIConnectionError, match="not valid HTTP"):
            await texts(Connections(), server.url)


async def test_a_server_that_closes_mid_answer_raises_a_connection_error() -> None:
    whole = chunked(*SSE_PIECES)
    cut = whole[: whole.index(b"\r\n", whole.index(b"\r\n\r\n") + 4) + 60]  # mid-chunk
    async with Server([cut]) as server:  # the handler closes the socket after it
        with pytest.raises(ConnectionError, match="closed the connection mid-answer"):
            async with asyncio.timeout(10):
                await texts(Connections(), server.url)


def test_the_proxy_the_environment_sets_and_no_proxy() -> None:
    env = {"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "internal.example,.corp"}
    assert http1.proxy_for("https://api.openai.com/v1/x", env) == "http://proxy:3128"
    assert http1.proxy_for("http://api.openai.com/v1/x", env) is None  # HTTP_PROXY unset
    assert http1.proxy_for("https://internal.example/v1", env) is None
    assert http1.proxy_for("https://llm.corp/v1", env) is None
    assert (
        http1.proxy_for("https://api.example/v1", {"all_proxy": "socks5://p:1"}) == "socks5://p:1"
    )
    assert http1.proxy_for("https://x/v1", {"HTTPS_PROXY": "http://p", "NO_PROXY": "*"}) is None


async def test_a_request_through_a_proxy_goes_through_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The proxy here is the server itself: httpx sends it the absolute URL, which the
    direct client never does, so the request line tells which client spoke."""
    async with Server([chunked(*SSE_PIECES)]) as server:
        proxy = server.url.rsplit("/v1", 1)[0]
        monkeypatch.setenv("HTTP_PROXY", proxy)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        target = "http://upstream.invalid/v1/chat/completions"
        assert await texts(Connections(), target) == "hello 世"
        assert server.requests[0].startswith(b"POST http://upstream.invalid/v1/chat/completions ")


def test_only_http_urls_are_accepted() -> None:
    for bad in ("file:///etc/passwd", "ftp://x/y", "http:///nohost", "javascript:alert(1)"):
        with pytest.raises(ValueError, match="not an http"):
            http1.split(bad)
    assert http1.split("https://[::1]:8443/v1?a=b") == (
        http1.Origin("https", "::1", 8443),
        "/v1?a=b",
    )


async def test_a_redirect_is_an_error_and_the_key_goes_nowhere_else() -> None:
    from codebot.agent.model.wire_errors import WireError

    moved = (
        b"HTTP/1.1 307 Temporary Redirect\r\nlocation: http://evil.example/steal\r\n"
        b"content-length: 0\r\n\r\n"
    )
    async with Server([moved]) as server:
        with pytest.raises(WireError, match="does not follow redirects") as info:
            await texts(Connections(), server.url)
        assert "evil.example" in str(info.value) and len(server.requests) == 1


async def test_an_endless_line_is_refused_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http1, "MAX_LINE", 1000)
    endless = chunked(*[b"x" * 600] * 4)
    async with Server([endless]) as server:
        with pytest.raises(ConnectionError, match="over 1,000 characters"):
            await texts(Connections(), server.url)
