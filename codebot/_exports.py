"""Lazy re-exports for the stage packages (PEP 562).

Each stage's `__init__` names its public objects and the inner module that defines each,
so callers write `from codebot.skills.catalog import Catalog` without the package
importing every inner module (and what they import) up front. `import codebot.skills.files`
stays as cheap as it was, and no stage's `__init__` can close an import circle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose name `n` lives in `package.table[n]`."""

    def __getattr__(name: str) -> Any:
        inner = table.get(name)
        if inner is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{inner}"), name)

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__
