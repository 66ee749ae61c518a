"""`InstructionSource`: a session's instruction files, kept current.

The system prompt asks it for its text before every request. It re-reads the files only
when one of them (or a file that could appear) changed: a stat of each candidate and
import, compared with the last read (size, mtime, inode), so an edit to AGENTS.md applies
from the next request and an unchanged set costs a few stats. `touch(path)` is told of
every path a tool worked on: a folder under the project with its own AGENTS.md (or
CLAUDE.md, GEMINI.md) joins the instructions from then on, and survives compaction with
the rest of the system prompt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from pathlib import Path

from codebot.agent.session.instructions import (
    NAMES,
    Instructions,
    candidates,
    chain,
    inside,
    load_instructions,
    render,
)

__all__ = ["InstructionSource"]

_Stat = tuple[int, int, int] | None


def _stat(path: Path) -> _Stat:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class InstructionSource:
    def __init__(
        self,
        *,
        project_root: Path,
        cwd: Path,
        home: Path,
        codebot_home: Path,
        trusted: bool,
        agent_written: Callable[[], Collection[str]] = frozenset,
    ) -> None:
        self.project_root = project_root
        self.cwd = cwd
        self.home = home
        self.codebot_home = codebot_home
        self.trusted = trusted
        self.agent_written = agent_written
        self.nested: list[Path] = []  # folders the model worked in that have their own file
        self._chain = {p.resolve() for p in chain(project_root, cwd)}
        self._checked: set[Path] = set()  # folders already looked at by `touch`
        self._sig: tuple[tuple[str, _Stat], ...] | None = None
        self._marks: frozenset[str] = frozenset()
        self._loaded = Instructions()
        self._text = ""

    def _paths(self) -> list[Path]:
        found = [
            p
            for p, _, _ in candidates(
                self.project_root, self.cwd, self.home, self.codebot_home, self.nested
            )
        ]
        seen = {str(p) for p in found}
        return found + [p for p in self._loaded.paths if str(p) not in seen]

    def _signature(self) -> tuple[tuple[str, _Stat], ...]:
        return tuple((str(p), _stat(p)) for p in self._paths())

    def current(self) -> Instructions:
        """The files as they are now (re-read only when something changed)."""
        sig = self._signature()
        marks = frozenset(self.agent_written())
        if sig != self._sig or marks != self._marks:
            self._loaded = load_instructions(
                self.project_root,
                self.cwd,
                self.home,
                self.codebot_home,
                self.trusted,
                marks,
                self.nested,
            )
            self._text = render(self._loaded)
            # the signature again, now with the imports the read found
            self._sig, self._marks = self._signature(), marks
        return self._loaded

    @property
    def text(self) -> str:
        """The system-prompt section (empty when no file applies)."""
        self.current()
        return self._text

    def touch(self, path: str | os.PathLike[str]) -> list[Path]:
        """A tool worked on `path`: the instruction files that apply from now on because of
        it (folders between the project root and `path` not yet in force)."""
        target = Path(os.path.abspath(path))
        if not inside(target, self.project_root):
            return []
        folder = target if target.is_dir() else target.parent
        new: list[Path] = []
        for here in reversed([folder, *folder.parents]):
            real = here.resolve()
            if real in self._chain or real in self._checked:
                continue
            if not inside(here, self.project_root):
                continue
            self._checked.add(real)
            files = [here / n for n in NAMES if os.path.lexists(here / n)]
            if files:
                self.nested.append(here)
                new += files
        return new
