"""The config's model-request keys (`max_output_tokens`, `first_token_timeout`,
`idle_timeout`, `lean`, `effort`): `ModelSettings` (its field defaults are the only defaults;
`config.Settings.requests` holds one) and its reader, which reports each bad value by
its key and leaves it automatic (docs/local-models.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelSettings:
    """Top-level model-request keys; None: decided per endpoint."""

    max_output_tokens: int | None = None  # None: min(model's limit, a quarter of the window)
    first_token_timeout: float | None = None  # None: 60 s local, 120 s hosted
    idle_timeout: float | None = None  # None: 30 s local, 90 s hosted
    lean: bool = False  # fewer tools, a names-only listing (small windows; --lean)
    #: Reasoning effort of every turn (--effort); a skill's own `effort` wins for its turn.
    #: Sent only to models litellm says reason.
    effort: str | None = None


#: The reasoning efforts providers take (OpenAI's `reasoning_effort`, mapped by litellm).
EFFORTS = ("minimal", "low", "medium", "high")


#: Upper bounds: a bigger value is refused with a warning (an hour of silence is no timeout).
MODEL_CAPS: Mapping[str, tuple[type, float]] = {
    "max_output_tokens": (int, 1_000_000),
    "first_token_timeout": (float, 3600.0),
    "idle_timeout": (float, 3600.0),
}


def model_keys(raw: Mapping[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The keys of `raw` that are set and valid, as `ModelSettings` arguments."""
    out: dict[str, Any] = {}
    for key, (kind, cap) in MODEL_CAPS.items():
        value = raw.get(key)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not ((kind is float and 0 < value <= cap) or (kind is int and 1 <= value <= cap))
        ):
            unit = "tokens" if kind is int else "seconds"
            warnings.append(
                f"config {key}: {value!r} is not a positive number of {unit} up to {cap:,.0f}; "
                "ignoring it (the automatic value is used)"
            )
            continue
        out[key] = kind(value)
    lean = raw.get("lean")
    if lean is not None and not isinstance(lean, bool):
        warnings.append(f"config lean: {lean!r} is not true or false; ignoring it")
    elif lean is not None:
        out["lean"] = lean
    effort = raw.get("effort")
    if effort is not None and effort not in EFFORTS:
        warnings.append(
            f"config effort: {effort!r} is not one of {', '.join(EFFORTS)}; ignoring it"
        )
    elif effort is not None:
        out["effort"] = effort
    return out


def read_model_settings(raw: Mapping[str, Any], warnings: list[str]) -> ModelSettings:
    return ModelSettings(**model_keys(raw, warnings))
