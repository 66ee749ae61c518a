"""Every host's skill folders and their precedence: one table.

Each row is one host family: the folders it keeps skills in inside a project (searched at
every level from the working directory up to the project root) and in the person's home.
The order of the rows, and of the folders inside a row, is the precedence on a name
clash: `default_roots` numbers the folders in this order, project folders before any
user folder. docs/compatibility.md shows the same table (`markdown_table`), and
`tests/skills/catalog/test_hosts.py` keeps the two equal.

A user folder is written as the person sees it: `~/` is the home folder, `$CODEBOT_HOME/`
codebot's own folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "HOSTS",
    "Host",
    "family_label",
    "markdown_table",
    "project_folders",
    "user_folders",
]


@dataclass(frozen=True, slots=True)
class Host:
    """One row of the precedence table."""

    family: str  # the `Root.family` of its folders, shown by `skills list`
    host: str  # who reads these folders, for people
    project: tuple[str, ...]  # relative to each level of the project
    user: tuple[str, ...]  # `~/…` or `$CODEBOT_HOME/…`


HOSTS: tuple[Host, ...] = (
    Host("codebot", "codebot", (".codebot/skills",), ("$CODEBOT_HOME/skills",)),
    Host(
        "agents",
        "Agent Skills (Codex, Gemini CLI, Copilot, OpenCode, Cursor)",
        (".agents/skills",),
        ("~/.agents/skills",),
    ),
    Host(
        "claude",
        "Claude Code (also Copilot, OpenCode, Cursor)",
        (".claude/skills",),
        ("~/.claude/skills",),
    ),
    Host(
        "opencode",
        "OpenCode (`skill` is its older spelling)",
        (".opencode/skills", ".opencode/skill"),
        ("~/.config/opencode/skills", "~/.config/opencode/skill"),
    ),
    Host("gemini", "Gemini CLI", (".gemini/skills",), ("~/.gemini/skills",)),
    Host("copilot", "GitHub Copilot", (".github/skills",), ("~/.copilot/skills",)),
    Host("cursor", "Cursor", (".cursor/skills",), ("~/.cursor/skills",)),
    Host(
        "codex",
        "Codex CLI (its earlier folders; now `.agents/skills`)",
        (".codex/skills",),
        ("~/.codex/skills",),
    ),
)


def project_folders() -> Iterator[tuple[str, str]]:
    """(family, folder relative to a project level), in precedence order."""
    for h in HOSTS:
        for folder in h.project:
            yield h.family, folder


def user_folders(home: Path, codebot_home: Path) -> Iterator[tuple[str, Path]]:
    """(family, absolute folder) of the person's own skill folders, in precedence order."""
    for h in HOSTS:
        for folder in h.user:
            yield h.family, _user_path(folder, home, codebot_home)


def _user_path(folder: str, home: Path, codebot_home: Path) -> Path:
    head, _, rest = folder.partition("/")
    if head == "$CODEBOT_HOME":
        return codebot_home / rest
    if head == "~":
        return home / rest
    raise ValueError(f"HOSTS: a user folder must start with ~/ or $CODEBOT_HOME/: {folder!r}")


def family_label(family: str, source: str) -> str:
    """`project/gemini`, `user/claude`; `bundled` and `plugin` alone (their family is their
    source)."""
    return source if family in ("bundled", "plugin", source) else f"{source}/{family}"


def markdown_table() -> str:
    """The table as docs/compatibility.md shows it (one line per row)."""
    lines = [
        "| order | family | project folders (each level, cwd → project root) | user folders "
        "| read by |",
        "|---:|---|---|---|---|",
    ]
    for i, h in enumerate(HOSTS, 1):
        project = ", ".join(f"`{p}`" for p in h.project)
        user = ", ".join(f"`{u}`" for u in h.user)
        lines.append(f"| {i} | `{h.family}` | {project} | {user} | {h.host} |")
    return "\n".join(lines)
