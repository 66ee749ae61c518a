"""Where skills live (roots) and what files a root holds (a bounded, loop-safe scan).

Roots come from four sources (DESIGN §3.2). Each root gets a `rank` tuple so that the
catalog can decide name clashes by sorting: project < user < bundled < plugin; inside
the project, nearer to the working directory first, then codebot > .agents > .claude;
then `--skills-dir` roots in the order given.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from pathlib import Path

from codebot.skills.spec import Diagnostic, Root, Severity, Source

MAX_DEPTH = 6
MAX_DIRS = 2000  # folders per root that hold no skill
DIRS_PER_SKILL = 4  # extra folders allowed for every skill found
FAMILIES = (("codebot", ".codebot"), ("agents", ".agents"), ("claude", ".claude"))
# Folders that never hold skills and can be huge. Other hidden folders ARE scanned:
# openai/skills keeps real skills under `.curated/`, `.system/` and `.experimental/`.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache", ".idea", ".vscode", ".eggs",
    "site-packages",
})  # fmt: skip
# Markdown files at the top of a root that are documentation, not single-file skills.
NOT_SKILLS = frozenset({"readme.md", "license.md", "changelog.md", "contributing.md",
                        "agents.md", "claude.md", "code_of_conduct.md", "security.md"})  # fmt: skip


def bundled_dir() -> Path:
    """Bundled skills: inside the wheel as codebot/_bundled_skills, or the source tree."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_bundled_skills"
    return packaged if packaged.is_dir() else here.parent / "skills" / "bundled"


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above cwd with a `.git` entry, else cwd itself."""
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return cwd


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
                meta = json.loads(manifest.read_text(encoding="utf-8"))
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
    while True:
        for f, (family, folder) in enumerate(FAMILIES):
            roots.append(Root(level / folder / "skills", Source.PROJECT, family, (0, 0, distance, f)))
        if level == top or level.parent == level:
            break
        level, distance = level.parent, distance + 1
    for i, d in enumerate(extra_dirs):
        roots.append(Root(d, Source.PROJECT, "extra", (0, 1, i), explicit=True))
    if include_user:
        user = [codebot_home / "skills", home / ".agents" / "skills", home / ".claude" / "skills"]
        for f, d in enumerate(user):
            roots.append(Root(d, Source.USER, FAMILIES[f][0], (1, f)))
    if include_bundled:
        roots.append(Root(bundled_dir(), Source.BUNDLED, "bundled", (2,)))
    if include_plugins:
        for i, (name, d) in enumerate(plugin_roots(codebot_home / "plugins")):
            roots.append(Root(d, Source.PLUGIN, "plugin", (3, i), plugin=name))
    return roots


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file that should be parsed as a skill."""

    path: Path
    real_path: Path
    stat: os.stat_result
    root: Root
    order: tuple[int, str]  # (depth, path) inside the root: shallower first, then by name


@dataclass(slots=True)
class ScanResult:
    candidates: list[Candidate] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _diag(path: Path | str, code: str, sev: Severity, msg: str, hint: str = "") -> Diagnostic:
    return Diagnostic(str(path), 0, code, sev, msg, hint)


def scan_root(root: Root, start: Path | None = None) -> ScanResult:
    """Every skill file below `root.path` (or below `start`, a folder inside it)."""
    res = ScanResult()
    base = root.path
    try:
        os.stat(base)
    except FileNotFoundError:
        if root.explicit:
            res.diagnostics.append(_diag(base, "root-missing", Severity.WARNING,
                                         "skills folder does not exist", "check the --skills-dir path"))  # fmt: skip
        return res
    except OSError as exc:
        res.diagnostics.append(_diag(base, "root-unreadable", Severity.WARNING,
                                     f"cannot open skills folder: {exc.strerror or exc}"))  # fmt: skip
        return res
    if not os.path.isdir(base):
        res.diagnostics.append(_diag(base, "root-not-a-folder", Severity.WARNING,
                                     "skills root is a file, not a folder",
                                     "point the skills folder setting at a directory"))  # fmt: skip
        return res
    # Strings, not Paths, from here on: building a Path costs microseconds and a big root
    # has tens of thousands of entries. Only candidates become Paths.
    begin = str(start or base)
    depth0 = len(start.relative_to(base).parts) if start else 0
    real_begin = os.path.realpath(begin)
    # Loops can only come through symbolic links, whose targets are resolved; so the set
    # of real paths seen is enough to visit every folder once, without an extra stat.
    visited: set[str] = {real_begin}
    stack: list[tuple[str, str, int]] = [(begin, real_begin, depth0)]
    dirs_seen = 0
    while stack:
        d, real_d, depth = stack.pop()
        dirs_seen += 1
        # The limit guards against pointing codebot at a huge tree (a home folder). A
        # root that really holds skills earns room for each one and its scripts/,
        # references/ and assets/ folders, so 10,000 skills in one root still load.
        if dirs_seen > MAX_DIRS + DIRS_PER_SKILL * len(res.candidates):
            res.diagnostics.append(_diag(base, "scan-limit", Severity.WARNING,
                                         f"stopped after {dirs_seen - 1} folders; some skills may be missing",
                                         "point codebot at a smaller folder"))  # fmt: skip
            break
        _scan_dir(root, d, real_d, depth, stack, visited, res)
    return res


_by_name = attrgetter("name")


def _scan_dir(root: Root, d: str, real_d: str, depth: int,
              stack: list[tuple[str, str, int]], visited: set[str], res: ScanResult) -> None:  # fmt: skip
    try:
        with os.scandir(d) as it:
            entries = sorted(it, key=_by_name)
    except OSError as exc:
        res.diagnostics.append(_diag(d, "folder-unreadable", Severity.WARNING,
                                     f"cannot list folder: {exc.strerror or exc}",
                                     "fix its permissions or remove it"))  # fmt: skip
        return
    names = {e.name for e in entries}
    if "pyvenv.cfg" in names:
        return  # a virtualenv: thousands of folders, no skills
    skill_file = "SKILL.md" if "SKILL.md" in names else ("skill.md" if "skill.md" in names else None)
    subdirs: list[tuple[str, str, bool, str]] = []
    for e in entries:
        p, name = e.path, e.name
        try:
            is_link = e.is_symlink()
            if is_link:
                try:
                    os.stat(p)
                except OSError as exc:
                    code = "symlink-loop" if exc.errno == errno.ELOOP else "dangling-symlink"
                    res.diagnostics.append(_diag(p, code, Severity.WARNING,
                                                 f"symbolic link cannot be followed: {exc.strerror or exc}",
                                                 "fix or remove the link"))  # fmt: skip
                    continue
            is_dir = e.is_dir()
        except OSError:
            continue
        if is_dir:
            if name in SKIP_DIRS or depth + 1 > MAX_DEPTH:
                continue
            real_sub = os.path.realpath(p) if is_link else os.path.join(real_d, name)
            subdirs.append((p, real_sub, is_link, name))
        elif name == skill_file or (depth == 0 and _single_file(name)):
            try:
                fst = e.stat()
            except OSError as exc:
                res.diagnostics.append(_diag(p, "unreadable", Severity.ERROR,
                                             f"cannot stat file: {exc.strerror or exc}"))  # fmt: skip
                continue
            path = Path(p)
            real_s = os.path.realpath(p) if is_link else os.path.join(real_d, name)
            real = path if real_s == p else Path(real_s)  # share the object when no link is involved
            res.candidates.append(Candidate(path, real, fst, root, (depth, p)))
    # Real folders claim their real path before links to them, so a skill is named after
    # its folder, not after a link that happens to sort later.
    fresh: list[tuple[str, str, bool, str]] = []
    for sub in sorted(subdirs, key=_is_link) if any(s[2] for s in subdirs) else subdirs:
        if sub[1] in visited:
            res.diagnostics.append(_diag(sub[0], "folder-seen-twice", Severity.INFO,
                                         "folder reached twice (symlink); scanned once"))  # fmt: skip
            continue
        visited.add(sub[1])
        fresh.append(sub)
    fresh.sort(key=_sub_name)
    stack.extend((p, real_sub, depth + 1) for p, real_sub, _link, _name in reversed(fresh))


_is_link = itemgetter(2)
_sub_name = itemgetter(3)


def _single_file(name: str) -> bool:
    low = name.lower()
    return low.endswith(".md") and low != "skill.md" and low not in NOT_SKILLS


def scan_all(roots: Iterable[Root]) -> ScanResult:
    total = ScanResult()
    for root in roots:
        r = scan_root(root)
        total.candidates.extend(r.candidates)
        total.diagnostics.extend(r.diagnostics)
    return total
