"""Streamable HTTP MCP servers kept connected in sessions (codebot/mcp/session_http.py):
the SDK's own server under uvicorn on 127.0.0.1 (`http_session_server.py`, one process per
test: some tests kill it), through `SessionServers` and through real `codebot -p`
processes with the scripted model (`fake_openai`)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codebot.mcp.approval import approve
from codebot.mcp.config import ServerDef, load_servers, servers_from
from codebot.mcp.session_servers import SessionServers

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("starlette") is None,
    reason="uvicorn/starlette are not installed (they come with mcp's server side)",
)
SCRIPT = Path(__file__).with_name("http_session_server.py")
TOKEN = "s3cret-token-value-42"


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str  # its endpoint, .../mcp
    log: Path  # what its tools noted

    def notes(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def http_server(tmp_path: Path, wait_until) -> Iterator[Callable[..., Server]]:
    """`http_server(port=0, json=False)`: start the server (again, on `port`; answering
    with JSON bodies, not event streams, with `json`) and wait until it listens."""
    started: list[subprocess.Popen[bytes]] = []

    def start(port: int = 0, json: bool = False) -> Server:
        folder = tmp_path / f"server{len(started)}"
        folder.mkdir()
        port_file, log = folder / "port", tmp_path / "notes.log"
        out = (folder / "out.log").open("wb")
        cmd = [sys.executable, str(SCRIPT), str(port_file), TOKEN, str(log), str(port)]
        cmd += ["json"] if json else []
        proc = subprocess.Popen(cmd, stdout=out, stderr=out)
        out.close()
        started.append(proc)
        wait_until(lambda: port_file.exists() or proc.poll() is not None, timeout=60)
        assert port_file.exists(), (folder / "out.log").read_text()
        return Server(proc, f"http://127.0.0.1:{port_file.read_text()}/mcp", log)

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def entry(server: Server, **keys: object) -> dict:
    return {
        "type": "http",
        "url": server.url,
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
        **keys,
    }


def define(name: str, spec: dict, token: str = TOKEN) -> ServerDef:
    (d,), _ = servers_from(
        {name: spec}, source="user", path="test", prefix="s", environ={"DOCS_TOKEN": token}
    )
    assert d.error == ""
    return d


@pytest.fixture
def servers(codebot_home: Path, project: Path) -> Iterator[Callable[..., SessionServers]]:
    made: list[SessionServers] = []

    def make(*defs: ServerDef) -> SessionServers:
        s = SessionServers(list(defs), home=codebot_home, project=project, environ={})
        made.append(s)
        s.start()
        return s

    yield make
    for s in made:
        s.close()


def text_of(outcome) -> str:
    assert outcome.error == "", outcome.error
    return "".join(getattr(c, "text", "") for c in outcome.result.content)


def call(s: SessionServers, tool: str, args: dict, timeout: float = 30):
    return asyncio.run(asyncio.wait_for(s.call("docs", tool, args), timeout))


# -- SessionServers ----------------------------------------------------------------------------


def test_an_http_server_is_kept_connected_and_its_tools_called(servers, http_server) -> None:
    server = http_server()
    s = servers(define("docs", entry(server)))
    assert s.wait_started()
    (row,) = s.status()
    assert (row["status"], row["server"]) == ("ready", "http-session-test 2.0.0"), row
    assert [t.name for t in s.tools()] == ["add", "slow", "grow"]
    assert text_of(call(s, "add", {"a": 2, "b": 3})) == "5"
    assert text_of(call(s, "add", {"a": 4, "b": 4})) == "8"  # the same connection, again
    assert [n for n in server.notes() if not n.startswith("got ")] == ["add 2 3", "add 4 4"]
    assert server.notes().count("got initialize") == 1  # one session for both calls


def test_list_changed_lists_the_tools_again(servers, http_server, wait_until) -> None:
    s = servers(define("docs", entry(server := http_server())))
    assert s.wait_started()
    before = s.generation
    assert text_of(call(s, "grow", {})) == "grown"
    wait_until(lambda: "extra" in [t.name for t in s.tools()], timeout=10)
    assert s.generation > before
    assert text_of(call(s, "extra", {})) == "extra!"
    assert server.proc.poll() is None


def test_a_cancelled_call_reaches_the_server(servers, http_server, wait_until) -> None:
    server = http_server()
    s = servers(define("docs", entry(server)))
    assert s.wait_started()

    async def cancel() -> None:
        task = asyncio.ensure_future(s.call("docs", "slow", {}))
        async with asyncio.timeout(30):  # a poll with an end, never a hang
            while "slow started" not in server.notes():
                await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(cancel(), 20))
    wait_until(lambda: "slow cancelled" in server.notes(), timeout=10)
    assert "got notifications/cancelled" in server.notes()  # protocol 2025-11-25: the frame
    assert text_of(call(s, "add", {"a": 1, "b": 1})) == "2"


def test_a_call_past_its_timeout_is_an_error(servers, http_server) -> None:
    s = servers(define("docs", entry(http_server(), timeout=1)))
    assert s.wait_started()
    out = call(s, "slow", {})
    assert "did not answer within its timeout (1 s)" in out.error


def test_a_401_names_the_header_and_variable_not_the_secret(servers, http_server) -> None:
    s = servers(define("docs", entry(http_server()), token="wrong-secret-value-77"))
    assert s.wait_started()
    (row,) = s.status()
    error = str(row["error"])
    assert row["status"] == "failed"
    assert "401" in error and "Authorization" in error and "${DOCS_TOKEN}" in error, error
    assert "wrong-secret-value-77" not in error and "wrong-secret" not in error
    out = call(s, "add", {"a": 1, "b": 1})  # down (or, past its backoff, failed again)
    assert ("is down" in out.error or "not ready" in out.error) and "401" in out.error, out.error
    assert "wrong-secret" not in out.error


def test_nothing_listening_fails_within_the_startup_timeout(servers, tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    s = servers(define("docs", {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}))
    assert s.wait_started(timeout=30)
    (row,) = s.status()
    assert row["status"] == "failed" and "connect" in str(row["error"]).lower(), row


@pytest.mark.parametrize("json_answers", [False, True], ids=["sse", "json"])
def test_a_server_killed_mid_call_is_an_error_then_reconnected_after_backoff(
    servers, http_server, wait_until, json_answers: bool
) -> None:
    server = http_server(json=json_answers)
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    # its timeout is 120 s: only noticing the lost connection can end the call in time
    s = servers(define("docs", entry(server, timeout=120)))
    assert s.wait_started()

    async def killed_during() -> str:
        task = asyncio.ensure_future(s.call("docs", "slow", {}))
        async with asyncio.timeout(30):  # a poll with an end, never a hang
            while "slow started" not in server.notes():
                await asyncio.sleep(0.02)
        server.proc.send_signal(signal.SIGKILL)
        return (await task).error

    error = asyncio.run(asyncio.wait_for(killed_during(), 20))
    assert "connection was lost during the call" in error, error
    assert TOKEN not in error
    (row,) = s.status()
    assert row["status"] == "failed"
    server.proc.wait(10)
    again = http_server(port, json=json_answers)  # the same URL answers again
    out = wait_until(lambda: (o := call(s, "add", {"a": 6, "b": 7})).error == "" and o, timeout=20)
    assert text_of(out) == "13"
    assert again.proc.poll() is None
    assert s.status()[0]["status"] == "ready"


@pytest.mark.parametrize("json_answers", [False, True], ids=["sse", "json"])
def test_a_server_killed_between_calls_is_an_error_result_not_a_hang(
    servers, http_server, json_answers: bool
) -> None:
    server = http_server(json=json_answers)
    s = servers(define("docs", entry(server, timeout=120)))
    assert s.wait_started()
    server.proc.kill()
    server.proc.wait(10)
    out = call(s, "add", {"a": 1, "b": 2}, timeout=20)
    # lost during the call, or (noticed while idle, before it) not there to connect to again
    assert "connection was lost" in out.error or "not ready" in out.error, out.error


def test_a_server_restarted_between_calls_is_connected_again(
    servers, http_server, wait_until
) -> None:
    server = http_server()
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    s = servers(define("docs", entry(server)))
    assert s.wait_started()
    server.proc.kill()
    server.proc.wait(10)
    http_server(port)  # a new process: it does not know the old session's id (404)
    out = call(s, "add", {"a": 1, "b": 2})
    # unless the loss was noticed while idle (then this use connected again), it is a 404
    assert out.error == "" or "no longer knows this session (HTTP 404" in out.error, out.error
    out = wait_until(lambda: (o := call(s, "add", {"a": 2, "b": 2})).error == "" and o, timeout=20)
    assert text_of(out) == "4"


@pytest.mark.parametrize("json_answers", [False, True], ids=["sse", "json"])
def test_a_server_killed_while_idle_is_down_at_once_and_the_next_use_reconnects(
    servers, http_server, wait_until, json_answers: bool
) -> None:
    server = http_server(json=json_answers)
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    s = servers(define("docs", entry(server)))
    assert s.wait_started()
    assert text_of(call(s, "add", {"a": 1, "b": 1})) == "2"
    server.proc.kill()  # idle: no call in flight
    server.proc.wait(10)
    # noticed without any call: its event stream ended, a ping found nobody
    wait_until(lambda: s.status()[0]["status"] == "failed", timeout=20)
    assert "was lost" in str(s.status()[0]["error"]), s.status()
    assert TOKEN not in str(s.status()[0]["error"])
    http_server(port, json=json_answers)  # the same URL answers again
    out = call(s, "add", {"a": 2, "b": 3})  # the next use connects again: no error first
    assert text_of(out) == "5"
    assert s.status()[0]["status"] == "ready"


def test_close_ends_the_http_session(servers, http_server, wait_until) -> None:
    server = http_server()
    s = servers(define("docs", entry(server)))
    assert s.wait_started()
    assert "got DELETE" not in server.notes()
    s.close()
    assert "got DELETE" in server.notes()  # the HTTP session was ended
    assert s.status()[0]["status"] == "stopped"
    assert "not running" in call(s, "add", {"a": 1, "b": 1}).error


def test_live_servers_prompts_and_reconnect_over_http(
    codebot_home: Path, project: Path, http_server
) -> None:
    from codebot.mcp.live_servers import LiveServers

    server = http_server()
    s = LiveServers([define("docs", entry(server))], home=codebot_home, project=project)
    try:
        s.start()
        assert s.wait_started()
        assert [p.name for p in s.prompts()] == ["greet"]
        got = asyncio.run(asyncio.wait_for(s.get_prompt("docs", "greet", {"name": "Ann"}), 30))
        assert got.error == "" and "Hello Ann" in got.result.messages[0].content.text
        assert s.reconnect("docs")  # a new HTTP session: the old one was ended
        assert server.notes().count("got initialize") == 2
        assert "got DELETE" in server.notes()
        assert text_of(call(s, "add", {"a": 3, "b": 3})) == "6"
    finally:
        s.close()


# -- codebot -p --------------------------------------------------------------------------------


def write_servers(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def approve_all(project: Path, token: str = TOKEN) -> None:
    home = Path(os.environ["CODEBOT_HOME"])  # the approval covers the variables' values
    cfg = load_servers(project, {}, home / "config.yaml", environ={"DOCS_TOKEN": token})
    assert approve(home, project, cfg.servers)


def command(project: Path, fake, *args: str) -> list[str]:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "-p", "go"]
    return [*cmd, "--api-base", fake.url, "--model", "openai/x", *args]


def run(project: Path, fake, *args: str, token: str = TOKEN) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_TOKEN": token}
    cmd = command(project, fake, *args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project, env=env)


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def tool_result(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "tool")


def model_call(name: str, arguments: dict) -> dict:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def test_print_mode_calls_an_http_servers_tool(project: Path, fake_openai, http_server) -> None:
    server = http_server()
    write_servers(project, {"docs": entry(server)})
    approve_all(project)
    fake_openai.script([model_call("mcp__docs__add", {"a": 20, "b": 22}), {"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__docs")
    assert out.returncode == 0, out.stderr
    first, second = fake_openai.requests
    assert {"mcp__docs__add", "mcp__docs__slow", "mcp__docs__grow"} <= set(tool_names(first))
    assert tool_result(second) == "42"
    assert "add 20 22" in server.notes()
    assert server.notes()[-1] == "got DELETE"  # closed at the session's end
    assert "not connected yet" not in out.stderr


def test_print_mode_says_a_401_at_start_without_the_secret(
    project: Path, fake_openai, http_server
) -> None:
    server = http_server()
    write_servers(project, {"docs": entry(server)})
    approve_all(project, token="wrong-secret-99")
    fake_openai.script([{"text": "done"}])
    out = run(project, fake_openai, "--trust", "--allow", "mcp__docs", token="wrong-secret-99")
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stderr.splitlines() if "MCP server docs" in x)
    assert "401" in line and "Authorization" in line and "${DOCS_TOKEN}" in line, line
    assert "wrong-secret-99" not in out.stderr and TOKEN not in out.stderr
    assert not any(n.startswith("mcp__docs") for n in tool_names(fake_openai.requests[0]))


def test_print_mode_a_server_killed_mid_call_is_an_error_result(
    project: Path, fake_openai, http_server, wait_until
) -> None:
    server = http_server()
    # its timeout is 120 s and the run is given 60: only noticing the loss ends the call
    write_servers(project, {"docs": entry(server, timeout=120)})
    approve_all(project)
    fake_openai.script([model_call("mcp__docs__slow", {}), {"text": "done"}])
    env = {**os.environ, "DOCS_TOKEN": TOKEN}
    cmd = command(project, fake_openai, "--trust", "--allow", "mcp__docs")
    proc = subprocess.Popen(
        cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_until(lambda: "slow started" in server.notes(), timeout=60)
        server.proc.kill()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    text = tool_result(fake_openai.requests[1])
    assert "connection was lost during the call" in text, text
    assert TOKEN not in text


class _Counter(BaseHTTPRequestHandler):
    hits: list[str]

    def _any(self) -> None:
        self.hits.append(f"{self.command} {self.path}")
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST = do_DELETE = _any

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("case", ["unapproved", "untrusted", "changed"])
def test_an_http_server_that_may_not_start_is_never_contacted(
    project: Path, fake_openai, case: str
) -> None:
    hits: list[str] = []
    handler = type("Counter", (_Counter,), {"hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        write_servers(project, {"docs": {"type": "http", "url": url}})
        if case != "unapproved":
            approve_all(project)
        if case == "changed":
            write_servers(project, {"docs": {"type": "http", "url": url + "?v=2"}})
        fake_openai.script([{"text": "done"}])
        trust = [] if case == "untrusted" else ["--trust"]
        out = run(project, fake_openai, *trust, "--allow", "mcp__docs")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert out.returncode == 0, out.stderr
    assert hits == []
    assert not any(n.startswith("mcp__docs") for n in tool_names(fake_openai.requests[0]))
    assert "not started" in out.stderr


class _Stuck(BaseHTTPRequestHandler):
    """Answers `initialize` (with a session id), then never answers anything else, nor
    the DELETE that ends the session."""

    release: threading.Event
    seen: list[str]

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append(str(message.get("method")))
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "stuck", "version": "1"},
            }
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("mcp-session-id", "abc")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif "id" not in message:  # a notification
            self.send_response(202)
            self.send_header("content-length", "0")
            self.end_headers()
        else:
            self.release.wait(60)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.seen.append("DELETE")
        self.release.wait(60)

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_stuck_after_initialize_fails_in_time_and_closes(servers) -> None:
    release, seen = threading.Event(), []
    handler = type("Stuck", (_Stuck,), {"release": release, "seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        s = servers(define("docs", {"type": "http", "url": url, "startup_timeout": 1}))
        assert s.wait_started(timeout=10)  # not "starting" while the DELETE hangs
        (row,) = s.status()
        assert row["status"] == "failed", row
        assert "startup_timeout (1 s)" in str(row["error"]), row
        assert "tools/list" in seen
        out = call(s, "add", {"a": 1, "b": 1})
        assert out.error, out
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()


class _Hostile(BaseHTTPRequestHandler):
    """Refuses `initialize` with a JSON-RPC error full of terminal controls."""

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["content-length"])))
        error = {"code": -32000, "message": "bad \x1b[31mred\x07 \x9b2J \u202eevil\r!"}
        body = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_hostile_start_error_is_said_escaped(project: Path, fake_openai) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        write_servers(project, {"docs": {"type": "http", "url": url}})
        approve_all(project)
        fake_openai.script([{"text": "done"}])
        out = run(project, fake_openai, "--trust", "--allow", "mcp__docs")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stderr.splitlines() if "MCP server docs failed to start" in x)
    assert "bad" in line and "red" in line, line
    for hidden in ("\x1b", "\x07", "\x9b", "\u202e", "\r"):
        assert hidden not in out.stderr
