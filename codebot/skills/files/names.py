"""The Agent Skills specification's rule for a skill's `name`, as the reference validator
(skills-ref, agentskills/agentskills) applies it.

After NFKC normalisation (and trimming): 1 to 64 characters, equal to its own lowercase,
only Unicode letters, digits and `-`, no leading, trailing or doubled `-`, and equal to
its folder's name (also NFKC). So `café`, `技能` and `мой-навык` are names, `MySkill`,
`my_skill` and `my--skill` are not, and a composed and a decomposed `café` are one name.

One source for `skills validate` (both modes) and the catalog's choice between two
spellings of one name (`catalog/index.py`: a valid name wins over an invalid twin).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_NAME_CHARS = 64


@dataclass(frozen=True, slots=True)
class NameProblem:
    code: str  # name-length, name-format, name-mismatch
    message: str
    hint: str


def spec_form(name: str) -> str:
    """The name as the specification compares it: trimmed, NFKC."""
    return unicodedata.normalize("NFKC", name.strip())


def suggested_name(name: str) -> str:
    """A valid spelling of `name` for a hint: lowercase, runs of other characters as `-`."""
    low = spec_form(name).lower()
    return re.sub(r"[^\w]+|_+", "-", low).strip("-") or "my-skill"


def name_problems(name: str, folder: str | None) -> list[NameProblem]:
    """Every way `name` breaks the rule (none: valid); `folder` None skips the folder
    match (a single-file skill has no folder of its own)."""
    form = spec_form(name)
    out: list[NameProblem] = []
    if not form:
        return [NameProblem("name-length", "name is empty", "use 1 to 64 characters")]
    fix = f"rename it, e.g. {suggested_name(form)!r}"
    if len(form) > MAX_NAME_CHARS:
        out.append(
            NameProblem(
                "name-length",
                f"name is {len(form)} characters (the limit is {MAX_NAME_CHARS})",
                "use 1 to 64 characters",
            )
        )
    if form != form.lower():
        out.append(NameProblem("name-format", f"name {form!r} is not lowercase", fix))
    if form.startswith("-") or form.endswith("-"):
        out.append(NameProblem("name-format", f"name {form!r} starts or ends with '-'", fix))
    if "--" in form:
        out.append(NameProblem("name-format", f"name {form!r} has consecutive hyphens", fix))
    bad = sorted({c for c in form if not (c.isalnum() or c == "-")})
    if bad:
        shown = "".join(bad).encode("unicode_escape").decode("ascii")
        out.append(
            NameProblem(
                "name-format",
                f"name {form!r} has characters other than letters, digits and '-': {shown!r}",
                fix,
            )
        )
    if folder is not None and unicodedata.normalize("NFKC", folder) != form:
        out.append(
            NameProblem(
                "name-mismatch",
                f"name {form!r} differs from its folder {folder!r}",
                "rename the folder or the name so they are equal",
            )
        )
    return out


def spec_valid(name: str, folder: str | None) -> bool:
    """`name` (in `folder`) passes the specification's name rule."""
    return not name_problems(name, folder)
