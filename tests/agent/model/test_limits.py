"""The pure rules every client shares (`agent/model/limits.py`) and the error classes they
feed (`errors.model_error`): max_tokens, the stop reason, each server's overflow wording
(the actual texts of llama.cpp, vLLM, Ollama and LM Studio) and the window it names,
the timeouts of a local and a hosted endpoint."""

from __future__ import annotations

import pytest

from codebot.agent.model.errors import model_error
from codebot.agent.model.limits import (
    MIN_OUTPUT,
    default_output,
    is_local,
    is_overflow,
    output_budget,
    stop_reason,
    stream_timeouts,
    window_in,
)

# (server, status, text, window it names)
OVERFLOWS = [
    (
        "llama.cpp",
        400,
        "request (2122 tokens) exceeds the available context size (2048 tokens), try increasing it",
        2048,
    ),
    ("llama.cpp", 400, "the request exceeds the available context size, try increasing it", None),
    (
        "llama.cpp",
        500,
        '{"error":{"code":500,"message":"the request exceeds the available context size. try '
        'increasing the context size or enable context shift","type":"exceed_context_size_error",'
        '"n_prompt_tokens":1407,"n_ctx":256}}',
        256,
    ),
    ("llama.cpp", 500, "Context size has been exceeded.", None),
    (
        "vLLM",
        400,
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
        "(4000 in the messages, 1000 in the completion). Please reduce the length of the "
        "messages or completion.",
        4096,
    ),
    ("Ollama", 400, "the input length exceeds the context length", None),
    ("Ollama", 500, 'msg="input exceeds context length" prompt=2782 limit=2048', 2048),
    (
        "LM Studio",
        400,
        "Trying to keep the first 14538 tokens when context the overflows. However, the model is "
        "loaded with context length of only 2048 tokens, which is not enough. Try to load the "
        "model with a larger context length, or provide a shorter input",
        2048,
    ),
    (
        "LM Studio",
        400,
        "Reached context length of 32000 tokens with model (arch: gpt-oss) that does not "
        "currently support mid-generation context overflow.",
        32000,
    ),
]


class InternalServerError(Exception):
    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.message, self.status_code = message, status_code


class BadRequestError(InternalServerError):
    pass


@pytest.mark.parametrize(("server", "status", "text", "window"), OVERFLOWS)
def test_each_servers_overflow_text_is_a_context_error(
    server: str, status: int, text: str, window: int | None
) -> None:
    assert is_overflow(text), server
    assert window_in(text) == window
    cls = InternalServerError if status >= 500 else BadRequestError
    error = model_error(
        cls(f"litellm.{cls.__name__}: OpenAIException - {text}", status), "m", 30, received=False
    )
    assert error.kind == "context", (server, error.message)
    assert not error.retryable  # sending it again unchanged cannot help
    assert error.window == window


def test_a_mid_stream_overflow_is_a_context_error_too() -> None:
    error = model_error(
        InternalServerError("Context size has been exceeded.", 500), "m", 30, received=True
    )
    assert error.kind == "context"


@pytest.mark.parametrize(
    "text",
    [
        "The server had an error while processing your request.",
        "Rate limit reached for test-model: 3 requests per minute.",
        "Incorrect API key provided",
        "context",
    ],
)
def test_other_errors_are_not_overflows(text: str) -> None:
    assert not is_overflow(text)


@pytest.mark.parametrize(
    "text",
    [
        "available context size (99999999999999999999 tokens)",  # absurd
        "maximum context length is 12 tokens",  # too small to believe
        "context length of only -5 tokens",
        "x" * 100_000 + "maximum context length is 4096",  # beyond what is read
    ],
)
def test_hostile_numbers_teach_no_window(text: str) -> None:
    assert window_in(text) is None


def test_output_budget() -> None:
    assert default_output(2048) == 512
    assert default_output(128_000, model_limit=16_384) == 16_384
    assert default_output(100) == MIN_OUTPUT
    assert output_budget(2048, 100) == 512
    assert output_budget(2048, 1800) == 248  # what the window has left
    assert output_budget(2048, 2100) == MIN_OUTPUT  # nothing left: the server says so
    assert output_budget(8192, 100, configured=300) == 300
    assert output_budget(8192, 8000, configured=3000) == 192


def test_stop_reason() -> None:
    assert stop_reason("length") == "max_tokens"
    assert stop_reason("max_tokens") == "max_tokens"
    assert stop_reason("stop") == "end_turn"
    assert stop_reason(None) == "end_turn"
    assert stop_reason("tool_calls", True) == "tool_use"


@pytest.mark.parametrize(
    ("base", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:1234/v1", True),
        ("http://127.5.5.5/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.2:8000/v1", False),
        ("http://127.0.0.1.evil.com/v1", False),
        ("not a url", False),
        (None, False),
    ],
)
def test_local_endpoints_and_their_timeouts(base: str | None, local: bool) -> None:
    assert is_local(base) is local
    assert stream_timeouts(base) == ((60.0, 30.0) if local else (120.0, 90.0))
    assert stream_timeouts(base, 5.0, 2.0) == (5.0, 2.0)
