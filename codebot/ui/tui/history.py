"""Prompt history: one JSON string per line, newest last, kept per project in
`$CODEBOT_HOME/history.d/<project key>` with `$CODEBOT_HOME/history` (every project's)
as the fallback: a project with no history of its own starts from the global one.

Reading and appending are plain file operations; the UI keeps one `History` and walks it
with `older`/`newer` as the person presses Up and Down.
"""

from __future__ import annotations

import json
from pathlib import Path

from codebot.home import private_dir, private_open

LIMIT = 1000


def project_history_path(home: Path, project: Path) -> Path:
    """Where one project's prompt history lives (a hash of its path: no path on disk)."""
    import hashlib

    key = hashlib.sha256(str(project).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return home / "history.d" / key


class History:
    def __init__(self, path: Path, limit: int = LIMIT, fallback: Path | None = None) -> None:
        """`fallback`: the global history, read when `path` has none yet, and appended to
        as well so that it stays every project's."""
        self.path = path
        self.limit = limit
        self.fallback = fallback
        self.entries: list[str] = _read(path, limit) or (_read(fallback, limit) if fallback else [])
        self._index = len(self.entries)
        self._draft = ""

    def append(self, text: str) -> None:
        """Remember `text` (not twice in a row) and persist it; never raises."""
        self.reset()
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        del self.entries[: -self.limit]
        self._index = len(self.entries)
        for path in (self.path, self.fallback):
            if path is None:
                continue
            try:
                # Owner-only: people paste secrets into prompts.
                private_dir(path.parent)
                with private_open(path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(text, ensure_ascii=False) + "\n")
            except OSError:
                pass  # history is a convenience: a read-only home must not stop a turn

    def older(self, current: str) -> str | None:
        """The entry before the one shown (saving what was typed), or None at the oldest."""
        if self._index == 0:
            return None
        if self._index == len(self.entries):
            self._draft = current
        self._index -= 1
        return self.entries[self._index]

    def newer(self) -> str | None:
        """The entry after the one shown, the saved draft after the newest, or None."""
        if self._index >= len(self.entries):
            return None
        self._index += 1
        return self._draft if self._index == len(self.entries) else self.entries[self._index]

    def reset(self) -> None:
        self._index = len(self.entries)
        self._draft = ""


def _read(path: Path, limit: int) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-limit:]
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue  # a torn last line after a crash: skip it
        if isinstance(value, str):
            entries.append(value)
    return entries
