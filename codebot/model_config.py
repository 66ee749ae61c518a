"""The config's model-request keys (`max_output_tokens`, `first_token_timeout`,
`idle_timeout`, `lean`), read for `config.ModelSettings` (whose field defaults are the
only defaults): each bad value is reported, naming the key, and left automatic."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

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
    return out
