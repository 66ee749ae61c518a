"""How much a request may ask for, and what a stop or a refusal means: pure functions over
numbers and texts, shared by every client (litellm's now, an httpx one later).

- `output_budget`: the `max_tokens` every request carries;
- `stop_reason`: a provider's `finish_reason` as `end_turn` / `max_tokens` / `tool_use`;
- `is_overflow` / `window_in`: whether an error text is a context-window refusal (the
  actual wordings of llama.cpp, vLLM, Ollama, LM Studio and hosted providers), and the
  window it names;
- `stream_timeouts`: the first-token and idle-stream timeouts for an endpoint.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

#: Never ask for fewer output tokens than this (a smaller answer is useless; a request that
#: cannot spare it is refused by the server and compacted).
MIN_OUTPUT = 64
#: The share of the window an answer may take by default.
OUTPUT_SHARE = 4  # a quarter


def default_output(window: int, model_limit: int | None = None) -> int:
    """The default `max_output_tokens`: the smaller of the model's limit and a quarter of
    the window."""
    quarter = max(MIN_OUTPUT, window // OUTPUT_SHARE)
    return min(model_limit, quarter) if model_limit and model_limit > 0 else quarter


def output_budget(
    window: int,
    prompt_tokens: int,
    configured: int | None = None,
    model_limit: int | None = None,
) -> int:
    """`max_tokens` for one request: the configured value (else `default_output`), never
    more than what the window has left after the prompt (vLLM refuses prompt + max_tokens
    over its window), never less than MIN_OUTPUT."""
    wanted = configured or default_output(window, model_limit)
    return max(MIN_OUTPUT, min(wanted, window - prompt_tokens))


def stop_reason(finish_reason: str | None, has_tool_calls: bool = False) -> str:
    """`max_tokens` when the answer was cut at its limit (`length`, Anthropic's
    `max_tokens`), `tool_use` when it asks for tools, else `end_turn`."""
    if finish_reason in ("length", "max_tokens", "model_length"):
        return "max_tokens"
    return "tool_use" if has_tool_calls else "end_turn"


# -- overflow refusals ------------------------------------------------------------------------

#: Each server's wording of "the request does not fit the context window".
_OVERFLOW = re.compile(
    "|".join(
        (
            # llama.cpp server
            r"exceeds? the available context size",
            r"context size has been exceeded",
            r"exceed_context_size_error",
            r"requested tokens \(\d+\) exceed context window",  # llama-cpp-python
            # vLLM, OpenAI, most hosted providers
            r"maximum context length is \d+",
            r"context_length_exceeded",
            r"input prompt \(\d+ tokens\) is too long",
            # Ollama
            r"input length exceeds the context length",
            r"input exceeds context length",
            # LM Studio
            r"when context the overflows",
            r"context length of only \d+",
            r"reached context length of \d+",
            # generic
            r"prompt is too long",
            r"too many tokens",
            r"context window (?:is )?(?:exceeded|full)",
        )
    ),
    re.I,
)

#: Where each wording names the window (the first group).
_WINDOW = (
    re.compile(r"available context size \((\d+) tokens?\)", re.I),  # llama.cpp
    re.compile(r"\"n_ctx\"\s*:\s*(\d+)"),  # llama.cpp's error JSON
    re.compile(r"exceed context window of (\d+)", re.I),  # llama-cpp-python
    re.compile(r"maximum context length is (\d+)", re.I),  # vLLM, OpenAI
    re.compile(r"context length of only (\d+)", re.I),  # LM Studio
    re.compile(r"reached context length of (\d+)", re.I),  # LM Studio, mid-generation
    re.compile(r"exceeds limit of (\d+)", re.I),  # vLLM's scheduler
    re.compile(r"\blimit=(\d+)"),  # Ollama's log wording
)


def is_overflow(text: str) -> bool:
    """Whether an error text says the request does not fit the context window."""
    return bool(_OVERFLOW.search(text[:20_000]))


def window_in(text: str) -> int | None:
    """The context window an overflow text names, when it names one (and it is believable)."""
    head = text[:20_000]
    for pattern in _WINDOW:
        m = pattern.search(head)
        if m and len(m.group(1)) <= 9 and 256 <= int(m.group(1)) <= 100_000_000:
            return int(m.group(1))
    return None


# -- timeouts ---------------------------------------------------------------------------------

#: (first token, idle stream) in seconds: a local server answers or is stuck; a hosted
#: one may queue a long prompt.
LOCAL_TIMEOUTS = (60.0, 30.0)
HOSTED_TIMEOUTS = (120.0, 90.0)


def is_local(api_base: str | None) -> bool:
    """Whether `api_base` is on this machine (a loopback address or `localhost`)."""
    if not api_base:
        return False
    try:
        host = urlsplit(api_base).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def stream_timeouts(
    api_base: str | None, first_token: float | None = None, idle: float | None = None
) -> tuple[float, float]:
    """(first-token, idle) timeouts: the configured ones, else the defaults for a local
    or a hosted endpoint."""
    local_first, local_idle = LOCAL_TIMEOUTS if is_local(api_base) else HOSTED_TIMEOUTS
    return first_token or local_first, idle or local_idle


def quiet_notice_after(limit: float) -> float:
    """After how many silent seconds the wait is said (before it becomes an error)."""
    return min(10.0, limit / 2)
