"""Where skills live: the skill roots of a session and their precedence.

Roots come from four sources (DESIGN §3.2). Each root gets a `rank` tuple so that the
catalog can decide name clashes by sorting: project < user < bundled < plugin; inside
the project, nearer to the working directory first, then the order of the host table
(`hosts.HOSTS`: codebot > .agents > .claude > the other hosts' folders); then
`--skills-dir` roots in the order given. User folders follow the same table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from codebot.skills.catalog.hosts import project_folders, user_folders
from codebot.skills.files import Root, Source
from codebot.skills.files.safe_read import read_regular

MAX_MANIFEST_BYTES = 1024 * 1024


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
    """`<plugins>/<plugin>/skills`, named by `.claude-plugin/plugin.json` when present."""
    found: list[tuple[str, Path]] = []
    try:
        entries = sorted(p for p in plugins_dir.iterdir() if p.is_dir())
    except OSError:
        return found
    for pdir in entries:
        name, skills = pdir.name, pdir / "skills"
        manifest = pdir / ".claude-plugin" / "plugin.json"
        if manifest.is_file():
            try:
                # read_regular: a FIFO swapped in after is_file() would block the load
                meta = json.loads(read_regular(manifest, MAX_MANIFEST_BYTES).decode("utf-8"))
                if isinstance(meta.get("name"), str) and meta["name"].strip():
                    name = meta["name"].strip()
                if isinstance(meta.get("skills"), str):
                    skills = (pdir / meta["skills"]).resolve()
            except (OSError, ValueError, AttributeError):
                pass  # a broken manifest still leaves the conventional skills/ folder
        found.append((name, skills))
    return found


def default_roots(
    cwd: Path,
    home: Path,
    codebot_home: Path,
    extra_dirs: Sequence[Path] = (),
    include_bundled: bool = True,
    include_user: bool = True,
    include_plugins: bool = True,
) -> list[Root]:
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
        for i, (name, d) in enumerate(plugin_roots(codebot_home / "plugins")):
            roots.append(Root(d, Source.PLUGIN, "plugin", (3, i), plugin=name))
    return roots
