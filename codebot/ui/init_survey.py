"""What `/init` reads of a repository: languages, layout, build files, README, CI.

Everything here only reads, and reads little: files at the root (and the CI workflows),
each at most `READ_LIMIT` bytes, opened with `read_regular` (a FIFO or device is refused,
never waited on) and only when the path, links resolved, stays inside the repository; the
walk that counts file extensions stops after `MAX_ENTRIES` entries and `MAX_DEPTH`
levels, follows no symlink and skips generated folders. Nothing is run: commands are read
from the build files, never executed. A file that cannot be read is a note, never an
exception. `init_draft` turns a `Survey` into the AGENTS.md text.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codebot.display import visible
from codebot.skills.files.safe_read import read_regular

__all__ = ["Survey", "survey"]

READ_LIMIT = 256 * 1024  # bytes of one file read
MAX_ENTRIES = 20_000  # folder entries the extension count looks at
MAX_DEPTH = 6
MAX_WORKFLOWS = 10
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "dist",
        "build",
        "target",
        "vendor",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
    }
)
LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C/C++ headers",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".swift": "Swift",
    ".scala": "Scala",
    ".sh": "Shell",
    ".lua": "Lua",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".hs": "Haskell",
    ".zig": "Zig",
    ".dart": "Dart",
    ".vue": "Vue",
    ".svelte": "Svelte",
}
#: Build files seen at the root but not read (their commands are the tool's usual ones).
KNOWN_FILES = {
    "setup.py": "Python (setup.py)",
    "requirements.txt": "Python requirements",
    "tox.ini": "tox",
    "noxfile.py": "nox",
    "CMakeLists.txt": "CMake",
    "Gemfile": "Ruby (Bundler)",
    "pom.xml": "Maven",
    "build.gradle": "Gradle",
    "build.gradle.kts": "Gradle",
    "Dockerfile": "Docker",
    "docker-compose.yml": "Docker Compose",
    "justfile": "just",
}
READMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_TARGET = re.compile(r"^([A-Za-z0-9][\w.\-/]*)\s*:(?![=:])", re.M)
_RUN = re.compile(r"^\s*(?:-\s+)?run:\s*(.*)$")


@dataclass
class Survey:
    root: Path
    languages: list[tuple[str, int]] = field(default_factory=list)  # most files first
    top: list[tuple[str, int | None]] = field(default_factory=list)  # (name, files) or a file
    walk_incomplete: bool = False
    known: list[str] = field(default_factory=list)  # KNOWN_FILES present
    title: str = ""
    summary: str = ""
    readme: str = ""
    python: dict[str, Any] | None = None  # [project] and the tools pyproject.toml names
    node: dict[str, Any] | None = None  # package.json name, description, scripts, manager
    make: list[str] = field(default_factory=list)
    makefile: str = ""
    cargo: dict[str, Any] | None = None
    go: str = ""  # the module path of go.mod
    workflows: list[tuple[str, list[str]]] = field(default_factory=list)  # (file, run lines)
    other_ci: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # files that could not be read, and why


def _inside(path: Path, root: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
    except ValueError:
        return False
    return True


def _read(s: Survey, name: str) -> str | None:
    """The text of `name` under the root, or None (absent, or a note says why not)."""
    path = s.root / name
    if not os.path.lexists(path):
        return None
    shown = visible(name)
    if not _inside(path, s.root):
        s.notes.append(f"{shown}: a link out of the repository; not read")
        return None
    try:
        data = read_regular(path, READ_LIMIT)
    except OSError as exc:
        s.notes.append(f"{shown}: not read ({visible(str(exc))})")
        return None
    return data.decode("utf-8", "replace")


def _count(s: Survey) -> None:
    """Files per language and per top-level folder, bounded; no link is followed."""
    langs: Counter[str] = Counter()
    per_top: Counter[str] = Counter()
    queue: deque[tuple[Path, int, str]] = deque([(s.root, 0, "")])
    seen = 0
    while queue:
        folder, depth, top = queue.popleft()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            seen += 1
            if seen > MAX_ENTRIES:
                s.walk_incomplete = True
                break
            here = top or entry.name
            if entry.is_dir(follow_symlinks=False):
                hidden = entry.name.startswith(".") and entry.name != ".github"
                if entry.name in SKIP_DIRS or hidden or depth + 1 > MAX_DEPTH:
                    continue
                if not top:
                    per_top[here] += 0
                queue.append((Path(entry.path), depth + 1, here))
            elif entry.is_file(follow_symlinks=False):
                if top:
                    per_top[top] += 1
                lang = LANGUAGES.get(os.path.splitext(entry.name)[1].lower())
                if lang:
                    langs[lang] += 1
        if s.walk_incomplete:
            break
    s.languages = sorted(langs.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    s.top = sorted(per_top.items())


def _top_files(s: Survey) -> None:
    try:
        names = sorted(os.listdir(s.root))
    except OSError as exc:
        s.notes.append(f"the project folder cannot be listed ({visible(str(exc))})")
        return
    s.known = [KNOWN_FILES[n] for n in names if n in KNOWN_FILES]
    files = [n for n in names if not n.startswith(".") and (s.root / n).is_file()]
    s.top += [(n, None) for n in files[:15]]


def _readme(s: Survey) -> None:
    for name in READMES:
        text = _read(s, name)
        if text is None:
            continue
        s.readme = name
        paragraph: list[str] = []
        in_code = False
        for raw in text.splitlines()[:200]:
            line = raw.strip()
            if line.startswith(("```", "~~~")):
                in_code = not in_code
                continue
            if in_code:
                continue
            if not s.title and line.startswith("#"):
                s.title = line.lstrip("#").strip()
                continue
            if not line or line.startswith(("#", "<", "[![", "!", "=", "-", "|", "..")):
                if paragraph:
                    break
                continue
            paragraph.append(line)
        s.summary = " ".join(paragraph)
        return


def _table(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """`doc[key]` when it is a table (parsed TOML or JSON), else an empty one."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _toml(s: Survey, name: str) -> dict[str, Any] | None:
    text = _read(s, name)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        s.notes.append(f"{name}: not valid TOML ({visible(str(exc))}); its commands are left out")
        return None


def _python(s: Survey) -> None:
    doc = _toml(s, "pyproject.toml")
    if doc is None:
        return
    project, tool = _table(doc, "project"), _table(doc, "tool")
    extras = project.get("optional-dependencies")
    deps = json.dumps([project.get("dependencies"), extras, doc.get("dependency-groups")])
    s.python = {
        "name": project.get("name") if isinstance(project.get("name"), str) else "",
        "description": str(project.get("description") or ""),
        "extras": sorted(extras) if isinstance(extras, dict) else [],
        "scripts": sorted(_table(project, "scripts")),
        "tools": sorted(t for t in tool if isinstance(t, str)),
        "pytest": "pytest" in tool or "pytest" in deps,
        "ruff": "ruff" in tool or "ruff" in deps,
        "uv": (s.root / "uv.lock").is_file(),
    }


def _node(s: Survey) -> None:
    text = _read(s, "package.json")
    if text is None:
        return
    try:
        doc = json.loads(text)
    except ValueError as exc:
        s.notes.append(f"package.json: not valid JSON ({exc}); its scripts are left out")
        return
    if not isinstance(doc, dict):
        return
    scripts = _table(doc, "scripts")
    manager = "npm"
    for lock, tool in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun")):
        if (s.root / lock).exists():
            manager = tool
    s.node = {
        "name": str(doc.get("name") or ""),
        "description": str(doc.get("description") or ""),
        "scripts": [(str(k), str(v)) for k, v in list(scripts.items())[:20]],
        "manager": manager,
    }


def _make(s: Survey) -> None:
    for name in MAKEFILES:
        text = _read(s, name)
        if text is None:
            continue
        s.makefile = name
        targets = [t for t in _TARGET.findall(text) if not t.startswith(".") and "%" not in t]
        s.make = list(dict.fromkeys(targets))[:20]
        return


def _cargo_go(s: Survey) -> None:
    doc = _toml(s, "Cargo.toml")
    if doc is not None:
        package, workspace = _table(doc, "package"), _table(doc, "workspace")
        s.cargo = {
            "name": str(package.get("name") or ""),
            "description": str(package.get("description") or ""),
            "workspace": bool(workspace),
        }
    text = _read(s, "go.mod")
    if text is not None:
        found = re.search(r"^module\s+(\S+)", text, re.M)
        s.go = found.group(1) if found else "(go.mod names no module)"


def _ci(s: Survey) -> None:
    flows = s.root / ".github" / "workflows"
    if flows.is_dir() and _inside(flows, s.root):
        try:
            names = sorted(n for n in os.listdir(flows) if n.endswith((".yml", ".yaml")))
        except OSError:
            names = []
        for name in names[:MAX_WORKFLOWS]:
            text = _read(s, f".github/workflows/{name}")
            if text is not None:
                s.workflows.append((name, _runs(text)))
    for name in (".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile", ".travis.yml"):
        if os.path.lexists(s.root / name):
            s.other_ci.append(name)


def _runs(text: str) -> list[str]:
    """The `run:` steps of a workflow, one line each (a block's first line), at most 8."""
    out: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        found = _RUN.match(line)
        if not found:
            continue
        value = found.group(1).strip()
        if value in ("|", ">", "|-", ">-", "") and i + 1 < len(lines):
            value = lines[i + 1].strip()
        if value and value not in out:
            out.append(value)
        if len(out) >= 8:
            break
    return out


def survey(root: Path) -> Survey:
    """What the repository at `root` shows; never raises for what its files hold."""
    s = Survey(root)
    _count(s)
    _top_files(s)
    _readme(s)
    _python(s)
    _node(s)
    _make(s)
    _cargo_go(s)
    _ci(s)
    return s
