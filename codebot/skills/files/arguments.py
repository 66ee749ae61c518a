"""A skill's `arguments` frontmatter field, read into `Argument`s.

A list or string of names, or a mapping of name -> JSON Schema (or description). Problems
are reported through `warn` and never stop the skill from loading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import MappingProxyType

from codebot.skills.files import coerce, frontmatter
from codebot.skills.files.spec import Argument

ARG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def read_arguments(value: object, warn: Callable[[str], None]) -> tuple[Argument, ...]:
    """`arguments` as a list or string of names, or a mapping of name -> JSON Schema."""
    if value is None:
        return ()
    items: list[Argument] = []
    if isinstance(value, str):
        items = [Argument(n) for n in coerce.split_list(value)]
    elif isinstance(value, dict):
        for name, v in value.items():
            items.append(_argument(str(name), v, warn))
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, str):
                items.append(Argument(v.strip()))
            elif isinstance(v, dict) and "name" in v:
                rest = {k: x for k, x in v.items() if k != "name"}
                items.append(_argument(str(v["name"]), rest, warn))
            else:
                warn(f"argument entry {v!r} has no name and was ignored")
    else:
        warn(f"expected a list, a string or a mapping, got {type(value).__name__}")
    for arg in items:
        if not ARG_NAME.match(arg.name):
            warn(
                f"argument name {arg.name!r} is not a valid identifier; $-placeholders cannot "
                "refer to it"
            )
    return tuple(items)


def _argument(name: str, v: object, warn: Callable[[str], None]) -> Argument:
    if v is None:
        return Argument(name)
    if isinstance(v, str):
        return Argument(name, description=v)
    if isinstance(v, dict):
        schema = {str(k): coerce.plain(frontmatter.unwrap_numbers(x)) for k, x in v.items()}
        required, msg = coerce.to_bool(schema.pop("required", False), False)
        if msg:
            warn(f"argument {name!r}: required {msg}")
        description = str(schema.get("description", ""))
        # Only the keys that constrain a value make this a schema worth validating.
        constraining = set(schema) - {"description", "title", "examples", "default"}
        return Argument(
            name, description, required, MappingProxyType(schema) if constraining else None
        )
    warn(f"argument {name!r}: expected a schema mapping or a description, got {type(v).__name__}")
    return Argument(name)
