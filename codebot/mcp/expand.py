"""`${VAR}` and `${VAR:-default}` in an MCP server definition, as Claude Code expands them.

One pass, left to right: what a variable holds is never expanded again (a value holding
`${OTHER}` stays as it is), so a hostile value cannot make the expansion loop or read a
variable the definition does not name. `$VAR` without braces and a lone `$` are kept. A
set but empty variable takes the default (the shell's `:-`); an unset one without a
default is an error naming the variable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["UnsetVariable", "expand", "variables_in"]

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class UnsetVariable(ValueError):
    """`${NAME}` names a variable that is not set and gives no default."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def expand(text: str, environ: Mapping[str, str]) -> str:
    """`text` with every `${VAR}` / `${VAR:-default}` replaced; UnsetVariable otherwise."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is not None:
            return value  # set and empty, no default: empty, as the shell does
        raise UnsetVariable(name)

    return _REF.sub(one, text)


def variables_in(text: str) -> list[str]:
    """The variables `text` reads, in order, each once."""
    return list(dict.fromkeys(m.group(1) for m in _REF.finditer(text)))
