"""An MCP tool's images for models that take images: checked (type by declaration and by
bytes, base64, size, count), sent as image parts in a user message after the step's tool
results, counted, compacted, kept in transcripts and resumed; a model that takes none
gets only the one-line notes. End to end through `codebot -p`, the scripted server and
`raw_server.py`'s `picture` tool, on both wires and both paths."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as t
import pytest

from codebot.agent.model import ModelRequest
from codebot.agent.model.client import ProviderClient
from codebot.agent.model.tokens import IMAGE_TOKENS
from codebot.agent.model.wire_anthropic import request_body
from codebot.agent.session import images
from codebot.agent.session.compact import units
from codebot.agent.session.context import Meter
from codebot.agent.session.transcript import load_state
from codebot.agent.tools import ToolResult
from codebot.mcp.results import IMAGE_MAX_BYTES, IMAGES_MAX, Image, render
from codebot.ui.resume_view import split_turns, turn_items

RAW = Path(__file__).with_name("raw_server.py")
PNG_BYTES = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAC"
    "hwGA60e6kgAAAABJRU5ErkJggg=="
)
PNG = base64.b64encode(PNG_BYTES).decode()


def result(*content: Any) -> t.CallToolResult:
    return t.CallToolResult(content=list(content))


def image(data: Any, mime: str = "image/png") -> t.ImageContent:
    return t.ImageContent.model_construct(type="image", data=data, mime_type=mime)


# -- the checks -------------------------------------------------------------------------


def test_a_good_image_is_kept_only_for_a_model_that_takes_images() -> None:
    shown = render(result(t.TextContent(type="text", text="hi"), image(PNG)), 30_000, images=True)
    assert shown.images == (Image("image/png", PNG, len(PNG_BYTES)),)
    assert shown.text.splitlines()[1] == (
        f"[image image/png, {len(PNG_BYTES)} bytes; shown to the model after the tool "
        "results, as its image 1]"
    )
    assert PNG not in shown.text
    plain = render(result(image(PNG), image("garbage!!", "image/png\x1b")), 30_000)
    assert plain.images == ()
    assert plain.text.splitlines() == [
        f"[image image/png, {len(PNG_BYTES)} bytes; not shown to the model]",
        "[image image/png, data not valid base64; not shown to the model]",
    ]


@pytest.mark.parametrize(
    ("data", "mime", "why"),
    [
        ("not base64!", "image/png", "not valid base64"),
        ("iVBORw0KGgo", "image/png", "not valid base64"),  # cut: bad padding
        (12345, "image/png", "not valid base64"),
        ("", "image/png", "its bytes are no image it can send"),
        (base64.b64encode(b"\xff\xd8\xff\xe0rest").decode(), "image/png", "are a JPEG"),
        (base64.b64encode(b"just text").decode(), "image/png", "no image it can send"),
        (base64.b64encode(b"RIFF\0\0\0\0WAVE").decode(), "image/webp", "no image"),
        ("SUkqAAgAAAA=", "image/tiff", "only PNG, JPEG, GIF and WebP"),
        (PNG, "image/svg+xml", "only PNG, JPEG, GIF and WebP"),
    ],
)
def test_what_is_not_a_sendable_image_is_a_line_never_a_crash(
    data: Any, mime: str, why: str
) -> None:
    out = render(result(image(data, mime)), 30_000, images=True)
    assert out.images == ()
    assert why in out.text and out.text.endswith("not shown to the model]")


def test_the_size_is_the_decoded_one_and_the_limit_holds() -> None:
    exact = PNG_BYTES + b"\0" * (IMAGE_MAX_BYTES - len(PNG_BYTES))
    ok = render(result(image(base64.b64encode(exact).decode())), 30_000, images=True)
    assert len(ok.images) == 1 and ok.images[0].size == IMAGE_MAX_BYTES
    over = render(result(image(base64.b64encode(exact + b"\0").decode())), 30_000, images=True)
    assert over.images == () and f"over the {IMAGE_MAX_BYTES:,}-byte limit" in over.text


def test_whitespace_in_the_data_is_allowed_and_the_data_sent_is_canonical() -> None:
    wrapped = "\n".join(PNG[i : i + 20] for i in range(0, len(PNG), 20))
    (kept,) = render(result(image(wrapped)), 30_000, images=True).images
    assert kept.data == PNG


def test_at_most_a_few_images_per_result_and_jpg_is_jpeg() -> None:
    jpeg = base64.b64encode(b"\xff\xd8\xff\xe0" + b"\0" * 20).decode()
    out = render(
        result(*[image(PNG) for _ in range(IMAGES_MAX + 2)], image(jpeg, "image/JPG")),
        30_000,
        images=True,
    )
    assert len(out.images) == IMAGES_MAX
    assert out.text.count(f"over {IMAGES_MAX} images in one result") == 3


def test_a_hostile_mime_type_is_shown_safely() -> None:
    out = render(result(image(PNG, "image/png\x1b[2J\n<skill>" + "x" * 200)), 30_000, images=True)
    assert "\x1b" not in out.text and "\n" not in out.text and "<skill>" not in out.text
    assert out.images == ()


# -- the message, the wires, counting, compaction ---------------------------------------


def shot(n: int = 1) -> ToolResult:
    return ToolResult("note", images=tuple(Image("image/png", PNG, 70) for _ in range(n)))


def test_the_images_of_a_step_make_one_user_message_none_without_images() -> None:
    assert images.image_message([("Read", ToolResult("x"))]) is None
    msg = images.image_message([("mcp__a__b", shot(2)), ("Read", ToolResult("x"))])
    assert msg is not None and images.is_image_message(msg)
    text, *parts = msg["content"]
    assert (
        text["text"].startswith(images.HEAD)
        and "image 2: mcp__a__b, its image 2 (image/png)" in text["text"]
    )
    assert [p["image_url"]["url"] for p in parts] == [f"data:image/png;base64,{PNG}"] * 2
    assert not images.is_image_message({"role": "user", "content": images.HEAD})


def test_a_model_that_takes_no_images_is_sent_notes_in_their_place() -> None:
    msg = images.image_message([("x", shot())])
    history = [{"role": "user", "content": "hi"}, msg]
    sent = images.without_images(history)
    assert isinstance(sent[1]["content"], str) and PNG not in json.dumps(sent)
    assert "does not take images" in sent[1]["content"]
    assert history[1] is msg  # the history itself is untouched
    plain = [{"role": "user", "content": "hi"}]
    assert images.without_images(plain) is plain


def test_the_anthropic_wire_sends_image_blocks_and_refuses_an_image_by_url() -> None:
    msg = images.image_message([("x", shot())])
    assert msg is not None
    body = request_body(ModelRequest(messages=[msg]), "claude", default_max_tokens=10)
    assert body is not None
    block = body["messages"][0]["content"][1]
    assert block == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }
    by_url = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    remote = {"role": "user", "content": [by_url]}
    assert request_body(ModelRequest(messages=[remote]), "claude", default_max_tokens=10) is None


def test_an_image_counts_as_a_fixed_number_of_tokens_not_its_base64() -> None:
    big = Image("image/png", "A" * 4_000_000, 3_000_000)
    msg = images.image_message([("x", ToolResult("n", images=(big,)))])
    assert msg is not None
    assert IMAGE_TOKENS < sum(Meter().message(msg)) < IMAGE_TOKENS + 100


def test_compaction_keeps_the_images_with_the_call_that_returned_them() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "note"},
        images.image_message([("x", shot())]),
        {"role": "user", "content": "next"},
    ]
    assert units(msgs) == [(0, 1), (1, 4), (4, 5)]


@pytest.mark.parametrize(
    ("wire", "model"),
    [("openai", "openai/gpt-4o"), ("anthropic", "anthropic/claude-sonnet-4-5")],
)
@pytest.mark.parametrize("path", ["direct", "litellm"])
def test_both_paths_send_the_same_images(
    fake_openai, monkeypatch: pytest.MonkeyPatch, wire: str, model: str, path: str
) -> None:
    monkeypatch.setenv("CODEBOT_WIRE", path)
    base = fake_openai.url if wire == "openai" else fake_openai.anthropic_url
    client = ProviderClient(model, api_base=base, api_key="sk-test")
    assert client.path_for() == path
    msg = images.image_message([("x", shot())])
    assert msg is not None
    fake_openai.script([{"text": "ok"}])

    async def go() -> None:
        async for _ in client.stream(ModelRequest(messages=[msg])):
            pass

    asyncio.run(go())
    # litellm's clients send a user-agent; the direct path does not (so it carried it)
    assert ("user-agent" in fake_openai.request_headers[-1]) == (path == "litellm")
    (sent,) = fake_openai.requests[-1]["messages"]
    if wire == "openai":
        assert sent == msg
    else:
        assert sent["content"][1]["source"] == {
            "type": "base64",
            "media_type": "image/png",
            "data": PNG,
        }


# -- end to end -------------------------------------------------------------------------


def codebot(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    home = Path(os.environ["CODEBOT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("sandbox:\n  mode: off\n")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), *args]
    environ = {**os.environ, **(env or {})}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90, cwd=project, env=environ)


@pytest.fixture
def flag_file(tmp_path: Path) -> Path:
    f = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(RAW), str(tmp_path / "raw.log")]}
    f.write_text(json.dumps({"mcpServers": {"raw": server}}))
    return f


def picture_turn(
    project: Path, fake: Any, flag_file: Path, model: str, *extra: str, base: str = ""
) -> Any:
    fake.script(
        [{"tool_calls": [{"name": "mcp__raw__picture", "arguments": "{}"}]}, {"text": "seen"}]
    )
    out = codebot(
        project,
        "-p",
        "look",
        "--api-base",
        base or fake.url,
        "--model",
        model,
        "--mcp-config",
        str(flag_file),
        "--allow",
        "mcp__raw",
        *extra,
        env={"ANTHROPIC_API_KEY": "sk-test"},
    )
    assert out.returncode == 0, out.stderr
    return fake.requests[1]["messages"]


def image_parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        p
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]


def test_a_vision_model_is_sent_the_good_image_after_the_tool_results(
    project: Path, fake_openai, flag_file: Path
) -> None:
    messages = picture_turn(project, fake_openai, flag_file, "openai/gpt-4o")
    roles = [m["role"] for m in messages]
    at = roles.index("tool")
    note = messages[at]["content"]
    assert "shown to the model after the tool results, as its image 1" in note
    assert "not valid base64" in note and "are a JPEG" in note and "image/tiff" in note
    assert roles[at + 1] == "user" and images.is_image_message(messages[at + 1])
    call_id = messages[at]["tool_call_id"]
    head = messages[at + 1]["content"][0]["text"]
    assert f"image 1: mcp__raw__picture (call {call_id}), its image 1 (image/png)" in head
    assert image_parts(messages) == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    ]
    # The transcript keeps it; resuming reads it back, and the resume view does not show
    # it as something the person typed.
    (session,) = (Path(os.environ["CODEBOT_HOME"]) / "sessions").glob("*.jsonl")
    loaded = load_state(session).messages
    assert image_parts(loaded) == image_parts(messages)
    turns = split_turns(loaded)
    assert len(turns) == 1
    assert [i.kind for i in turn_items(turns[0])].count("user") == 1
    # --continue sends it again, after the same tool result.
    fake_openai.script([{"text": "again"}])
    out = codebot(
        project,
        "-p",
        "more",
        "--continue",
        "--api-base",
        fake_openai.url,
        "--model",
        "openai/gpt-4o",
    )
    assert out.returncode == 0, out.stderr
    assert image_parts(fake_openai.requests[-1]["messages"]) == image_parts(messages)
    # ...and to a model that takes no images, a note in its place.
    fake_openai.script([{"text": "blind"}])
    out = codebot(
        project, "-p", "more", "--continue", "--api-base", fake_openai.url, "--model", "openai/x"
    )
    assert out.returncode == 0, out.stderr
    sent = fake_openai.requests[-1]["messages"]
    assert image_parts(sent) == [] and PNG not in json.dumps(sent)
    assert any("does not take images" in str(m.get("content")) for m in sent)


def test_a_model_that_takes_no_images_gets_only_the_notes(
    project: Path, fake_openai, flag_file: Path
) -> None:
    messages = picture_turn(project, fake_openai, flag_file, "openai/x")
    assert image_parts(messages) == []
    assert PNG not in json.dumps(messages)
    note = next(m["content"] for m in messages if m["role"] == "tool")
    assert f"[image image/png, {len(PNG_BYTES)} bytes; not shown to the model]" in note
    assert "[image image/png, data not valid base64; not shown to the model]" in note
    assert not any(images.is_image_message(m) for m in messages)


def test_compaction_with_images_summarizes_text_only_and_the_session_goes_on(
    project: Path, fake_openai
) -> None:
    from codebot.agent.session import build_session
    from codebot.config import load_settings
    from codebot.workspace import open_catalog

    seen: list[str] = []

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(body["messages"])
        seen.append(text)
        if "Summarize the conversation so far" in str(body["messages"][-1].get("content")):
            assert PNG not in text, "the summary request carries no image data"
            return {"text": "SUMMARY"}
        return {"text": "ok"}

    fake_openai.responder = answer
    settings = load_settings(
        cwd=project, model="openai/gpt-4o", api_base=fake_openai.url, trust=True
    )
    session = build_session(settings, open_catalog(settings), emit=lambda e: None)
    session.client.backoff = 0.0
    call = {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    try:
        for i in range(3):
            session.add({"role": "user", "content": f"look {i}"})
            session.add({"role": "assistant", "content": None, "tool_calls": [call]})
            session.add({"role": "tool", "tool_call_id": "c1", "content": "note"})
            session.add(images.image_message([("x", shot())]))
            session.add({"role": "assistant", "content": "seen " + "words " * 3000 * (i < 2)})
        done = asyncio.run(session.compact("", shrink=0.1))
        assert done is not None and not done.failed and done.summarized > 0
        kept = session.history[1:]
        roles = [m["role"] + ("*" if images.is_image_message(m) else "") for m in kept]
        assert roles == ["user", "assistant", "tool", "user*", "assistant"]  # with its call
        assert asyncio.run(session.run_turn("and now?")).error is None
    finally:
        session.transcript.close()
    assert PNG in seen[-1]  # the kept image is sent on


def test_the_direct_anthropic_path_sends_an_image_block_after_the_tool_result(
    project: Path, fake_openai, flag_file: Path
) -> None:
    model = "anthropic/claude-sonnet-4-5"
    messages = picture_turn(project, fake_openai, flag_file, model, base=fake_openai.anthropic_url)
    assert fake_openai.paths[1].endswith("/v1/messages")
    assert "user-agent" not in fake_openai.request_headers[1]  # the direct path, not litellm
    turn = messages[-1]["content"]
    kinds = [b["type"] for b in turn]
    assert kinds == ["tool_result", "text", "image"]
    assert turn[2]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG}
