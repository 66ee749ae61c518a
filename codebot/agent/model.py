"""The litellm-backed model client: streaming, tool-call assembly, retries, plain errors.

This is the only module that imports litellm, and only inside `_litellm()`: the import
takes seconds, so front ends call `warm_up()` in a background thread once they paint.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import threading
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

from codebot.agent.protocol import (
    Completion,
    ModelError,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
)

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
}
#: litellm provider -> the environment variable holding its key.
PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY", "groq": "GROQ_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY", "xai": "XAI_API_KEY", "cohere": "COHERE_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY", "fireworks_ai": "FIREWORKS_API_KEY", "azure": "AZURE_API_KEY",
}  # fmt: skip

_lock = threading.Lock()
_module: Any = None


def _litellm() -> Any:
    """Import and configure litellm once: no `.env` loading, no network, no chatter."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            # Without these, importing litellm loads ./.env into os.environ and fetches a price map.
            os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.telemetry = False
            litellm.suppress_debug_info = True
            litellm.drop_params = True
            if not os.environ.get("LITELLM_LOG"):  # the person asked for litellm's logs
                for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                    logging.getLogger(name).setLevel(logging.CRITICAL)
            _module = litellm
    return _module


def warm_up() -> None:
    """Import litellm now (call from a background thread after the UI is up)."""
    _litellm()


def provider_key_present(env: Mapping[str, str]) -> str | None:
    """The name of the first provider key set (non-empty) in `env`, else None."""
    return next((name for name in DEFAULT_MODELS if env.get(name)), None)


def default_model_for(key_name: str) -> str:
    """The model codebot uses when only `key_name` is configured."""
    return DEFAULT_MODELS.get(key_name, "gpt-4o-mini")


def _provider(model: str) -> str:
    prefix, _, rest = model.partition("/")
    if rest:
        return prefix
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith("gemini"):
        return "gemini"
    return "openai"


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class _ToolCallAccumulator:
    """Tool-call deltas keyed by their index: id and name from the first, arguments joined."""

    def __init__(self) -> None:
        self._slots: list[dict[str, str]] = []
        self._by_index: dict[Any, int] = {}

    def add(self, delta: Any) -> None:
        index = _get(delta, "index")
        fn = _get(delta, "function")
        call_id, name = _get(delta, "id"), _get(fn, "name")
        slot = self._by_index.get(index)
        # Some providers give every parallel call index 0; a new id with a name is a new call.
        if slot is None or (call_id and name and self._slots[slot]["id"] not in ("", call_id)):
            slot = len(self._slots)
            self._by_index[index] = slot
            self._slots.append({"id": "", "name": "", "arguments": ""})
        entry = self._slots[slot]
        if call_id and not entry["id"]:
            entry["id"] = call_id
        if name and not entry["name"]:
            entry["name"] = name
        entry["arguments"] += _get(fn, "arguments") or ""

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(ToolCall(s["id"] or f"call_{uuid.uuid4().hex[:24]}", s["name"], s["arguments"])
                     for s in self._slots if s["name"])  # fmt: skip


_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Exception)\s*[:\-]\s*)+")


def _said(exc: BaseException) -> str:
    """What the provider said, without litellm's `litellm.XError: OpenAIException - ` prefixes."""
    text = str(getattr(exc, "message", None) or exc).strip()
    text = _PREFIX.sub("", text).strip() or type(exc).__name__
    return text if text.endswith((".", "!", "?")) else text + "."


class LiteLLMClient:
    """A `ModelClient` for any provider litellm speaks to."""

    offline = False

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 max_retries: int = 3, backoff: float = 0.5, timeout: float = 600.0,
                 completion_kwargs: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        #: Extra arguments for `litellm.acompletion` (e.g. `mock_response` in tests).
        self.completion_kwargs = dict(completion_kwargs or {})
        self._context_window: int | None = None
        self._context_known = False

    @property
    def context_window(self) -> int | None:
        """Max input tokens from litellm's model map, looked up (and litellm imported) on first use."""
        if not self._context_known:
            try:
                info = _litellm().get_model_info(self.model)
                self._context_window = info.get("max_input_tokens") or info.get("max_tokens")
            except Exception:
                self._context_window = None
            self._context_known = True
        return self._context_window

    @context_window.setter
    def context_window(self, value: int | None) -> None:
        """An explicit window (e.g. from the config) wins over litellm's map."""
        self._context_window, self._context_known = value, True

    # -- the request ---------------------------------------------------------------
    def _kwargs(self, litellm: Any, request: ModelRequest, model: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": model, "messages": list(request.messages), "tools": list(request.tools) or None,
            "stream": True, "timeout": min(request.timeout, self.timeout), "num_retries": 0,
        }  # fmt: skip
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        try:
            params = litellm.get_supported_openai_params(model=model) or ()
        except Exception:
            params = ("stream_options",)  # unknown model: drop_params removes it if unwanted
        if "stream_options" in params:
            kwargs["stream_options"] = {"include_usage": True}
        if request.effort:
            try:
                if litellm.supports_reasoning(model):
                    kwargs["reasoning_effort"] = request.effort
            except Exception:
                pass
        kwargs.update(self.completion_kwargs)
        return kwargs

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        litellm = _module or await asyncio.to_thread(_litellm)
        model = request.model or self.model
        kwargs = self._kwargs(litellm, request, model)
        timeout = min(request.timeout, self.timeout)  # the stricter of request and client
        attempt = 0
        while True:
            response: Any = None
            try:
                try:
                    response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout)
                    iterator = response.__aiter__()
                    chunk = await asyncio.wait_for(iterator.__anext__(), timeout)
                except StopAsyncIteration:
                    chunk = None
                except Exception as exc:
                    error = self._error(exc, model, timeout, received=False, retries=attempt)
                    if not error.retryable or attempt >= self.max_retries:
                        raise error from exc
                    if response is not None:
                        await _close(response)
                        response = None
                    await asyncio.sleep(self._delay(attempt, exc))
                    attempt += 1
                    continue
                text: list[str] = []
                calls = _ToolCallAccumulator()
                usage = Usage()
                finish: str | None = None
                while chunk is not None:
                    piece, finish_now, usage_now = self._absorb(chunk, calls)
                    finish = finish_now or finish
                    if usage_now is not None:
                        usage = usage_now
                    if piece:
                        text.append(piece)
                        yield TextDelta(piece)
                    try:
                        chunk = await asyncio.wait_for(iterator.__anext__(), timeout)
                    except StopAsyncIteration:
                        chunk = None
                    except Exception as exc:
                        raise self._error(exc, model, timeout, received=True) from exc
                yield Completion(
                    "".join(text), calls.calls(), self._cost(litellm, model, usage), model, finish
                )
                return
            finally:
                if response is not None:
                    await _close(response)

    @staticmethod
    def _absorb(chunk: Any, calls: _ToolCallAccumulator) -> tuple[str, str | None, Usage | None]:
        """Feed one chunk: returns its text, its finish reason and its usage (if any)."""
        raw_usage = _get(chunk, "usage")
        usage = None
        if raw_usage is not None:
            usage = Usage(
                int(_get(raw_usage, "prompt_tokens") or 0),
                int(_get(raw_usage, "completion_tokens") or 0),
            )
        choices = _get(chunk, "choices") or []
        if not choices:
            return "", None, usage
        choice = choices[0]
        delta = _get(choice, "delta")
        for call in (_get(delta, "tool_calls") or []) if delta is not None else []:
            calls.add(call)
        text = (_get(delta, "content") or "") if delta is not None else ""
        return text, _get(choice, "finish_reason"), usage

    @staticmethod
    def _cost(litellm: Any, model: str, usage: Usage) -> Usage:
        if not (usage.prompt_tokens or usage.completion_tokens):
            return usage
        try:
            prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=usage.prompt_tokens,
                                                        completion_tokens=usage.completion_tokens)  # fmt: skip
            return Usage(
                usage.prompt_tokens, usage.completion_tokens, float(prompt) + float(completion)
            )
        except Exception:
            return usage

    def _delay(self, attempt: int, exc: BaseException) -> float:
        delay = self.backoff * 2**attempt * random.uniform(0.5, 1.5)
        headers = _get(getattr(exc, "response", None), "headers")
        try:
            retry_after = float(headers.get("retry-after")) if headers else None
        except (TypeError, ValueError):
            retry_after = None
        if retry_after is not None and 0 <= retry_after <= 60:
            delay = max(delay, retry_after)
        return delay

    # -- errors ----------------------------------------------------------------------
    def _error(self, exc: BaseException, model: str, timeout: float, *, received: bool,
               retries: int = 0) -> ModelError:  # fmt: skip
        """`exc` in plain words. Retryable only when nothing has streamed yet."""
        kind, status = _classify(exc)
        said = _said(exc)
        where = self.api_base or _provider(model)
        if kind == "auth":
            message = f"Authentication failed for {model}: {self._key_hint(model, status, said)}"
        elif kind == "rate_limit":
            message = f"Rate limited by {where}: {said} Wait a moment and try again, or use another model."
        elif kind == "context":
            message = (f"The conversation is too long for {model}'s context window ({said.rstrip('.')}). "
                       "Use /clear to start over, or switch to a model with a larger context window.")  # fmt: skip
        elif kind == "timeout" and received:
            message = f"{model} stopped sending for {timeout:g} seconds: the stream stalled and was abandoned."
        elif kind == "timeout":
            message = f"{model} did not answer within {timeout:g} seconds."
        elif received:
            message = f"The answer from {where} broke off mid-stream: {said}"
        elif kind == "connection":
            message = f"Could not reach {where}: {said} Check the network connection and the API base URL."
        elif kind == "server":
            message = (
                f"{where} had a server error ({status or 'no status'}): {said} Try again later."
            )
        elif kind == "not_found":
            message = (
                f"Model {model} was not found at {where}: {said} Check the model name (/model)."
            )
        elif kind == "bad_request":
            message = f"{where} rejected the request for {model}: {said}"
        else:
            message = f"{model} failed: {type(exc).__name__}: {said}"
        if retries:
            message += f" (gave up after {retries} {'retry' if retries == 1 else 'retries'})"
        retryable = kind in ("rate_limit", "server", "connection", "timeout") and not received
        return ModelError(kind, message, retryable=retryable, status=status)

    def _key_hint(self, model: str, status: int | None, said: str) -> str:
        """Which key is missing or was refused, and what to do about it."""
        missing = bool(_MISSING_KEY.search(said))
        refused = "is not allowed to use this model" if status == 403 else "was rejected"
        provider = _provider(model)
        var = PROVIDER_KEYS.get(provider, f"{provider.upper()}_API_KEY")
        if self.api_base:
            if missing or not (self.api_key or os.environ.get(var)):
                return (f"no API key was given for {self.api_base}. Set the key for that server "
                        f"(api_key in the config, or {var}) and try again.")  # fmt: skip
            return (f"the key for {self.api_base} {refused} ({said.rstrip('.')}). "
                    "Check the key for that server and try again.")  # fmt: skip
        if self.api_key:
            return f"the configured API key for {provider} {refused} ({said.rstrip('.')}). Check it, or set {var}."
        if missing or not os.environ.get(var):
            return f"{var} is not set. Export {var}=<your key>, or pick another model with /model or --model."
        return (f"{provider} rejected {var} ({said.rstrip('.')}). Check that the key is valid and active, "
                f"then export it again, or pick another model with /model.")  # fmt: skip


_MISSING_KEY = re.compile(r"missing credentials|api_key client option must be set", re.I)
_NO_CONNECTION = re.compile(
    r"\bconnection (?:error|refused)\b|name or service not known|all connection attempts failed",
    re.I,
)


def _classify(exc: BaseException) -> tuple[str, int | None]:
    """(kind, HTTP status) of a litellm/openai/httpx/asyncio exception, without importing them."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return "timeout", None
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    if _MISSING_KEY.search(str(exc)):  # litellm reports a missing key as a 500
        return "auth", None
    if "ContextWindowExceededError" in names:
        return "context", status or 400
    if names & {"AuthenticationError", "PermissionDeniedError"}:
        return "auth", status
    if "RateLimitError" in names:
        return "rate_limit", status or 429
    if names & {"Timeout", "APITimeoutError", "TimeoutException"}:
        return "timeout", None
    if "NotFoundError" in names:
        return "not_found", 404
    if "BadRequestError" in names:
        text = str(exc).lower()
        if "context length" in text or "context_length" in text or "too many tokens" in text:
            return "context", status
        return "bad_request", status
    if _NO_CONNECTION.search(str(exc)):  # litellm reports a refused connection as a 500 too
        return "connection", None
    if names & {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}:
        return "server", status
    if names & {"APIConnectionError", "ConnectError", "TransportError", "ConnectionError"}:
        return "connection", None
    return _by_status(status), status


def _by_status(status: int | None) -> str:
    if status is None:
        return "unknown"
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limit"
    if status == 404:
        return "not_found"
    if status >= 500:
        return "server"
    if status in (400, 413, 422):
        return "bad_request"
    return "unknown"


async def _close(response: Any) -> None:
    close = getattr(response, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:
        pass
