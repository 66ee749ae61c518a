"""A model string litellm does not know is said plainly (not "openai rejected the
request"), and `key_problem` names the missing key variable without importing litellm."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codebot.agent.model.errors import model_error

ROOT = Path(__file__).resolve().parents[3]
RAW = (
    "litellm.BadRequestError: LLM Provider NOT provided. "
    "Pass in the LLM provider you are trying to call. "
    "You passed model=frobnicate\n Pass model as E.g. For 'Huggingface' inference endpoints "
    "pass in `completion(model='huggingface/starcoder',..)` "
    "Learn more: https://docs.litellm.ai/docs/providers"
)


class BadRequestError(Exception):
    status_code = 400


@pytest.mark.parametrize("model", ["frobnicate", "foo/bar"])
def test_unknown_model_says_how_to_write_one(model: str) -> None:
    err = model_error(BadRequestError(RAW.replace("frobnicate", model)), model, 60, received=False)
    assert err.kind == "not_found" and not err.retryable
    text = err.message
    assert "rejected" not in text and "LLM Provider NOT provided" not in text
    assert f"{model!r} is not a model litellm knows" in text
    assert "provider/model" in text and "openai/gpt-4o-mini" in text and "anthropic/" in text
    assert "--api-base" in text


def test_unknown_provider_prefix_is_named() -> None:
    err = model_error(
        BadRequestError(RAW.replace("frobnicate", "foo/bar")), "foo/bar", 60, received=False
    )
    assert "'foo' is not a provider litellm knows" in err.message


def test_with_a_local_server_the_hint_is_the_openai_prefix() -> None:
    err = model_error(
        BadRequestError(RAW), "frobnicate", 60, received=False, api_base="http://127.0.0.1:8080/v1"
    )
    assert "openai/frobnicate" in err.message


async def test_the_real_litellm_error_reads_the_same() -> None:
    from codebot.agent.model import ModelError, ModelRequest, ProviderClient

    client = ProviderClient("frobnicate", max_retries=0)
    with pytest.raises(ModelError) as info:
        async for _ in client.stream(ModelRequest(messages=[{"role": "user", "content": "hi"}])):
            pass
    assert "'frobnicate' is not a model litellm knows" in info.value.message, info.value.message


# -- key_problem ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "var"),
    [
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
        ("o3-mini", "OPENAI_API_KEY"),
        ("claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
        ("groq/openai/gpt-oss-120b", "GROQ_API_KEY"),
        ("mistral/mistral-large-latest", "MISTRAL_API_KEY"),
    ],
)
def test_a_missing_key_is_named(model: str, var: str) -> None:
    from codebot.agent.model.providers import key_problem

    problem = key_problem(model, {})
    assert (
        problem is not None and var in problem and f"export {var}=" in problem and model in problem
    )
    assert key_problem(model, {var: "sk-x"}) is None


@pytest.mark.parametrize(
    ("model", "env"),
    [
        ("gemini/gemini-2.5-flash", {"GOOGLE_API_KEY": "k"}),  # litellm reads either variable
        ("anthropic/claude-x", {"ANTHROPIC_AUTH_TOKEN": "t"}),
        ("gpt-4o-mini", {"CODEBOT_API_KEY": "k"}),  # sent to any provider
        ("offline", {}),
        ("ollama/llama3", {}),  # local: no key
        ("bedrock/anthropic.claude-v2", {}),  # AWS credentials: cannot be told from one variable
        ("frobnicate", {}),  # unknown: litellm says so at the first request
        ("foo/bar", {}),
    ],
)
def test_no_problem_when_the_key_is_there_or_cannot_be_told(
    model: str, env: dict[str, str]
) -> None:
    from codebot.agent.model.providers import key_problem

    assert key_problem(model, env) is None


def test_a_local_server_needs_no_provider_key() -> None:
    from codebot.agent.model.providers import key_problem

    assert key_problem("openai/qwen", {}, api_base="http://127.0.0.1:8080/v1") is None


def test_an_empty_variable_is_not_a_key() -> None:
    from codebot.agent.model.providers import key_problem

    assert key_problem("gpt-4o-mini", {"OPENAI_API_KEY": ""}) is not None


def test_key_problem_imports_nothing_heavy() -> None:
    code = (
        "import sys; from codebot.agent.model import key_problem; key_problem('gpt-4o-mini', {}); "
        "key_problem('frobnicate', {}); "
        "print(sorted(m for m in ('litellm', 'openai', 'httpx') if m in sys.modules))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert r.stdout.strip() == "[]", r.stderr
