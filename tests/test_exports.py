"""The lazy re-export tables of the stage packages (`_EXPORTS`, see `codebot._exports`) and
the two spellings of them the tools read: `__all__`, a literal list (type checkers cannot
read `sorted(_EXPORTS)`), and the `if TYPE_CHECKING:` imports that show pyright each name's
real type. Both must say what the table says."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(
    p
    for p in (ROOT / "codebot").rglob("__init__.py")
    if "_EXPORTS" in p.read_text(encoding="utf-8")
)


def _parts(path: Path) -> tuple[dict[str, str], list[str] | None, dict[str, str] | None]:
    """(_EXPORTS, __all__ if a literal, {name: module} of the TYPE_CHECKING imports or None)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).parent.parts)
    table: dict[str, str] = {}
    listed: list[str] | None = None
    typed: dict[str, str] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "_EXPORTS":
                table = ast.literal_eval(node.value)
            elif node.targets[0].id == "__all__" and isinstance(node.value, ast.List | ast.Tuple):
                listed = list(ast.literal_eval(node.value))
        elif isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            typed = {}
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    prefix = package + "."
                    inner = imp.module.removeprefix(prefix) if imp.module.startswith(prefix) else ""
                    typed.update({a.asname or a.name: inner for a in imp.names})
    return table, listed, typed


def test_there_are_lazy_packages() -> None:
    assert len(PACKAGES) >= 5


@pytest.mark.parametrize("path", PACKAGES, ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_all_is_a_literal_of_the_table(path: Path) -> None:
    table, listed, _ = _parts(path)
    assert listed is not None and sorted(listed) == sorted(table)


@pytest.mark.parametrize("path", PACKAGES, ids=lambda p: str(p.parent.relative_to(ROOT)))
def test_the_type_checking_imports_are_the_table(path: Path) -> None:
    table, _, typed = _parts(path)
    assert typed == table
