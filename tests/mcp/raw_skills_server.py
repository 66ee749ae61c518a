"""A tiny SEP-2640 server over stdio in raw JSON-RPC, for the tests: skills that change.

`python raw_skills_server.py LOG` appends every message it receives to LOG. It declares
tools and the skills extension; its skill `first` is listed at start. Its tools:

- `add`: lists one more skill, `second`, and says `notifications/resources/list_changed`;
- `flood`: 100 `notifications/resources/list_changed` in a row;
- `die`: exits at once.
"""

import hashlib
import json
import os
import sys

log_path = sys.argv[1]
EMPTY = {"type": "object", "properties": {}}
TOOLS = [{"name": n, "description": n, "inputSchema": EMPTY} for n in ("add", "flood", "die")]
files = {"first": "---\nname: first\ndescription: The first skill\n---\nFIRST BODY\n"}


def entry(name):
    data = files[name].encode()
    uri = f"skill://{name}/SKILL.md"
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    fm = {"name": name, "description": f"The {name} skill"}
    return {
        "uri": uri,
        "frontmatter": fm,
        "resources": [{"uri": uri, "digest": digest, "size": len(data)}],
    }


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def answer(mid, result):
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def changed():
    send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})


def call(mid, name):
    if name == "add":
        files["second"] = "---\nname: second\ndescription: The second skill\n---\nSECOND\n"
        changed()
    elif name == "flood":
        for _ in range(100):
            changed()
    elif name == "die":
        os._exit(3)
    answer(mid, {"content": [{"type": "text", "text": "ok"}], "isError": False})


def read(mid, uri):
    name = uri.removeprefix("skill://").removesuffix("/SKILL.md")
    text = {"uri": uri, "mimeType": "text/markdown", "text": files[name]}
    answer(mid, {"contents": [text]})


for line in sys.stdin:
    with open(log_path, "a") as f:
        f.write(line if line.endswith("\n") else line + "\n")
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method, mid, params = msg["method"], msg["id"], msg.get("params") or {}
    if method == "initialize":
        caps = {
            "tools": {},
            "resources": {"listChanged": True},
            "extensions": {"io.modelcontextprotocol/skills": {}},
        }
        info = {"name": "raw-skills", "version": "1"}
        answer(
            mid,
            {
                "protocolVersion": params["protocolVersion"],
                "capabilities": caps,
                "serverInfo": info,
            },
        )
    elif method == "tools/list":
        answer(mid, {"tools": TOOLS})
    elif method == "tools/call":
        call(mid, params["name"])
    elif method == "skills/list":
        answer(mid, {"skills": [entry(n) for n in files]})
    elif method == "skills/get":
        name = params["uri"].removeprefix("skill://").removesuffix("/SKILL.md")
        answer(mid, {"skill": entry(name)})
    elif method == "resources/read":
        read(mid, params["uri"])
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "not found"}})
