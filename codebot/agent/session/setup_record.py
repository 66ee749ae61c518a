"""What a session was started with, kept in its transcript so a resume can start the same.

A `setup` record (`{"type": "setup", "setup": {...}}`) is written after the header when
the transcript is first written, and again whenever the setup changes (another model,
an "allow for this session" rule); the last one in the file is the one in force.
Transcripts written before these records have none: a resume then restores nothing.

Read as hostile: a session file can be copied in from anywhere, so every field is checked
for its type, and a wrong one is dropped with a diagnostic naming it (never a crash).
Paths are recorded absolute. Pure: no session, no settings; `setup.py` builds the record
and `commands/resume_setup.py` applies it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

KIND = "setup"
_PREFIX = '{"type": "setup"'  # how Transcript._write spells the start of such a line
#: Bounds for what is taken from a file: a planted record must not cost memory or screen.
MAX_ITEMS = 64
MAX_TEXT = 4096


@dataclass(frozen=True)
class SetupRecord:
    """`effort` is the session's reasoning effort (`--effort`, config `effort`; None when
    unset: a skill's own effort is per turn and not recorded). `plugin_dirs` are the
    `--plugin-dir` folders."""

    model: str | None = None
    api_base: str | None = None
    effort: str | None = None
    skills_dirs: tuple[str, ...] = ()
    plugin_dirs: tuple[str, ...] = ()
    add_dirs: tuple[str, ...] = ()
    #: "allow for this session" rules (pattern texts), restored only into the same project.
    session_rules: tuple[str, ...] = ()
    #: The project root the session ran in when this record was written: the one its
    #: rules were given for (a session resumed in another project writes its own).
    project: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in fields(self)
        }

    @classmethod
    def from_json(cls, data: object) -> tuple[SetupRecord, list[str]]:
        """The record in `data` and what was wrong with it: every field of the wrong type
        (or too long) is left at its default and named; unknown fields are ignored (a
        later codebot may add some)."""
        if not isinstance(data, dict):
            return cls(), [f"the setup record is {type(data).__name__}, not an object; ignored"]
        problems: list[str] = []
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data or data[f.name] is None:
                continue
            value = data[f.name]
            if f.default is None:  # a text field
                if isinstance(value, str) and 0 < len(value) <= MAX_TEXT and "\0" not in value:
                    values[f.name] = value
                else:
                    problems.append(f"field {f.name!r} is not a text ({_shown(value)}); ignored")
            elif _text_list(value):
                values[f.name] = tuple(value)
            else:
                problems.append(
                    f"field {f.name!r} is not a list of at most {MAX_ITEMS} texts "
                    f"({_shown(value)}); ignored"
                )
        return cls(**values), problems


def _text_list(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) <= MAX_ITEMS
        and all(isinstance(v, str) and 0 < len(v) <= MAX_TEXT and "\0" not in v for v in value)
    )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_setups(path: Path) -> list[object]:
    """Every setup record's raw value in the transcript at `path`, in order ([] when it has
    none or cannot be read)."""
    found: list[object] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.startswith(_PREFIX):  # cheap: most lines are messages
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a truncated last line from a killed process
                if isinstance(rec, dict) and rec.get("type") == KIND:
                    found.append(rec.get("setup"))
    except OSError:
        return []
    return found


def read_setup(path: Path) -> tuple[SetupRecord | None, list[str]]:
    """The last setup record of the transcript at `path` (None when it has none, or cannot
    be read) and the problems found in it, each naming the file."""
    found = read_setups(path)
    if not found:
        return None, []
    record, problems = SetupRecord.from_json(found[-1])
    return record, [f"session file {path.name}: {p}" for p in problems]


def one_line(text: str) -> str:
    """Recorded text shown on one line, every control character escaped (the file is
    hostile: an endpoint or a folder name may carry terminal escapes)."""
    from codebot.display import visible

    return visible(text).replace("\n", "\\n")


def existing_dirs(
    recorded: tuple[str, ...], what: str, project_dir: Path, said: list[str]
) -> list[Path]:
    """The recorded folders that are still folders; each other one is skipped and said."""
    found: list[Path] = []
    for text in recorded:
        path = Path(text)
        if not path.is_absolute():
            said.append(f"the session's {what} {one_line(text)} is not an absolute path; skipped")
        elif not path.is_dir():
            said.append(
                f"the session's {what} {folders([path], project_dir)} no longer exists; skipped"
            )
        elif path not in found:
            found.append(path)
    return found


def folders(paths: Iterable[str | Path], project_dir: Path) -> str:
    """Folders as the person would type them: relative to the project inside it."""
    from codebot.display import home_short

    out = []
    for p in map(Path, paths):
        try:
            out.append(str(p.relative_to(project_dir)) or ".")
        except ValueError:
            out.append(home_short(p))
    return ", ".join(one_line(t) for t in out)


def rules_for(records: list[object], session_project: str, project_dir: Path) -> list[str]:
    """The session allow rules to restore: those of the last record written in this very
    project root (a record without a project counts as the session's own, `session_project`
    from its header). Rules were given for one project; another project's never come in."""
    for raw in reversed(records):
        record, _problems = SetupRecord.from_json(raw)  # the last one's are said by read_setup
        if (record.project or session_project) == str(project_dir):
            return list(record.session_rules)
    return []
