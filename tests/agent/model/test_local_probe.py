"""The local server probe: loopback only, bounded by one deadline, and unmoved by a
hostile or broken server. Every server here is a tiny one of the test's own on an
ephemeral 127.0.0.1 port."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from codebot.agent.model import local_probe as lp
from codebot.agent.model.local_probe import Found, connect_line, probe
from codebot.agent.session.setup import client_for, local_servers
from codebot.config import load_settings

Handler = Callable[[socket.socket], None]


class Server:
    """A raw TCP server on 127.0.0.1:0 whose every connection runs `handler`."""

    def __init__(self, handler: Handler) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.handler = handler
        self.connections = 0
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(3)
                conn.recv(4096)  # the request
                self.handler(conn)
            except OSError:
                pass

    def close(self) -> None:
        self.stopped.set()
        self.sock.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], Server]]:
    servers: list[Server] = []

    def start(handler: Handler) -> Server:
        servers.append(Server(handler))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def answer(
    body: bytes, status: str = "200 OK", headers: str = "Content-Type: application/json\r\n"
) -> Handler:
    def handler(conn: socket.socket) -> None:
        conn.sendall(
            f"HTTP/1.1 {status}\r\n{headers}Content-Length: {len(body)}\r\n\r\n".encode() + body
        )

    return handler


def models(*ids: object, owned_by: str = "library") -> bytes:
    return json.dumps(
        {
            "object": "list",
            "data": [{"id": i, "object": "model", "owned_by": owned_by} for i in ids],
        }
    ).encode()


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_finds_a_server_and_ignores_a_closed_port(serve) -> None:
    good = serve(answer(models("llama3.1:8b", "qwen2.5-coder:7b")))
    found = probe([closed_port(), good.port], budget_s=0.5)
    assert found == [
        Found(
            good.port,
            "ollama",
            f"http://127.0.0.1:{good.port}/v1",
            ("llama3.1:8b", "qwen2.5-coder:7b"),
        )
    ]
    assert found[0].label == f"Ollama at http://127.0.0.1:{good.port}/v1"
    assert found[0].model_string() == "openai/llama3.1:8b"


def test_the_kind_is_guessed_from_the_answer_then_the_port(serve) -> None:
    cpp = serve(answer(models("model.gguf", owned_by="llamacpp")))
    lms = serve(answer(models("qwen2.5-7b-instruct", owned_by="organization_owner")))
    other = serve(answer(models("m", owned_by="someone")))
    kinds = {f.port: f.kind for f in probe([cpp.port, lms.port, other.port], budget_s=0.5)}
    assert kinds == {cpp.port: "llama.cpp", lms.port: "lm-studio", other.port: "openai-compatible"}
    assert lp._guess_kind(11434, "", ()) == "ollama" and lp._guess_kind(1234, "", ()) == "lm-studio"


def test_a_stalling_server_does_not_stretch_the_budget(serve) -> None:
    stall = serve(lambda conn: time.sleep(3))  # accepts, reads the request, never answers
    good = serve(answer(models("llama3.1")))
    t0 = time.monotonic()
    found = probe([stall.port, good.port], budget_s=0.15)
    elapsed = time.monotonic() - t0
    assert elapsed < 2.5, elapsed  # the 0.15 s budget, not the 3 s the server stalls for
    assert [f.port for f in found] == [good.port]
    assert stall.connections == 1


def test_a_slow_drip_is_cut_off_at_the_deadline(serve) -> None:
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(300):
            conn.sendall(b" ")
            time.sleep(0.01)

    slow = serve(drip)
    t0 = time.monotonic()
    assert probe([slow.port], budget_s=0.15) == []
    assert time.monotonic() - t0 < 2.0  # the 0.15 s budget, not the 3 s drip


def test_a_flood_is_not_read_past_the_cap(serve) -> None:
    def flood(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        chunk = b'{"data": [' + b" " * 65536
        for _ in range(200):  # 13 MB
            conn.sendall(chunk)

    big = serve(flood)
    t0 = time.monotonic()
    assert probe([big.port], budget_s=0.5) == []
    assert (
        time.monotonic() - t0 < 5
    )  # stopped at the cap or the budget (how fast: not this test's business)


@pytest.mark.parametrize(
    "body",
    [
        b"not json at all",
        b"[1, 2, 3]",
        b'{"data": {"id": "x"}}',
        b'{"data": "x"}',
        b"\xff\xfe",
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_garbage_is_ignored(serve, body: bytes) -> None:
    bad = serve(answer(body))
    assert probe([bad.port], budget_s=0.5) == []


def test_model_ids_are_validated_and_capped(serve) -> None:
    ids = [
        "ok-1",
        42,
        None,
        "rm -rf /; echo",
        "$(touch x)",
        "a" * 300,
        "ok-1",
        "ok-2",
        "ok-3",
        "ok-4",
        "ok-5",
        "ok-6",
    ]
    srv = serve(answer(json.dumps({"data": [{"id": i} for i in ids] + ["not a dict"]}).encode()))
    (found,) = probe([srv.port], budget_s=0.5)
    assert found.models == ("ok-1", "ok-2", "ok-3", "ok-4", "ok-5")


def test_an_empty_model_list_still_counts(serve) -> None:
    srv = serve(answer(b'{"object": "list", "data": []}'))
    (found,) = probe([srv.port], budget_s=0.5)
    assert found.models == () and found.model_string() == "openai/default"


def test_a_redirect_is_not_followed(serve) -> None:
    target = serve(answer(models("elsewhere")))
    redirect = serve(
        answer(b"", "302 Found", f"Location: http://127.0.0.1:{target.port}/v1/models\r\n")
    )
    assert probe([redirect.port], budget_s=0.3) == []
    assert target.connections == 0


@pytest.mark.parametrize(
    "status", ["404 Not Found", "500 Internal Server Error", "401 Unauthorized"]
)
def test_an_error_status_is_ignored(serve, status: str) -> None:
    srv = serve(answer(models("m"), status))
    assert probe([srv.port], budget_s=0.3) == []


def test_chunked_and_keep_alive_answers_are_read(serve) -> None:
    body = models("chunky")

    def chunked(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + f"{len(body):x}\r\n".encode()
            + body
            + b"\r\n0\r\n\r\n"
        )

    def keep_alive(conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(2)  # the connection stays open: the probe must not wait for it to close

    a, b = serve(chunked), serve(keep_alive)
    t0 = time.monotonic()
    found = probe([a.port, b.port], budget_s=1.0)
    assert [f.models for f in found] == [("chunky",), ("chunky",)]
    assert (
        time.monotonic() - t0 < 0.9
    )  # before the 1 s budget: it did not wait for the connection to close


def test_only_loopback_is_ever_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple] = []

    def no_socket(*a, **k):
        opened.append(a)
        raise OSError("no")

    monkeypatch.setattr(lp.socket, "socket", no_socket)
    assert (
        probe([80, 443], budget_s=0.2, hosts=("10.0.0.1", "192.168.1.1", "example.com", "0.0.0.0"))
        == []
    )
    assert probe([0, 70000, True, "80"], budget_s=0.2) == []  # type: ignore[list-item]
    assert opened == []
    assert not lp._ask("10.0.0.1", 80, time.monotonic() + 1) and opened == []


def test_ipv6_loopback_is_asked_too(serve) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    # The port must be free on 127.0.0.1 too, and stay so: the probe asks 127.0.0.1 first,
    # and a server of another test listening there on the same number would answer. A
    # socket bound there (not listening) makes that host refuse instead.
    s6 = s4 = None
    for _ in range(20):
        s4 = socket.socket(socket.AF_INET)
        s4.bind(("127.0.0.1", 0))
        s6 = socket.socket(socket.AF_INET6)
        try:
            s6.bind(("::1", s4.getsockname()[1]))
            break
        except OSError:
            s4.close()
            s6.close()
            s6 = None
    if s6 is None:
        pytest.skip("no ::1, or no port free on both loopbacks")
    s6.listen(1)
    port = s6.getsockname()[1]

    def one() -> None:
        conn, _ = s6.accept()
        with conn:
            conn.recv(4096)
            answer(models("v6"))(conn)

    threading.Thread(target=one, daemon=True).start()
    try:
        (found,) = probe([port], budget_s=0.5)
    finally:
        s6.close()
        s4.close()
    assert found.host == "::1" and found.base_url == f"http://[::1]:{port}/v1"


def test_connect_line_is_one_line_and_names_the_server() -> None:
    assert connect_line([]) == lp.DEFAULT_CONNECT and "\n" not in lp.DEFAULT_CONNECT
    f = Found(11434, "ollama", "http://127.0.0.1:11434/v1", ("llama3.1:8b",))
    line = connect_line([f])
    assert "\n" not in line and line.startswith(
        "Connect a model: Ollama at http://127.0.0.1:11434/v1"
    )
    assert "--api-base http://127.0.0.1:11434/v1 --model openai/llama3.1:8b" in line


# -- what front ends call ----------------------------------------------------------------------


def test_local_servers_probes_only_when_nothing_is_configured(tmp_path: Path) -> None:
    settings = load_settings(cwd=tmp_path)
    asked: list[list[int]] = []

    def fake(ports):
        asked.append(list(ports))
        return [Found(ports[0], "ollama", f"http://127.0.0.1:{ports[0]}/v1", ("m",))]

    assert local_servers(settings, {}, probe=fake)[0].port == 11434
    assert asked == [[11434, 8080, 1234]]
    assert (
        local_servers(settings, {"CODEBOT_PROBE_PORTS": "5001, 5002,x"}, probe=fake)[0].port == 5001
    )
    assert asked[-1] == [5001, 5002]
    n = len(asked)
    assert local_servers(settings, {"OPENAI_API_KEY": "sk-x"}, probe=fake) == []
    assert local_servers(settings, {"CODEBOT_NO_PROBE": "1"}, probe=fake) == []
    assert local_servers(replace(settings, model="gpt-4o-mini"), {}, probe=fake) == []
    assert local_servers(replace(settings, api_base="http://127.0.0.1:9/v1"), {}, probe=fake) == []
    assert len(asked) == n


def test_local_servers_end_to_end_and_the_client_for_it(serve, tmp_path: Path) -> None:
    srv = serve(answer(models("qwen2.5-coder:7b")))
    (found,) = local_servers(load_settings(cwd=tmp_path), {"CODEBOT_PROBE_PORTS": str(srv.port)})
    client = client_for(found, env={})
    assert (client.model, client.api_base, client.api_key) == (
        "openai/qwen2.5-coder:7b",
        f"http://127.0.0.1:{srv.port}/v1",
        "sk-no-key-needed",
    )
    assert client_for(found, "other", env={"CODEBOT_API_KEY": "k"}).model == "openai/other"
    assert client_for(found, "other", env={"CODEBOT_API_KEY": "k"}).api_key == "k"
