"""The litellm path: every provider the direct path (`direct.py`) does not speak.

This is the only module that imports litellm, and only inside `litellm()`: the import
takes seconds, so it happens on the first request that needs it, or in a front end's
warm-up thread when the configured model needs it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from codebot.agent.model import model_facts
from codebot.agent.model.protocol import ModelRequest

_lock = threading.Lock()
_module: Any = None


def litellm() -> Any:
    """Import and configure litellm once: no `.env` loading, no network, no chatter."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            # Without these, importing litellm loads ./.env into os.environ and fetches a price map.
            os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm as module

            # Older litellm releases read this; current ones no longer declare it.
            module.telemetry = False  # pyright: ignore[reportAttributeAccessIssue]
            module.suppress_debug_info = True
            module.drop_params = True
            if not os.environ.get("LITELLM_LOG"):  # the person asked for litellm's logs
                for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                    logging.getLogger(name).setLevel(logging.CRITICAL)
            _module = module
    return _module


def loaded() -> bool:
    return _module is not None


def completion_kwargs(
    request: ModelRequest,
    model: str,
    *,
    api_base: str | None,
    api_key: str | None,
    timeout: float,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """`litellm.acompletion`'s arguments for `request` (litellm must be loaded)."""
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": list(request.messages),
        "tools": list(request.tools) or None,
        "stream": True,
        "timeout": timeout,
        "num_retries": 0,
    }
    if api_base:
        kwargs["api_base"] = api_base
    if api_key:
        kwargs["api_key"] = api_key
    if request.max_tokens:
        kwargs["max_tokens"] = request.max_tokens
    # Always: litellm's Anthropic path reports usage only when asked, though its table of
    # supported parameters does not name this one; drop_params removes it where unwanted.
    kwargs["stream_options"] = {"include_usage": True}
    # The same table and answer as the direct path (`model_facts`), so both send it alike.
    if request.effort and model_facts.supports_reasoning(model):
        kwargs["reasoning_effort"] = request.effort
    kwargs.update(extra)
    return kwargs


async def open_stream(kwargs: dict[str, Any]) -> Any:
    """Start the request (litellm's stream object: iterate it, `aclose()` it)."""
    return await litellm().acompletion(**kwargs)
