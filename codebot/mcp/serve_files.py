"""What `codebot mcp serve` serves: each catalog skill as SEP-2640 resources
(`skill://<name>/<file>`), its entry with true digests, and reads that never leave it.

A skill's files are the regular files under its folder (for a single-file skill, the one
`.md` file, served as its `SKILL.md`), found without following links out: a link is
served only when its target is a regular file inside the same skill folder (real paths
compared), a linked folder is not entered, and FIFOs, devices and sockets are never
listed nor opened (`read_regular` checks the opened descriptor). Hidden names (`.env`,
`.git`) are not served. Every read resolves the URI against the skill's listed files
again and checks the real path once more, so a link swapped in after the listing reads
nothing outside. Digests are computed when an entry is asked for and kept while the file's
`(mtime, size, inode)` stays the same.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from codebot.mcp import sep2640
from codebot.skills.files import Spec, read_regular

__all__ = ["ServedSkill", "SkillTree", "TreeError"]

SCHEME = "skill://"
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_MIME = {
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".html": "text/html",
}


class TreeError(Exception):
    """A URI that names nothing served, or a file that cannot be served; the message says
    which and why (it becomes the -32602 error)."""


@dataclass(frozen=True, slots=True)
class ServedSkill:
    spec: Spec
    base: str  # skill://<prefix/>name, no trailing slash
    folder: Path | None  # the real path of its folder; None for a single-file skill

    @property
    def uri(self) -> str:
        return f"{self.base}/SKILL.md"


@dataclass(frozen=True, slots=True)
class _Cached:
    key: tuple[int, int, int]
    digest: str
    size: int


def _base(spec: Spec) -> str | None:
    """`skill://name` (a plugin's skill: `skill://plugin/name`), or None for a name that is
    not one URI segment (the SEP's last segment is the frontmatter `name`)."""
    plugin, _, name = spec.name.rpartition(":")
    if not _SEGMENT.fullmatch(name) or (plugin and not _SEGMENT.fullmatch(plugin)):
        return None
    return f"{SCHEME}{plugin}/{name}" if plugin else f"{SCHEME}{name}"


def mime_of(name: str) -> str:
    return _MIME.get(PurePosixPath(name).suffix.lower(), "application/octet-stream")


class SkillTree:
    """The served skills of one catalog snapshot, in its order."""

    def __init__(self, specs: Iterable[Spec]) -> None:
        self.skills: dict[str, ServedSkill] = {}  # base URI -> skill
        self.by_key: dict[str, ServedSkill] = {}
        self.skipped: list[str] = []
        self._digests: dict[str, _Cached] = {}
        self._fronts: dict[str, tuple[tuple[int, int, int], dict[str, object] | None]] = {}
        for spec in specs:
            base = _base(spec)
            if base is None or base in self.skills:
                self.skipped.append(f"{spec.name}: its name is not one URI segment")
                continue
            folder = None if spec.single_file else Path(os.path.realpath(spec.dir))
            served = ServedSkill(spec, base, folder)
            self.skills[base] = served
            self.by_key[spec.key] = served

    # -- files ------------------------------------------------------------------------------

    def files(self, skill: ServedSkill) -> dict[str, Path]:
        """Relative path (`/`-separated) -> real path of every file served for `skill`;
        `SKILL.md` first. TreeError when it has more than the SEP's limit of files."""
        if skill.folder is None:
            return {"SKILL.md": Path(os.path.realpath(skill.spec.path))}
        found = {"SKILL.md": Path(os.path.realpath(skill.spec.path))}
        for rel, real in _walk(skill.folder, skill.folder):
            if rel.lower() != "skill.md":
                found[rel] = real
            if len(found) > sep2640.MAX_SKILL_FILES:
                raise TreeError(
                    f"skill {skill.spec.name!r} has more than {sep2640.MAX_SKILL_FILES} files "
                    "(SEP-2640's limit); it is not served"
                )
        return found

    def entry(self, skill: ServedSkill) -> sep2640.SkillEntry:
        """The skill's SEP-2640 entry: verbatim frontmatter and every file's digest and
        size. TreeError when it cannot be served (no readable frontmatter, a name that does
        not match its URI, over the limits)."""
        files = self.files(skill)
        resources: list[sep2640.SkillFile] = []
        total = 0
        for rel, real in files.items():
            d, size = self._digest(real)
            total += size
            resources.append(sep2640.SkillFile(uri=f"{skill.base}/{rel}", digest=d, size=size))
        if total > sep2640.MAX_SKILL_BYTES:
            raise TreeError(
                f"skill {skill.spec.name!r} holds {total:,} bytes, over SEP-2640's limit "
                f"of {sep2640.MAX_SKILL_BYTES:,}; it is not served"
            )
        front = self._front(files["SKILL.md"], skill)
        last = skill.base.rsplit("/", 1)[-1]
        if front is None or front.get("name") != last or not front.get("description"):
            raise TreeError(
                f"skill {skill.spec.name!r}: its SKILL.md frontmatter has no name {last!r} "
                "and description; it is not served"
            )
        return sep2640.SkillEntry(uri=skill.uri, frontmatter=front, resources=resources)

    def _front(self, real: Path, skill: ServedSkill) -> dict[str, object] | None:
        """The SKILL.md's frontmatter as JSON, kept while its stat stays the same."""
        st = _stat_regular(real)
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = self._fronts.get(str(real))
        if cached is not None and cached[0] == key:
            return cached[1]
        front = sep2640.frontmatter_json(self._read(real, skill))
        self._fronts[str(real)] = (key, front)
        return front

    def _digest(self, real: Path) -> tuple[str, int]:
        st = _stat_regular(real)
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = self._digests.get(str(real))
        if cached is not None and cached.key == key:
            return cached.digest, cached.size
        data = _read_file(real)
        self._digests[str(real)] = _Cached(key, sep2640.digest(data), len(data))
        return sep2640.digest(data), len(data)

    # -- URIs -------------------------------------------------------------------------------

    def skill_of(self, uri: str) -> tuple[ServedSkill, str]:
        """The skill a URI is in and the path inside it (`""` for its folder)."""
        if not uri.startswith(SCHEME):
            raise TreeError(f"{uri!r} is not a skill:// resource of this server")
        parts = uri[len(SCHEME) :].split("/")
        for i in range(len(parts), 0, -1):  # the longest base: a plugin's skill/folder
            skill = self.skills.get(SCHEME + "/".join(parts[:i]))
            if skill is not None:
                return skill, "/".join(parts[i:])
        raise TreeError(f"no skill of this server has the URI {uri!r}")

    def get(self, uri: str) -> ServedSkill:
        skill, rel = self.skill_of(uri)
        if rel != "SKILL.md":
            raise TreeError(f"{uri!r} is not the SKILL.md of a skill this server serves")
        return skill

    def read(self, uri: str) -> bytes:
        """The bytes of a listed file; TreeError for anything else."""
        skill, rel = self.skill_of(uri)
        real = self.files(skill).get(rel)
        if real is None:
            raise TreeError(f"{uri!r} is not a file of skill {skill.spec.name!r}")
        return self._read(real, skill)

    def _read(self, real: Path, skill: ServedSkill) -> bytes:
        # the real path again: a file swapped for a link since the listing reads nothing
        now = Path(os.path.realpath(real))
        if skill.folder is not None and not now.is_relative_to(skill.folder):
            raise TreeError(f"a file of skill {skill.spec.name!r} now leads outside its folder")
        return _read_file(now)

    def children(self, uri: str) -> list[tuple[str, str, bool]]:
        """`(uri, name, is_directory)` of a served folder's direct children, sorted."""
        skill, rel = self.skill_of(uri)
        prefix = rel.rstrip("/") + "/" if rel else ""
        files = self.files(skill)
        if rel in files:
            raise TreeError(f"{uri!r} is a file, not a directory resource")
        out: dict[str, bool] = {}
        for path in files:
            if path.startswith(prefix):
                head, sep, _ = path[len(prefix) :].partition("/")
                out[head] = out.get(head, False) or bool(sep)
        if rel and not out:
            raise TreeError(f"no directory {uri!r} in skill {skill.spec.name!r}")
        base = f"{skill.base}/{prefix}"
        return [(base + name, name, is_dir) for name, is_dir in sorted(out.items())]


def _stat_regular(path: Path) -> os.stat_result:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise TreeError(f"{path.name} is not a regular file; it is not served")
    return st


def _read_file(path: Path) -> bytes:
    try:
        return read_regular(path, sep2640.MAX_SKILL_BYTES)
    except OSError as exc:
        raise TreeError(f"cannot read {path.name}: {exc.strerror or exc}") from None


def _walk(top: Path, folder: Path, depth: int = 0) -> Iterator[tuple[str, Path]]:
    """(relative path, real path) of the regular files under `top`, links kept inside
    `folder`, hidden names and special files left out; sorted; at most 12 levels."""
    if depth > 12:
        return
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.name.startswith("."):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                for rel, real in _walk(Path(e.path), folder, depth + 1):
                    yield f"{e.name}/{rel}", real
                continue
            real = Path(os.path.realpath(e.path))
            if not real.is_relative_to(folder) or not stat.S_ISREG(os.stat(real).st_mode):
                continue
        except OSError:
            continue
        yield e.name, real
