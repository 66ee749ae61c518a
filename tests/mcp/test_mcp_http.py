"""Connecting to Streamable HTTP MCP servers (codebot/mcp/http_transport.py, connect.py)
on 127.0.0.1: the SDK's own server (`MCPServer`'s streamable HTTP app under uvicorn, in a
subprocess, behind a bearer token), and small servers in threads that stay silent,
redirect elsewhere, or answer garbage."""

from __future__ import annotations

import gzip
import importlib.util
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codebot.cli import main
from codebot.mcp import http_transport
from codebot.mcp.config import ServerDef, servers_from
from codebot.mcp.connect import probe_all

needs_server = pytest.mark.skipif(
    importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("starlette") is None,
    reason="uvicorn/starlette are not installed (they come with mcp's server side)",
)
TOKEN = "s3cret-token-value-42"
HIDDEN = ("\x1b", "\x9b", "\u202e", "\r", "\x07")

SERVER = textwrap.dedent(
    """
    import os, socket, sys
    import uvicorn
    from mcp.server.mcpserver import MCPServer

    port_file, token = sys.argv[1], sys.argv[2]
    server = MCPServer("http-test", version="1.2.3")

    @server.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers.\"\"\"
        return a + b

    @server.prompt()
    def greet(name: str) -> str:
        \"\"\"Greet someone.\"\"\"
        return f"Hello {name}"

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            auth = dict(scope["headers"]).get(b"authorization", b"")
            if auth != b"Bearer " + token.encode():
                status = 403 if auth == b"Bearer read-only" else 401
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"text/plain"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.replace(port_file + ".tmp", port_file)
    uvicorn.Server(uvicorn.Config(guarded, log_level="warning")).run(sockets=[sock])
    """
)


@pytest.fixture(scope="module")
def sdk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:PORT`) of the SDK's server; its endpoint is /mcp."""
    if importlib.util.find_spec("uvicorn") is None:
        pytest.skip("uvicorn is not installed")
    folder = tmp_path_factory.mktemp("sdk-server")
    script, port_file = folder / "server.py", folder / "port"
    script.write_text(SERVER)
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port_file), TOKEN], stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not port_file.exists():
            pytest.fail(f"the server did not start: {(folder / 'server.log').read_text()}")
        yield f"http://127.0.0.1:{port_file.read_text()}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def define(name: str, entry: dict, environ: dict[str, str] | None = None) -> ServerDef:
    (d,), _ = servers_from(
        {name: entry}, source="flag", path="test.json", prefix="s", environ=environ or {}
    )
    assert d.error == ""
    return d


def probe(d: ServerDef, codebot_home: Path, project: Path):
    return probe_all([d], home=codebot_home, project=project, environ={})[d.name]


# -- the SDK's own server ------------------------------------------------------------------------


@needs_server
def test_ready_with_counts_through_the_cli(
    sdk_server: str, project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("DOCS_TOKEN", TOKEN)
    flag = project / "servers.json"
    entry = {
        "type": "streamable-http",
        "url": f"{sdk_server}/mcp",
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
    }
    flag.write_text(json.dumps({"mcpServers": {"docs": entry}}))
    monkeypatch.chdir(project)
    assert main(["mcp", "list", "--json", "--mcp-config", str(flag)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "ready", row
    assert (row["tools"], row["prompts"]) == (1, 1)
    assert row["server"] == "http-test 1.2.3"
    assert main(["mcp", "list", "--mcp-config", str(flag)]) == 0
    out = capsys.readouterr().out
    assert "docs  flag  ready  1 tools, 1 prompts" in out
    assert TOKEN not in out


@needs_server
def test_401_names_the_header_and_its_variable_never_the_secret(
    sdk_server: str, project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    wrong = "wrong-but-secret-value-7"
    monkeypatch.setenv("DOCS_TOKEN", wrong)
    flag = project / "servers.json"
    entry = {"url": f"{sdk_server}/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
    flag.write_text(json.dumps({"mcpServers": {"docs": entry}}))
    monkeypatch.chdir(project)
    assert main(["mcp", "list", "--json", "--mcp-config", str(flag)]) == 0
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)
    assert row["status"] == "failed" and row["tools"] is None
    assert "401 Unauthorized" in row["error"]
    assert "Authorization" in row["error"] and "${DOCS_TOKEN}" in row["error"]
    assert wrong not in captured.out + captured.err
    assert "Traceback" not in captured.err


@needs_server
def test_401_without_headers_says_how_to_add_one(
    sdk_server: str, codebot_home: Path, project: Path
) -> None:
    p = probe(define("docs", {"url": f"{sdk_server}/mcp"}), codebot_home, project)
    assert not p.ready and "401 Unauthorized" in p.error
    assert "codebot mcp add docs --transport http URL --header 'Authorization: Bearer" in p.error


@needs_server
def test_401_with_a_written_header_names_it_and_the_file(
    sdk_server: str, codebot_home: Path, project: Path
) -> None:
    d = define("docs", {"url": f"{sdk_server}/mcp", "headers": {"X-Api-Key": "literal-key-999"}})
    p = probe(d, codebot_home, project)
    assert "401" in p.error and "X-Api-Key" in p.error and "test.json" in p.error
    assert "literal-key-999" not in p.error


@needs_server
def test_403_names_the_header_and_its_variable(
    sdk_server: str, codebot_home: Path, project: Path
) -> None:
    entry = {"url": f"{sdk_server}/mcp", "headers": {"Authorization": "Bearer ${RO_TOKEN}"}}
    p = probe(define("docs", entry, {"RO_TOKEN": "read-only"}), codebot_home, project)
    assert not p.ready and "403 Forbidden" in p.error
    assert "Authorization" in p.error and "${RO_TOKEN}" in p.error
    assert "read-only" not in p.error


@needs_server
def test_a_redirect_within_the_origin_is_followed_with_its_headers(
    sdk_server: str, codebot_home: Path, project: Path
) -> None:
    entry = {"url": f"{sdk_server}/mcp/", "headers": {"Authorization": f"Bearer {TOKEN}"}}
    p = probe(define("docs", entry), codebot_home, project)
    assert p.ready, p.error
    assert (p.tools, p.prompts) == (1, 1)


@needs_server
def test_a_wrong_path_is_a_404(sdk_server: str, codebot_home: Path, project: Path) -> None:
    d = define(
        "docs",
        {"url": f"{sdk_server}/nothing-here", "headers": {"Authorization": f"Bearer {TOKEN}"}},
    )
    p = probe(d, codebot_home, project)
    assert not p.ready and "HTTP 404" in p.error and "path" in p.error
    assert TOKEN not in p.error


# -- small hostile servers -----------------------------------------------------------------------


class Recorder:
    """What a thread server received: (method, path, headers) per request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []


def serve(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[tuple[str, Recorder]]:
    seen = Recorder()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            seen.requests.append(
                (self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
            )
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            answer(self)

        do_GET = do_POST
        do_DELETE = do_POST

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def reply(status: int, body: bytes, headers: dict[str, str]):
    def answer(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        for k, v in {"content-length": str(len(body)), **headers}.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)

    return answer


@pytest.fixture
def elsewhere() -> Iterator[tuple[str, Recorder]]:
    yield from serve(reply(200, b"{}", {"content-type": "application/json"}))


def test_a_redirect_to_another_host_is_refused_and_sends_nothing_there(
    elsewhere: tuple[str, Recorder], codebot_home: Path, project: Path
) -> None:
    target, seen_there = elsewhere
    port = target.rsplit(":", 1)[1]
    location = f"http://localhost:{port}/mcp"
    for base, seen_here in serve(reply(307, b"", {"location": location})):
        d = define("docs", {"url": f"{base}/mcp", "headers": {"Authorization": f"Bearer {TOKEN}"}})
        p = probe(d, codebot_home, project)
        assert not p.ready
        assert f"redirected to {location}" in p.error and "not followed" in p.error
        assert TOKEN not in p.error
        assert seen_here.requests  # it was asked, with its header
        assert seen_here.requests[0][2].get("authorization") == f"Bearer {TOKEN}"
    assert seen_there.requests == []


def test_a_server_that_accepts_and_never_answers_fails_at_its_timeout(
    codebot_home: Path, project: Path
) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        p = probe(define("quiet", {"url": url, "startup_timeout": 1}), codebot_home, project)
    finally:
        listener.close()
        for conn in held:
            conn.close()
    assert not p.ready and p.tools is None
    assert "did not answer initialize and the lists within its startup_timeout (1 s)" in p.error
    assert held  # it did connect


def test_nothing_listening_is_a_clear_failure(codebot_home: Path, project: Path) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # the port is free and nobody listens
    p = probe(define("gone", {"url": f"http://127.0.0.1:{port}/mcp"}), codebot_home, project)
    assert not p.ready and "cannot connect" in p.error


def test_garbage_is_a_clean_failure_and_is_escaped(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    body = "\x1b[31mnot json\u202e at all\x07".encode()
    for base, _ in serve(reply(200, body, {"content-type": "application/json"})):
        flag = project / "servers.json"
        flag.write_text(json.dumps({"mcpServers": {"junk": {"url": f"{base}/mcp"}}}))
        monkeypatch.chdir(project)
        assert main(["mcp", "list", "--mcp-config", str(flag)]) == 0
    captured = capsys.readouterr()
    assert "junk  flag  failed" in captured.out
    assert "its answer is not JSON-RPC" in captured.out
    assert not any(c in captured.out for c in HIDDEN)
    assert "Traceback" not in captured.err


def test_a_huge_answer_is_cut(
    codebot_home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_transport, "MAX_BODY", 64 * 1024)

    def endless(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(64 * 1024 * 1024))
        h.end_headers()
        chunk = b" " * 65536
        try:
            for _ in range(1024):
                h.wfile.write(chunk)
        except OSError:
            pass  # the client hung up, as it should

    for base, _ in serve(endless):
        p = probe(define("big", {"url": f"{base}/mcp"}), codebot_home, project)
    assert not p.ready and f"over {64 * 1024} bytes" in p.error


def test_a_compressed_answer_is_refused(codebot_home: Path, project: Path) -> None:
    bomb = gzip.compress(b" " * (8 * 1024 * 1024))
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    for base, seen in serve(reply(200, bomb, headers)):
        p = probe(define("zip", {"url": f"{base}/mcp"}), codebot_home, project)
        assert seen.requests[0][2].get("accept-encoding") == "identity"
    assert not p.ready and "gzip-compressed" in p.error


def test_a_header_value_with_a_control_character_is_not_sent(
    elsewhere: tuple[str, Recorder], codebot_home: Path, project: Path
) -> None:
    base, seen = elsewhere
    d = define("ctl", {"url": f"{base}/mcp", "headers": {"X-Key": "abc\x1bdefgh-secret"}})
    p = probe(d, codebot_home, project)
    assert not p.ready and "X-Key" in p.error and "control character" in p.error
    assert "defgh-secret" not in p.error
    assert seen.requests == []


def test_redact_hides_values_and_their_words() -> None:
    d = define("r", {"url": "http://127.0.0.1:1/", "headers": {"Authorization": "Bearer abcdef12"}})
    said = http_transport.redact("sent Bearer abcdef12 and later abcdef12 alone", d)
    assert "abcdef12" not in said and said.count("***") == 2


def test_an_untrusted_or_unapproved_project_server_is_never_asked(
    elsewhere: tuple[str, Recorder],
    project: Path,
    codebot_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    from codebot import trust

    base, seen = elsewhere
    entry = {"url": f"{base}/mcp", "headers": {"Authorization": f"Bearer {TOKEN}"}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"web": entry}}))
    monkeypatch.chdir(project)
    assert main(["mcp", "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "not started: project not trusted"
    trust.add(codebot_home, project)
    assert main(["mcp", "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "not approved"
    assert seen.requests == []
