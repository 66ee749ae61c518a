"""What the configured server says of its window and models (`server_window`): each
server's answer shape, and hostile servers (stall, drip, flood, garbage, absurd numbers)
that must cost at most the budget and tell nothing."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from codebot.agent.model.server_window import (
    ServerInfo,
    ServerView,
    ask_server,
    window_from_models,
    window_from_props,
    window_from_show,
)

LLAMA_MODELS = {
    "object": "list",
    "data": [
        {
            "id": "SmolLM2-135M-Instruct-Q8_0.gguf",
            "object": "model",
            "owned_by": "llamacpp",
            "meta": {"vocab_type": 2, "n_vocab": 49152, "n_ctx": 2048, "n_ctx_train": 8192},
        }
    ],
}


def test_llama_cpp_models_meta_n_ctx_then_n_ctx_train() -> None:
    assert window_from_models(LLAMA_MODELS) == (2048, True)
    only_train = {"data": [{"id": "m", "meta": {"n_ctx_train": 8192}}]}
    assert window_from_models(only_train) == (8192, True)


def test_vllm_max_model_len_of_the_named_model() -> None:
    doc = {
        "data": [
            {"id": "a", "owned_by": "vllm", "max_model_len": 32768},
            {"id": "b", "owned_by": "vllm", "max_model_len": 4096},
        ]
    }
    assert window_from_models(doc, "b") == (4096, False)
    assert window_from_models(doc, "not-listed") == (32768, False)  # the first


def test_props_and_ollama_show() -> None:
    assert window_from_props({"default_generation_settings": {"n_ctx": 2048}}) == 2048
    assert window_from_props({"n_ctx": 4096}) == 4096
    show = {
        "parameters": 'stop "<|im_end|>"\nnum_ctx 8192',
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
    }
    assert window_from_show(show) == 8192  # what it runs with wins over what it can do
    assert window_from_show({"model_info": {"llama.context_length": 131072}}) == 131072


@pytest.mark.parametrize(
    "value", [True, -1, 0, 10, float("nan"), float("inf"), 10**12, "2048", None, [2048]]
)
def test_absurd_or_wrong_typed_windows_are_not_believed(value: object) -> None:
    assert window_from_props({"default_generation_settings": {"n_ctx": value}}) is None
    assert window_from_models({"data": [{"id": "m", "max_model_len": value}]}) == (None, False)
    assert window_from_show({"model_info": {"x.context_length": value}}) is None


def test_garbage_documents_tell_nothing() -> None:
    for doc in (None, [], "x", {"data": "x"}, {"data": [1, None, "a"]}):
        assert window_from_models(doc) == (None, False)
        assert window_from_props(doc) is None
        assert window_from_show(doc) is None


def test_ask_server_reads_props_of_a_llama_cpp_server(fake_openai) -> None:
    fake_openai.models = LLAMA_MODELS
    fake_openai.props = {"default_generation_settings": {"n_ctx": 2048}}
    info = ask_server(fake_openai.url)
    assert info == ServerInfo(2048, "/props", ("SmolLM2-135M-Instruct-Q8_0.gguf",))
    assert fake_openai.asked == ["/v1/models", "/props"]


def test_ask_server_reads_ollama_show_when_models_say_nothing(fake_openai) -> None:
    fake_openai.models = {"data": [{"id": "qwen2.5:0.5b", "owned_by": "library"}]}
    fake_openai.show = {"model_info": {"qwen2.context_length": 32768}}
    assert ask_server(fake_openai.url) == ServerInfo(32768, "/api/show", ("qwen2.5:0.5b",))


def test_a_server_that_says_nothing(fake_openai) -> None:
    assert ask_server(fake_openai.url) == ServerInfo()
    assert ask_server("not a url") == ServerInfo()
    assert ask_server("ftp://127.0.0.1/v1") == ServerInfo()


@pytest.fixture
def hostile() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 whose behaviour the test sets: "stall", "drip", "flood" or
    "garbage"; yields (its /v1 url, the behaviour list to append to)."""
    mode: list[str] = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            kind = mode[0] if mode else "stall"
            if kind == "flood":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 99999999\r\n\r\n")
                while not stop.is_set():
                    try:
                        conn.sendall(b"{" * 65536)
                    except OSError:
                        return
            elif kind == "drip":
                for ch in b"HTTP/1.0 200 OK\r\n":
                    if stop.wait(0.05):
                        return
                    conn.sendall(bytes([ch]))
            elif kind == "garbage":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n\xff\xfe{[}")
            stop.wait(10)

    def accept() -> None:
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/v1", mode
    stop.set()
    srv.close()


@pytest.mark.parametrize("kind", ["stall", "drip", "flood", "garbage"])
def test_hostile_servers_tell_nothing_within_the_budget(hostile, kind: str) -> None:
    url, mode = hostile
    mode.append(kind)
    done = threading.Event()
    result: list[ServerInfo] = []

    def run() -> None:
        result.append(ask_server(url, budget_s=0.3))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    # Not a timing assertion: the probe must return at all (a hang would fail here).
    assert done.wait(30), f"ask_server hung on a {kind} server"
    assert result == [ServerInfo()]


def test_server_view_asks_once_and_a_refusal_wins() -> None:
    calls: list[str | None] = []

    def ask(base: str, model: str | None, budget: float, key: str | None) -> ServerInfo:
        calls.append(model)
        return ServerInfo(4096, "/v1/models", ("m",))

    view = ServerView("http://127.0.0.1:1/v1", ask=ask)
    assert view.window() is None and not view.asked
    view.learn("m")
    view.learn("m")
    assert calls == ["m"]
    assert view.window() == (4096, "server:/v1/models")
    view.refused(2048)
    assert view.window() == (2048, "refusal")
    view.refused(-5)  # not a window: ignored
    assert view.window() == (2048, "refusal")
    view.learn("m", again=True)
    assert calls == ["m", "m"]


def test_a_raising_asker_is_a_server_that_said_nothing() -> None:
    def ask(*_: object) -> ServerInfo:
        raise RuntimeError("boom")

    view = ServerView("http://127.0.0.1:1/v1", ask=ask)
    assert view.learn() == ServerInfo()


def test_model_ids_with_control_characters_or_too_many_are_not_taken() -> None:
    from codebot.agent.model.server_window import MAX_MODELS, model_ids

    doc = {
        "data": [
            {"id": "evil\x1b[2Jname"},
            {"id": "--model=x; rm -rf /"},
            {"id": ""},
            {"id": 42},
            *({"id": f"m{i}"} for i in range(100)),
        ]
    }
    ids = model_ids(doc)
    assert ids[0] == "m0" and len(ids) == MAX_MODELS
    assert all("\x1b" not in i and " " not in i for i in ids)


def test_the_key_goes_to_the_configured_server_only_when_header_safe(fake_openai) -> None:
    fake_openai.models = {"data": [{"id": "m", "max_model_len": 4096}]}
    assert ask_server(fake_openai.url, api_key="sk-local").window == 4096
    assert ask_server(fake_openai.url, api_key="sk\r\nX-Evil: 1").window == 4096
    got = [h for h in fake_openai.get_headers]
    assert got[0].get("authorization") == "Bearer sk-local"
    assert "authorization" not in got[1] and "x-evil" not in got[1]
