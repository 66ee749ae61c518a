"""Which providers codebot knows: their key variables and the model each key gets by default.

Plain tables and lookups, so setup can pick a model without importing the model client.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Provider keys in the order `provider_key_present` looks for them, with the model each
#: one gets by default.
DEFAULT_MODELS: dict[str, str] = {
    "OPENAI_API_KEY": "gpt-4o-mini",
    "ANTHROPIC_API_KEY": "anthropic/claude-sonnet-4-5",
    "GEMINI_API_KEY": "gemini/gemini-2.5-flash",
    "GOOGLE_API_KEY": "gemini/gemini-2.5-flash",
    "MISTRAL_API_KEY": "mistral/mistral-large-latest",
    "GROQ_API_KEY": "groq/openai/gpt-oss-120b",
    "DEEPSEEK_API_KEY": "deepseek/deepseek-chat",
    "OPENROUTER_API_KEY": "openrouter/openai/gpt-4o-mini",
    "XAI_API_KEY": "xai/grok-latest",
}  # each a variable of KEY_VARIABLES below (tests/agent/model/test_providers.py)


#: The model string when only an endpoint (`--api-base`) is configured: the client replaces
#: it with the first model the server lists (`ProviderClient.learn_server`).
PLACEHOLDER_MODEL = "openai/default"


def provider_key_present(env: Mapping[str, str]) -> str | None:
    """The name of the first provider key set (non-empty) in `env`, else None."""
    return next((name for name in DEFAULT_MODELS if env.get(name)), None)


def default_model_for(key_name: str) -> str:
    """The model codebot uses when only `key_name` is configured."""
    return DEFAULT_MODELS.get(key_name, "gpt-4o-mini")


def provider_of(model: str) -> str:
    """The litellm provider of `model`: its `provider/` prefix, else guessed from the name."""
    prefix, _, rest = model.partition("/")
    if rest:
        return prefix
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith("gemini"):
        return "gemini"
    return "openai"


#: litellm provider -> every environment variable litellm reads its key from, the first
#: the one to suggest. The one table of provider keys: the key check (`key_problem`) and
#: the error hints (errors.py) both read it. Fireworks: litellm's chat also reads
#: FIREWORKS_API_KEY, its embeddings only FIREWORKS_AI_API_KEY, so that one is suggested.
KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "perplexity": ("PERPLEXITYAI_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "azure": ("AZURE_API_KEY",),
}
#: Providers whose key is not all they need (an endpoint, a version): a missing variable
#: proves nothing, so `key_problem` does not judge them; the error hints still name it.
NEEDS_MORE_THAN_A_KEY = frozenset({"azure"})
#: litellm provider -> the variable to suggest for its key (the first of `KEY_VARIABLES`).
PROVIDER_KEYS: dict[str, str] = {provider: names[0] for provider, names in KEY_VARIABLES.items()}


def key_variables(provider: str) -> tuple[str, ...]:
    """The variables `provider`'s key may be in; `<PROVIDER>_API_KEY` for one not in the table."""
    return KEY_VARIABLES.get(provider) or (f"{provider.upper()}_API_KEY",)


#: Bare model names (no `provider/`) whose provider the name alone tells.
_BARE_PREFIXES = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4-", "openai"),
    ("claude-", "anthropic"),
)


def _known_provider(model: str) -> str | None:
    """The provider of `model` when the string alone tells it, else None (litellm would
    have to be asked, and importing it costs seconds)."""
    prefix, _, rest = model.partition("/")
    if rest:
        return prefix if prefix in KEY_VARIABLES and prefix not in NEEDS_MORE_THAN_A_KEY else None
    return next((provider for start, provider in _BARE_PREFIXES if model.startswith(start)), None)


def key_problem(model: str, env: Mapping[str, str], *, api_base: str | None = None) -> str | None:
    """Why `model` cannot work as configured because its provider's key is not set, with
    the variable to set; None when the key is there or it cannot be told without litellm.

    Pure: reads `env` only, sends nothing, imports nothing. A local server (`api_base`)
    decides about keys itself, and CODEBOT_API_KEY is sent to any provider.
    """
    provider = _known_provider(model)
    if model == "offline" or api_base or env.get("CODEBOT_API_KEY") or provider is None:
        return None
    names = KEY_VARIABLES[provider]
    if any(env.get(name) for name in names):
        return None
    which = (
        f"{names[0]}, which is not set" if len(names) == 1 else f"{' or '.join(names)}; none is set"
    )
    return f"{model} (provider {provider}) needs {which}: export {names[0]}=<your key>"
