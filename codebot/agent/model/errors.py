"""Model failures in plain words: what kind of failure an exception is, and what to tell the person.

Classification looks only at class names, status codes and messages, so it never has to
import litellm, openai or httpx (`model` stays the only module that imports litellm).
"""

from __future__ import annotations

import asyncio
import json
import os
import re

from codebot.agent.model.limits import is_overflow, window_in
from codebot.agent.model.protocol import ModelError
from codebot.agent.model.providers import key_variables, provider_of

_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Exception)\s*[:\-]\s*)+")


def _said(exc: BaseException) -> str:
    """What the provider said, without litellm's `litellm.XError: OpenAIException - ` prefixes,
    and the message alone where litellm passes on a whole JSON error body."""
    text = str(getattr(exc, "message", None) or exc).strip()
    text = _PREFIX.sub("", text).strip() or type(exc).__name__
    text = _message_in_body(text) or text
    return text if text.endswith((".", "!", "?")) else text + "."


_BODY = re.compile(r"""^b?(['"]?)(\{.*"error".*\})\1$""", re.S)


def _message_in_body(text: str) -> str | None:
    """`error.message` of an error body given as text (litellm's Anthropic errors are the
    body, sometimes as a bytes literal), else None."""
    m = _BODY.match(text)
    if m is None:
        return None
    body = m.group(2)
    if text.startswith("b"):  # a bytes literal's escapes
        try:
            body = body.encode("latin-1").decode("unicode_escape")
        except (UnicodeError, ValueError):
            return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    error = doc.get("error") if isinstance(doc, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message.strip() if isinstance(message, str) and message.strip() else None


def model_error(
    exc: BaseException,
    model: str,
    timeout: float,
    *,
    received: bool,
    retries: int = 0,
    api_base: str | None = None,
    api_key: str | None = None,
) -> ModelError:
    """`exc` in plain words. Retryable only when nothing has streamed yet."""
    kind, status = _classify(exc)
    if kind == "unknown_model":
        kind, message = "not_found", _unknown_model(model, api_base)
    else:
        message = _message(
            kind, exc, model, timeout, received, status, api_base=api_base, api_key=api_key
        )
    if retries:
        message += f" (gave up after {retries} {'retry' if retries == 1 else 'retries'})"
    retryable = kind in ("rate_limit", "server", "connection", "timeout") and not received
    error = ModelError(kind, message, retryable=retryable, status=status)
    if kind == "context":  # the window the refusal names, to learn it
        error.window = window_in(str(getattr(exc, "message", None) or exc))
    return error


def _message(
    kind: str,
    exc: BaseException,
    model: str,
    timeout: float,
    received: bool,
    status: int | None,
    *,
    api_base: str | None,
    api_key: str | None,
) -> str:
    """The sentence for an error of `kind` (any but "unknown_model")."""
    said = _said(exc)
    where = api_base or provider_of(model)
    if kind == "auth":
        return (
            f"Authentication failed for {model}: "
            f"{_key_hint(model, status, said, api_base, api_key)}"
        )
    if kind == "rate_limit":
        return f"Rate limited by {where}: {said} Wait a moment and try again, or use another model."
    if kind == "context":
        return (
            f"The conversation is too long for {model}'s context window ({said.rstrip('.')}). "
            "Use /clear to start over, or switch to a model with a larger context window."
        )
    if kind == "timeout" and received:
        return (
            f"no data from the server for {timeout:g} s: {model} stopped sending mid-answer "
            "and the stream was abandoned (idle_timeout in the config sets how long to wait)."
        )
    if kind == "timeout":
        return (
            f"no data from the server for {timeout:g} s: {model} did not start answering "
            "(first_token_timeout in the config sets how long to wait)."
        )
    if received:
        return f"The answer from {where} broke off mid-stream: {said}"
    if kind == "connection":
        return f"Could not reach {where}: {said} Check the network connection and the API base URL."
    if kind == "server":
        return f"{where} had a server error ({status or 'no status'}): {said} Try again later."
    if kind == "not_found":
        return f"Model {model} was not found at {where}: {said} Check the model name (/model)."
    if kind == "bad_request":
        return f"{where} rejected the request for {model}: {said}"
    return f"{model} failed: {type(exc).__name__}: {said}"


def _key_hint(
    model: str, status: int | None, said: str, api_base: str | None, api_key: str | None
) -> str:
    """Which key is missing or was refused, and what to do about it."""
    missing = bool(_MISSING_KEY.search(said))
    refused = "is not allowed to use this model" if status == 403 else "was rejected"
    provider = provider_of(model)
    names = key_variables(provider)  # the table `key_problem` reads too
    var = next((name for name in names if os.environ.get(name)), names[0])  # the one in use
    if api_base:
        if missing or not (api_key or os.environ.get(var)):
            return (
                f"no API key was given for {api_base}. Set the key for that server "
                f"(api_key in the config, or {var}) and try again."
            )
        return (
            f"the key for {api_base} {refused} ({said.rstrip('.')}). "
            "Check the key for that server and try again."
        )
    if api_key:
        return (
            f"the configured API key for {provider} {refused} ({said.rstrip('.')}). Check it, or "
            f"set {var}."
        )
    if missing or not os.environ.get(var):
        return (
            f"{var} is not set. Export {var}=<your key>, or pick another model with /model or "
            "--model."
        )
    return (
        f"{provider} rejected {var} ({said.rstrip('.')}). Check that the key is valid and active, "
        f"then export it again, or pick another model with /model."
    )


def _unknown_model(model: str, api_base: str | None) -> str:
    """litellm could not tell which provider serves `model` ("LLM Provider NOT provided"):
    nothing was sent anywhere, so no provider rejected anything; say how to write one."""
    prefix, _, rest = model.partition("/")
    why = f"{prefix!r} is not a provider litellm knows" if rest else "it names no provider"
    local = (
        f"for the server at {api_base}, write --model openai/{rest or model}"
        if api_base
        else "for a local OpenAI-compatible server, pass --api-base URL with --model openai/NAME"
    )
    return (
        f"{model!r} is not a model litellm knows ({why}). Write it as provider/model, e.g. "
        f"openai/gpt-4o-mini, anthropic/claude-sonnet-4-5 or gemini/gemini-2.5-flash "
        f"(https://docs.litellm.ai/docs/providers); {local}. Change it with /model or --model."
    )


_UNKNOWN_MODEL = re.compile(r"LLM Provider NOT provided", re.I)
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
    if _UNKNOWN_MODEL.search(str(exc)):  # raised by litellm itself, before any request
        return "unknown_model", None
    if "ContextWindowExceededError" in names:
        return "context", status or 400
    if names & {"AuthenticationError", "PermissionDeniedError"}:
        return "auth", status
    if "RateLimitError" in names:
        return "rate_limit", status or 429
    if is_overflow(str(exc)):  # llama.cpp's is a 500, LM Studio's and Ollama's a 400
        return "context", status
    if names & {"Timeout", "APITimeoutError", "TimeoutException"}:
        return "timeout", None
    if "NotFoundError" in names:
        return "not_found", 404
    if "BadRequestError" in names:
        text = str(exc).lower()
        if "context length" in text or "context_length" in text or "too many tokens" in text:
            return "context", status
        return "bad_request", status
    return _classify_rest(exc, names, status)


def _classify_rest(
    exc: BaseException, names: set[str], status: int | None
) -> tuple[str, int | None]:
    """`_classify` for what is not a timeout, a key, a model, a limit or a bad request."""
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
