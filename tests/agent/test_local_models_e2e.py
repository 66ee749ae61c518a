"""Local and small models through real processes against a fake llama.cpp-like server
(`tests/agent/fake_openai.py` answering `/props` and `/v1/models` with `meta.n_ctx`):
the window read from the server, max_tokens, the length stop, overflow refusals, the
idle timeout, the start warning and lean mode (docs/local-models.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MODEL_ID = "SmolLM2-135M-Instruct-Q8_0.gguf"


def llama_cpp(fake: Any, n_ctx: int = 2048) -> Any:
    """Make the fake answer like llama.cpp's server: `/v1/models` with `meta`, `/props`."""
    fake.models = {
        "object": "list",
        "data": [
            {
                "id": MODEL_ID,
                "object": "model",
                "owned_by": "llamacpp",
                "meta": {"n_ctx": n_ctx, "n_ctx_train": 8192},
            }
        ],
    }
    fake.props = {"default_generation_settings": {"n_ctx": n_ctx}}
    return fake


def run(
    project: Path,
    *args: str,
    url: str,
    stdin: str | None = None,
    model: str | None = f"openai/{MODEL_ID}",
    config: str = "",
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    if config:
        home = Path(env["CODEBOT_HOME"])
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.yaml").write_text(config, encoding="utf-8")
    cmd = [sys.executable, "-m", "codebot", "--cwd", str(project), "--trust", "--api-base", url]
    cmd += ["--model", model] if model else []
    return subprocess.run(
        [*cmd, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=120,
    )


def test_window_from_the_servers_props_is_shown_in_context(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai).script([{"text": "hi there"}])
    stdin = "hello\n/context\n/usage\n/exit\n"
    proc = run(project, "--plain", url=fake_openai.url, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert "window 2,048 tokens (from the server's /props)" in proc.stdout
    assert "local, no cost" in proc.stdout and "cost unknown" not in proc.stdout
    assert "/props" in fake_openai.asked


def test_an_endpoint_without_a_model_takes_the_servers_id(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai).script([{"text": "hi"}])
    proc = run(project, "-p", "hello", "--output-format", "json", url=fake_openai.url, model=None)
    assert proc.returncode == 0, proc.stderr
    assert fake_openai.requests[0]["model"] == MODEL_ID  # never "default"
    assert json.loads(proc.stdout)["model"] == f"openai/{MODEL_ID}"


def test_every_request_carries_max_tokens_a_quarter_of_the_window(
    fake_openai, project: Path
) -> None:
    llama_cpp(fake_openai, n_ctx=8192).script(
        [
            {"tool_calls": [{"name": "Read", "arguments": {"path": "README.md"}}]},
            {"text": "done"},
        ]
    )
    (project / "README.md").write_text("hello\n")
    proc = run(project, "-p", "read the readme", "--output-format", "json", url=fake_openai.url)
    assert proc.returncode == 0, proc.stderr
    assert len(fake_openai.requests) == 2
    for body in fake_openai.requests:
        assert 64 <= body["max_tokens"] <= 8192 // 4


def test_configured_max_output_tokens_is_sent(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai, n_ctx=8192).script([{"text": "ok"}])
    proc = run(project, "-p", "hi", url=fake_openai.url, config="max_output_tokens: 300\n")
    assert proc.returncode == 0, proc.stderr
    assert fake_openai.requests[0]["max_tokens"] == 300


def test_a_bad_max_output_tokens_is_named_and_ignored(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai, n_ctx=8192).script([{"text": "ok"}])
    proc = run(project, "-p", "hi", url=fake_openai.url, config="max_output_tokens: -3\n")
    assert proc.returncode == 0, proc.stderr
    assert "max_output_tokens: -3" in proc.stderr
    assert fake_openai.requests[0]["max_tokens"] == 8192 // 4


def test_length_stop_is_reported_in_text_mode(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai).script(
        [{"text": "The answer is inter", "finish_reason": "length", "usage": _used(12)}]
    )
    proc = run(project, "-p", "explain", url=fake_openai.url)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The answer is inter")
    assert "the answer was cut at 12 tokens" in proc.stderr


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_length_stop_is_the_stop_reason_in_json(fake_openai, project: Path, fmt: str) -> None:
    llama_cpp(fake_openai).script(
        [
            {"text": "cut mid-wo", "finish_reason": "length", "usage": _used(5)},
            {"text": "complete."},
        ]
    )
    cut = run(project, "-p", "explain", "--output-format", fmt, url=fake_openai.url)
    whole = run(project, "-p", "again", "--output-format", fmt, url=fake_openai.url)
    for proc in (cut, whole):
        assert proc.returncode == 0, proc.stderr
    result = json.loads(cut.stdout.strip().splitlines()[-1])
    assert result["stop_reason"] == "max_tokens"
    assert result["is_error"] is False
    assert "the answer was cut at 5 tokens" in cut.stderr
    assert json.loads(whole.stdout.strip().splitlines()[-1])["stop_reason"] == "end_turn"


def _used(completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": 100, "completion_tokens": completion_tokens}


def test_overflow_mid_answer_learns_the_window_compacts_and_keeps_the_partial_text(
    fake_openai, project: Path
) -> None:
    """llama.cpp streams part of an answer, then refuses: the window is learned from the
    refusal, the streamed text is kept (on screen and in the history), the conversation
    is compacted and the request sent again."""
    llama_cpp(fake_openai, n_ctx=8192)
    (project / "README.md").write_text("hello\n")
    fake_openai.script(
        [
            {"tool_calls": [{"name": "Read", "arguments": {"path": "README.md"}}]},
            {
                "text": "Here is PARTIAL-TEXT of the answer",
                "error_after": {
                    "code": 400,
                    "message": "request (5000 tokens) exceeds the available context size "
                    "(4096 tokens), try increasing it",
                    "type": "exceed_context_size_error",
                },
            },
            {"match": "Summarize the conversation so far", "text": "SUMMARY: read README."},
            {"text": "final answer"},
        ]
    )
    proc = run(project, "-p", "read the readme", url=fake_openai.url)
    assert proc.returncode == 0, proc.stderr
    assert "PARTIAL-TEXT" in proc.stdout and "final answer" in proc.stdout
    assert "the server's context window is 4,096 tokens" in proc.stderr
    assert "compacted" in proc.stderr
    retry = fake_openai.requests[-1]
    assert "PARTIAL-TEXT" in json.dumps(retry["messages"])  # kept, not dropped
    assert retry["max_tokens"] <= 4096 // 4  # the learned window is the one used


def test_llama_cpp_http_500_overflow_is_a_context_error_not_a_server_error(
    fake_openai, project: Path
) -> None:
    refusal = {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}
    llama_cpp(fake_openai).script([{"status": 500, "body": {"error": refusal}}, {"text": "no"}])
    proc = run(project, "-p", "hi", "--output-format", "json", url=fake_openai.url)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["error"]["kind"] == "context"
    assert "context window" in result["error"]["message"]
    assert len(fake_openai.requests) == 1  # not retried three times as a server error


def test_a_refusal_naming_the_window_is_learned_and_the_request_fits_on_retry(
    fake_openai, project: Path
) -> None:
    vllm = (
        "This model's maximum context length is 3000 tokens. However, you requested 3100 "
        "tokens (2500 in the messages, 600 in the completion). Please reduce the length of "
        "the messages or completion."
    )
    fake_openai.models = {"data": [{"id": "qwen", "owned_by": "vllm"}]}  # no window said
    fake_openai.script(
        [{"status": 400, "body": {"error": {"message": vllm}}}, {"text": "it fits now"}]
    )
    proc = run(
        project, "-p", "hi", "--output-format", "json", url=fake_openai.url, model="openai/qwen"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "it fits now"
    first, second = fake_openai.requests
    assert first["max_tokens"] > second["max_tokens"]  # a quarter of 128k, then of 3,000
    assert second["max_tokens"] <= 3000 // 4


def test_a_stalled_stream_is_said_as_it_happens_then_abandoned(fake_openai, project: Path) -> None:
    """One chunk, then silence: the wait is said while it lasts, then the idle timeout
    (set small in the config) ends the turn with an error that says so."""
    llama_cpp(fake_openai).script([{"text": "Hello there", "chunks": 2, "stall": 60}])
    proc = run(
        project,
        "-p",
        "hi",
        "--output-format",
        "json",
        url=fake_openai.url,
        config="idle_timeout: 1\nfirst_token_timeout: 5\n",
    )
    assert proc.returncode == 1
    assert "no data from the server for 0.5 s (still waiting, up to 1 s)" in proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["kind"] == "timeout"
    assert error["message"].startswith("no data from the server for 1 s")
    assert len(fake_openai.requests) == 1  # text had arrived: not sent again


def test_a_bad_timeout_in_the_config_is_named(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai).script([{"text": "ok"}])
    proc = run(project, "-p", "hi", url=fake_openai.url, config="idle_timeout: .inf\n")
    assert proc.returncode == 0, proc.stderr
    assert "idle_timeout: inf is not a positive number of seconds" in proc.stderr


def _overhead(body: dict[str, Any]) -> int:
    """Tokens (the 4-characters estimate) of what codebot itself sends: system prompt,
    tool definitions and the skill listing in the user message's reminder."""
    system = body["messages"][0]["content"]
    user = next(m for m in body["messages"] if m["role"] == "user")["content"]
    listing = user.rsplit("</system-reminder>", 1)[0] if "</system-reminder>" in user else ""
    chars = len(system) + len(json.dumps(body.get("tools") or [], sort_keys=True)) + len(listing)
    return chars // 4


def test_overhead_over_half_a_2048_window_is_said_at_start_with_the_way_out(
    fake_openai, project: Path
) -> None:
    llama_cpp(fake_openai).script([{"text": "hi"}])
    proc = run(project, "-p", "hello", url=fake_openai.url)
    assert proc.returncode == 0, proc.stderr
    assert "codebot's own prompt takes" in proc.stderr
    assert "of the 2,048-token window" in proc.stderr
    assert "--lean" in proc.stderr and "lean: true" in proc.stderr
    assert _overhead(fake_openai.requests[0]) > 1024


@pytest.mark.parametrize("how", ["flag", "config"])
def test_lean_mode_fits_a_2048_window(fake_openai, project: Path, how: str) -> None:
    llama_cpp(fake_openai).script([{"text": "hi"}])
    flag = ("--lean",) if how == "flag" else ()
    config = "lean: true\n" if how == "config" else ""
    proc = run(project, "-p", "hello", *flag, url=fake_openai.url, config=config)
    assert proc.returncode == 0, proc.stderr
    assert "codebot's own prompt takes" not in proc.stderr
    body = fake_openai.requests[0]
    names = sorted(t["function"]["name"] for t in body["tools"])
    assert names == ["Bash", "Edit", "Read", "Skill", "Write"]
    assert _overhead(body) < 1024  # under half the window: room for the conversation
    assert body["max_tokens"] <= 2048 - _overhead(body)


def test_line_mode_says_the_overhead_at_start(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai)
    proc = run(project, "--plain", url=fake_openai.url, stdin="/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "codebot's own prompt takes" in proc.stdout + proc.stderr
    assert fake_openai.requests == []  # said from what the server told, before any request


def test_stream_json_init_names_the_servers_model(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai).script([{"text": "hi"}])
    proc = run(
        project, "-p", "hello", "--output-format", "stream-json", url=fake_openai.url, model=None
    )
    assert proc.returncode == 0, proc.stderr
    init = json.loads(proc.stdout.splitlines()[0])
    assert init["type"] == "init" and init["model"] == f"openai/{MODEL_ID}"


def test_line_mode_reports_a_cut_answer(fake_openai, project: Path) -> None:
    llama_cpp(fake_openai, n_ctx=8192).script(
        [{"text": "The answer is inter", "finish_reason": "length", "usage": _used(7)}]
    )
    proc = run(project, "--plain", url=fake_openai.url, stdin="explain\n/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "The answer is inter" in proc.stdout
    assert "the answer was cut at 7 tokens" in proc.stdout + proc.stderr
