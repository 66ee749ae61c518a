"""The fake server's Anthropic Messages route (POST /v1/messages): through litellm's real
Anthropic path, and directly with urllib (SSE event order, error JSON shapes)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from codebot.agent.model.litellm_wire import litellm as _litellm

FAKE = Path(__file__).resolve().parents[1] / "fake_openai.py"
SYSTEM = "You are terse."
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "read two"}]
READ_TOOL = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


# -- through litellm ---------------------------------------------------------------------


async def litellm_stream(fake: Any, **kw: Any) -> list[Any]:
    """Every chunk litellm yields for one streamed anthropic/ call against the fake."""
    litellm = _litellm()
    kw.setdefault("tools", [READ_TOOL])
    stream = await litellm.acompletion(
        model="anthropic/claude-test",
        api_base=fake.anthropic_url,
        api_key="sk-ant-test",
        messages=MESSAGES,
        stream=True,
        num_retries=0,
        **kw,
    )
    return [chunk async for chunk in stream]


def text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


async def test_litellm_posts_to_v1_messages_and_streams_the_scripted_text(fake_openai) -> None:
    fake_openai.script([{"text": "Hello there, careful reader.", "chunks": 4}])
    chunks = await litellm_stream(fake_openai)
    assert text_of(chunks) == "Hello there, careful reader."
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) == 4
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    # litellm appends /v1/messages to the api_base it is given (the root, no /v1).
    assert fake_openai.paths == ["/v1/messages"]
    assert fake_openai.request_headers[0]["x-api-key"] == "sk-ant-test"
    assert "anthropic-version" in fake_openai.request_headers[0]
    body = fake_openai.requests[0]
    assert SYSTEM in json.dumps(body["system"])
    assert all(m["role"] != "system" for m in body["messages"])
    assert body["tools"][0]["name"] == "Read"
    assert body["tools"][0]["input_schema"]["properties"] == {"path": {"type": "string"}}


async def test_two_split_tool_calls_come_back_whole_with_ids_and_names(fake_openai) -> None:
    fake_openai.script(
        [
            {
                "text": "Reading both.",
                "tool_calls": [
                    {"name": "Read", "arguments": {"path": "a.py"}},
                    {"name": "Grep", "arguments": '{"pattern": "def \\\\w+"}', "id": "toolu_x"},
                ],
                "split": True,
                "interleave": True,  # ignored: Anthropic's blocks never interleave
            }
        ]
    )
    chunks = await litellm_stream(fake_openai)
    calls: dict[int, dict[str, str]] = {}
    pieces = 0
    for c in chunks:
        for d in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            call = calls.setdefault(d.index, {"id": "", "name": "", "arguments": ""})
            call["id"] = d.id or call["id"]
            call["name"] = d.function.name or call["name"]
            call["arguments"] += d.function.arguments or ""
            pieces += bool(d.function.arguments)
    assert text_of(chunks) == "Reading both."
    assert [calls[i]["id"] for i in sorted(calls)] == ["toolu_0", "toolu_x"]
    assert [calls[i]["name"] for i in sorted(calls)] == ["Read", "Grep"]
    assert json.loads(calls[0]["arguments"]) == {"path": "a.py"}
    assert json.loads(calls[1]["arguments"]) == {"pattern": "def \\w+"}
    assert pieces > 2  # the arguments really arrived in pieces
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"


async def test_usage_reaches_the_last_chunk(fake_openai) -> None:
    fake_openai.script([{"text": "ok", "usage": {"prompt_tokens": 1234, "completion_tokens": 56}}])
    # codebot asks for usage like this; litellm does not forward it (Anthropic always sends).
    chunks = await litellm_stream(fake_openai, stream_options={"include_usage": True})
    usage = chunks[-1].usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (1234, 56)
    assert "stream_options" not in fake_openai.requests[0]


async def test_max_tokens_comes_back_as_length(fake_openai) -> None:
    fake_openai.script([{"text": "cut sho", "finish_reason": "length"}])
    chunks = await litellm_stream(fake_openai)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


# How litellm 1.x classifies each Anthropic error status (streamed requests).
LITELLM_ERRORS = [
    (429, None, "RateLimitError"),
    (401, None, "AuthenticationError"),
    (400, "prompt is too long: 9100 tokens > 8192 maximum", "ContextWindowExceededError"),
    (400, None, "BadRequestError"),
    (403, None, "PermissionDeniedError"),
    (404, None, "NotFoundError"),
    (413, None, "BadRequestError"),
    (500, None, "InternalServerError"),
    (529, None, "InternalServerError"),
]


@pytest.mark.parametrize(("status", "message", "expected"), LITELLM_ERRORS)
async def test_litellm_classifies_each_anthropic_error(
    fake_openai, status: int, message: str | None, expected: str
) -> None:
    litellm = _litellm()
    fake_openai.script([{"status": status, **({"message": message} if message else {})}])
    with pytest.raises(Exception) as info:
        await litellm_stream(fake_openai)
    assert type(info.value).__name__ == expected
    assert isinstance(info.value, getattr(litellm, expected))
    if message:  # the context-window error is still a BadRequestError, with our text
        assert isinstance(info.value, litellm.BadRequestError)
        assert "prompt is too long" in str(info.value)


async def test_an_error_event_mid_stream_raises_after_the_text(fake_openai) -> None:
    litellm = _litellm()
    fake_openai.script([{"text": "partial", "error_after": {"code": 529, "message": "Overloaded"}}])
    with pytest.raises(Exception) as info:
        await litellm_stream(fake_openai)
    # litellm wraps the overloaded_error event in MidStreamFallbackError (a
    # ServiceUnavailableError) around an InternalServerError naming the event's message.
    assert type(info.value).__name__ == "MidStreamFallbackError"
    assert isinstance(info.value, litellm.ServiceUnavailableError)
    assert isinstance(info.value.original_exception, litellm.InternalServerError)
    assert "Overloaded" in str(info.value)


# -- the fake itself, over urllib --------------------------------------------------------


def post(fake: Any, body: Any, path: str = "/v1/messages") -> tuple[int, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        fake.anthropic_url + path, data=data, headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """SSE frames -> (event name, data); each frame has exactly one event and one data line."""
    out = []
    for frame in raw.decode().split("\n\n"):
        if not frame:
            continue
        lines = frame.split("\n")
        assert len(lines) == 2 and lines[0].startswith("event: "), frame
        assert lines[1].startswith("data: "), frame
        out.append((lines[0][7:], json.loads(lines[1][6:])))
    return out


def ask(text: str = "hi", **extra: Any) -> dict[str, Any]:
    messages = [{"role": "user", "content": text}]
    return {"model": "claude-test", "max_tokens": 64, "stream": True, "messages": messages, **extra}


def test_the_event_order_for_text_and_two_calls(fake_openai) -> None:
    fake_openai.script(
        [
            {
                "text": "abcdef",
                "chunks": 3,
                "tool_calls": [
                    {"name": "Read", "arguments": {"path": "a.py"}, "id": "toolu_A"},
                    {"name": "Bash", "arguments": '{"command": "ls"}'},
                ],
                "usage": {"prompt_tokens": 40, "completion_tokens": 9},
            }
        ]
    )
    status, raw = post(fake_openai, ask())
    assert status == 200
    got = events(raw)
    names = [name for name, _ in got]
    block = ["content_block_start", "content_block_delta"]
    assert names == (
        ["message_start"]
        + block
        + ["content_block_delta"] * 2
        + ["content_block_stop"]
        + (block + ["content_block_delta"] * 3 + ["content_block_stop"]) * 2
        + ["message_delta", "message_stop"]
    )
    assert all(data["type"] == name for name, data in got)
    start = got[0][1]["message"]
    assert start["id"] and start["model"] == "claude-test" and start["role"] == "assistant"
    assert start["usage"] == {"input_tokens": 40, "output_tokens": 1}
    by_block: dict[int, list[dict[str, Any]]] = {}
    for name, data in got:
        if name.startswith("content_block"):
            by_block.setdefault(data["index"], []).append(data)
    assert sorted(by_block) == [0, 1, 2]
    assert by_block[0][0]["content_block"] == {"type": "text", "text": ""}
    assert "".join(d["delta"]["text"] for d in by_block[0][1:-1]) == "abcdef"
    assert {d["delta"]["type"] for d in by_block[0][1:-1]} == {"text_delta"}
    heads = [by_block[i][0]["content_block"] for i in (1, 2)]
    assert heads == [
        {"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {}},
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}},
    ]
    arguments = ["".join(d["delta"]["partial_json"] for d in by_block[i][1:-1]) for i in (1, 2)]
    assert [json.loads(a) for a in arguments] == [{"path": "a.py"}, {"command": "ls"}]
    assert {d["delta"]["type"] for i in (1, 2) for d in by_block[i][1:-1]} == {"input_json_delta"}
    end = got[-2][1]
    assert end["delta"]["stop_reason"] == "tool_use"
    assert end["usage"] == {"output_tokens": 9}


def test_split_false_sends_each_call_in_one_piece(fake_openai) -> None:
    fake_openai.script(
        [{"tool_calls": [{"name": "Read", "arguments": {"path": "x"}}], "split": False}]
    )
    got = events(post(fake_openai, ask())[1])
    deltas = [d["delta"] for n, d in got if n == "content_block_delta"]
    assert deltas == [{"type": "input_json_delta", "partial_json": '{"path": "x"}'}]


@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        (None, "end_turn"),
    ],
)
def test_finish_reasons_map_to_stop_reasons(fake_openai, finish: str | None, stop: str) -> None:
    fake_openai.script([{"text": "x", **({"finish_reason": finish} if finish else {})}])
    got = events(post(fake_openai, ask())[1])
    assert [d["delta"]["stop_reason"] for n, d in got if n == "message_delta"] == [stop]


def test_default_usage_counts_the_system_prompt(fake_openai) -> None:
    fake_openai.script([{"text": "one two"}, {"text": "one two"}])
    bare = events(post(fake_openai, ask("a b c"))[1])
    framed = events(post(fake_openai, ask("a b c", system="five words of system prompt"))[1])
    assert bare[0][1]["message"]["usage"]["input_tokens"] == 6  # 3 words + 3
    assert framed[0][1]["message"]["usage"]["input_tokens"] == 11
    assert bare[-2][1]["usage"] == {"output_tokens": 2}


def test_a_text_that_looks_like_sse_stays_inside_its_delta(fake_openai) -> None:
    hostile = 'x\n\nevent: message_stop\ndata: {"type": "message_stop"}\n\n\x1b[31m\r\u2028é'
    fake_openai.script([{"text": hostile, "chunks": 1}])
    got = events(post(fake_openai, ask())[1])
    assert [n for n, _ in got].count("message_stop") == 1
    assert [d["delta"]["text"] for n, d in got if n == "content_block_delta"] == [hostile]


def test_not_streamed_answers_one_messages_json(fake_openai) -> None:
    fake_openai.script(
        [
            {
                "text": "Here.",
                "tool_calls": [
                    {"name": "Read", "arguments": {"path": "a"}},
                    {"name": "Bad", "arguments": "{not json"},
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 7, "cache_read_input_tokens": 3},
            }
        ]
    )
    status, raw = post(fake_openai, ask(stream=False))
    assert status == 200
    answer = json.loads(raw)
    assert answer["type"] == "message" and answer["role"] == "assistant"
    assert answer["content"] == [
        {"type": "text", "text": "Here."},
        {"type": "tool_use", "id": "toolu_0", "name": "Read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_1", "name": "Bad", "input": "{not json"},
    ]
    assert answer["stop_reason"] == "tool_use"
    assert answer["usage"] == {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 3}


ERROR_SHAPES = [
    (400, "invalid_request_error"),
    (401, "authentication_error"),
    (403, "permission_error"),
    (404, "not_found_error"),
    (413, "request_too_large"),
    (429, "rate_limit_error"),
    (500, "api_error"),
    (529, "overloaded_error"),
]


@pytest.mark.parametrize(("status", "kind"), ERROR_SHAPES)
def test_error_json_shapes(fake_openai, status: int, kind: str) -> None:
    fake_openai.script([{"status": status}])
    got_status, raw = post(fake_openai, ask())
    assert got_status == status
    answer = json.loads(raw)
    assert answer.keys() == {"type", "error"} and answer["type"] == "error"
    assert answer["error"].keys() == {"type", "message"}
    assert answer["error"]["type"] == kind and answer["error"]["message"]


def test_default_messages_for_key_and_model(fake_openai) -> None:
    fake_openai.script([{"status": 401}, {"status": 404}])
    assert json.loads(post(fake_openai, ask())[1])["error"]["message"] == "invalid x-api-key"
    assert json.loads(post(fake_openai, ask())[1])["error"]["message"] == "model: test-model"


def test_the_message_key_on_both_routes_and_a_body_as_is(fake_openai) -> None:
    too_long = "prompt is too long: 9100 tokens > 8192 maximum"
    fake_openai.script(
        [
            {"status": 400, "message": too_long},
            {"status": 400, "message": too_long},
            {"status": 418, "body": {"anything": ["as", "is"]}},
        ]
    )
    anthropic = json.loads(post(fake_openai, ask())[1])
    assert anthropic == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": too_long},
    }
    status, raw = post(fake_openai, ask(), path="/v1/chat/completions")
    assert status == 400
    assert json.loads(raw)["error"] == {
        "message": too_long,
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert post(fake_openai, ask()) == (418, b'{"anything": ["as", "is"]}')


def test_match_searches_the_system_prompt_and_the_messages(fake_openai) -> None:
    fake_openai.script(
        [
            {"match": "ZEBRA", "text": "from system"},
            {"match": "OKAPI", "text": "from messages"},
            {"text": "any"},
        ]
    )
    first = events(post(fake_openai, ask("plain"))[1])
    second = events(post(fake_openai, ask("hi OKAPI", system=[{"type": "text", "text": "x"}]))[1])
    third = events(post(fake_openai, ask("plain", system="the ZEBRA rule"))[1])

    def text(got: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(d["delta"]["text"] for n, d in got if n == "content_block_delta")

    assert [text(first), text(second), text(third)] == ["any", "from messages", "from system"]


def test_the_openai_route_still_matches_messages_only(fake_openai) -> None:
    fake_openai.script([{"match": "ZEBRA", "text": "no"}])
    body = {"model": "m", "system": "ZEBRA", "messages": [{"role": "user", "content": "hi"}]}
    status, raw = post(fake_openai, body, path="/v1/chat/completions")
    assert status == 500 and b"script exhausted" in raw
    assert fake_openai.remaining == 1


def test_errors_of_the_fake_itself_use_the_anthropic_shape(fake_openai) -> None:
    status, raw = post(fake_openai, ask())
    assert status == 500
    assert json.loads(raw)["error"] == {
        "type": "api_error",
        "message": "fake server: script exhausted",
    }
    status, raw = post(fake_openai, b"{not json")
    assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"


def test_routes_responder_and_records(fake_openai) -> None:
    fake_openai.responder = lambda body: {"text": "R"} if body.get("system") == "S" else None
    fake_openai.script([{"text": "Q"}])
    assert post(fake_openai, ask(system="S"), path="/messages")[0] == 200
    assert post(fake_openai, ask(), path="/v1/messages/")[0] == 200
    # A doubled /v1 (a base URL that already ends in /v1) fails loudly.
    assert post(fake_openai, ask(), path="/v1/v1/messages")[0] == 404
    assert fake_openai.paths == ["/messages", "/v1/messages/"]
    assert [r.get("system") for r in fake_openai.requests] == ["S", None]
    assert fake_openai.remaining == 0


def test_error_after_ends_with_an_error_event(fake_openai) -> None:
    fake_openai.script(
        [
            {"text": "half", "error_after": {"code": 529, "message": "Overloaded"}},
            {"text": "half", "error_after": {"code": 500, "message": "boom"}},
        ]
    )
    overloaded = events(post(fake_openai, ask())[1])
    names = [n for n, _ in overloaded]
    assert names[:2] == ["message_start", "content_block_start"]
    assert names[-1] == "error" and "message_delta" not in names and "message_stop" not in names
    assert overloaded[-1][1] == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert events(post(fake_openai, ask())[1])[-1][1]["error"] == {
        "type": "api_error",
        "message": "boom",
    }


def test_drop_after_closes_without_message_stop(fake_openai) -> None:
    fake_openai.script([{"text": "abcdef", "chunks": 3, "drop_after": 2}])
    got = events(post(fake_openai, ask())[1])
    assert [n for n, _ in got] == ["message_start", "content_block_start"]


def test_stall_sends_message_start_then_nothing(fake_openai) -> None:
    fake_openai.script([{"text": "never", "stall": 30}])
    body = json.dumps(ask()).encode()
    head = f"POST /v1/messages HTTP/1.0\r\ncontent-length: {len(body)}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", fake_openai.port), timeout=10) as sock:
        sock.sendall(head + body)
        seen = b""
        while b"\n\n" not in seen.partition(b"\r\n\r\n")[2]:  # headers, then one frame
            piece = sock.recv(4096)
            assert piece, seen
            seen += piece
        headers, frames = seen.split(b"\r\n\r\n", 1)
        assert b"text/event-stream" in headers
        assert [n for n, _ in events(frames)] == ["message_start"]
        sock.settimeout(0.3)  # nothing more comes while the stall lasts
        with pytest.raises((socket.timeout, TimeoutError)):
            sock.recv(1)


def test_the_script_mode_serves_the_anthropic_route(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"text": "from a file", "chunks": 2}]), encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    child = subprocess.Popen(
        [sys.executable, str(FAKE), "--port", "0", "--script", str(script), "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        ready = child.stdout.readline().split()
        assert ready[0] == "READY"

        class Root:
            anthropic_url = f"http://127.0.0.1:{ready[1]}"

        got = events(post(Root, ask())[1])
        assert [d["delta"]["text"] for n, d in got if n == "content_block_delta"] == [
            "from a",
            " file",
        ]
        assert json.loads(log.read_text(encoding="utf-8"))["model"] == "claude-test"
    finally:
        child.kill()
        child.wait(timeout=10)
