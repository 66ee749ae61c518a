"""The offer made once when the project root is a Claude Code plugin: "load it? [y/N]".

Asked at an interactive start (the TUI as a small screen, `tui/plugin_screen.py`; line
mode here), after the trust question, when the person has not answered for this folder
yet; the answer is remembered per folder (`trust/plugin_choice.py`). Print mode and
`codebot skills` never ask: they load it in a trusted folder, and `-p` in an untrusted
one says in one line that it did not. Everything from the manifest is shown escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from codebot.display import visible

if TYPE_CHECKING:
    from codebot.config import Settings
    from codebot.skills.catalog.plugins import Plugin


def pending(settings: Settings) -> Plugin | None:
    """The project root's plugin when the person has not answered for it yet (and it can
    load), else None."""
    from codebot.skills.catalog.plugins import read_plugin
    from codebot.workspace import project_plugin_answer

    if project_plugin_answer(settings) is not None:
        return None
    plugin = read_plugin(settings.project_dir, "project")
    return plugin if plugin is not None and plugin.loadable else None


def skill_count(plugin: Plugin) -> int:
    """Skills and commands the plugin brings (a quick count of its files, nothing parsed)."""
    import os

    from codebot.skills.catalog import SKIP_DIRS
    from codebot.skills.catalog.listing import MAX_DEPTH

    count = 0
    for d in plugin.skills:
        base = str(d).rstrip(os.sep).count(os.sep)
        for dirpath, dirs, files in os.walk(d):  # links are not followed
            deep = dirpath.count(os.sep) - base >= MAX_DEPTH
            dirs[:] = [] if deep else [x for x in dirs if x not in SKIP_DIRS]
            count += sum(1 for f in files if f == "SKILL.md")
    for d in plugin.commands:
        try:
            count += sum(1 for e in os.scandir(d) if e.name.endswith(".md") and e.is_file())
        except OSError:
            pass
    return count


def question(plugin: Plugin) -> list[str]:
    """What the person reads (the same words in every front end)."""
    n = skill_count(plugin)
    lines = [
        f"This folder is a Claude Code plugin `{visible(plugin.name)}` with {n} "
        f"skill{'s' if n != 1 else ''}: load it?"
    ]
    if plugin.description:
        lines.append(f"  {visible(plugin.description)}")
    lines += [
        "Its skills load as plugin skills (no shell commands, tools or model of their own);",
        "its hooks run only in a trusted folder. The answer is remembered for this folder.",
    ]
    return lines


def ask_line(plugin: Plugin, read: Callable[[str], str], out: TextIO) -> bool:
    """Ask on a plain terminal; end of input or anything but yes is no."""
    for line in question(plugin):
        print(line, file=out)
    try:
        answer = read("  load it? [y/N]: ").strip().lower()
    except EOFError:
        return False
    return answer in ("y", "yes")


def remember(settings: Settings, load: bool) -> str | None:
    from codebot.trust.plugin_choice import remember_plugin_choice

    return remember_plugin_choice(settings.home, settings.project_dir, load)


def print_mode_notice(settings: Settings) -> str | None:
    """The line `-p` says when the project is a plugin it does not load (untrusted, and
    never answered), else None."""
    if settings.project_plugin:
        return None
    plugin = pending(settings)
    if plugin is None:
        return None
    return (
        f"this folder is a Claude Code plugin `{visible(plugin.name)}`; it is not loaded in an "
        "untrusted folder (run `codebot trust`, answer its question at an interactive start, "
        "or pass --plugin-dir .)"
    )
