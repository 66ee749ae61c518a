"""A tiny MCP server over stdio in raw JSON-RPC, for the tests: no SDK, starts in ~30 ms.

`python raw_server.py LOG [--tools N] [--silent]` appends every message it receives to
LOG (one JSON line each). Its tools, by name:

- `echo {text}`: the text back; `pid`: its process id;
- `die`: exits (code 3) in the middle of the call, without answering;
- `hang`: never answers (a cancelled call shows up in LOG as notifications/cancelled);
- `grow`: adds a tool `extra`, says `notifications/tools/list_changed`, answers "grown";
- `mixed`: text, an image, audio, an embedded resource and a resource link;
- `picture`: text, a real 1x1 PNG, then images that must not reach a model: data that is
  not base64, JPEG bytes declared as PNG, a TIFF;
- `fail`: a result with `isError: true`; `big`: 100,000 characters of text;
- `flood`: 200 `notifications/tools/list_changed` in a row, then "flooded";
- `tool_K` (K < N, with `--tools N`): a generated tool with a long description.

Not listed, for `SessionServers.call`: `huge` (300,000 characters: a line parsed off the
loop), `hush` (answers, then closes its output and keeps running).

`--silent` never answers anything (a server that hangs at initialize).
"""

import json
import os
import sys
import threading

log_path = sys.argv[1]
N = int(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else 0
SILENT = "--silent" in sys.argv
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
EMPTY = {"type": "object", "properties": {}}
PNG = (  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAC"
    "hwGA60e6kgAAAABJRU5ErkJggg=="
)
tools = [
    {
        "name": "echo",
        "description": "Say the text back.",
        "inputSchema": SCHEMA,
        "annotations": {"readOnlyHint": True},
    },
    {"name": "pid", "description": "The server's process id.", "inputSchema": EMPTY},
    {"name": "die", "description": "Exit during the call.", "inputSchema": EMPTY},
    {"name": "hang", "description": "Never answer.", "inputSchema": EMPTY},
    {"name": "grow", "description": "Add a tool.", "inputSchema": EMPTY},
    {"name": "mixed", "description": "Every kind of content.", "inputSchema": EMPTY},
    {"name": "fail", "description": "An error result.", "inputSchema": EMPTY},
    {"name": "picture", "description": "Images, good and bad.", "inputSchema": EMPTY},
    {"name": "big", "description": "A long text.", "inputSchema": EMPTY},
    {"name": "flood", "description": "200 list_changed.", "inputSchema": EMPTY},
]
for k in range(N):
    tools.append(
        {
            "name": f"tool_{k}",
            "description": f"Generated tool {k}. " + "It does one thing with care. " * 12,
            "inputSchema": {
                "type": "object",
                "properties": {
                    f"arg_{j}": {"type": "string", "description": "a value " * 6} for j in range(6)
                },
            },
        }
    )


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def answer(mid, result):
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def text(t):
    return {"content": [{"type": "text", "text": t}], "isError": False}


def mixed():
    return [
        {"type": "text", "text": "hello"},
        {"type": "image", "data": "aGVsbG8=" * 100, "mimeType": "image/png"},
        {"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
        {"type": "resource_link", "uri": "file:///b.txt", "name": "b"},
    ]


def picture():
    jpeg = "/9j/4AAQSkZJRgABAQ=="  # JPEG's first bytes
    images = [(PNG, "image/png"), ("not base64!", "image/png"), (jpeg, "image/png")]
    images.append(("SUkqAAgAAAA=", "image/tiff"))
    content = [{"type": "text", "text": "a picture"}]
    return content + [{"type": "image", "data": d, "mimeType": m} for d, m in images]


CONTENT = {"mixed": mixed, "picture": picture}


def unlisted(mid, name):
    if name == "huge":  # a line over connect.BIG_LINE
        return answer(mid, text("y" * 300_000))
    # hush: answers, then (after the SDK's tools/list for a tool it did not list) closes
    # its output and keeps running
    answer(mid, text("hushed"))
    threading.Timer(0.5, os.close, (1,)).start()
    return None


def call(mid, name, args):
    if name == "echo":
        return answer(mid, text(str(args.get("text"))))
    if name.startswith("tool_"):
        return answer(mid, text(f"{name} done"))
    if name == "pid":
        return answer(mid, text(str(os.getpid())))
    if name == "die":
        os._exit(3)
    if name == "hang":
        return None
    if name == "grow":
        tools.append({"name": "extra", "description": "Added later.", "inputSchema": EMPTY})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return answer(mid, text("grown"))
    if name == "flood":
        for _ in range(200):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return answer(mid, text("flooded"))
    if name == "fail":
        return answer(mid, {"content": [{"type": "text", "text": "it broke"}], "isError": True})
    if name == "big":
        return answer(mid, text("x" * 100_000))
    if name in CONTENT:
        return answer(mid, {"content": CONTENT[name](), "isError": False})
    send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": f"no tool {name}"}})


for line in sys.stdin:
    with open(log_path, "a") as f:
        f.write(line if line.endswith("\n") else line + "\n")
    msg = json.loads(line)
    if SILENT or "id" not in msg or "method" not in msg:
        continue
    method, mid = msg["method"], msg["id"]
    if method == "initialize":
        answer(
            mid,
            {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "raw", "version": "1"},
            },
        )
    elif method == "tools/list":
        answer(mid, {"tools": tools})
    elif method == "tools/call" and msg["params"]["name"] in ("huge", "hush"):
        unlisted(mid, msg["params"]["name"])
    elif method == "tools/call":
        call(mid, msg["params"]["name"], msg["params"].get("arguments") or {})
    elif method == "ping":
        answer(mid, {})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "not found"}})
