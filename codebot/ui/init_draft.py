"""`/init`: a first AGENTS.md from what the repository shows (docs/instructions.md).

The draft is deterministic and needs no model: the survey (`init_survey`) gives the
README's title and first paragraph, languages by file count, the top-level layout, the
commands the build files define (pyproject.toml, package.json scripts, Makefile targets,
Cargo.toml, go.mod) and what CI runs. Text taken from repository files is repository
content: it is shown escaped (`display.visible`), on one line, cut to a length; commands
and names go in code spans (no backtick can close one early); in prose every `@` that
could start an import is escaped as `\\@` and `<`/`>` become entities, so nothing in the
draft is an `@path` import or an `</instructions>` tag once codebot reads the file.

`write_agents_md` writes it at the project root only when no AGENTS.md is there (O_EXCL,
no link followed); `force` replaces a regular file atomically and refuses anything else.
The write is the person's (they typed `/init`): it is not recorded as agent-written, and
an existing agent-written mark on the path stays until accepted (`/written`). When a real
model is connected, `/init` then asks it, as a turn, to check and improve the draft; its
edits go through the Edit tool like any other, so they are asked and recorded.
"""

from __future__ import annotations

import datetime
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codebot.display import visible
from codebot.home import atomic_file
from codebot.ui.init_survey import Survey

__all__ = ["IMPROVE_PROMPT", "InitResult", "render_draft", "run_init", "write_agents_md"]

NAME = "AGENTS.md"
PROSE_LIMIT = 400
CODE_LIMIT = 160
_IMPORT_AT = re.compile(r"(^|\s)@")

IMPROVE_PROMPT = (
    "I ran /init: codebot wrote a first AGENTS.md at the project root from what the "
    "repository shows (README, build files, layout, CI). Read it, check it against the "
    "repository (the build files, README, CI configuration and a few source files; do not "
    "run commands to do so) and improve it with the Edit tool: correct or complete the "
    "commands, say how to run one test, add the conventions and pitfalls an agent could not "
    "infer from the code, and remove what is wrong or obvious. Keep it short (under about "
    "100 lines) and keep the section headings. Do not add @imports of files outside the "
    "repository. Then say in two or three lines what you changed."
)


def prose(text: str, limit: int = PROSE_LIMIT) -> str:
    """Repository text as one escaped line of Markdown prose: no import, no tag."""
    line = " ".join(visible(text).split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    line = line.replace("<", "&lt;").replace(">", "&gt;")
    return _IMPORT_AT.sub(lambda m: m.group(1) + "\\@", line)


def code(text: str, limit: int = CODE_LIMIT) -> str:
    """Repository text as one code span (an `@` inside code is never an import)."""
    line = " ".join(visible(text).split()).replace("`", "'")
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return f"`{line}`" if line else "``"


def _python_commands(p: dict[str, Any]) -> list[str]:
    dev = next((x for x in ("dev", "test", "tests") if x in p["extras"]), "")
    install = "uv sync" if p["uv"] else f"pip install -e '.[{dev}]'" if dev else "pip install -e ."
    out = ["- Python (pyproject.toml):", f"  - install: {code(install)}"]
    if p["pytest"]:
        one = code("pytest path/to/test_x.py::test_name")
        out.append(f"  - test: {code('pytest')}; one test: {one}")
    if p["ruff"]:
        out.append(f"  - lint and format: {code('ruff check .')}, {code('ruff format .')}")
    out += [f"  - types: {code(t)}" for t in ("mypy", "pyright") if t in p["tools"]]
    if p["scripts"]:
        out.append("  - entry points: " + ", ".join(code(x) for x in p["scripts"][:10]))
    return out


def _commands(s: Survey) -> list[str]:
    out: list[str] = _python_commands(s.python) if s.python is not None else []
    if s.node is not None:
        n = s.node
        out.append(f"- Node (package.json, {code(n['manager'])}):")
        out.append(f"  - install: {code(n['manager'] + ' install')}")
        for name, command in n["scripts"]:
            out.append(f"  - {code(n['manager'] + ' run ' + name)}: {code(command)}")
    if s.make:
        out.append(f"- Make ({code(s.makefile)}): " + ", ".join(code("make " + t) for t in s.make))
    if s.cargo is not None:
        out.append(
            "- Rust (Cargo.toml): "
            + ", ".join(code(c) for c in ("cargo build", "cargo test", "cargo clippy", "cargo fmt"))
        )
    if s.go:
        out.append(
            f"- Go (go.mod, module {code(s.go)}): "
            + ", ".join(code(c) for c in ("go build ./...", "go test ./...", "go vet ./..."))
        )
    if s.known:
        out.append("- Also here: " + ", ".join(dict.fromkeys(s.known)))
    return out


def _about(s: Survey) -> list[str]:
    out = ["## Project", ""]
    title = s.title or (s.python or s.node or s.cargo or {}).get("name", "") or s.root.name
    described = s.summary or next(
        (d.get("description", "") for d in (s.python, s.node, s.cargo) if d), ""
    )
    out.append(f"**{prose(title, 120)}**" + (f": {prose(described)}" if described else ""))
    if s.readme:
        out.append(f"(from {code(s.readme)}; see it for more)")
    if s.languages:
        out += ["", "Languages (files): " + ", ".join(f"{n} {c:,}" for n, c in s.languages)]
    return out


def _layout(s: Survey) -> list[str]:
    if not s.top:
        return []
    out = ["", "## Layout", ""]
    for name, files in s.top[:30]:
        out.append(
            f"- {code(name + '/')}: {files:,} files" if files is not None else f"- {code(name)}"
        )
    if s.walk_incomplete:
        out.append("- (large repository: the counts stop after the first 20,000 entries)")
    return out


def _ci(s: Survey) -> list[str]:
    if not s.workflows and not s.other_ci:
        return []
    out = ["", "## CI", ""]
    for name, runs in s.workflows:
        shown = "; ".join(code(r) for r in runs) if runs else "no `run:` steps"
        out.append(f"- {code('.github/workflows/' + name)}: {shown}")
    out += [f"- {code(name)}" for name in s.other_ci]
    return out


def render_draft(s: Survey, today: datetime.date | None = None) -> str:
    """The AGENTS.md text for a survey."""
    day = (today or datetime.datetime.now(datetime.UTC).date()).isoformat()
    commands = _commands(s) or ["- (no build file found: add how to build, test and lint)"]
    lines = [
        "# AGENTS.md",
        "",
        f"<!-- First draft by codebot /init on {day}, from what the repository shows. "
        "Edit it: keep what an agent could not infer from the code. -->",
        "",
        *_about(s),
        *_layout(s),
        "",
        "## Commands",
        "",
        *commands,
        *_ci(s),
        "",
        "## Conventions",
        "",
        "- (code style, naming, how changes are tested and reviewed, what not to touch)",
        "",
    ]
    return "\n".join(lines)


class InitError(Exception):
    pass


def write_agents_md(root: Path, text: str, *, force: bool = False) -> Path:
    """Write `text` as `root/AGENTS.md`: only when none exists, or (`force`) over a regular
    file. Raises FileExistsError when one exists and InitError for what is refused."""
    target = root / NAME
    data = text.encode("utf-8")
    if not force:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return target
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return write_agents_md(root, text)
    if not stat.S_ISREG(st.st_mode):
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise InitError(f"{visible(str(target))} is {kind}; not replaced (remove it first)")
    with atomic_file(target, mode=stat.S_IMODE(st.st_mode)) as fh:
        fh.write(data)
    return target


@dataclass(frozen=True, slots=True)
class InitResult:
    """What `/init` did: the text to show and whether to ask the model to improve it."""

    text: str
    written: bool = False
    improve: bool = False


USAGE = "usage: /init [--force] [--draft]  (--force replaces AGENTS.md; --draft asks no model)"


def run_init(root: Path, args: str, *, model: bool) -> InitResult:
    """`/init [--force] [--draft]` at `root`; `model`: a real model is connected."""
    from codebot.ui.init_survey import survey

    words = args.split()
    if any(w not in ("--force", "--draft") for w in words):
        return InitResult(f"/init: unknown argument {visible(args)[:80]!r}\n{USAGE}")
    force, draft_only = "--force" in words, "--draft" in words
    s = survey(root)
    text = render_draft(s)
    notes = "".join(f"\n  note: {n}" for n in s.notes)
    where = visible(str(root / NAME))
    try:
        write_agents_md(root, text, force=force)
    except FileExistsError:
        return InitResult(
            f"{where} already exists; nothing written. `/init --force` replaces it with this "
            f"draft (or copy what you want from it):{notes}\n\n{text}"
        )
    except (InitError, OSError) as exc:
        return InitResult(f"/init: not written: {visible(str(exc))}{notes}")
    others = [n for n in ("CLAUDE.md", "GEMINI.md") if os.path.lexists(root / n)]
    also = (
        f"\n{' and '.join(others)} at the root also apply; keep them consistent." if others else ""
    )
    said = (
        f"wrote {where} ({len(text.splitlines())} lines) from the repository's files{notes}{also}"
    )
    if model and not draft_only:
        return InitResult(said + "\nasking the model to check and improve it…", True, True)
    hint = "" if draft_only else " (interactively, with a model, /init also asks it to improve it)"
    return InitResult(said + f"\nreview and edit it{hint}", written=True)
