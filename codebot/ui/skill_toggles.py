"""`/skills off NAME` and the `o` key of the skills browser: saving a skill override.

A toggle is saved for the project, in its personal `.codebot/config.local.yaml` (not
committed; `.codebot/.gitignore` is created to say so when the folder has none), unless
`--global` asks for `$CODEBOT_HOME/config.yaml`, which holds in every project that sets
nothing else. What is in force is `project_config.combine_overrides` of the layers (see
docs/configuration.md): the personal file wins in a trusted project, and only narrows in
an untrusted one, so a toggle that would not take effect there is refused, with why,
rather than saved.

The project file is written like an "always allow" rule (`save_rule.update_config`):
atomically, never through a symbolic link, other keys kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from codebot.config import OVERRIDE_VALUES, Settings, read_overrides
from codebot.display import strip_escapes
from codebot.project_config import combine_overrides
from codebot.skills.files import normalize_name

GLOBAL_FLAGS = ("--global", "-g")


class ToggleError(ValueError):
    """Why the toggle was not saved, in words for the person."""


@dataclass(frozen=True)
class Toggled:
    settings: Settings  # with the overrides now in force
    said: str  # where it was saved, and anything else worth saying


def parse_toggle(args: str) -> tuple[str, str, bool] | None:
    """`off NAME [--global]` → (value, name, global); None when `args` is a filter."""
    words = args.split()
    everywhere = any(w in GLOBAL_FLAGS for w in words)
    words = [w for w in words if w not in GLOBAL_FLAGS]
    if len(words) < 2 or words[0].lower() not in OVERRIDE_VALUES:
        return None
    return words[0].lower(), " ".join(words[1:]), everywhere


def save_toggle(settings: Settings, key: str, value: str, *, everywhere: bool = False) -> Toggled:
    """Save override `value` for skill `key` (normalized); ToggleError when it cannot be."""
    if value not in OVERRIDE_VALUES:
        raise ToggleError(f"override must be one of {', '.join(OVERRIDE_VALUES)}")
    if everywhere:
        return _save_global(settings, key, value)
    return _save_project(settings, key, value)


def _in_force(
    settings: Settings, user: Mapping[str, str], shared: Mapping[str, str], local: Mapping[str, str]
) -> Settings:
    layers = {"user_overrides": user, "shared_overrides": shared, "local_overrides": local}
    overrides = combine_overrides(user, shared, local, trusted=settings.trusted)
    return dataclasses.replace(
        settings,
        overrides=MappingProxyType(overrides),
        **{k: MappingProxyType(dict(v)) for k, v in layers.items()},
    )


def _save_project(settings: Settings, key: str, value: str) -> Toggled:
    from codebot.agent.permissions.save_rule import RuleSaveError, update_config

    user, shared = dict(settings.user_overrides), dict(settings.shared_overrides)
    local = _new_local(settings, user, shared, key, value)
    path = settings.local_config_path
    written: dict[str, dict[str, str]] = {}
    try:
        saved = update_config(path, _override_change(path, key, local, written))
    except RuleSaveError as exc:
        raise ToggleError(f"not saved: {exc}") from None
    if "changed" in written:
        _ignore_in_git(settings.project_dir, path)
        said = f"saved in {_shown(path)}; this project only, add --global for every project"
    else:
        said = (
            f"already so in {_shown(path)}" if path.exists() else "this project sets nothing for it"
        )
    if saved.comments_lost:
        said += "; its comments were not kept"
    return Toggled(_in_force(settings, user, shared, written.get("overrides", local)), said)


def _new_local(
    settings: Settings, user: dict[str, str], shared: dict[str, str], key: str, value: str
) -> dict[str, str]:
    """The project's personal overrides with `key` set to `value`; ToggleError when the
    other layers would keep it from taking effect."""
    local = {k: v for k, v in settings.local_overrides.items() if k != key}
    # `on` takes the project's own toggle away; it is written only where another layer
    # would still limit the skill (the person's global toggle, the shared project file).
    if (
        value != "on"
        or combine_overrides(user, shared, local, trusted=settings.trusted).get(key, "on") != "on"
    ):
        local[key] = value
    now = combine_overrides(user, shared, local, trusted=settings.trusted).get(key, "on")
    if now != value:  # only in an untrusted project: its files may narrow, never widen
        mine = settings.user_overrides.get(key, "on") != "on"
        by = settings.config_path if mine else settings.project_dir / ".codebot" / "config.yaml"
        raise ToggleError(
            f"not saved: it would stay {now} here, as {_shown(by)} limits it "
            "and this project is not trusted, so its settings may only narrow that "
            "(run `codebot trust`, or add --global)"
        )
    return local


def _override_change(
    path: Path, key: str, local: dict[str, str], written: dict[str, dict[str, str]]
) -> Callable[[dict[str, object]], bool]:
    """The edit `update_config` makes to the project file: `skills.overrides.<key>` as in
    `local` (removed when `local` has none). It records in `written` the overrides the
    file ends with ("overrides") and whether it changed ("changed")."""
    from codebot.agent.permissions.save_rule import RuleSaveError

    def change(data: dict[str, object]) -> bool:
        if data.get("skills") is None:
            data["skills"] = {}
        skills = data["skills"]
        if not isinstance(skills, dict):
            raise RuleSaveError(f"{path}: skills is not a mapping; fix it first")
        given = skills.get("overrides")
        if given is not None and not isinstance(given, dict):
            raise RuleSaveError(f"{path}: skills.overrides is not a mapping; fix it first")
        overrides = dict(given or {})
        for name in [n for n in overrides if normalize_name(str(n)) == key]:
            del overrides[name]  # `Code_Review:` is the toggle of `code-review` too
        if key in local:
            overrides[key] = local[key]
        written["overrides"] = read_overrides({"skills": {"overrides": overrides}}, [])
        if overrides == (given or {}):
            return False
        skills["overrides"] = overrides
        written["changed"] = {}
        return True

    return change


def _save_global(settings: Settings, key: str, value: str) -> Toggled:
    """`skills.overrides.<key>` in $CODEBOT_HOME/config.yaml (atomically, 0600)."""
    import yaml

    from codebot.home import private_dir, write_private

    path = settings.config_path
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, yaml.YAMLError) as exc:
        raise ToggleError(
            f"{path} cannot be read ({exc}); fix it before changing skills here"
        ) from exc
    data = data if isinstance(data, dict) else {}
    if not isinstance(data.get("skills"), dict):
        data["skills"] = {}
    skills = data["skills"]
    overrides = skills.get("overrides")
    overrides = overrides if isinstance(overrides, dict) else {}
    for name in [n for n in overrides if normalize_name(str(n)) == key]:
        del overrides[name]
    if value != "on":
        overrides[key] = value
    skills["overrides"] = overrides
    # 0600 like everything in $CODEBOT_HOME (permission rules, endpoints, overrides).
    private_dir(path.parent)
    write_private(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8"))
    user = {k: v for k, v in settings.user_overrides.items() if k != key} | (
        {} if value == "on" else {key: value}
    )
    done = _in_force(settings, user, settings.shared_overrides, settings.local_overrides)
    said = f"saved in {_shown(path)}"
    now = done.overrides.get(key, "on")
    if now != value:
        said += f"; this project's own settings keep it {now} here"
    return Toggled(done, said)


def _ignore_in_git(project: Path, path: Path) -> None:
    """`.codebot/.gitignore` naming the personal file, when the project is a git
    repository and the folder has no .gitignore yet (an existing one is not touched)."""
    if not (project / ".git").exists():
        return
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    with contextlib.suppress(OSError):  # a convenience: saving the toggle does not depend on it
        fd = os.open(path.parent / ".gitignore", flags, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(
                "# personal settings codebot writes (/skills); not for the repository\n"
                f"{path.name}\n"
            )


def _shown(path: Path) -> str:
    return strip_escapes(str(path))
