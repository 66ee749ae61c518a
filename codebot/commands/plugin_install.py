"""Copying a local plugin folder into `$CODEBOT_HOME/plugins/<name>`, and removing one.

The folder is somebody else's: before anything is copied the whole tree is checked, and
the copy never follows a link. Refused: a manifest that is missing or invalid (its name,
its paths), a symbolic link that is absolute or leads out of the folder, a FIFO, a socket
or a device, and a tree over the size limits. An installed plugin of the same name is
replaced only with `--force`, and then only once the new copy is complete (copied beside
it, then renamed). `.git` is not copied.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from codebot.display import visible
from codebot.skills.catalog.plugins import MANIFEST, Plugin, check_name, read_plugin

__all__ = ["MAX_BYTES", "MAX_FILES", "InstallError", "install", "remove"]

MAX_FILES = 20_000
MAX_BYTES = 200 * 1024 * 1024
SKIP = frozenset({".git"})
_O_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class InstallError(Exception):
    """Why a plugin cannot be installed or removed, with what to do."""


def _shown(path: Path | str) -> str:
    return visible(str(path))


def check_tree(root: Path) -> None:
    """Raise InstallError for the first entry that cannot be installed."""
    real_root = os.path.realpath(root)
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP or dirpath != str(root))
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                _check_link(path, real_root)
            elif not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                from codebot.skills.files.safe_read import kind_of

                raise InstallError(
                    f"{_shown(path)} is {kind_of(st.st_mode)}; a plugin holds only files, "
                    "folders and links inside it: remove it and install again"
                )
            else:
                files += 1
                size += st.st_size if stat.S_ISREG(st.st_mode) else 0
        if files > MAX_FILES or size > MAX_BYTES:
            raise InstallError(
                f"{_shown(root)} holds more than {MAX_FILES:,} entries or {MAX_BYTES >> 20} MB; "
                "this is not a plugin folder (install the plugin's own folder)"
            )


def _check_link(path: str, real_root: str) -> None:
    target = os.readlink(path)
    real = os.path.realpath(path)
    inside = real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)
    if os.path.isabs(target) or not inside:
        raise InstallError(
            f"{_shown(path)} is a symbolic link to {_shown(target)}, "
            + ("an absolute path" if os.path.isabs(target) else "outside the plugin folder")
            + "; installing would reach files that are not the plugin's: replace it with a "
            "copy or a relative link inside the plugin"
        )


def _copy_tree(src: Path, dst: Path, real_root: str, top: bool = False) -> None:
    """Copy without following links: links are recreated (checked again: the tree may
    have changed since `check_tree`), files read with O_NOFOLLOW."""
    dst.mkdir(mode=0o755)
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        if top and entry.name in SKIP:
            continue
        target = dst / entry.name
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            _check_link(entry.path, real_root)
            os.symlink(os.readlink(entry.path), target)
        elif stat.S_ISDIR(st.st_mode):
            _copy_tree(Path(entry.path), target, real_root)
        elif stat.S_ISREG(st.st_mode):
            _copy_file(entry.path, target, st.st_mode)
        else:
            raise InstallError(f"{_shown(entry.path)} is not a regular file; nothing installed")


def _copy_file(src: str, dst: Path, mode: int) -> None:
    fd = os.open(src, _O_READ)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InstallError(f"{_shown(src)} changed into a special file; nothing installed")
        with open(fd, "rb", closefd=False) as fin, open(dst, "xb") as fout:
            shutil.copyfileobj(fin, fout)
    finally:
        os.close(fd)
    os.chmod(dst, stat.S_IMODE(mode) & 0o755)


def _valid(folder: Path) -> Plugin:
    if not folder.is_dir():
        raise InstallError(f"{_shown(folder)} is not a folder; give the plugin's folder")
    manifest = folder.joinpath(*MANIFEST)
    if not manifest.is_file():
        raise InstallError(
            f"{_shown(folder)} has no {'/'.join(MANIFEST)}: it is not a Claude Code plugin "
            "(a plain skills folder goes in $CODEBOT_HOME/skills or --skills-dir)"
        )
    plugin = read_plugin(folder, "dir")
    if plugin is None or not plugin.loadable or plugin.problems:
        why = "; ".join(plugin.problems) if plugin else "no manifest"
        raise InstallError(f"cannot install {_shown(folder)}: {why}")
    return plugin


def install(home: Path, folder: Path, force: bool = False) -> tuple[Plugin, Path]:
    """Install the plugin in `folder`; its name and where it now lives."""
    folder = Path(os.path.abspath(folder.expanduser()))
    plugin = _valid(folder)
    check_tree(folder)
    plugins = home / "plugins"
    dest = plugins / plugin.name
    if os.path.realpath(dest) == os.path.realpath(folder):
        raise InstallError(f"{_shown(folder)} is already the installed plugin {plugin.name!r}")
    if os.path.lexists(dest) and not force:
        raise InstallError(
            f"a plugin {plugin.name!r} is already installed at {_shown(dest)}; "
            "pass --force to replace it, or `codebot plugin remove "
            f"{plugin.name}` first"
        )
    plugins.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".install-{plugin.name}-", dir=plugins))
    try:
        _copy_tree(folder, staging / "p", os.path.realpath(folder), top=True)
        if os.path.lexists(dest):
            _remove_path(dest)
        os.replace(staging / "p", dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return plugin, dest


def _remove_path(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)


def remove(home: Path, name: str) -> Path:
    """Remove the installed plugin called `name` (its manifest name or folder name)."""
    why = check_name(name)
    if why is not None:
        raise InstallError(f"plugin name {why}; run `codebot plugin list` for the names")
    plugins = home / "plugins"
    try:
        folders = sorted(p for p in plugins.iterdir() if not p.name.startswith("."))
    except OSError:
        folders = []
    for folder in folders:
        plugin = read_plugin(folder, "home") if folder.is_dir() else None
        if folder.name == name or (plugin is not None and plugin.name == name):
            _remove_path(folder)
            return folder
    names = ", ".join(p.name for p in folders) or "none"
    raise InstallError(f"no installed plugin named {name!r} (installed: {names})")
