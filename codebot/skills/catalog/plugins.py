"""Claude Code plugins: which folders are plugins, and what each one brings.

A plugin is a folder with `.claude-plugin/plugin.json`. They come from three places, in
this order of precedence: the project root itself (when the person accepted it), each
`--plugin-dir DIR`, and every folder of `$CODEBOT_HOME/plugins/` (where a manifest is
optional: the folder's name is then the plugin's). Each yields a `Plugin`: its name, its
folders of skills, commands (Markdown commands, loaded as skills) and agents, its hooks
files, and what was wrong with its manifest.

The manifest is somebody else's file: `name` must be a plain kebab-case name (never
`../x`, never a name codebot uses for its own sources), and every path it declares must
stay inside the plugin folder (no absolute path, no `..`, no symbolic link leading out).
A bad path is dropped and said; a bad name keeps the plugin from loading.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.skills.files.safe_read import read_json_object

__all__ = [
    "MANIFEST",
    "RESERVED",
    "Plugin",
    "find_plugins",
    "has_manifest",
    "read_plugin",
]

MANIFEST = (".claude-plugin", "plugin.json")
MAX_MANIFEST_BYTES = 1024 * 1024
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
#: Names of codebot's own skill sources and roots: a plugin calling itself one of these
#: would be read as that source in listings and `plugin:` names.
RESERVED = frozenset({"bundled", "project", "user", "plugin", "plugins", "codebot", "extra"})
#: Where each kind of component lives by default, and the manifest field that adds more.
DEFAULTS = {"skills": "skills", "commands": "commands", "agents": "agents"}
HOOKS_DEFAULT = ("hooks", "hooks.json")
MAX_PATHS = 32


@dataclass(frozen=True)
class Plugin:
    name: str
    root: Path
    origin: str  # "project", "dir" (--plugin-dir) or "home" ($CODEBOT_HOME/plugins)
    version: str = ""
    description: str = ""
    skills: tuple[Path, ...] = ()
    commands: tuple[Path, ...] = ()
    agents: tuple[Path, ...] = ()
    hooks: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()
    loadable: bool = True  # False: the name is missing or invalid; nothing of it loads

    @property
    def manifest(self) -> Path:
        return self.root.joinpath(*MANIFEST)


def has_manifest(folder: Path) -> bool:
    return folder.joinpath(*MANIFEST).is_file()


def check_name(name: object) -> str | None:
    """Why `name` cannot name a plugin, or None when it can."""
    if not isinstance(name, str):
        return f"must be a text, not {type(name).__name__}"
    if not NAME.fullmatch(name) or len(name) > MAX_NAME:
        return (
            f"{_shown(name)} is not a plain kebab-case name (lowercase letters, digits and "
            f"single hyphens, at most {MAX_NAME} characters)"
        )
    if name in RESERVED:
        return f"{name!r} is reserved by codebot"
    return None


def _shown(value: object) -> str:
    from codebot.display import visible

    text = repr(value)
    return visible(text if len(text) <= 80 else text[:77] + "...")


def _read_manifest(path: Path, problems: list[str]) -> dict[str, Any] | None:
    try:
        return read_json_object(path, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        problems.append(f"{path}: cannot read the manifest ({exc}); fix the JSON")
        return {}


def _inside(root: Path, rel: str) -> Path | None:
    """`root/rel` when `rel` is a relative path that stays inside `root` (links resolved)."""
    if not rel or "\0" in rel or os.path.isabs(rel) or rel.startswith("~"):
        return None
    parts = Path(rel).parts
    if ".." in parts:
        return None
    target = root / rel
    real_root = os.path.realpath(root)
    real = os.path.realpath(target)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return target


def _paths(
    root: Path, manifest: Path, data: dict[str, Any], field: str, problems: list[str]
) -> list[Path]:
    """The paths a manifest field declares (a string or a list of strings), each checked."""
    value = data.get(field)
    if value is None:
        return []
    if field == "hooks" and isinstance(value, dict):
        problems.append(
            f"{manifest}: field 'hooks': hooks written inside plugin.json are not read; "
            "move them to hooks/hooks.json"
        )
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        problems.append(
            f"{manifest}: field {field!r} must be a relative path or a list of them, "
            f"not {_shown(value)}; ignored"
        )
        return []
    out: list[Path] = []
    for rel in items[:MAX_PATHS]:
        target = _inside(root, rel)
        if target is None:
            problems.append(
                f"{manifest}: field {field!r}: {_shown(rel)} leaves the plugin folder "
                "(absolute, '..' or a link out); ignored: use a path inside the plugin"
            )
        else:
            out.append(target)
    if len(items) > MAX_PATHS:
        problems.append(f"{manifest}: field {field!r}: only the first {MAX_PATHS} paths are read")
    return out


def _text(data: dict[str, Any], key: str, manifest: Path, problems: list[str]) -> str:
    from codebot.display import visible

    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(f"{manifest}: field {key!r} must be a text; ignored")
        return ""
    return visible(value[:500])


def _name(folder: Path, data: dict[str, Any] | None, problems: list[str]) -> str | None:
    manifest = folder.joinpath(*MANIFEST)
    if data is not None and "name" in data:
        why = check_name(data["name"])
        if why is None:
            return data["name"]
        problems.append(f"{manifest}: field 'name': {why}; the plugin is not loaded")
        return None
    fallback = folder.name
    if check_name(fallback) is None:
        if data is not None:
            problems.append(f"{manifest}: no 'name'; using the folder's name {fallback!r}")
        return fallback
    where = manifest if data is not None else folder
    problems.append(
        f"{where}: no usable name: give the manifest a kebab-case 'name' "
        f"(the folder's name {_shown(fallback)} is not one); the plugin is not loaded"
    )
    return None


def _existing(paths: Iterable[Path]) -> tuple[Path, ...]:
    seen: dict[str, Path] = {}
    for p in paths:
        seen.setdefault(os.path.realpath(p), p)
    return tuple(seen.values())


def read_plugin(folder: Path, origin: str) -> Plugin | None:
    """The plugin in `folder`; None when it has no manifest (except in `$CODEBOT_HOME/plugins`,
    where the folder alone is a plugin)."""
    problems: list[str] = []
    manifest = folder.joinpath(*MANIFEST)
    data = _read_manifest(manifest, problems)
    if data is None and origin != "home":
        return None
    name = _name(folder, data, problems)
    data = data or {}
    found: dict[str, list[Path]] = {}
    for field, default in DEFAULTS.items():
        declared = []
        for path in _paths(folder, manifest, data, field, problems):
            if path.is_file():
                problems.append(
                    f"{manifest}: field {field!r}: {_shown(str(path.relative_to(folder)))} is a "
                    "file; codebot reads folders here (name the folder that holds it)"
                )
            else:
                declared.append(path)
        base = folder / default
        # As in Claude Code, declared paths add to the default folder (an earlier codebot
        # let a string `skills` replace it).
        # (A missing skills or commands folder is still a root: watched, it loads when made.)
        keep = field != "agents" or base.is_dir()
        found[field] = [*([base] if keep else []), *declared]
    hooks = _paths(folder, manifest, data, "hooks", problems)
    default_hooks = folder.joinpath(*HOOKS_DEFAULT)
    if default_hooks.is_file():
        hooks.insert(0, default_hooks)
    return Plugin(
        name=name or folder.name,
        root=folder,
        origin=origin,
        version=_text(data, "version", manifest, problems),
        description=_text(data, "description", manifest, problems),
        skills=_existing(found["skills"]),
        commands=_existing(found["commands"]),
        agents=_existing(found["agents"]),
        hooks=_existing(hooks),
        problems=tuple(problems),
        loadable=name is not None,
    )


def _home_folders(plugins_dir: Path) -> list[Path]:
    """Folders of `$CODEBOT_HOME/plugins`, by name; hidden ones (an install's staging
    folder left by a killed process) are not plugins."""
    try:
        return sorted(p for p in plugins_dir.iterdir() if p.is_dir() and p.name[:1] != ".")
    except OSError:
        return []


def find_plugins(
    codebot_home: Path,
    plugin_dirs: Sequence[Path] = (),
    project: Path | None = None,
) -> list[Plugin]:
    """Every plugin of a session, first wins: the project (when given: accepted), then
    `--plugin-dir` folders in order, then `$CODEBOT_HOME/plugins/*` by folder name. A second
    plugin of the same name, or the same folder twice, is kept with a problem and does not
    load."""
    candidates: list[tuple[Path, str]] = []
    if project is not None:
        candidates.append((project, "project"))
    candidates += [(d, "dir") for d in plugin_dirs]
    candidates += [(d, "home") for d in _home_folders(codebot_home / "plugins")]
    out: list[Plugin] = []
    names: dict[str, Plugin] = {}
    folders: set[str] = set()
    for folder, origin in candidates:
        real = os.path.realpath(folder)
        if real in folders:
            continue
        folders.add(real)
        plugin = read_plugin(folder, origin)
        if plugin is None:
            continue
        if plugin.loadable and plugin.name in names:
            first = names[plugin.name]
            plugin = _clash(plugin, first)
        elif plugin.loadable:
            names[plugin.name] = plugin
        out.append(plugin)
    return out


def _clash(plugin: Plugin, first: Plugin) -> Plugin:
    from dataclasses import replace

    why = (
        f"{plugin.root}: a plugin named {plugin.name!r} is already loaded from {first.root}; "
        "this one is not loaded"
    )
    return replace(plugin, problems=(*plugin.problems, why), loadable=False)
