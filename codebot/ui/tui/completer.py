"""What the prompt offers while the person types: `/commands` and `@files`.

Pure: it takes the text and the cursor and returns the range to replace and the items;
the dropdown widget only shows them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codebot.ui import commands
from codebot.ui.tui.paths import match_files, project_files

Location = tuple[int, int]
FILES_TTL = 10.0  # seconds a file walk is reused while the person keeps typing


@dataclass(frozen=True, slots=True)
class Item:
    label: str  # what the dropdown shows first: "/review" or "src/app.py"
    insert: str  # what replaces the range on accept
    hint: str = ""
    description: str = ""
    tag: str = ""  # "built-in", a skill's source, or "file"


@dataclass(frozen=True, slots=True)
class Suggestions:
    start: Location
    end: Location
    items: tuple[Item, ...]
    query: str = ""


class Completer:
    def __init__(
        self,
        slash: Callable[[str], list[commands.Completion]],
        project_dir: Path,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._slash = slash
        self._project = project_dir
        self._clock = clock
        self._files: list[str] | None = None
        self._files_at = 0.0

    def suggest(self, text: str, cursor: Location) -> Suggestions | None:
        row, col = cursor
        lines = text.split("\n")
        if row >= len(lines):
            return None
        line = lines[row]
        stacked = commands.stacked_query(line[:col]) if row == 0 else None
        if stacked is not None:  # `/review /te`: a second skill for the same request
            begin, query = stacked
            end = line.find(" ", col)
            end = len(line) if end < 0 else end
            items = tuple(
                Item("/" + c.name, "/" + c.name + " ", c.hint, c.description, c.source)
                for c in self._slash(query)
                if c.kind == "skill"
            )
            return Suggestions((0, begin), (0, end), items, query) if items else None
        if (
            row == 0
            and line.startswith("/")
            and not line.startswith("//")
            and " " not in line[:col]
        ):
            end = line.find(" ")
            end = len(line) if end < 0 else end
            query = line[1:col]
            found = self._slash(query)
            items = tuple(
                Item(
                    "/" + c.name,
                    "/" + c.name + " ",
                    c.hint,
                    c.description,
                    "built-in" if c.kind == "builtin" else c.source,
                )
                for c in found
            )
            return Suggestions((0, 0), (0, end), items, query) if items else None
        start = col
        while start > 0 and not line[start - 1].isspace():
            start -= 1
        token = line[start:col]
        if not token.startswith("@"):
            return None
        end = col
        while end < len(line) and not line[end].isspace():
            end += 1
        query = token[1:]
        items = tuple(Item(p, "@" + p + " ", tag="file") for p in match_files(self.files(), query))
        return Suggestions((row, start), (row, end), items, query) if items else None

    def files(self) -> list[str]:
        now = self._clock()
        if self._files is None or now - self._files_at > FILES_TTL:
            self._files = project_files(self._project)
            self._files_at = now
        return self._files
