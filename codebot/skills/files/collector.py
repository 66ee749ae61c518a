"""Diagnostics collected while one skill file is read.

Its own module because both the parser and the reader of Codex's `agents/openai.yaml`
report through it, and the second must not import the first.
"""

from __future__ import annotations

from pathlib import Path

from codebot.skills.files.spec import Diagnostic, Severity


class Collector:
    """The diagnostics of one file, in the order they were found."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.items: list[Diagnostic] = []

    def add(
        self,
        sev: Severity,
        code: str,
        msg: str,
        line: int = 1,
        hint: str = "",
        field: str | None = None,
    ) -> None:
        self.items.append(Diagnostic(self.path, line, code, sev, msg, hint, field))

    def error(
        self, code: str, msg: str, line: int = 1, hint: str = ""
    ) -> tuple[None, list[Diagnostic]]:
        self.add(Severity.ERROR, code, msg, line, hint)
        return None, self.items
