"""Which folder a trust entry means, beyond its path.

Trust follows a path, so without more another repository moved to a trusted path (a
`mv`, a re-clone of something else, a folder swapped by a script) would be trusted. Each
entry therefore records the folder's identity when it is trusted:

- its (device, inode), from `os.stat` of the real path;
- where the folder is in a git repository (a `.git` at or above it), the repository's
  root commit (`git rev-list --max-parents=0 HEAD`; of several roots, the smallest hash).

A trusted path whose folder has another (device, inode), or whose repository no longer
has that root commit, is not trusted; the warning says why and to run `codebot trust`.

The root commit is read by running git, not by reading the object store: commits are
usually in pack files (zlib and delta chains), and a reader of our own would be more code
to get wrong than git's. git runs as safely as it can in a folder that may be hostile:
`--no-pager`, `-c core.fsmonitor=false` (the one setting that runs a program for a
read), `-c core.hooksPath=/dev/null`, no `GIT_*` variable from our environment (so
`GIT_DIR` cannot point it elsewhere), `GIT_TERMINAL_PROMPT=0`, `GIT_OPTIONAL_LOCKS=0`,
no stdin, its own session, stderr discarded, a 5 s timeout; an answer over 64 KiB is refused.
`rev-list` runs no hooks and does not touch the network. A repository owned by another
user is refused by git (`safe.directory`): it then has no root commit.

Limits: a folder deleted and made again on the same file system may get the same inode
number; for a git repository the root commit still tells them apart, for a plain folder
nothing does. A file system whose device number changes after a remount (some removable
or network ones) makes its trusted folders untrusted until `codebot trust` is run again.
Entries written before identities were recorded have none: they are trusted by path, and
`codebot trust` on the folder records its identity.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

GIT_TIMEOUT = 5.0
MAX_OUTPUT = 64 * 1024
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class Identity:
    device: int
    inode: int
    root_commit: str | None = None


def identify(real: str) -> Identity:
    """The identity of the folder at `real` now (raises OSError when it cannot be read)."""
    st = os.stat(real)
    roots = root_commits(real)
    return Identity(st.st_dev, st.st_ino, min(roots) if roots else None)


def changed(real: str, device: int, inode: int, root_commit: str | None) -> str | None:
    """Why the folder at `real` is not the one recorded (None: it is)."""
    try:
        st = os.stat(real)
    except OSError as exc:
        return f"the folder cannot be read now ({exc.strerror or exc})"
    if (st.st_dev, st.st_ino) != (device, inode):
        return (
            "the folder there now is another one (its device and inode differ from the trusted "
            "folder's: "
            "it was replaced, moved there, or made again)"
        )
    if root_commit is None:
        return None
    roots = root_commits(real)
    if roots is None:
        return (
            "its git history cannot be read, so it cannot be shown to be the repository trusted "
            f"({root_commit[:12]})"
        )
    if root_commit not in roots:
        return (
            f"its git repository is another one (its first commit is {min(roots)[:12]}, "
            f"the trusted one's was {root_commit[:12]})"
        )
    return None


def git_root(real: str) -> str | None:
    """The nearest folder at or above `real` with a `.git` entry, or None."""
    d = real
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def root_commits(real: str) -> frozenset[str] | None:
    """The root commits of the git repository `real` is in: empty when it is in none,
    None when there is one and its history cannot be read (no git, a timeout, no commits,
    another user's repository)."""
    repo = git_root(real)
    if repo is None:
        return frozenset()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat", LC_ALL="C"
    )
    argv = [
        "git",
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-C",
        repo,
        "rev-list",
        "--max-parents=0",
        "HEAD",
    ]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        out, _ = proc.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    if proc.returncode != 0 or len(out) > MAX_OUTPUT:
        return None
    roots = frozenset(out.decode("ascii", "replace").split())
    if not roots or not all(len(r) in (40, 64) and set(r) <= _HEX for r in roots):
        return None
    return roots


def valid_commit(value: object) -> bool:
    return isinstance(value, str) and len(value) in (40, 64) and set(value) <= _HEX
