"""`codebot skills validate --spec`: the Agent Skills specification's verdict alone.

Exactly the checks of the reference validator (skills-ref, in agentskills/agentskills),
with its strictness: a folder holding `SKILL.md` (or `skill.md`); frontmatter that opens
the file with `---`, closes with `---` and is a YAML mapping; only the fields
`name`, `description`, `license`, `allowed-tools`, `metadata` and `compatibility`; a
non-empty `name` that passes the name rule (`files/names.py`) and equals its folder; a
non-empty `description` of at most 1,024 characters; a `compatibility` string of at most
500. Every finding is an error; codebot's own rules and hints are not applied, so a skill
that passes is portable to every agent that follows the specification.

Parsing is codebot's safe YAML (bounded aliases, numbers kept as written, like skills-ref's
strictyaml, which reads every value as text); a line codebot would only accept after
quoting it (`description: Usage: x`) is invalid YAML here, as it is for skills-ref.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codebot.skills.files import Diagnostic, Severity

MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
ALLOWED_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)
SKILL_FILES = ("SKILL.md", "skill.md")


class SpecParseError(Exception):
    """The file is not a SKILL.md the specification can read: (line, message)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def parse_frontmatter(data: bytes) -> dict[str, Any]:
    """The frontmatter mapping as skills-ref reads it, or SpecParseError."""
    from codebot.skills.files.frontmatter import FrontmatterError, Split, load

    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecParseError(1, f"SKILL.md is not UTF-8 text ({exc.reason})") from exc
    if not content.startswith("---"):
        raise SpecParseError(1, "SKILL.md must start with YAML frontmatter (---)")
    parts = content.split("---", 2)
    if len(parts) < 3:
        raise SpecParseError(1, "SKILL.md frontmatter not properly closed with ---")
    split = Split(parts[1].replace("\r\n", "\n"), 1, 0, 0)
    try:
        value, repaired = load(split)
    except FrontmatterError as exc:
        raise SpecParseError(exc.line, f"invalid YAML in frontmatter: {exc.message}") from exc
    if repaired:
        raise SpecParseError(repaired[0], "invalid YAML in frontmatter (quote this value)")
    if not isinstance(value, dict):
        raise SpecParseError(2, "SKILL.md frontmatter must be a YAML mapping")
    return value


def _text(value: Any) -> str | None:
    """A YAML value as skills-ref's strictyaml sees a scalar: text (None for a mapping,
    a list or an empty value)."""
    if value is None or isinstance(value, (dict, list)):
        return None
    return value if isinstance(value, str) else str(value).lower()


#: (code, field, message, hint): one rule of the specification broken.
Finding = tuple[str, str | None, str, str]


def metadata_problems(meta: dict[str, Any], folder: str) -> list[Finding]:
    """Every rule of the specification `meta` (in `folder`) breaks; none: valid."""
    from codebot.skills.files import name_problems

    out: list[Finding] = []
    extra = sorted(str(k) for k in meta if str(k) not in ALLOWED_FIELDS)
    for key in extra:
        out.append(("spec-field", key, f"field {key!r} is not in the specification", ""))
    if "name" not in meta:
        out.append(("spec-name-missing", "name", "missing required field: name", ""))
    elif not (name := _text(meta["name"])) or not name.strip():
        out.append(("spec-name-missing", "name", "field 'name' must be a non-empty string", ""))
    else:
        out += [(p.code, "name", p.message, p.hint) for p in name_problems(name, folder)]
    description = _text(meta["description"]) if "description" in meta else None
    if "description" not in meta:
        out.append(
            ("missing-description", "description", "missing required field: description", "")
        )
    elif not description or not description.strip():
        out.append(
            (
                "missing-description",
                "description",
                "field 'description' must be a non-empty string",
                "",
            )
        )
    elif len(description) > MAX_DESCRIPTION:
        out.append(
            (
                "description-length",
                "description",
                f"description is {len(description)} characters (the limit is {MAX_DESCRIPTION})",
                "",
            )
        )
    if "compatibility" in meta:
        compat = meta["compatibility"]
        if not isinstance(compat, str):
            out.append(
                ("compatibility-type", "compatibility", "compatibility must be a string", "")
            )
        elif len(compat) > MAX_COMPATIBILITY:
            out.append(
                (
                    "compatibility-length",
                    "compatibility",
                    f"compatibility is {len(compat)} characters (the limit is {MAX_COMPATIBILITY})",
                    "",
                )
            )
    return out


_HINTS = {
    "spec-field": "move it under 'metadata:' or remove it; other agents may refuse it",
    "spec-name-missing": "add 'name: <the folder name>'",
    "missing-description": "add 'description: <what it does and when to use it>'",
    "spec-frontmatter": "start the file with '---', 'key: value' lines, then '---'",
    "spec-no-skill": "a skill is a folder holding SKILL.md",
}


def _diag(
    path: Path, line: int, code: str, field: str | None, message: str, hint: str = ""
) -> Diagnostic:
    hint = hint or _HINTS.get(code, "see https://agentskills.io/specification")
    return Diagnostic(str(path), line, code, Severity.ERROR, message, hint, field)


def check_folder(folder: Path) -> list[Diagnostic]:
    """The specification's verdict on one skill folder: its errors (none: valid)."""
    from codebot.skills.files import MAX_FILE_BYTES, read_regular
    from codebot.skills.files.parse import _key_lines

    if not folder.exists():
        return [_diag(folder, 0, "spec-no-skill", None, "path does not exist")]
    if not folder.is_dir():
        return [_diag(folder, 0, "spec-no-skill", None, "not a directory")]
    skill_md = next((folder / n for n in SKILL_FILES if (folder / n).exists()), None)
    if skill_md is None:
        return [_diag(folder, 0, "spec-no-skill", None, "missing required file: SKILL.md")]
    try:
        data = read_regular(skill_md, MAX_FILE_BYTES)
        meta = parse_frontmatter(data)
    except OSError as exc:
        return [_diag(skill_md, 0, "spec-unreadable", None, f"cannot read: {exc}")]
    except SpecParseError as exc:
        return [_diag(skill_md, exc.line, "spec-frontmatter", None, str(exc))]
    found = metadata_problems(meta, folder.name)
    lines = _key_lines(data.decode("utf-8").split("---", 2)[1], 1) if found else {}
    return [
        _diag(skill_md, lines.get(field or "", 1), code, field, msg, hint)
        for code, field, msg, hint in found
    ]


def skill_folders(path: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The skill folders `path` names: itself when it holds SKILL.md (or is one), else
    every folder holding one below it (the catalog's bounded scan)."""
    from codebot.skills.catalog import scan_root
    from codebot.skills.files import Root, Source

    path = path.resolve()
    if path.is_file():
        return [path.parent], []
    if not path.is_dir() or any((path / n).exists() for n in SKILL_FILES):
        return [path], []
    res = scan_root(Root(path, Source.PROJECT, "extra", (0, 1, 0), explicit=True))
    folders = sorted({c.path.parent for c in res.candidates if c.path.name in SKILL_FILES})
    return folders, [d for d in res.diagnostics if d.severity is Severity.ERROR]


def spec_report(paths: Iterable[Path]):
    """`skills validate --spec PATH…`: a `Report` of only the specification's errors."""
    from codebot.skills.validate import Report

    diags: list[Diagnostic] = []
    checked = 0
    for p in paths:
        folders, problems = skill_folders(p)
        diags += problems
        if not folders:
            diags.append(_diag(p, 0, "spec-no-skill", None, "no skill folder (SKILL.md) here"))
        for folder in folders:
            checked += 1
            diags += check_folder(folder)
    return Report(tuple(diags), checked)
