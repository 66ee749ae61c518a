"""The question asked once at an interactive start in an untrusted project, and what it
says trust grants. The TUI shows it as a screen (`tui/trust_screen.py`); line mode asks
here, on a plain terminal. Print mode never asks: it is untrusted unless trusted before
or given `--trust`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from codebot.display import visible

CHOICES = (("t", "trust this folder"), ("u", "continue untrusted"), ("q", "quit"))


def explanation(project: Path) -> list[str]:
    """What the person reads before choosing (the same words in every front end)."""
    return [
        f"codebot has not been told to trust {visible(str(project))}",
        "",
        "Trusting a folder lets what the repository ships act on this machine:",
        "  • its .codebot/config.yaml may set the model, the endpoint, keys and allow rules",
        "  • shell commands in its skills (!`cmd` lines) run when a skill is invoked",
        "  • its agents (agents/<name>.md) may choose their model",
        "",
        "Untrusted, its skills still load and can be read and invoked, but run no commands",
        "and change no tools or model; its config may only tune listing and routing.",
        "Trust is remembered for this folder and its subfolders (`codebot trust --revoke`).",
        *_hook_lines(project),
    ]


def _hook_lines(project: Path) -> list[str]:
    """The hook commands trusting the folder lets run: the project's and the plugins'
    (the project's own plugin's among them)."""
    from codebot.agent.hooks import collect_hooks, hooks_of, trust_lines
    from codebot.home import codebot_home
    from codebot.skills.catalog.plugins import find_plugins, has_manifest

    home = codebot_home()
    # A plugin repository's own hooks too: they run once it is trusted and loaded.
    own = project if has_manifest(project) else None
    plugins = hooks_of(find_plugins(home, project=own))
    found = collect_hooks(home, project, trusted=False, plugins=plugins)
    return trust_lines(
        [h for h in found.hooks if h.source not in ("user", "claude-user") and h.skipped]
    )


def ask_line(project: Path, read: Callable[[str], str], out: TextIO) -> str:
    """Ask on a plain terminal; returns "t", "u" or "q". End of input counts as quit."""
    for line in explanation(project):
        print(line, file=out)
    prompt = "  " + " / ".join(f"[{k}] {label}" for k, label in CHOICES) + ": "
    while True:
        try:
            answer = read(prompt).strip().lower()
        except EOFError:
            return "q"
        if answer[:1] in ("t", "u", "q") and answer in (
            "t",
            "u",
            "q",
            "trust",
            "untrusted",
            "quit",
        ):
            return answer[:1]
        print("  please answer t, u or q", file=out)


def remember(home: Path, project: Path) -> str | None:
    """Store the person's trust; None, or the reason it could not be stored."""
    from codebot import trust

    try:
        trust.add(home, project)
    except trust.TrustError as exc:
        return str(exc)
    return None


# "Continue untrusted" is remembered too, so the question is asked once per folder, not at
# every start. Kept apart from the trust store: a decline grants nothing, and losing this
# file only means being asked again.
DECLINED = "untrusted.json"


def declined(home: Path, project: Path) -> bool:
    """Whether the person already chose to keep this folder untrusted."""
    import json
    import os

    from codebot.skills.files import read_regular

    try:
        data = json.loads(read_regular(home / DECLINED, 1 << 20))
    except (OSError, ValueError):
        return False
    return isinstance(data, list) and os.path.realpath(project) in data


def remember_declined(home: Path, project: Path) -> None:
    """Add the folder to the declined list (atomic, 0600); never raises."""
    import json
    import os

    from codebot.home import private_dir, write_private
    from codebot.skills.files import read_regular

    path = home / DECLINED
    try:
        current = json.loads(read_regular(path, 1 << 20))
    except (OSError, ValueError):
        current = []
    if not isinstance(current, list):
        current = []
    real = os.path.realpath(project)
    if real in current:
        return
    try:
        private_dir(home)
        write_private(
            path, json.dumps([*[p for p in current if isinstance(p, str)], real]).encode("utf-8")
        )
    except OSError:
        return
