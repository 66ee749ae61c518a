"""What to do about a frontmatter YAML error, by what YAML said and the line it points at.

"Quote the value" is the right advice only for the errors quoting fixes: a plain value
with `: ` inside, or one that starts with a character YAML reserves (`` ` ``, `@`, `*`,
`&`, `[`, `{`). An unclosed quote, a tab or a bad indentation needs other words, and
telling the author to quote there sends them the wrong way.
"""

from __future__ import annotations

import re

_KEY_VALUE = re.compile(r"\s*([A-Za-z_][\w-]*):\s+(.*)")
_RESERVED_START = re.compile(r"found character '(.)' that cannot start any token")


def yaml_hint(err: BaseException, text: str) -> str:
    """The fix for `err` (a yaml.YAMLError) raised while reading the frontmatter `text`."""
    problem = str(getattr(err, "problem", None) or err)
    context = str(getattr(err, "context", None) or "")
    line = _line_at(err, text)
    key_value = _KEY_VALUE.fullmatch(line)
    key = key_value.group(1) if key_value else "description"
    quote = f'quote the whole value, e.g. {key}: "…"'
    reserved = _RESERVED_START.search(problem)
    if (reserved and reserved.group(1) == "\t") or "tab character" in problem:
        return "indent with spaces: YAML does not allow tabs there"
    if reserved:
        return f"{quote}: a plain value cannot start with {reserved.group(1)!r}"
    if "quoted scalar" in context:
        return "close the quote this value opens (or write a quote inside it as \\\" or '')"
    if "mapping values are not allowed" in problem:
        if key_value and ": " in key_value.group(2):
            return f"{quote}: its ': ' reads as the start of another key"
        return (
            "every line must be 'key: value' at the left margin, or indented under a 'key:' with "
            "nothing "
            "after it; check this line's indentation and the line above it"
        )
    if "alias" in problem or "anchor" in context or "alias" in context:
        return f"{quote}: a value starting with * or & is a YAML alias or anchor"
    if "flow" in context:
        return f"{quote}: a value starting with [ or {{ is a YAML list or mapping"
    if "expected <block end>" in problem and key_value:
        return (
            f'{quote}, escaping any " inside as \\": text after a closing quote or a [list] is not '
            "allowed"
        )
    return (
        "check this line: keys at the left margin, one 'key: value' per line, quotes closed, "
        "spaces not tabs"
    )


def _line_at(err: BaseException, text: str) -> str:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    lines = text.split("\n")
    return lines[mark.line] if mark is not None and 0 <= mark.line < len(lines) else ""
