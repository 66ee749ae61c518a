"""The exceptions the direct wire path raises, shaped so `errors.model_error` reads them as
it reads litellm's: the same class names (it classifies by name and status), the provider's
own message as the text, the HTTP response kept for its `retry-after` header.

So a 429, a refused key or a context-length refusal says the same sentence whichever path
served the turn (tests/agent/model/test_model.py runs one suite against both).
"""

from __future__ import annotations

import json

from codebot.agent.model.limits import is_overflow


class WireError(Exception):
    """A provider answered with an error, or the stream broke."""

    def __init__(self, message: str, status_code: int | None = None, response: object = None):
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        #: The HTTP response (its `headers` carry `retry-after`), when there was one.
        self.response = response


class BadRequestError(WireError):
    pass


class ContextWindowExceededError(BadRequestError):
    pass


class AuthenticationError(WireError):
    pass


class PermissionDeniedError(AuthenticationError):
    pass


class NotFoundError(WireError):
    pass


class RateLimitError(WireError):
    pass


class InternalServerError(WireError):
    pass


class ServiceUnavailableError(InternalServerError):
    pass


class APIConnectionError(WireError):
    pass


def _by_status(status: int) -> type[WireError]:
    if status == 401:
        return AuthenticationError
    if status == 403:
        return PermissionDeniedError
    if status == 404:
        return NotFoundError
    if status == 429:
        return RateLimitError
    if status in (503, 529):  # 529: Anthropic's "overloaded"
        return ServiceUnavailableError
    if status >= 500:
        return InternalServerError
    if 400 <= status < 500:
        return BadRequestError
    return WireError


def said_by(body: bytes) -> tuple[str, str]:
    """(message, code) from an error body in OpenAI's, Anthropic's or a plain shape."""
    text = body[:20_000].decode("utf-8", "replace").strip()
    try:
        doc = json.loads(text)
    except ValueError:
        return text or "no error text", ""
    error = doc.get("error", doc) if isinstance(doc, dict) else doc
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or json.dumps(error)[:2000]
        code = error.get("code") or error.get("type") or ""
        return str(message), str(code)
    if isinstance(error, str):
        return error, ""
    return text, ""


def error_for_status(status: int, body: bytes, response: object = None) -> WireError:
    """The exception for an HTTP error answer, named as litellm would name it."""
    message, code = said_by(body)
    cls = _by_status(status)
    if code == "context_length_exceeded" or (cls is BadRequestError and is_overflow(message)):
        cls = ContextWindowExceededError
    return cls(message, status, response)


def error_in_stream(error: object) -> WireError:
    """An error event inside a stream (llama.cpp's `{"error": …}`, Anthropic's `error`)."""
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error)[:2000])
        code = error.get("code")
        kind = str(error.get("type") or "")
        status = code if isinstance(code, int) else (529 if kind == "overloaded_error" else None)
    else:
        message, status = str(error), None
    cls = _by_status(status) if status else WireError
    if is_overflow(message):
        cls = ContextWindowExceededError
    return cls(message, status)


def ended_early() -> WireError:
    """The connection closed before the stream said the answer was complete (litellm's
    words and class for it, so the person reads the same whichever path served)."""
    return InternalServerError("Stream ended before a finish_reason was received.")
