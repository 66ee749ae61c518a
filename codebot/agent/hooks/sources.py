"""Where hooks come from, read once when a session is set up.

In order: the person's `$CODEBOT_HOME/config.yaml` (`hooks:`) and `~/.claude/settings.json`,
then the project's `.codebot/config.yaml`, `.claude/settings.json` and
`.claude/settings.local.json`, then each plugin's `hooks/hooks.json`. A project's or a
plugin's hooks are somebody else's commands: they run only in a trusted folder, and a file
codebot's agent wrote (`codebot/provenance.py`) runs nothing until the person accepts it
(`codebot written --accept`). Skipped hooks are kept, with the reason, for `/hooks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.agent.hooks.spec import HookCommand, parse_hooks

if TYPE_CHECKING:
    from codebot.skills.catalog.plugins import Plugin

#: Larger settings files are not read (a settings file is a few kilobytes).
MAX_FILE_BYTES = 1024 * 1024
PROJECT_FILES = (
    (".codebot/config.yaml", "project"),
    (".claude/settings.json", "claude-project"),
    (".claude/settings.local.json", "claude-local"),
)
UNTRUSTED = "the project folder is not trusted (run `codebot trust` to run its hooks)"


@dataclass(frozen=True)
class PluginHooks:
    """A plugin as hooks need it: its name, its folder and its `hooks/hooks.json`."""

    name: str
    root: Path
    hooks_file: Path


@dataclass
class HookConfig:
    """Every hook found: those that run (`hooks`, `skipped == ""`) and those that do not."""

    hooks: list[HookCommand] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def active(self) -> list[HookCommand]:
        return [h for h in self.hooks if not h.skipped]


def _read_mapping(path: Path, warnings: list[str]) -> dict[str, object]:
    """A YAML or JSON settings file as a mapping; {} when missing or broken (said)."""
    if path.suffix == ".yaml":
        from codebot.config import _read_yaml  # the one reader of codebot's config files

        return _read_yaml(path, warnings)
    from codebot.skills.files.safe_read import read_json_object

    try:
        return read_json_object(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        warnings.append(f"{path}: cannot read hooks ({exc}); ignoring it")
        return {}


def load_hooks_file(
    path: Path, source: str, plugin_root: Path | None = None, warnings: list[str] | None = None
) -> list[HookCommand]:
    """The hooks of one file (`{"hooks": {...}}`); problems go to `warnings`."""
    warnings = [] if warnings is None else warnings
    data = _read_mapping(path, warnings)
    return parse_hooks(
        data.get("hooks"),
        source=source,
        where=str(path),
        warnings=warnings,
        plugin_root=str(plugin_root) if plugin_root is not None else None,
    )


def hooks_of(plugins: Iterable[Plugin]) -> list[PluginHooks]:
    """The hooks files of each loadable plugin (`skills/catalog/plugins.py`: its
    `hooks/hooks.json` and the files its manifest names)."""
    return [PluginHooks(p.name, p.root, f) for p in plugins if p.loadable for f in p.hooks]


def installed_plugins(home: Path) -> list[PluginHooks]:
    """The hooks of the plugins installed in `$CODEBOT_HOME/plugins`."""
    from codebot.skills.catalog.plugins import find_plugins

    return hooks_of(find_plugins(home))


def plugin_hooks(
    plugins: Iterable[tuple[str, Path, Path | None] | PluginHooks],
    *,
    trusted: bool,
    warnings: list[str],
) -> list[HookCommand]:
    """The hooks of each plugin given as (name, root, hooks_file) or `PluginHooks`. A plugin's
    commands are somebody else's: they run in a trusted folder only."""
    out: list[HookCommand] = []
    for plugin in plugins:
        name, root, hooks_file = (
            (plugin.name, plugin.root, plugin.hooks_file)
            if isinstance(plugin, PluginHooks)
            else plugin
        )
        if hooks_file is None:
            continue
        found = load_hooks_file(Path(hooks_file), f"plugin:{name}", Path(root), warnings)
        skip = "" if trusted else UNTRUSTED
        out.extend(replace(h, skipped=skip) for h in found)
    return out


def collect_hooks(
    home: Path,
    project: Path,
    *,
    trusted: bool,
    plugins: Sequence[tuple[str, Path, Path | None] | PluginHooks] | None = None,
    user_home: Path | None = None,
) -> HookConfig:
    """Every hook of the person, the project and the plugins, each marked when it may not
    run. `plugins` defaults to `installed_plugins(home)`; a session passes its own
    (`workspace.plugins_for`: the project's, `--plugin-dir` and installed ones)."""
    from codebot.provenance import Provenance

    config = HookConfig()
    warnings = config.warnings
    user_home = user_home if user_home is not None else Path.home()
    config.hooks += load_hooks_file(home / "config.yaml", "user", warnings=warnings)
    config.hooks += load_hooks_file(
        user_home / ".claude" / "settings.json", "claude-user", warnings=warnings
    )
    marked: set[str] = set()
    if any((project / rel).exists() for rel, _ in PROJECT_FILES):
        store = Provenance(home, project)
        marked = set(store.marked())
    for rel, source in PROJECT_FILES:
        path = project / rel
        if not path.exists():
            continue
        found = load_hooks_file(path, source, warnings=warnings)
        if rel in marked:
            skip = (
                f"{rel} was written by codebot's agent and is not accepted yet "
                "(review it with `codebot written`, accept it with "
                f"`codebot written --accept {rel}`)"
            )
        else:
            skip = "" if trusted else UNTRUSTED
        config.hooks += [replace(h, skipped=skip) for h in found]
    config.hooks += plugin_hooks(
        installed_plugins(home) if plugins is None else plugins, trusted=trusted, warnings=warnings
    )
    return config


def project_hooks(project: Path) -> list[HookCommand]:
    """A project's own hooks as its files say, for the trust screen (nothing is run)."""
    warnings: list[str] = []
    out: list[HookCommand] = []
    for rel, source in PROJECT_FILES:
        path = project / rel
        if path.exists():
            out += load_hooks_file(path, source, warnings=warnings)
    return out


def skill_hooks(
    name: str, frontmatter_extra: object, where: str, warnings: list[str]
) -> list[HookCommand]:
    """A skill's frontmatter `hooks:` (the same shape), active while the skill is in force
    for its turn or its fork only."""
    data = frontmatter_extra.get("hooks") if isinstance(frontmatter_extra, Mapping) else None
    if data is None:
        return []
    return parse_hooks(data, source=f"skill:{name}", where=where, warnings=warnings)
