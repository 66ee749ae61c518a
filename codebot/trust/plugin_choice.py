"""The person's answer to "this folder is a Claude Code plugin: load it?", per project.

Kept in `$CODEBOT_HOME/plugin-choices.json` (`{"<real path>": "load" | "skip"}`, 0600),
apart from the trust store: loading a plugin's skills grants nothing (they are plugin
skills: no shell, no tools, no model), and losing the file only means being asked again.
A damaged file counts as no answer; it never raises or blocks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["CHOICES_FILE", "plugin_choice", "remember_plugin_choice"]

CHOICES_FILE = "plugin-choices.json"
MAX_BYTES = 1 << 20


def _read(home: Path) -> dict[str, str]:
    from codebot.skills.files import read_regular

    try:
        data = json.loads(read_regular(home / CHOICES_FILE, MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and v in ("load", "skip")}


def plugin_choice(home: Path, project: Path) -> bool | None:
    """True: load the project's plugin; False: the person said no; None: not asked yet."""
    answer = _read(home).get(os.path.realpath(project))
    return None if answer is None else answer == "load"


def remember_plugin_choice(home: Path, project: Path, load: bool) -> str | None:
    """Store the answer; None, or why it could not be stored."""
    from codebot.home import private_dir, write_private

    current = _read(home)
    current[os.path.realpath(project)] = "load" if load else "skip"
    try:
        private_dir(home)
        write_private(home / CHOICES_FILE, json.dumps(current, indent=1).encode("utf-8"))
    except OSError as exc:
        return str(exc)
    return None
