"""A Streamable HTTP MCP server for the session tests: the SDK's own `MCPServer` under
uvicorn on 127.0.0.1, behind a bearer token.

    python http_session_server.py PORT_FILE TOKEN LOG [PORT [json]]

It writes its port to PORT_FILE once it listens (PORT: that one, else any free one) and
appends a line to LOG for what the tests wait on ("slow started", "slow cancelled", "got
METHOD" for each message POSTed, "got DELETE", ...);
`json`: answers are JSON bodies, not server-sent event streams.
Tools: add(a, b); slow() (sleeps until cancelled); grow() (adds the tool `extra` and
says the tool list changed). Prompt: greet(name).
"""

from __future__ import annotations

import json
import os
import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

port_file, token, log = sys.argv[1], sys.argv[2], sys.argv[3]
port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
json_response = sys.argv[5:6] == ["json"]
server = MCPServer("http-session-test", version="2.0.0")


def note(text: str) -> None:
    with open(log, "a") as f:
        f.write(text + "\n")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    note(f"add {a} {b}")
    return a + b


@server.tool()
async def slow() -> str:
    """Wait until cancelled."""
    note("slow started")
    try:
        await anyio.sleep(3600)
    except anyio.get_cancelled_exc_class():
        note("slow cancelled")
        raise
    return "never"


def extra() -> str:
    """A tool added later."""
    return "extra!"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `extra` and say the list changed."""
    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


app = server.streamable_http_app(json_response=json_response)


async def guarded(scope, receive, send):
    if scope["type"] == "http":
        auth = dict(scope["headers"]).get(b"authorization", b"")
        if auth != b"Bearer " + token.encode():
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": b"no"})
            return
        if scope["method"] == "POST":
            receive = await noted(receive)
        elif scope["method"] == "DELETE":
            note("got DELETE")
    await app(scope, receive, send)


async def noted(receive):
    """Note the method of the message POSTed ("got notifications/cancelled"); the body
    is handed on as it came."""
    chunks, more = [], True
    while more:
        event = await receive()
        chunks.append(event)
        more = event.get("more_body", False) and event["type"] == "http.request"
    try:
        note(f"got {json.loads(b''.join(e.get('body', b'') for e in chunks)).get('method')}")
    except (ValueError, AttributeError):
        pass

    async def replay():
        return chunks.pop(0) if chunks else await receive()

    return replay


sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", port))
sock.listen(64)
with open(port_file + ".tmp", "w") as f:
    f.write(str(sock.getsockname()[1]))
os.replace(port_file + ".tmp", port_file)
uvicorn.Server(uvicorn.Config(guarded, log_level="warning")).run(sockets=[sock])
