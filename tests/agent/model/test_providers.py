"""One table of provider keys (issue 31): the key check and the error hints read the same
`KEY_VARIABLES`, and every key variable codebot names anywhere is in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codebot.agent.model.errors import _unknown_model, model_error
from codebot.agent.model.providers import (
    DEFAULT_MODELS,
    KEY_VARIABLES,
    NEEDS_MORE_THAN_A_KEY,
    PROVIDER_KEYS,
    key_problem,
    provider_of,
)

PKG = Path(__file__).resolve().parents[3] / "codebot"
ALL_VARIABLES = {name for names in KEY_VARIABLES.values() for name in names}


class AuthenticationError(Exception):  # what litellm raises, by name (errors._classify)
    status_code = 401


def auth_hint(model: str) -> str:
    return model_error(AuthenticationError("invalid x-api-key"), model, 600, received=False).message


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*ALL_VARIABLES, "CODEBOT_API_KEY"]:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("provider", sorted(KEY_VARIABLES))
def test_the_hint_and_the_key_check_name_the_same_variable(provider: str) -> None:
    var = KEY_VARIABLES[provider][0]
    assert PROVIDER_KEYS[provider] == var
    assert f"{var} is not set" in auth_hint(f"{provider}/some-model")
    problem = key_problem(f"{provider}/some-model", {})
    assert problem is None if provider in NEEDS_MORE_THAN_A_KEY else f"export {var}=" in problem


def test_fireworks_is_the_variable_litellm_reads_everywhere() -> None:
    assert "FIREWORKS_AI_API_KEY is not set" in auth_hint("fireworks_ai/llama")
    assert "export FIREWORKS_AI_API_KEY=" in (key_problem("fireworks_ai/llama", {}) or "")


def test_a_rejected_key_is_named_by_the_variable_that_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "wrong")
    assert "rejected GOOGLE_API_KEY" in auth_hint("gemini/gemini-2.5-flash")


def test_every_provider_named_in_the_error_hints_is_in_the_table() -> None:
    said = _unknown_model("frobnicate", None) + _unknown_model(
        "frobnicate", "http://127.0.0.1:8080/v1"
    )
    examples = set(re.findall(r"(?<![\w./:])([a-z_]+)/[\w.-]+", said)) - {
        "provider"
    }  # not "provider/model"
    assert examples and [p for p in examples if p not in KEY_VARIABLES] == []
    assert all(
        provider_of(model) in KEY_VARIABLES and key in KEY_VARIABLES[provider_of(model)]
        for key, model in DEFAULT_MODELS.items()
    )


def test_every_key_variable_written_in_codebot_is_in_the_table() -> None:
    pattern = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|AUTH_TOKEN)\b")
    named = {
        name
        for path in PKG.rglob("*.py")
        for name in pattern.findall(path.read_text(encoding="utf-8"))
    }
    assert "OPENAI_API_KEY" in named
    assert sorted(named - ALL_VARIABLES - {"CODEBOT_API_KEY"}) == []
