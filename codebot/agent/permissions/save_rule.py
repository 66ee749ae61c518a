"""Saving "always allow" rules: append to `permissions.allow` of a YAML config file.
(`update_config` makes any other change the same way: the skill toggles of `/skills`.)

The file is read, the rules are added to `permissions.allow` (those already there are not
added twice), and the whole file is written again through a 0600 temporary file in the
same folder and `os.replace`: a reader sees the old file or the new one, never half of
one. Every other key is kept (the result is read back and compared before it replaces the
file), in its order; comments and the file's layout are not, since PyYAML drops them.

Refused, with the reason, and the file left as it is: a config file or folder that is a
symbolic link or not a regular file / folder (a link would make codebot write wherever
it points), a file larger than 1 MiB, not UTF-8, not valid YAML, not a mapping, or whose
`permissions` / `permissions.allow` has another shape than a mapping / a list (a string
`allow` is ignored when read; turning it into a list would make it count). The folder is
opened once (never through a link) and every read, write and rename is made relative to
that descriptor; it is locked with `flock`, so two codebot processes saving at once do
not lose each other's rule.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The largest config file read (as `config.MAX_CONFIG_BYTES`).
MAX_BYTES = 1024 * 1024
_O_READ = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_O_NEW = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class RuleSaveError(Exception):
    """Why the rules could not be saved, in words for the person."""


@dataclass(frozen=True)
class Saved:
    path: Path
    added: tuple[str, ...] = ()  # the rules that were not there yet
    already: tuple[str, ...] = ()  # the rules that were
    comments_lost: bool = False  # the old file had comments, which PyYAML does not keep


def target_problem(path: Path) -> str:
    """Why `path` (a config file) cannot be written safely, or "" (a check before asking;
    `save_allow_rules` checks again)."""
    for p, want_dir in ((path.parent, True), (path, False)):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{p} cannot be checked ({exc.strerror or exc})"
        if stat.S_ISLNK(st.st_mode):
            return f"{p} is a symbolic link; codebot does not write through it"
        if want_dir and not stat.S_ISDIR(st.st_mode):
            return f"{p} is not a folder"
        if not want_dir and not stat.S_ISREG(st.st_mode):
            return f"{p} is not a regular file"
    return ""


def save_allow_rules(path: str | os.PathLike[str], rules: Sequence[str]) -> Saved:
    """Add `rules` to `permissions.allow` in the YAML file `path` (created when missing,
    with its folder); RuleSaveError when it cannot be done safely."""
    path = Path(path)
    found: dict[str, tuple[str, ...]] = {"added": (), "already": ()}

    def add(data: dict[str, object]) -> bool:
        allow = _allow_list(path, data)
        found["added"] = tuple(
            r for i, r in enumerate(rules) if r not in allow and r not in rules[:i]
        )
        found["already"] = tuple(r for r in rules if r in allow)
        allow.extend(found["added"])
        return bool(found["added"])

    saved = update_config(path, add)
    return Saved(path, found["added"], found["already"], saved.comments_lost)


def update_config(
    path: str | os.PathLike[str], change: Callable[[dict[str, object]], bool]
) -> Saved:
    """Read the YAML mapping in `path` (created when missing, with its folder), let
    `change` edit it in place, and write it back the way `save_allow_rules` does (same
    refusals, lock and atomic replace). `change` returns False when there is nothing to
    write; it may raise RuleSaveError to refuse."""
    path = Path(path)
    problem = target_problem(path)
    if problem:
        raise RuleSaveError(problem)
    try:
        os.mkdir(path.parent)
    except FileExistsError:
        pass
    except OSError as exc:
        raise RuleSaveError(f"cannot create {path.parent} ({exc.strerror or exc})") from None
    with _folder(path.parent) as folder:
        problem = target_problem(path)  # again, under the lock
        if problem:
            raise RuleSaveError(problem)
        text = _read(path, folder)
        data = _load(path, text)
        if not change(data):
            return Saved(path)
        _write(path, folder, data)
        return Saved(
            path,
            comments_lost=any(
                line.lstrip().startswith("#") or " #" in line for line in text.splitlines()
            ),
        )


def _read(path: Path, folder: int | None) -> str:
    try:
        fd = os.open(path.name if folder is not None else path, _O_READ, dir_fd=folder)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise RuleSaveError(
            f"{path} cannot be read ({exc.strerror or exc}); it was left as it is"
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RuleSaveError(f"{path} is not a regular file")
        chunks, size = [], 0
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BYTES:
                raise RuleSaveError(
                    f"{path} is larger than {MAX_BYTES} bytes; it was left as it is"
                )
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise RuleSaveError(f"{path} is not UTF-8 text; it was left as it is") from None


def _load(path: Path, text: str) -> dict[str, object]:
    import yaml

    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise RuleSaveError(
            f"{path} is not valid YAML ({getattr(exc, 'problem', exc)}); fix it first"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise RuleSaveError(f"{path} is not a mapping of settings; fix it first")
    return data


def _allow_list(path: Path, data: dict[str, object]) -> list[object]:
    perms = data.get("permissions")
    if perms is None:
        perms = data["permissions"] = {}
    if not isinstance(perms, dict):
        raise RuleSaveError(f"{path}: permissions is not a mapping; fix it first")
    allow = perms.get("allow")
    if allow is None:
        allow = perms["allow"] = []
    if not isinstance(allow, list):
        raise RuleSaveError(f"{path}: permissions.allow is not a list; fix it first")
    return allow


def _write(path: Path, folder: int | None, data: dict[str, object]) -> None:
    """A 0600 temporary file beside `path`, fsynced, then `os.replace`. With `folder` (the
    locked folder's descriptor) every step is relative to it, so a folder swapped for a
    link meanwhile is never written through."""
    # Not home.write_private: that works on paths, and here every step must go through the
    # locked folder's descriptor (dir_fd, O_NOFOLLOW, flock held by `_folder`).
    import yaml

    out = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
    if yaml.safe_load(out) != data:  # every key must survive, exactly
        raise RuleSaveError(
            f"{path} could not be written without changing other settings; it was left as it is"
        )
    if folder is None:
        from codebot.home import private_temp

        fd, tmp = private_temp(path.parent, prefix=f".{path.name}.", suffix=".tmp")
        target = str(path)
    else:
        tmp, target = f".{path.name}.{secrets.token_hex(8)}.tmp", path.name
        fd = os.open(tmp, _O_NEW, 0o600, dir_fd=folder)
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)  # the umask cut the mode; make it exactly 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(out)
            fh.flush()
            os.fsync(fh.fileno())
        # Replaces a link put there meanwhile, never writes through it.
        os.replace(tmp, target, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        if isinstance(exc, OSError):
            raise RuleSaveError(f"cannot write {path} ({exc.strerror or exc})") from None
        raise
    if folder is not None:
        with contextlib.suppress(OSError):
            os.fsync(folder)


@contextlib.contextmanager
def _folder(folder: Path) -> Iterator[int | None]:
    """The folder, opened without following a link and locked (`flock`) against other
    codebot processes saving there; None where descriptors cannot do this (Windows)."""
    try:
        import fcntl
    except ImportError:
        yield None
        return
    if not {os.open, os.rename, os.unlink} <= os.supports_dir_fd:  # (os.replace is os.rename here)
        yield None
        return
    try:
        fd = os.open(
            folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
        )
    except OSError as exc:
        raise RuleSaveError(f"cannot open {folder} ({exc.strerror or exc})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)
