"""Finding the paths `Read(...)` deny rules refuse, for the sandbox to mask (`with_masks`).

A rule is a gitignore-style glob over project-relative paths, and a mask needs a real
path. So, before each sandboxed command, per rule:

* a literal anchored rule (`backend/.env`, `/.env`, `config/secrets/`, and the absolute
  `~/notes.txt` or `//srv/key`) names one path: it is looked up directly, with no walk;
* any other rule (`.env`, which matches at any depth, `*.pem`, `**/secrets/`) needs the
  project walked, from the deepest folder the rule fixes (`/config/**/*.pem` walks
  `config` only). The walk descends everything, `.git`, `node_modules` and virtualenvs
  included: nothing a project contains makes it skip a folder.

The walk is bounded (`LIMIT` entries, `SECONDS`, `MAX_MASKS`) and fails closed: when it
stops early or cannot read a folder, `MaskScan.why` says so, and the command does not
run with that partial mask unless the person says so (the session asks first, print
mode denies, `shell.sandboxed` refuses). Not covered: files a command creates while it
runs (masks are fixed when the sandbox starts), and absolute glob rules (`//etc/**`),
which cannot be listed ahead of time.

Symlinks are never followed during the walk. A symlink is judged by its own path, like
any file; when it is denied, the sandbox masks what it points to (bwrap mounts follow
links), inside the project or not. A link to a denied path inside the project needs no
rule of its own: the target is masked, so the link leads to the mask.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codebot.agent.tools.base import ToolContext

__all__ = [
    "LIMIT",
    "MAX_MASKS",
    "SECONDS",
    "DeniedPaths",
    "MaskScan",
    "find_masks",
    "masked_paths",
    "with_masks",
]

#: The walk's bounds: entries looked at, and seconds.
LIMIT = 20000
SECONDS = 0.5
#: More masks than this would make a long bwrap command line and many mounts.
MAX_MASKS = 1000
_GLOB = re.compile(r"[*?\[\\]")


@dataclass(frozen=True)
class MaskScan:
    paths: tuple[Path, ...]  # existing denied paths, a denied folder once (not its contents)
    complete: bool  # False when the walk stopped early or could not read a folder
    scanned: int  # entries looked at
    why: str = (
        ""  # when not complete, why, in words ("the project walk stopped after 20,000 entries")
    )


class DeniedPaths:
    """`ToolContext.path_denied` in a session: callable as the Read-deny check Grep and
    Glob use (`check`), and holding the deny rules themselves (`rules`, kept live), so the
    sandbox can find each rule's paths the cheapest way (`find_masks`)."""

    def __init__(self, check: Callable[[str], str | None], rules: Sequence[Any]) -> None:
        self.check = check
        self.rules = rules  # permission Patterns: tool, kind, spec, absolute, text

    def __call__(self, subject: str) -> str | None:
        return self.check(subject)

    def read_rules(self) -> list[Any]:
        return [r for r in self.rules if r.tool == "Read" and r.kind == "path" and r.spec]


def _literal(spec: str) -> str | None:
    """The path a rule without glob characters names when it is anchored (a `/` before
    its end), else None: gitignore matches `.env` or `secrets/` at any depth."""
    body = spec.rstrip("/")
    if _GLOB.search(spec) or "/" not in body:
        return None
    parts = body.lstrip("/").split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    return "/".join(parts)


def _walk_root(spec: str) -> str:
    """The folder a relative glob rule can match inside of ("" for the whole project):
    the leading literal folders of an anchored rule."""
    body = spec.rstrip("/")
    if "/" not in body:
        return ""
    parts = body.lstrip("/").split("/")[:-1]
    fixed = []
    for part in parts:
        if _GLOB.search(part) or part in (".", ".."):
            break
        fixed.append(part)
    return "/".join(fixed)


def find_masks(
    project: Path, rules: Sequence[Any], *, limit: int = LIMIT, seconds: float = SECONDS
) -> MaskScan:
    """The existing paths the Read deny `rules` refuse: literal ones looked up, the others
    found by one bounded walk of the folders they can match in."""
    found: list[Path] = []
    walked: list[Any] = []
    for rule in rules:
        path = _literal(rule.spec)
        if path is None:
            if not rule.absolute:  # an absolute glob cannot be listed (docs/security.md)
                walked.append(rule)
            continue
        full = Path("/", path) if rule.absolute else project / path
        exists = os.path.isdir(full) if rule.spec.endswith("/") else os.path.lexists(full)
        if exists and full not in found:
            found.append(full)
    if not walked:
        return MaskScan(tuple(found), True, 0)
    import pathspec

    matcher = pathspec.GitIgnoreSpec.from_lines([r.spec for r in walked])
    roots = sorted({_walk_root(r.spec) for r in walked})
    roots = [
        r for r in roots if not any(o != r and (o == "" or r.startswith(o + "/")) for o in roots)
    ]
    scan = _walk(project, matcher.match_file, roots, limit, seconds, found)
    if scan.complete:
        return scan
    texts = ", ".join(r.text for r in walked)
    return dataclasses.replace(
        scan,
        why=f"the sandbox could not find every path your Read deny rules refuse "
        f"({texts}): {scan.why}",
    )


def masked_paths(
    project: Path, is_denied: Callable[[str], bool], *, limit: int = LIMIT, seconds: float = SECONDS
) -> MaskScan:
    """Walk all of `project` and return the paths `is_denied` refuses, by project-relative
    posix path (for a check whose rules are not known: `find_masks` is cheaper)."""
    scan = _walk(project, is_denied, [""], limit, seconds, [])
    if scan.complete:
        return scan
    return dataclasses.replace(
        scan, why=f"the sandbox could not find every path your Read deny rules refuse: {scan.why}"
    )


def _walk(
    project: Path,
    is_denied: Callable[[str], bool],
    roots: list[str],
    limit: int,
    seconds: float,
    found: list[Path],
) -> MaskScan:
    """Breadth first from `roots`, so when the budget runs out the shallow paths (`.env`,
    `secrets/`), the likeliest to be denied, have been seen. `found` is extended."""
    deadline = time.monotonic() + seconds
    scanned = 0
    queue: deque[tuple[str, str]] = deque(
        (os.path.join(project, root) if root else os.fspath(project), f"{root}/" if root else "")
        for root in roots
    )

    def stopped(why: str) -> MaskScan:
        return MaskScan(tuple(found), False, scanned, why)

    while queue:
        folder, rel_folder = queue.popleft()
        try:
            # Read lazily, not sorted: a folder of a million files must not be listed
            # whole before the first check of the budget.
            with os.scandir(folder) as entries:
                for entry in entries:
                    if scanned >= limit:
                        return stopped(f"the project walk stopped after {limit:,} entries")
                    if time.monotonic() > deadline:
                        return stopped(f"the project walk took more than {seconds:g} s")
                    scanned += 1
                    rel = f"{rel_folder}{entry.name}"
                    real_dir, is_dir = _entry_kind(entry)
                    # Folder rules are written gitignore-style (`secrets/`): ask both ways.
                    if is_denied(rel) or (is_dir and is_denied(rel + "/")):
                        if len(found) >= MAX_MASKS:
                            return stopped(f"more than {MAX_MASKS:,} paths are denied")
                        found.append(Path(entry.path))
                        continue  # the whole folder is masked: its contents need no masks
                    if real_dir:
                        queue.append((entry.path, rel + "/"))
        except (FileNotFoundError, NotADirectoryError):
            continue  # vanished, or a root that is a file: nothing there to mask
        except OSError as exc:
            if isinstance(exc, PermissionError) and not os.access(folder, os.X_OK):
                continue  # cannot be entered either: no command can open what is inside
            # A folder that can be entered but not listed may hold a file a command opens.
            return stopped(
                f"the folder {rel_folder or './'} could not be read ({exc.strerror or exc})"
            )
    return MaskScan(tuple(found), True, scanned)


def _entry_kind(entry: os.DirEntry[str]) -> tuple[bool, bool]:
    """(a real folder to walk into, a folder for the rules): a link to a folder is only the
    second, since it answers the `secrets/` question as a folder but is not walked."""
    try:
        real_dir = entry.is_dir(follow_symlinks=False)
        return real_dir, real_dir or (entry.is_symlink() and entry.is_dir())
    except OSError:
        return False, False


def with_masks(ctx: ToolContext) -> tuple[ToolContext, str]:
    """The tool context to run a sandboxed command in, with the denied paths found now
    added to its policy's masks, and why they may not be all of them ("" when they are).

    The returned context has no `path_denied`, so `shell.sandboxed` takes its masks as they
    are: the session calls this before a Bash call, asks the person when the answer is not
    "" (print mode denies), then runs the call with this context.
    """
    from codebot.agent.tools.sandbox import SandboxPolicy

    policy, denied = ctx.sandbox, ctx.path_denied
    if not isinstance(policy, SandboxPolicy) or denied is None:
        return ctx, ""
    project = Path(ctx.project_dir)
    if isinstance(denied, DeniedPaths):
        scan = find_masks(project, denied.read_rules())
    else:
        scan = masked_paths(project, lambda rel: bool(denied(rel)))
    policy = dataclasses.replace(policy, masked=(*policy.masked, *scan.paths))
    return dataclasses.replace(ctx, sandbox=policy, path_denied=None), scan.why
