"""Where skills live: the skill roots of a session and their precedence.

Roots come from four sources (DESIGN §3.2). Each root gets a `rank` tuple so that the
catalog can decide name clashes by sorting: project < user < bundled < plugin; inside
the project, nearer to the working directory first, then the order of the host table
(`hosts.HOSTS`: codebot > .agents > .claude > the other hosts' folders); then
`--skills-dir` roots in the order given. User folders follow the same table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from codebot.skills.catalog.hosts import project_folders, user_folders
from codebot.skills.files import COMMANDS, Root, Source

if TYPE_CHECKING:
    from codebot.skills.catalog.plugins import Plugin


def bundled_dir() -> Path:
    """Bundled skills: inside the wheel as codebot/_bundled_skills, or the source tree."""
    here = Path(__file__).resolve().parents[2]  # codebot/
    packaged = here / "_bundled_skills"
    return packaged if packaged.is_dir() else here.parent / "skills" / "bundled"


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above cwd with a `.git` entry, else cwd itself. A `.git`
    in `$HOME` or above it (a dotfiles repository) does not make the home folder the
    project of a folder inside it: that folder is its own project."""
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return cwd if d != cwd and _home_or_above(d) else d
    return cwd


def _home_or_above(folder: Path) -> bool:
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return False
    return folder == home or folder in home.parents


def plugin_roots(plugins_dir: Path) -> list[tuple[str, Path]]:
    """`<plugins>/<plugin>/skills` of each loadable plugin folder, named by its manifest
    (`skills/catalog/plugins.py` reads it)."""
    from codebot.skills.catalog.plugins import find_plugins

    return [
        (p.name, d)
        for p in find_plugins(plugins_dir.parent, project=None)
        if p.loadable and p.root.parent == plugins_dir
        for d in (p.skills or (p.root / "skills",))
    ]


def plugin_skill_roots(plugins: Sequence[Plugin]) -> list[Root]:
    """The skills and commands folders of each loadable plugin, in the order given."""
    roots: list[Root] = []
    for i, p in enumerate(q for q in plugins if q.loadable):
        folders = [(d, "plugin") for d in p.skills] + [(d, COMMANDS) for d in p.commands]
        for j, (d, family) in enumerate(folders):
            roots.append(Root(d, Source.PLUGIN, family, (3, i, j), plugin=p.name))
    return roots


def default_roots(
    cwd: Path,
    home: Path,
    codebot_home: Path,
    extra_dirs: Sequence[Path] = (),
    include_bundled: bool = True,
    include_user: bool = True,
    include_plugins: bool = True,
    plugins: Sequence[Plugin] | None = None,
) -> list[Root]:
    """`plugins`: the session's plugins (`plugins.find_plugins`); None: those installed in
    `$CODEBOT_HOME/plugins`."""
    roots: list[Root] = []
    top = project_root(cwd)
    level = cwd
    distance = 0
    folders = list(project_folders())
    while True:
        for f, (family, folder) in enumerate(folders):
            roots.append(Root(level / folder, Source.PROJECT, family, (0, 0, distance, f)))
        if level == top or level.parent == level:
            break
        level, distance = level.parent, distance + 1
    for i, d in enumerate(extra_dirs):
        roots.append(Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True))
    if include_user:
        for f, (family, d) in enumerate(user_folders(home, codebot_home)):
            roots.append(Root(d, Source.USER, family, (1, f)))
    if include_bundled:
        roots.append(Root(bundled_dir(), Source.BUNDLED, "bundled", (2,)))
    if include_plugins:
        if plugins is None:
            from codebot.skills.catalog.plugins import find_plugins

            plugins = find_plugins(codebot_home)
        roots += plugin_skill_roots(plugins)
    return roots
