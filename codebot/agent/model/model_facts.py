"""What litellm's model table says of a model (window, answer limit, reasoning, prices),
read from the JSON file litellm ships, without importing litellm.

`import litellm` costs seconds; its table is one 3.5 MB JSON file read in ~20 ms. The
direct wire path (`direct.py`) needs only these few facts, and they must be the ones
litellm would use, so that usage and cost read the same whichever path served a turn
(tests/agent/model/test_model_facts.py compares both for a list of models).
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

_lock = threading.Lock()
_table: dict[str, dict[str, object]] | None = None

#: litellm's name of its bundled copy of the model table.
TABLE_NAME = "model_prices_and_context_window_backup.json"
#: Prompts past this many tokens are priced at the `_above_200k_tokens` rate where the
#: table has one (Anthropic's and Google's long-context prices), as litellm does.
LONG_PROMPT = 200_000


def _load() -> dict[str, dict[str, object]]:
    """The table, read once; empty when litellm is not installed or the file is unreadable."""
    global _table
    if _table is not None:
        return _table
    with _lock:
        if _table is None:
            _table = _read_table()
    return _table


def _read_table() -> dict[str, dict[str, object]]:
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return {}
    places = list(spec.submodule_search_locations or []) if spec else []
    for place in places:
        try:
            raw = json.loads((Path(place) / TABLE_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(raw, dict):
            return {k: v for k, v in raw.items() if isinstance(v, dict)}
    return {}


def facts(model: str) -> dict[str, object] | None:
    """The table's entry for `model` as litellm finds it: the whole string first, then the
    name after its `provider/` prefix when that entry belongs to the same provider."""
    table = _load()
    entry = table.get(model)
    if entry is not None:
        return entry
    provider, _, rest = model.partition("/")
    if not rest:
        return None
    entry = table.get(rest)
    if entry is not None and entry.get("litellm_provider") == provider:
        return entry
    return None


def _int(entry: dict[str, object] | None, key: str) -> int | None:
    value = entry.get(key) if entry else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _number(entry: dict[str, object], key: str) -> float | None:
    value = entry.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def context_window(model: str) -> int | None:
    """Max input tokens (litellm's `max_input_tokens`, else `max_tokens`)."""
    entry = facts(model)
    return _int(entry, "max_input_tokens") or _int(entry, "max_tokens")


def output_limit(model: str) -> int | None:
    """The model's own limit on an answer (`max_output_tokens`)."""
    return _int(facts(model), "max_output_tokens")


def supports_reasoning(model: str) -> bool:
    entry = facts(model)
    return bool(entry and entry.get("supports_reasoning") is True)


def supports_vision(model: str) -> bool:
    """The table says the model takes images (`supports_vision`)."""
    entry = facts(model)
    return bool(entry and entry.get("supports_vision") is True)


def cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price of a call in dollars, None when the table has no price for `model`."""
    entry = facts(model)
    if entry is None:
        return None
    long = prompt_tokens > LONG_PROMPT
    per_in = (long and _number(entry, "input_cost_per_token_above_200k_tokens")) or _number(
        entry, "input_cost_per_token"
    )
    per_out = (long and _number(entry, "output_cost_per_token_above_200k_tokens")) or _number(
        entry, "output_cost_per_token"
    )
    if per_in is None or per_out is None:
        return None
    return prompt_tokens * per_in + completion_tokens * per_out
