"""Who wrote the instructions: files among the protected set that codebot's agent changed.

Every change that one of codebot's own tools or commands makes to the protected set
(`codebot.protected`) -- Write, Edit, a Bash command (sandboxed or not), a skill's
injected command -- is recorded here with its hash, per project, in
`$CODEBOT_HOME/written/<project key>.json` (0600, under a lock). Such a file is
**agent-written** until the person accepts it (`codebot written --accept`): a skill's
commands are asked and its grants dropped, a config's keys are ignored, in this session,
after `--continue` and in every later one. The mark is by path: editing the file by hand
afterwards does not clear it, accepting does. The content a file had before the first
recorded change is kept (up to `MAX_BLOB` bytes) so `--revert` can put it back.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from codebot.home import private_dir, write_private

__all__ = ["MAX_BLOB", "Entry", "Provenance", "ProvenanceError", "listing", "render", "store_for"]

MAX_BLOB = 1024 * 1024
MAX_STORE = 16 * 1024 * 1024
VERSION = 1


class ProvenanceError(Exception):
    pass


@dataclass(frozen=True)
class Entry:
    rel: str  # project-relative posix path
    kind: str  # created | changed | removed (since the first recorded change)
    sha256: str | None  # now, as codebot's agent left it (None: removed or not a file)
    before: str | None  # sha256 before the first recorded change (None: it did not exist)
    by: str  # Write | Edit | Bash | Bash (outside the sandbox) | skill NAME
    detail: str  # the command or a summary, shortened
    why: str  # why the path is protected
    session: str
    at: str  # UTC, ISO 8601


def project_key(project: Path) -> str:
    real = os.path.realpath(project)
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def store_for(home: Path, project: Path) -> Provenance:
    return Provenance(home, project)


class Provenance:
    def __init__(self, home: Path, project: Path) -> None:
        self.project = Path(os.path.realpath(project))
        self.folder = Path(home) / "written"
        key = project_key(self.project)
        self.path = self.folder / f"{key}.json"
        self.blobs = self.folder / key
        self.warning = ""

    # -- reading ----------------------------------------------------------------------

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                data = fh.read(MAX_STORE + 1)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ProvenanceError(f"{self.path} cannot be read: {exc}") from exc
        try:
            doc = json.loads(data)
            files = doc["files"]
            if len(data) > MAX_STORE or not isinstance(files, dict):
                raise ValueError("not a record of written files")
        except (ValueError, KeyError, TypeError) as exc:
            raise ProvenanceError(
                f"{self.path} is damaged ({exc}); move it away to start a new record, "
                "and review the project's skills and config by hand"
            ) from exc
        return {k: v for k, v in files.items() if isinstance(v, dict)}

    def marked(self) -> dict[str, Entry]:
        """Agent-written files not yet accepted, by project-relative path. A damaged record
        marks nothing and says why in `warning` (the sessions show it)."""
        try:
            files = self._read()
        except ProvenanceError as exc:
            self.warning = str(exc)
            return {}
        out: dict[str, Entry] = {}
        for rel, raw in files.items():
            with contextlib.suppress(TypeError):
                # A record's values are JSON: a wrong type is caught above, a missing one is None.
                fields: dict[str, Any] = {k: raw.get(k) for k in Entry.__dataclass_fields__}
                out[rel] = Entry(**fields)
        return out

    def marked_paths(self) -> set[str]:
        """The marked files as absolute paths, lexical and real (the session's `written`)."""
        out: set[str] = set()
        for rel in self.marked():
            p = self.project / rel
            out.add(str(p))
            out.add(os.path.realpath(p))
        return out

    # -- writing ----------------------------------------------------------------------

    def _lock(self):
        from filelock import FileLock

        private_dir(self.folder)
        return FileLock(str(self.path) + ".lock", timeout=10)

    def _save(self, files: dict[str, dict]) -> None:
        doc = {"version": VERSION, "project": str(self.project), "files": files}
        write_private(self.path, json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8"))

    def keep_before(self, content: bytes) -> str:
        """Keep a file's earlier content (for --revert and the diff); its sha256."""
        sha = hashlib.sha256(content).hexdigest()
        if len(content) <= MAX_BLOB:
            blob = self.blobs / sha
            if not blob.exists():
                private_dir(self.blobs)
                write_private(blob, content, durable=False)
        return sha

    def record(
        self,
        changes: list[tuple[str, str, str]],
        *,
        by: str,
        detail: str,
        session: str,
        befores: dict[str, str | None] | None = None,
    ) -> list[str]:
        """Record (rel, kind, why) changes; `befores` maps rel to the sha256 of the kept
        earlier content (None: it did not exist). Returns the paths now marked."""
        from codebot.protected_watch import file_sha256

        if not changes:
            return []
        befores = befores or {}
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self._lock():
            try:
                files = self._read()
            except ProvenanceError:
                self._set_aside()
                files = {}
            for rel, kind, why in changes:
                old = files.get(rel)
                sha = file_sha256(self.project / rel)
                before = (
                    old.get("before")
                    if old
                    else befores.get(rel, "unknown" if kind != "created" else None)
                )
                first_kind: Any = old.get("kind") if old else kind  # JSON: as recorded
                if first_kind == "created" and kind == "removed":
                    files.pop(rel, None)  # made and unmade by the agent: nothing left to mark
                    continue
                entry = Entry(
                    rel,
                    "removed" if kind == "removed" else first_kind,
                    sha,
                    before,
                    by,
                    " ".join(detail.split())[:300],
                    why,
                    session,
                    now,
                )
                files[rel] = asdict(entry)
            self._save(files)
        return [rel for rel, _, _ in changes]

    def _set_aside(self) -> None:
        with contextlib.suppress(OSError):
            os.replace(self.path, f"{self.path}.damaged-{int(time.time())}")

    def accept(self, rels: list[str] | None) -> list[str]:
        """Accept these paths (None: all); returns the ones that were marked."""
        with self._lock():
            files = self._read()
            chosen = (
                list(files) if rels is None else [r for r in (_norm(x) for x in rels) if r in files]
            )
            for rel in chosen:
                files.pop(rel)
            if chosen:
                self._save(files)
        return chosen

    def revert(self, rel: str) -> str:
        """Put a marked file back as it was before codebot's agent changed it; what was done."""
        rel = _norm(rel)
        with self._lock():
            files = self._read()
            raw = files.get(rel)
            if raw is None:
                raise ProvenanceError(f"{rel} is not marked as written by codebot's agent")
            target = self.project / rel
            before = raw.get("before")
            if before is None:
                if target.is_symlink() or target.is_file():
                    target.unlink()
                said = f"removed {rel} (it did not exist before)"
            else:
                blob = self.blobs / str(before)
                if not blob.is_file():
                    raise ProvenanceError(
                        f"no copy of {rel} as it was before is kept (too large, or changed "
                        "by a command codebot did not snapshot); restore it with git"
                    )
                if target.is_symlink():
                    target.unlink()
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob.read_bytes())
                said = f"restored {rel} as it was before"
            files.pop(rel)
            self._save(files)
        return said

    def diff(self, rel: str, limit: int = 400) -> str:
        """The unified diff from the kept earlier content to the file now."""
        entry = self.marked().get(_norm(rel))
        if entry is None:
            return ""
        old = b""
        if entry.before not in (None, "unknown"):
            blob = self.blobs / str(entry.before)
            if not blob.is_file():
                return "(no copy of the earlier content is kept)"
            old = blob.read_bytes()
        try:
            new = (self.project / entry.rel).read_bytes()[:MAX_BLOB]
        except OSError:
            new = b""
        a = old.decode("utf-8", "replace").splitlines(keepends=True)
        b = new.decode("utf-8", "replace").splitlines(keepends=True)
        lines = list(difflib.unified_diff(a, b, f"a/{entry.rel}", f"b/{entry.rel}"))
        more = f"\n[... {len(lines) - limit} more lines]" if len(lines) > limit else ""
        return "".join(lines[:limit]) + more


def _norm(rel: str) -> str:
    return os.path.normpath(rel.replace("\\", "/")).replace(os.sep, "/").lstrip("/")


# -- what the person is shown (`codebot written`, `/written`) ---------------------------


def listing(store: Provenance, diffs: bool = True) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for rel, e in sorted(store.marked().items()):
        row: dict[str, object] = {
            "path": rel,
            "kind": e.kind,
            "by": e.by,
            "detail": e.detail,
            "why": e.why,
            "session": e.session,
            "at": e.at,
            "sha256": e.sha256,
            "before": e.before,
            "revertible": store_revertible(store, e),
        }
        if diffs:
            row["diff"] = store.diff(rel)
        rows.append(row)
    return rows


def store_revertible(store: Provenance, entry: Entry) -> bool:
    return entry.before is None or (
        entry.before != "unknown" and (store.blobs / str(entry.before)).is_file()
    )


def render(rows: list[dict[str, Any]], project: str) -> str:
    """The human listing (shared with the TUI's and line mode's start-up offer)."""
    from codebot.display import visible

    if not rows:
        return f"nothing written by codebot's agent is waiting for review in {project}"
    out = [
        f"{len(rows)} file(s) in {project} written by codebot's agent, not yet accepted "
        "(their commands are asked, their grants and settings ignored):"
    ]
    for r in rows:
        out.append(
            f"  {visible(r['path'])}  {r['kind']} by {visible(r['by'])} at {r['at']}: "
            f"{visible(r['detail'])}"
        )
        out.append(f"    protected because: {visible(r['why'])}")
        if r.get("diff"):
            out += ["    " + visible(line) for line in r["diff"].splitlines()]
    out.append(
        "accept: codebot written --accept PATH (or --all) · revert: codebot written --revert PATH"
    )
    return "\n".join(out)
