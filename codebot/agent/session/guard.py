"""The session's guard over what runs later: protected writes and their provenance.

One per session (sub-agents share their parent's). It answers two questions and keeps
one record:

* `write_reason(path)`: why a Write or Edit to this path must be asked every time (a
  protected path, or any path when the "project" is the home folder);
* `exact_rule(...)`: whether print mode may still write it (an allow rule names exactly
  that path);
* `command(...)` / `wrote(...)`: around every command and after every write, what
  changed among the protected set is recorded in `codebot.provenance` and added to the
  session's `written` set, so the skill system treats it as agent-written at once.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.protected import home_like, project_extras, protected_reason
from codebot.protected_watch import ProjectWatch
from codebot.provenance import Provenance, ProvenanceError

if TYPE_CHECKING:
    from codebot.agent.permissions import Pattern
    from codebot.agent.tools.sandbox import SandboxPolicy

__all__ = ["Guard"]


class Guard:
    def __init__(self, project: Path, home: Path, session_id: str = "") -> None:
        self.project = Path(os.path.realpath(project))
        self.home_like = home_like(self.project)
        self.hooks = project_extras(self.project)  # core.hooksPath, a plugin repo's folders
        self.store = Provenance(home, self.project)
        self.watch = ProjectWatch(self.project, self.hooks)
        self.session_id = session_id
        self.written: set[str] = set()  # the session's set, shared with the skill system
        self.notices: list[str] = []  # what went wrong while recording, said by the session

    def load(self, written: set[str]) -> set[str]:
        """Start from what earlier sessions left marked; returns the set to share."""
        self.written = written
        written.update(self.store.marked_paths())
        if self.store.warning:
            self.notices.append(self.store.warning)
        return written

    # -- questions ----------------------------------------------------------------------

    def rel(self, path: str | os.PathLike[str]) -> str | None:
        """`path` relative to the project (lexically, then as resolved), or None outside."""
        for p in (os.path.abspath(path), os.path.realpath(path)):
            r = os.path.relpath(p, self.project)
            if r != ".." and not r.startswith("../"):
                return "" if r == "." else r.replace(os.sep, "/")
        return None

    def write_reason(self, path: str | os.PathLike[str]) -> str | None:
        """Why writing `path` (absolute) must be asked every time, or None."""
        if self.home_like:
            return f"{self.project} is the home folder (or above it), not a project"
        for p in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            r = os.path.relpath(p, self.project)
            if r == ".." or r.startswith("../"):
                continue
            why = protected_reason(r.replace(os.sep, "/"), self.hooks)
            if why:
                return why
        return None

    def exact_rule(self, rules: Sequence[Pattern], tool: str, path: str | os.PathLike[str]) -> bool:
        """Whether one of `rules` (config or --allow, never a grant) names exactly this path."""
        rel = self.rel(path)
        for rule in rules:
            if getattr(rule, "tool", None) not in (tool, "Edit" if tool == "Write" else tool):
                continue
            spec = getattr(rule, "spec", None)
            if getattr(rule, "kind", "") == "literal_path" and spec in (rel, os.path.abspath(path)):
                return True
            if getattr(rule, "kind", "") != "path" or not isinstance(spec, str) or not spec:
                continue
            if not any(c in spec for c in "*?[]{}!") and spec.lstrip("/") == rel:
                return True  # a literal path rule
        return False

    # -- records ------------------------------------------------------------------------

    def before_write(self, path: Path) -> dict[str, str | None]:
        """Keep a protected file's content before a Write or Edit; {rel: sha or None}."""
        rel = self.rel(path)
        if rel is None or not protected_reason(rel, self.hooks):
            return {}
        from codebot.agent.tools.sandbox_protect import flush_placeholders

        flush_placeholders()  # the file must not land in a placeholder folder about to go
        try:
            content = path.read_bytes() if path.is_file() else None
        except OSError:
            content = None
        try:
            return {rel: None if content is None else self.store.keep_before(content)}
        except OSError as exc:
            self.notices.append(f"could not keep a copy of {rel} before the write: {exc}")
            return {rel: "unknown"}

    def wrote(
        self, tool: str, path: Path, befores: dict[str, str | None], detail: str = ""
    ) -> None:
        """After a successful Write or Edit."""
        self.written.add(os.path.realpath(path))
        self.written.add(os.path.abspath(path))
        rel = self.rel(path)
        if rel is None or rel not in befores:
            return
        kind = "created" if befores[rel] is None else "changed"
        self._record(
            [(rel, kind, protected_reason(rel, self.hooks) or rel)], tool, detail or rel, befores
        )

    @contextlib.contextmanager
    def command(
        self, by: str, detail: str, sandbox: SandboxPolicy | str | None = None
    ) -> Iterator[None]:
        """Around a command (a Bash call or a skill's injected commands): hold the sandbox's
        placeholders, compare the protected set before and after, record what changed.
        What the sandbox binds read-only cannot change and is not compared; the placeholders
        are gone before the comparison."""
        from codebot.agent.tools.sandbox_protect import flush_placeholders, protected_run

        if sandbox is None or isinstance(sandbox, str):
            flush_placeholders()  # a command outside must find no placeholder to write into
        try:
            with protected_run(sandbox) as read_only:
                before = self.watch.snapshot(self._unchanging(read_only))
                yield
        finally:
            changes = self.watch.changes(before)
            if changes:
                where = (
                    by
                    if sandbox is not None and not isinstance(sandbox, str)
                    else f"{by} (outside the sandbox)"
                )
                self._record(
                    [(c.rel, c.kind, c.why) for c in changes if not _folder(self.project / c.rel)],
                    where,
                    detail,
                    {},
                )

    def _unchanging(self, read_only: list[Path]) -> frozenset[str]:
        """The watched protected entries that are bound read-only (not through a link:
        a link can be swapped although its target cannot change)."""
        if not read_only:
            return frozenset()
        bound = {str(p) for p in read_only}
        root = str(self.project)
        return frozenset(
            t
            for t in self.watch.tops
            if f"{root}/{t}" in bound and not os.path.islink(f"{root}/{t}")
        )

    def _record(
        self,
        changes: list[tuple[str, str, str]],
        by: str,
        detail: str,
        befores: dict[str, str | None],
    ) -> None:
        if not changes:
            return
        for rel, _, _ in changes:
            self.written.add(str(self.project / rel))
            self.written.add(os.path.realpath(self.project / rel))
        try:
            self.store.record(
                changes, by=by, detail=detail, session=self.session_id, befores=befores
            )
        except (OSError, ProvenanceError, TimeoutError) as exc:
            # The session's own set still marks them; later sessions would not know.
            self.notices.append(
                f"could not record what codebot's agent wrote ({exc}); "
                f"review {', '.join(r for r, _, _ in changes[:5])} by hand"
            )

    def marked_here(self, path: str | os.PathLike[str]) -> bool:
        return os.path.realpath(path) in self.written or os.path.abspath(path) in self.written


def _folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()
