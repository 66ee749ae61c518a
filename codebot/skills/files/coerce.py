"""Turn hand-written frontmatter values into typed values, leniently.

Each function returns the value and, when the input was off, a short complaint that
the parser turns into a diagnostic naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

_TRUE = {"yes", "on", "true", "1", "y"}
_FALSE = {"no", "off", "false", "0", "n"}


def to_bool(value: object, default: bool) -> tuple[bool, str | None]:
    if isinstance(value, bool):
        return value, None
    if value is None:
        return default, None
    text = str(value).strip().lower()
    if text in _TRUE:
        return True, None
    if text in _FALSE:
        return False, None
    return default, f"{value!r} is not a boolean (use true/false, yes/no, on/off, 1/0)"


def split_list(text: str) -> list[str]:
    """Split on commas and whitespace, but not inside (), [] or {}.

    `Bash(git diff:*) Read` is two tools and `src/**/*.{ts,tsx}` is one glob.
    """
    items: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
        if depth == 0 and (ch == "," or ch.isspace()):
            if cur:
                items.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        items.append("".join(cur))
    return items


def to_str_list(value: object) -> tuple[tuple[str, ...], str | None]:
    if value is None:
        return (), None
    if isinstance(value, str):
        return tuple(split_list(value)), None
    if isinstance(value, list | tuple):
        out: list[str] = []
        bad = False
        for item in value:
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                out.extend(
                    split_list(str(item))
                    if isinstance(item, str) and "," in item
                    else [str(item).strip()]
                )
            else:
                bad = True
        return tuple(x for x in out if x), (
            "some entries are not strings and were ignored" if bad else None
        )
    return (), f"expected a list or a string, got {type(value).__name__}"


def to_text(value: object) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    if isinstance(value, str):
        return value.strip(), None
    if isinstance(value, bool | int | float):
        return str(value).lower() if isinstance(value, bool) else str(value), None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        # Some authors write a multi-line description as a YAML list of sentences.
        return " ".join(v.strip() for v in value), "a list was joined into one string"
    return None, f"expected a string, got {type(value).__name__}"


def to_str_map(value: object) -> tuple[dict[str, str], str | None]:
    """metadata must be a string map; dates, numbers and nested values become strings."""
    if value is None:
        return {}, None
    if not isinstance(value, Mapping):
        return {}, f"expected a mapping of strings, got {type(value).__name__}"
    out: dict[str, str] = {}
    nested = False
    for k, v in value.items():
        if isinstance(v, str):
            out[str(k)] = v
        elif isinstance(v, bool):
            out[str(k)] = "true" if v else "false"
        elif v is None:
            out[str(k)] = ""
        elif isinstance(v, list | dict):
            out[str(k)] = json.dumps(v, ensure_ascii=False, default=str)
            nested = True
        else:
            out[str(k)] = str(v)
    return out, ("nested values were turned into JSON strings" if nested else None)


def plain(value: object) -> object:
    """A JSON-safe copy of an unknown frontmatter value (kept in `extra`)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return str(value)
